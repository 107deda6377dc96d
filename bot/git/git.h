/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything lorebot does with libgit2 goes through bot/git/git*.c and
 * bot/git/diff.c, the only files that include git2.h (through
 * bot/git/git-int.h): git-config files (gitcfg.h), diffs (diff.h), the
 * repository of the apply step (gitrepo.h), a developer's repository
 * (gitdev.h), and here the files and commits of a revision that the
 * checkers read.
 */
#ifndef LOREBOT_GIT_H
#define LOREBOT_GIT_H

#include "lib/strbuf.h"

/*
 * The one way lorebot resolves a revision: rev as git rev-parse takes it
 * (a full or abbreviated id, a branch, a remote-tracking branch,
 * "HEAD~2"), or "<name>" matching exactly one refs/remotes/<remote>/<name>,
 * in the repository at repo_dir (its git directory, or the top of its work
 * tree), as a full commit id.  0; -ENOENT with "'<rev>' is not a commit"
 * in err (no such name, or not a commit) or "'<rev>' is ambiguous"; -EIO
 * when the repository cannot be opened.  gitrepo_resolve_commit()
 * (bot/git/gitrepo.h) and gitdev_resolve() (bot/git/gitdev.h) do the same on a
 * repository that is open.
 */
int git_rev_resolve(const char *repo_dir, const char *rev, char out[41],
		    struct strbuf *err);

/*
 * The contents of path as of rev (a commit, a tree id, a branch) in the
 * repository at repo_dir: 0, -ENOENT when rev or path is not there, -EIO.
 */
int git_read_file_at(const char *repo_dir, const char *rev, const char *path,
		     struct strbuf *out);
/*
 * The files under a directory of a revision: w->dir ("mm"), w->tree_id
 * gets the id of its tree; then, unless w->file is NULL, every blob below
 * it that w->want() takes is read and handed to w->file() with its path
 * ("mm/khugepaged.c"); a non-zero return stops the walk and is returned.
 * 0, -ENOENT (no such revision or directory), -EIO.
 */
struct git_walk {
	const char *dir;
	char tree_id[41];
	/* read this blob (its id in hex)?  false: skip it */
	bool (*want)(const char *path, const char *id, void *data);
	int (*file)(const char *path, const char *text, size_t len, void *data);
	void *data;
};

int git_walk_dir(const char *repo_dir, const char *rev, struct git_walk *w);

/* The subject line of commit id (abbreviated is fine): 0, -ENOENT, -EIO */
int git_commit_subject(const char *repo_dir, const char *id, struct strbuf *out);

/* libgit2 needs process-wide setup; idempotent */
void git_lib_init(void);

#endif
