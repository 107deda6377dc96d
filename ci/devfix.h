/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lorebot check --fix: the packed prototypes one-line-args suggests,
 * as a patch on top of the checked range (printed), or as fixup!
 * commits on the developer's branch (--apply), one per patch that had
 * findings, so "git rebase -i --autosquash" folds each into its patch.
 *
 * A suggestion replaces the lines it quotes.  They are looked for in the
 * file as of the tip of the range (nearest to where the patch had them);
 * a prototype that a later patch changed again is left alone and said so.
 */
#ifndef LOREBOT_DEVFIX_H
#define LOREBOT_DEVFIX_H

#include "ci/devrange.h"

struct devfix_edit {
	int patch;		/* the patch whose finding it is */
	char *path;
	char *old, *new;	/* the file before and after this patch's edits */
	size_t old_len, new_len;
	int count;		/* prototypes packed */
};

struct devfix {
	struct devfix_edit *v;	/* by patch, then path */
	size_t nr, alloc;
	struct strbuf skipped;	/* "file:line: why" lines */
};

#define DEVFIX_INIT { .skipped = STRBUF_INIT }

/* The edits for the one-line-args findings of f; 0, or -1 with err */
int devfix_prepare(struct devfix *fx, struct devrange *r,
		   const struct check_series *s, const struct findings *f,
		   struct strbuf *err);
void devfix_release(struct devfix *fx);

/* All edits as a patch "git apply" takes, each patch's under a comment */
void devfix_diff(const struct devfix *fx, const struct check_series *s,
		 struct strbuf *out);

/*
 * Commit the edits as "fixup! <subject>" commits on the current branch,
 * which must be the tip of the range, refusing when the index or the
 * work tree has changes to the files concerned.  What was committed is
 * described in done, one line per commit.  0, -1 with err.
 */
int devfix_apply(struct devfix *fx, struct devrange *r,
		 const struct check_series *s, struct strbuf *done,
		 struct strbuf *err);

#endif
