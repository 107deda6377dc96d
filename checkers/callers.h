/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who calls a function, and where it is defined: what the rules need to
 * look one level (or two) beyond the function a patch changes.
 *
 * Call sites come from the series (every touched file, as the latest
 * patch touching it leaves it: whole post-images with a tree, else the
 * hunks) and, with a tree, from the tree itself: a call index of mm/ and
 * the mm headers of include/linux/ says which files call or define a
 * name, and only those files are read and parsed.  The index is built
 * once per tree (the ids of those two directories) and kept in
 * <cachedir>/callindex/, so that a series costs a lookup and a few
 * files, not a scan of the tree.
 *
 * Callers outside mm/ and those headers are not seen; a rule treats the
 * callers it finds as all of them only for static functions or when a
 * tree was given (callers_have_tree()).
 */
#ifndef LOREBOT_CALLERS_H
#define LOREBOT_CALLERS_H

#include "checkers/rules.h"

struct call_site {
	const struct cview *v;	/* valid until check_run() returns */
	const char *path;
	int tok;		/* the callee's name */
	int fn;			/* the caller: a CN_FUNC node, or -1 */
};

struct call_sites {
	struct call_site *v;
	size_t nr, alloc;
};

#define CALL_SITES_INIT { 0 }

/* Every call of name[0..len) the series and its tree show */
void callers_find(struct check_ctx *c, const char *name, int len,
		  struct call_sites *out);
void callers_sites_release(struct call_sites *cs);
/* The definition of name: its view and CN_FUNC node; false when unseen */
bool callers_def(struct check_ctx *c, const char *name, int len,
		 const struct cview **v, int *fn);
/* Is a tree behind callers_find() (not only the hunks of the series)? */
bool callers_have_tree(const struct check_ctx *c);

/* checkers/callindex.c: the tree's index */
struct callindex;

/*
 * The index of tree t at rev, from cachedir when it is there, else built
 * (and saved there when cachedir is writable).  NULL when the tree cannot
 * be walked (no mm/ directory, no walk()).
 */
struct callindex *callindex_open(struct check_tree *t, const char *rev,
				 const char *cachedir);
void callindex_free(struct callindex *ci);
/*
 * The files that call (kind 'c') or define ('d') name: fn(path, data)
 * for each, in path order.
 */
void callindex_files(const struct callindex *ci, const char *name, int len,
		     char kind, void (*fn)(const char *path, void *data),
		     void *data);

#endif
