/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Immutable source trees for build jobs.
 *
 * A build must never read a tree that something is patching (a build
 * of seed 004 once failed on a half-applied patch).  checkout_tree()
 * exports the tree of a commit into <root>/<tree-id>: it is written
 * into a temporary directory under root, made read-only (files 0444 or
 * 0555, directories 0555) and renamed into place, so a directory that
 * exists is complete and is never written again.  The name is the tree
 * id: two versions with the same tree share one directory, and a path
 * names exactly one content.  Builds use it as the source tree and
 * write only to their own O= directory.
 *
 * With reuse (an earlier checkout under the same root, usually the
 * base), files that did not change are hard links into it instead of
 * copies: a series touching a few of the kernel's 90,000 files costs a
 * few writes and many link()s.  This is safe because neither directory
 * is ever written again.
 *
 * Several processes may check out the same tree at once: one rename
 * wins, the others remove their copy and use the winner's.
 */
#ifndef LOREBOT_CHECKOUT_H
#define LOREBOT_CHECKOUT_H

#include "bot/git/gitrepo.h"

/*
 * Export rev (a commit, branch or tree-ish) under root; the directory's
 * path is put in path.  reuse_rev names an earlier checkout to
 * hard-link unchanged files from (ignored when it is not checked out
 * under root); NULL: the newest checkout under root (yesterday's
 * mm-new for today's).  0, or -errno with the reason in err.
 */
int checkout_tree(struct gitrepo *r, const char *rev, const char *root,
		  const char *reuse_rev, struct strbuf *path, struct strbuf *err);

/* Remove a checkout (it is read-only); 0 or -errno */
int checkout_remove(const char *path);

#endif
