/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changed-line coverage of a build (ci/cover.h for the method): after a
 * patch is built, the units that read the files it changed are
 * preprocessed in its build directory, and each counted "+" line is
 * compiled or not, with a reason: a range of lines, why, the symbols
 * that would compile it, and whether it is another architecture's
 * code (which this architecture's figures leave out).
 *
 * Before the build, the same lines are predicted the cheap way (the
 * Makefiles and #if conditions against the base's .config) to find the
 * symbols the config repair (ci/repair.h) turns on.
 */
#ifndef LOREBOT_CI_COVER_RUN_H
#define LOREBOT_CI_COVER_RUN_H

#include "ci/cover.h"
#include "ci/kbuild.h"
#include "ci/repair.h"

/* Units preprocessed for a header, at most, once its lines are not all seen */
#define COVER_UNITS_PER_FILE 4

/* Is path one whose lines are counted (.c/.h of the kernel build)? */
bool cover_path_counted(const char *path);

struct cover_range {
	int from, to;		/* post-image lines */
	int lines;		/* counted lines in it */
	char *spans;		/* exactly which: "100-104,106-118" */
	char *reason;		/* "inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA" */
	char **needs;		/* CONFIG_ symbols that would compile it */
	size_t needs_nr, needs_alloc;
	bool arch;		/* another architecture's code */
	char *arches;		/* ... of these (arch/ directories: "arm64,powerpc"), or NULL */
};

struct cover_fresult {
	char *file;
	int changed, compiled, arch;	/* counted lines, compiled, other arch's */
	struct cover_range *r;		/* the lines not compiled */
	size_t nr, alloc;
};

struct cover_presult {
	bool done;		/* measured (a build that stopped before: not) */
	int changed, compiled, arch;
	struct cover_fresult *f;
	size_t nr, alloc;
	unsigned int units;	/* units preprocessed */
	uint64_t ms;
};

void cover_presult_release(struct cover_presult *p);

/* What the measure of one architecture's build keeps between patches */
struct cover_ctx {
	struct kbuild_tree *t;
	const struct repair *repair;	/* NULL: no repair ran */
	/*
	 * Symbols the repair turned off for the other branch (struct
	 * cover_predict), and the arch their lines are left to: a line
	 * that needs one on is not this arch's own (counted as arch);
	 * NULL: none
	 */
	const struct cover_needs *branched;
	const char *left_to;
	struct kconf config;		/* obj/.config */
	struct kconf_index ix;		/* for the reasons, read when needed */
	bool ix_done;
	char **cmds;			/* the units of obj/ ("mm/rmap.o") */
	size_t cmds_nr;
	bool cmds_done;
};

void cover_ctx_init(struct cover_ctx *cx, struct kbuild_tree *t,
		    const struct repair *repair);
void cover_ctx_release(struct cover_ctx *cx);

/*
 * Measure the lines commit adds over parent in cx->t, which holds commit
 * built.  0 (out filled), or -1 with err (infrastructure: git, the
 * sandbox).
 */
int cover_patch(struct cover_ctx *cx, const char *git_dir, const char *parent,
		const char *commit, struct cover_presult *out, struct strbuf *err);

/*
 * The cheap prediction for commits (oldest first) on base: the counted
 * lines each adds, read from git, against config, with the Makefiles of
 * srcdir (where overlay, path -> struct strbuf of the series' tip, does
 * not have them).  compiled(data, path) says whether a .c file that
 * exists at the base is compiled (NULL: the Makefiles say).  Adds
 * to want what would compile the others; *changed and *compiled count.
 */
struct cover_memo {
	struct strmap map;	/* header -> struct readers (ci/readers.h) */
	char **keys;
	size_t nr, alloc;
};

#define COVER_MEMO_INIT { .map = STRMAP_INIT }

void cover_memo_release(struct cover_memo *m);

struct cover_predict {
	const char *git_dir, *base;
	char *const *commits;
	size_t nr;
	const char *srcdir, *srcarch;
	bool (*compiled)(void *data, const char *path);
	void *data;
	/* each counted line with its prediction (bench/cover-measure.c); may be NULL */
	void (*line)(void *data, size_t k, const char *file, int line, bool compiled);
	/*
	 * headers: read by a unit (data, path)?  NULL: every header is
	 * taken to be read by some unit
	 */
	bool (*included)(void *data, const char *path);
	/*
	 * For a header included() says no unit reads: its readers
	 * (readers_find(), kept here between runs), of which one that
	 * config builds makes it read, else the cheapest to build is
	 * wanted.  NULL: readers are not looked for.
	 */
	struct cover_memo *readers;
	/*
	 * Take the other branch (an arch after the first of a build's,
	 * whose repair keeps what the lines want on): a symbol the lines
	 * want off is asked off even when lines want it on or would lose
	 * it (the first arch keeps it on and compiles those), unless a
	 * line of this arch's own arch/<srcarch>/ code would be lost; it
	 * is then not asked on.  Such symbols go into branched->off too
	 * (branched may be NULL).
	 */
	bool other_branch;
	struct cover_needs *branched;
};

/*
 * A changed header no unit of the base reads (p->included() said no):
 * is it read by a unit config builds, one of its readers (p->readers
 * must be set)?  If not, into want what builds the cheapest of them.
 */
bool cover_predict_header(const struct cover_predict *p, const struct kconf *config,
			  const char *header, struct cover_needs *want);

/*
 * want->off holds only symbols whose turning off keeps every line
 * predicted compiled compiled, and that no line wants on; with
 * p->other_branch, also those whose turning off loses none of this
 * arch's own arch/ code (and want->on then lacks them).
 */
int cover_predict_run(const struct cover_predict *p, const struct kconf *config,
		      struct cover_needs *want, int *changed, int *compiled,
		      struct strbuf *err);

#endif
