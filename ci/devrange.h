/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "lorebot check" checks in a developer's own tree: the range of
 * commits, found the way the developer would name it, and the series of
 * patch mails made from it for the checker engine.
 *
 * Without a range: a branch prepared with "b4 prep" is its own series
 * (b4's data: the branch's b4-prep-cover-strategy and b4-tracking
 * config, the cover letter commit with b4's tracking marker, or the
 * branch description), else the commits of the current branch not in
 * its upstream (@{upstream}..HEAD).  With one: "A..B" (either side may
 * be empty, meaning HEAD), or one commit.
 *
 * Everything is read with libgit2 (bot/git/git.h, gitdev_*): no checkout,
 * no index, no refs, no git process.  Every patch of the series has
 * pre_rev/post_rev set to its parent and itself, so the checkers read
 * whole files from the commits without applying anything.
 */
#ifndef LOREBOT_DEVRANGE_H
#define LOREBOT_DEVRANGE_H

#include "bot/git/gitdev.h"
#include "checkers/check.h"

/* A range longer than this is refused (a missing upstream, most likely) */
#define DEVRANGE_MAX 500

enum devrange_kind {
	DEVRANGE_UPSTREAM,	/* @{upstream}..HEAD */
	DEVRANGE_B4,		/* a b4 prep branch */
	DEVRANGE_SPEC,		/* given on the command line */
};

struct devrange {
	struct gitdev_repo repo;
	enum devrange_kind kind;
	char *desc;		/* "origin/mm-new..HEAD", "b4/foo (b4 prep, v2)" */
	char base[41];		/* the parent of the first patch */
	char tip[41];		/* the last patch */
	struct gitdev_commits commits;	/* the patches, oldest first */
	/* from b4 prep */
	char *cover;		/* the cover letter (comments removed), or NULL */
	int revision;		/* the series version; 0: not known */
	char *prefixes;		/* "RFC" ..., or NULL */
	char *change_id;
	char *base_branch;	/* the branch the series forked from */
};

#define DEVRANGE_INIT { .kind = DEVRANGE_UPSTREAM }

/*
 * Open the repository holding dir and find the range: spec, or NULL
 * for the branch's own.  0, or -1 with err saying what is missing and
 * what to do about it.
 */
int devrange_find(struct devrange *r, const char *dir, const char *spec,
		  struct strbuf *err);
void devrange_release(struct devrange *r);

/*
 * Fill s with the cover letter (b4) and one patch per commit, with
 * their tree revisions; s->tree is left to the caller.  0, or -1 with
 * err.  Commits that change nothing are left out, as format-patch
 * does.  A patch's post_rev is its commit.
 */
int devrange_series(struct devrange *r, struct check_series *s,
		    struct strbuf *err);

#endif
