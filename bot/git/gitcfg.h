/* SPDX-License-Identifier: GPL-2.0 */
/* Reading git-config files with libgit2 (bot/git/gitcfg.c) */
#ifndef LOREBOT_GITCFG_H
#define LOREBOT_GITCFG_H

#include "lib/strbuf.h"

/* Called per config entry, in file order; return non-zero to stop */
typedef int (*gitcfg_cb)(const char *name, const char *value, void *data);

int gitcfg_read_file(const char *path, gitcfg_cb cb, void *data,
		     struct strbuf *err);
/* The user's global/XDG/system config, plus repo_dir's if given */
int gitcfg_read_default(const char *repo_dir, gitcfg_cb cb, void *data,
			struct strbuf *err);

#endif
