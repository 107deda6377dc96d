/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a build of one series may leave in a shared object directory for
 * the next: nothing.  An arch's obj/ is shared by every series on one
 * base, and a series' make can write anything there (an object newer
 * than its source, which the next series' make would link as it is).
 *
 * objguard_save() records every entry of obj/ after a build the tree
 * trusts (its base, a commit of a git.base branch): type and inode, and
 * for files and links size, mtime and ctime.  objguard_restore() removes
 * whatever is new or differs since, so that make builds it again from the
 * sources: ctime cannot be set back by the build user, so a file written
 * and dated back is found too.  Directories are compared by inode only
 * (their times change with every entry), their entries one by one.
 *
 * Names given by the caller in skip (lorebot's own files, ".config"
 * which kbuild.c restores by content) are neither recorded nor removed,
 * unless they are not a regular file: a link, a FIFO or a directory
 * left at one of them is removed like anything new.  No link is
 * followed: obj/ is the build user's.
 */
#ifndef CI_OBJGUARD_H
#define CI_OBJGUARD_H

#include "lib/strbuf.h"

/* 0, or -errno with err */
int objguard_save(const char *obj, const char *manifest,
		  const char *const *skip, struct strbuf *err);
/*
 * 0 with *removed (entries removed, a directory with what it held counts
 * once) and *missing (recorded entries not found as recorded: removed now,
 * or gone before; those in a removed directory each count), -ENOENT when
 * there is no manifest, or -errno with err.  obj/ is exactly as recorded
 * when both are 0.
 */
int objguard_restore(const char *obj, const char *manifest,
		     const char *const *skip, unsigned long *removed,
		     unsigned long *missing, struct strbuf *err);

/* Does the manifest record path (relative to obj/)?  False without one */
bool objguard_recorded(const char *manifest, const char *path);

#endif
