/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Credentials from files only lorebot's user can read: smtp.credentials,
 * kcidb.tokenfile, patchwork.tokenfile.  A file another user owns, or
 * that others may read, is refused with the command that fixes it.
 */
#ifndef LOREBOT_SECRET_H
#define LOREBOT_SECRET_H

#include "lib/strbuf.h"

/*
 * The file of configuration key `key` at path, whole (at most 64 KiB);
 * 0, or -1 with why in err ("smtp.credentials '/x' can be read by
 * others (mode 0644); refusing to use it (chmod 600 '/x')")
 */
int secret_read(const char *key, const char *path, char **buf, size_t *len,
		struct strbuf *err);

/* Its first line without blanks around it: a token (caller frees) */
int secret_token(const char *key, const char *path, char **token, struct strbuf *err);

#endif
