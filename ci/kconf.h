/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kconfig as the config repair (ci/repair.h) and the coverage reasons
 * (ci/cover.h) read it: the values of a .config, and an index of the
 * symbols a tree declares for one architecture.
 *
 * The index follows the tree's own "source" statements from the top
 * Kconfig with $(SRCARCH) set, so a symbol of another architecture's
 * Kconfig is not in it.  Per symbol it keeps where it is declared,
 * whether it has a prompt (a .config line can set it), the symbols
 * named in its "depends on" (and in the "if" and "menu" blocks around
 * it), and the symbols that select it.  It is not a Kconfig evaluator:
 * what a set of assignments becomes is olddefconfig's answer
 * (ci/repair.c); the index only says which symbols to try next and
 * why one did not stick.
 */
#ifndef LOREBOT_CI_KCONF_H
#define LOREBOT_CI_KCONF_H

#include "lib/strbuf.h"
#include "lib/strmap.h"

/* ---- a .config ---- */

struct kconf {
	struct strmap map;	/* "CONFIG_X" -> "y", "m", "64", "\"text\"" */
	char **v;		/* name, then value, for each (owned) */
	size_t nr, alloc;
};

#define KCONF_INIT { .map = STRMAP_INIT }

/* Values set in buf ("CONFIG_X=y"; "# CONFIG_X is not set" is no value) */
void kconf_parse(struct kconf *c, const char *buf, size_t len);
/* 0, or -errno */
int kconf_load(struct kconf *c, const char *path);
void kconf_release(struct kconf *c);
/* The value of sym ("CONFIG_X" or "X"), NULL when not set */
const char *kconf_get(const struct kconf *c, const char *sym);
/* Is sym =y (or, with module, =m too)? */
bool kconf_on(const struct kconf *c, const char *sym, bool module);
/* sym without its "CONFIG_", if it has one */
const char *kconf_bare(const char *sym);

/* ---- the symbols of a tree ---- */

struct kconf_sym {
	char *name;		/* without CONFIG_ */
	char *file;		/* first declaration, relative to the tree */
	bool prompt;		/* some declaration has one */
	char **deps;		/* names in its depends on / if / menu, "!X" negated */
	size_t deps_nr, deps_alloc;
	char **selected_by;	/* symbols whose entries select or imply it */
	size_t sel_nr, sel_alloc;
};

struct kconf_index {
	struct strmap map;	/* name -> struct kconf_sym */
	struct kconf_sym **v;
	size_t nr, alloc;
	size_t files;		/* Kconfig files read */
};

#define KCONF_INDEX_INIT { .map = STRMAP_INIT }

/*
 * Read srcdir/Kconfig and what it sources, $(SRCARCH) being srcarch
 * (x86, arm64, riscv).  0, or -1 with err (no Kconfig at the top, a
 * source loop deeper than it can be).  Sourced files that are missing
 * are skipped, as "osource" would.
 */
int kconf_index_build(struct kconf_index *ix, const char *srcdir,
		      const char *srcarch, struct strbuf *err);
void kconf_index_release(struct kconf_index *ix);
/* A symbol declared (config X) in the Kconfig of the arch, or NULL */
const struct kconf_sym *kconf_index_get(const struct kconf_index *ix,
					const char *name);

/* The kernel's source architecture of an ARCH= value (x86_64 -> x86) */
const char *kconf_srcarch(const char *kernel_arch);

/*
 * The arch directories (under srcdir/arch) whose Kconfig files declare
 * name, as "arm64, riscv"; empty when none does
 */
void kconf_declared_in_arches(const char *srcdir, const char *name,
			      struct strbuf *out);
/* ... whose Kconfig files select name ("select HAVE_ARCH_KASAN_HW_TAGS") */
void kconf_selected_in_arches(const char *srcdir, const char *name,
			      struct strbuf *out);

#endif
