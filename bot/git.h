/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything lorebot does with libgit2 goes through here (the only file
 * that includes git2.h): reading git-config files, parsing diffs, and
 * the repository operations of the apply step.
 */
#ifndef LOREBOT_GIT_H
#define LOREBOT_GIT_H

#include "bot/strbuf.h"

/* Called per config entry, in file order; return non-zero to stop */
typedef int (*gitcfg_cb)(const char *name, const char *value, void *data);

int gitcfg_read_file(const char *path, gitcfg_cb cb, void *data,
		     struct strbuf *err);
/* The user's global/XDG/system config, plus repo_dir's if given */
int gitcfg_read_default(const char *repo_dir, gitcfg_cb cb, void *data,
			struct strbuf *err);

/* libgit2 needs process-wide setup; idempotent */
void git_lib_init(void);

#endif
