/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own checkers on the .c files a series touches, the way
 * kbuild runs them: "make C=2 CHECK=<checker> mm/rmap.o" checks the file
 * whether or not make rebuilds it (an object already up to date is not
 * compiled again).
 *
 *	sparse		CHECK=sparse (build.sparse)
 *	coccicheck	CHECK=<src>/scripts/coccicheck MODE=report: every
 *			semantic patch of the tree's scripts/coccinelle/ in
 *			report mode (build.coccicheck)
 *	clang		"make LLVM=1 mm/rmap.o" in an O= directory of its
 *			own, obj/.lorebot-clang/, whose .config is obj/'s
 *			made again with LLVM=1 olddefconfig (build.clang, a
 *			list of arches; ci/kcheck-clang.c)
 *
 * A checker's messages come in units "<file>.<suffix>" ("mm/rmap.c.sparse")
 * with its tool ("sparse", "coccinelle", "clang"); sparse's "expected/got"
 * lines are folded into the warning they explain (ci/diag.c).  sparse's
 * and Coccinelle's errors are warnings here: they do not fail a build;
 * clang's are errors (the file does not build with clang).  Only the
 * checked files' units are kept from the step: a compile the make may redo
 * (a file whose build failed) is the normal build's business.
 *
 * At the base they are computed once per build directory, checker and
 * file and kept in <build dir>/<checker>/, like W=1's (ci/w1.h).
 */
#ifndef LOREBOT_CI_KCHECK_H
#define LOREBOT_CI_KCHECK_H

#include "ci/kbuild.h"

enum kcheck_kind {
	KCHECK_SPARSE,
	KCHECK_COCCI,
	KCHECK_CLANG,
	KCHECK_NR,
};

struct kcheck {
	const char *name;	/* "sparse", "coccicheck": JSON, config, logs */
	const char *tool;	/* of its diagnostics: "sparse", "coccinelle" */
	const char *suffix;	/* of its units: ".sparse" */
	const char *top;	/* the unit of what it prints outside any file */
	const char *programs[4];	/* needed on PATH */
	const char *package;	/* the Debian packages of programs */
	enum cfg_id key;	/* its configuration key: CFG_ID_build_sparse */
	bool arch_list;		/* key lists the arches it runs on, else a bool */
	bool errors;		/* its errors are errors (else warnings) */
	/* what a developer adds to make to see its findings (kcheck_recipe()) */
	const char *recipe_vars;
	bool own_obj;		/* in an O= directory of its own: "<obj>-clang" */
};

extern const struct kcheck kchecks[KCHECK_NR];

/* Does the configuration ask for c on arch ("x86_64")? */
bool kcheck_wanted(const struct kcheck *c, const struct config *cfg,
		   const char *arch);
/* The first of c's programs not on PATH, or NULL */
const char *kcheck_missing(const struct kcheck *c);

/*
 * Is a Coccinelle rule ("api/memdup", the diagnostic's option) one that
 * only asks for a nicer spelling of correct code (ci/kcheck-cocci.c)?  Is
 * diagnostic d such a rule's finding?  Style: counted, never mailed.
 */
bool kcheck_cocci_style(const char *rule);
bool kcheck_style(const struct diag *d);

/* Is unit one of checker c's; of any checker's */
bool kcheck_is_unit(const struct kcheck *c, const char *unit);
bool kcheck_any_unit(const char *unit);
/* "<file><suffix>" (caller frees) */
char *kcheck_unit(const struct kcheck *c, const char *file);

/*
 * Check files; the step holds their diagnostics, and every file's unit
 * (also the clean ones).  0 when it ran (see step->status: KBUILD_FAILED
 * when the checker failed; a file that does not compile is only not
 * checked), -1 with err.
 */
int kcheck_run(const struct kcheck *c, struct kbuild_tree *t,
		char *const *files, size_t nr, const char *name,
		struct kbuild_step *step, struct strbuf *err);

/*
 * The make lines, without lorebot, that show c's findings in files (.c
 * paths) in a kernel tree whose O= directory obj has the build's .config
 * and image: "make ARCH=x86_64 O=build C=2 mm/util.o"; for clang, its
 * own O= directory made from obj's .config first.  A line each.
 */
void kcheck_recipe(const struct kcheck *c, const struct kbuild_tree *t, const char *obj,
		   char *const *files, size_t nr, struct strbuf *sb);

/* The base's diagnostics of file: 0 and out filled, -1 when not kept */
int kcheck_base_load(const struct kcheck *c, const struct kbuild_tree *t,
		      const char *file, struct diag_list *out);
/* Keep the diagnostics of file's unit from a step run at the base */
int kcheck_base_save(const struct kcheck *c, const struct kbuild_tree *t,
		      const char *file, const struct diag_list *step_diags);

/*
 * A checker's make: kbuild_make() with o's name, targets, vars and obj;
 * what it printed about units[i] (a file's unit as make names it)
 * becomes files[i]'s unit of c, the rest is dropped.  See kcheck_run().
 */
int kcheck_make(const struct kcheck *c, struct kbuild_tree *t,
		char *const *files, const char *const *units, size_t nr,
		const struct kbuild_make_opts *o, struct kbuild_step *step,
		struct strbuf *err);

/* clang's run (ci/kcheck-clang.c): kcheck_run() of KCHECK_CLANG */
int kcheck_clang_run(struct kbuild_tree *t, char *const *files, size_t nr,
		     const char *name, struct kbuild_step *step, struct strbuf *err);

#endif
