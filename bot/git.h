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

/*
 * The contents of path as of rev (a commit, a tree id, a branch) in the
 * repository at repo_dir: 0, -ENOENT when rev or path is not there, -EIO.
 */
int git_read_file_at(const char *repo_dir, const char *rev, const char *path,
		     struct strbuf *out);
/* The subject line of commit id (abbreviated is fine): 0, -ENOENT, -EIO */
int git_commit_subject(const char *repo_dir, const char *id, struct strbuf *out);

/* libgit2 needs process-wide setup; idempotent */
void git_lib_init(void);

#endif
