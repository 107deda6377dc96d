/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The directories a repository reads beyond its own: the git directory
 * of a linked worktree (.git is a file, "gitdir: ...") and its common
 * directory ("commondir"), and the object directories its
 * objects/info/alternates name, recursively, as git follows them (a
 * clone made with --shared or --reference).  A sandbox that is given a
 * repository is given these too, read-only: nothing else of the host
 * is there.
 */
#ifndef LOREBOT_GITDIRS_H
#define LOREBOT_GITDIRS_H

#include <stddef.h>

/*
 * Up to max absolute, resolved paths into dirs (the caller frees each),
 * none of them inside repo; how many.  What cannot be read is left out:
 * the repository then fails in the sandbox as it would outside.
 */
size_t gitdirs_outside(const char *repo, char **dirs, size_t max);

#endif
