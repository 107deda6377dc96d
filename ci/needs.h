/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kbuild needs to compile a file: the Kconfig symbols of the
 * Makefile lines that build its object ("obj-$(CONFIG_DAMON) +=
 * damon/" in mm/Makefile, "obj-$(CONFIG_DAMON_VADDR) += vaddr.o" in
 * mm/damon/Makefile), up to the top of the tree, read from the tree's
 * own Makefiles (Kbuild first) with their ifdef/ifeq blocks and
 * composite objects (foo-y += bar.o, obj-$(CONFIG_X) += foo.o).
 *
 * It is the cheap half of the coverage (ci/cover.h): the reason a .c
 * file was not compiled, and what the config repair (ci/repair.h)
 * turns on.  Where several lines build the object, the one whose
 * symbols are already on wins, else the first.
 */
#ifndef LOREBOT_CI_NEEDS_H
#define LOREBOT_CI_NEEDS_H

#include "ci/cover.h"
#include "ci/kconf.h"

/*
 * The needs of path (a .c file, relative to srcdir) on srcarch (x86,
 * arm64, riscv) with configuration c: 0 and out filled (empty: always
 * built), or -1 with out->fixed saying why no configuration builds it
 * here ("arch/s390 is built for s390 only", "no Makefile line builds
 * mm/foo.o").  why (may be NULL) gets the Makefile lines that decide,
 * "mm/Makefile: obj-$(CONFIG_DAMON) += damon/".
 */
int needs_object(const char *srcdir, const char *path, const char *srcarch,
		 const struct kconf *c, struct cover_needs *out, struct strbuf *why);

#endif
