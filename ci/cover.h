/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changed-line coverage: which lines a series changed were compiled by
 * a build, and for those that were not, why and what would compile
 * them.
 *
 * The lines counted are the post-image "+" lines of .c and .h files of
 * the kernel build (not tools/, scripts/, Documentation/) that hold
 * code: blank and comment-only lines and the conditional directives
 * themselves (#if, #ifdef, #elif, #else, #endif) are not counted;
 * other directives (#define, #include) are.
 *
 * The method is exact: each unit that reads a changed file is
 * preprocessed with the command line kbuild compiled it with (its
 * .o.cmd), plus -E -dD, and the line markers of the output say which
 * lines of the file the compiler was given.  A source file is split
 * into conditional groups (the lines between an #if, #elif, #else and
 * #endif); a counted line is compiled when its innermost group was
 * taken in some unit: a group is taken when a line of it (a #define
 * with -dD) reached the output, or a group inside it was taken.  So a
 * macro invocation that spans lines counts all its lines, and code in
 * "if (IS_ENABLED(CONFIG_X))" counts as compiled: the compiler parses
 * and type-checks it, it only generates no code for it.  A header line
 * counts as compiled when some unit that includes it took its group.
 *
 * The reasons come from the conditions themselves: the Makefile line
 * that builds the file (ci/needs.h) and the #if conditions around the
 * line, evaluated against the build's .config (cover_expr_*): that is
 * also the cheap prediction the config repair starts from.
 */
#ifndef LOREBOT_CI_COVER_H
#define LOREBOT_CI_COVER_H

#include "lib/strbuf.h"
#include "ci/kconf.h"

/* ---- what a set of lines needs ---- */

struct cover_needs {
	char **on;		/* CONFIG_ symbols to enable */
	size_t on_nr, on_alloc;
	char **off;		/* ... to disable */
	size_t off_nr, off_alloc;
	char *fixed;		/* what no configuration changes ("#if 0"), or NULL */
};

void cover_needs_release(struct cover_needs *n);
void cover_needs_on(struct cover_needs *n, const char *sym);
void cover_needs_off(struct cover_needs *n, const char *sym);
void cover_needs_fixed(struct cover_needs *n, const char *why);
void cover_needs_merge(struct cover_needs *dst, const struct cover_needs *src);

/* ---- preprocessor conditions (cover-expr.c) ---- */

enum { COVER_FALSE = 0, COVER_TRUE = 1, COVER_UNKNOWN = -1 };

/*
 * Evaluate an #if expression as it is in a unit compiled into the
 * kernel (not a module) with config c: CONFIG_ symbols from c,
 * __KERNEL__ defined, MODULE and __ASSEMBLY__ not; any other name is
 * unknown.  COVER_TRUE, COVER_FALSE or COVER_UNKNOWN.
 */
int cover_expr_eval(const char *expr, const struct kconf *c);
/*
 * What makes expr true, from config c: the symbols to enable and to
 * disable; "fixed" when no configuration does (unknown names, numeric
 * comparisons, IS_MODULE()).
 */
void cover_expr_needs(const char *expr, const struct kconf *c,
		      struct cover_needs *out);

/* ---- a source file's lines and conditional groups (cover-src.c) ---- */

enum cover_kind {
	COVER_BLANK,		/* blank or comment: not counted */
	COVER_CODE,
	COVER_DIRECTIVE,	/* #define, #include, ...: counted */
	COVER_COND,		/* #if ... #endif lines: not counted */
};

struct cover_group {
	int parent;		/* -1 for group 0, the whole file */
	int line;		/* of the directive opening it */
	int first, last;	/* its lines */
	char *cond;		/* taken when this holds ("" for group 0) */
	char *directive;	/* "#ifdef CONFIG_NUMA", as written (shortened) */
};

struct cover_src {
	int nr;			/* lines */
	unsigned char *kind;	/* [1..nr] enum cover_kind */
	int *group;		/* [1..nr] innermost group */
	struct cover_group *g;
	size_t g_nr, g_alloc;
};

void cover_src_scan(struct cover_src *s, const char *text, size_t len);
void cover_src_release(struct cover_src *s);
static inline bool cover_src_counted(const struct cover_src *s, int line)
{
	return line >= 1 && line <= s->nr &&
		(s->kind[line] == COVER_CODE || s->kind[line] == COVER_DIRECTIVE);
}

/*
 * The cheap prediction: are line's conditions true in c (unknown names
 * count as true)?  With needs, what would make them so.
 */
bool cover_src_predict(const struct cover_src *s, int line, const struct kconf *c,
		       struct cover_needs *needs);

/* ---- evidence from preprocessed units (cover.c) ---- */

struct cover_file {
	char *path;		/* relative to the tree: "mm/rmap.c" */
	struct cover_src src;
	bool *taken;		/* per group: taken in some unit */
	bool entered;		/* some preprocessed unit read it */
	unsigned int units;	/* how many of them */
};

/* A file of the tree read into f (its text: NULL -> empty) */
void cover_file_init(struct cover_file *f, const char *path, const char *text,
		     size_t len);
void cover_file_release(struct cover_file *f);

/*
 * Read the output of "gcc -E -dD" of one unit (line markers naming
 * files under srcdir) and add what it shows about files[] to them.
 * Returns how many of the files it read.
 */
int cover_i_parse(const char *buf, size_t len, const char *srcdir,
		  struct cover_file **files, size_t nr);

/* Was line compiled, per the evidence so far? */
bool cover_file_compiled(const struct cover_file *f, int line);

/*
 * The outermost group around line that was not taken (its parent was),
 * or -1: the line is compiled, or the file was not read at all.
 */
int cover_file_blocker(const struct cover_file *f, int line);

#endif
