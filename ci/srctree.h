/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel repository as builds see it, through the git command line
 * (lib/run.h): resolving revisions, listing the commits of a series, the
 * files and lines they change, and checking a commit out into a private
 * source tree with an index of its own.  Nothing here writes to the
 * repository: no HEAD, no index, no worktree registration.
 *
 * A private tree is updated with "git read-tree -m -u", which rewrites
 * only the files that differ from what the tree holds, so the mtimes of
 * everything else stay and make rebuilds only what a commit changed.
 */
#ifndef LOREBOT_CI_SRCTREE_H
#define LOREBOT_CI_SRCTREE_H

#include "lib/strbuf.h"

#define OID_HEX 41

struct srctree_commit {
	char id[OID_HEX];
	char *subject;
};

struct srctree_commits {
	struct srctree_commit *v;
	size_t nr, alloc;
};

/* The repository's git directory (absolute); 0 or -1 with err */
int srctree_git_dir(const char *repo, struct strbuf *git_dir,
		    struct strbuf *err);
int srctree_merge_base(const char *git_dir, const char *a, const char *b,
		       char out[OID_HEX], struct strbuf *err);
/* "git rev-parse REVS..." (at most 18): one object id per line in out */
int srctree_rev_parse(const char *git_dir, const char *const *revs,
		      struct strbuf *out, struct strbuf *err);
/* Is commit a an ancestor of (or equal to) b?  False when b is not there */
bool srctree_is_ancestor(const char *git_dir, const char *a, const char *b);
/*
 * base..tip oldest first, with subjects; a merge commit in the range is
 * an error (a series is a line of patches).
 */
int srctree_series(const char *git_dir, const char *base, const char *tip,
		   struct srctree_commits *out, struct strbuf *err);
void srctree_commits_release(struct srctree_commits *c);

/* Paths changed between a and b (renames as delete + add), one per line */
int srctree_changed(const char *git_dir, const char *a, const char *b,
		    struct strbuf *paths, struct strbuf *err);
/* "git diff -U0 -M a b" for the line maps of ci/delta.h */
int srctree_diff(const char *git_dir, const char *a, const char *b,
		 struct strbuf *diff, struct strbuf *err);

/* The content of path at commit; 0, or -1 with err (not there, say) */
int srctree_show(const char *git_dir, const char *commit, const char *path,
		 struct strbuf *out, struct strbuf *err);

/*
 * Make dir (created when missing) hold commit, with index as its index
 * file; only files that differ are written.  0 or -1 with err.
 */
int srctree_checkout(const char *git_dir, const char *dir, const char *index,
		     const char *commit, struct strbuf *err);

#endif
