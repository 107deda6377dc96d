/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A struct check_tree backed by a git repository: files are read from
 * commits and trees with libgit2 (git_read_file_at()), Fixes: ids are
 * looked up there too.
 *
 * tree_apply() applies the patches of a series to a base so that
 * every patch has a pre-image and post-image revision.  It never writes
 * to the repository: a scratch bare repository borrows its objects
 * (objects/info/alternates) and the new trees live there.
 *
 * The patches are applied by the apply engine (bot/apply/apply.h), so the
 * checkers see exactly the post-images 'lorebot apply' makes.
 */
#ifndef LOREBOT_CHECK_TREE_H
#define LOREBOT_CHECK_TREE_H

#include "checkers/check.h"

struct git_tree {
	struct check_tree base;
	char *repo;		/* the repository given (work tree or bare) */
	char *gitdir;		/* its git directory, absolute */
	char *scratch;		/* private directory holding scratch.git */
	char *scratch_git;
};

/* 0, or -1 with the reason in err (not a git repository...) */
int tree_open(struct git_tree *t, const char *repo, struct strbuf *err);
void tree_release(struct git_tree *t);

/*
 * Apply s to the first base that exists: s->base_commit, then each of
 * bases (branch names, "HEAD").  Sets s->base_rev and each patch's
 * pre_rev/post_rev; a patch that does not apply gets apply_error and
 * stops the series there (later patches stay without a tree).
 * 0 when a base was found (even if patches failed), -1 otherwise.
 */
int tree_apply(struct git_tree *t, struct check_series *s,
	       const char *const *bases, size_t nr_bases, struct strbuf *err);

#endif
