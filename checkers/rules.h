/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checkers share inside checkers/: the touched files of a
 * patch as code, and the entry points of every checker in the table.
 */
#ifndef LOREBOT_RULES_H
#define LOREBOT_RULES_H

#include "checkers/check.h"
#include "checkers/cscan.h"

/* A touched file of a patch */
struct check_file {
	const struct diff_file *df;
	const char *path;	/* post-image path (pre-image when deleted) */
	bool is_c;		/* .c or .h: view is set */
	struct cview view;	/* whole post-image (view.complete) or hunks */
	int *mail_start;	/* with a tree: each hunk's new start as mailed */
};

/* What rules learn over the series: call sites (checkers/callers.h) */
struct check_kb *callers_kb_new(void);
void callers_kb_free(struct check_kb *kb);

/* Lines the patch only moves stop counting as added (checkers/moved.c) */
void moved_mark_patch(struct check_patch *p);

/* A post-image line as the mail numbers it, where apply put it */
int check_patch_line(const struct check_patch *p, const char *path, int line);

/*
 * Move the new-side line numbers of df's hunks to where their lines are
 * in the post-image text (a hunk applied at an offset); the number of
 * hunks moved.  checkers/relocate.c
 */
int relocate_diff_file(struct diff_file *df, const char *text, size_t len);

/* Each file of each patch of the series, C files only when c_only */
#define for_each_check_file(s, pi, fi, pt, f)				\
	for ((pi) = 0; (pi) < (s)->nr; (pi)++)				\
		for ((pt) = (s)->patches[pi], (fi) = 0;			\
		     (fi) < (pt)->nr_files && ((f) = (pt)->files[fi]); (fi)++)

/* Does a rule look at code whose lines are (not) added?  --preexisting */
static inline bool check_sees(const struct check_ctx *c, bool added)
{
	return added || c->o->preexisting;
}

/*
 * Report at a token of the current file's view, quoting first..last; on
 * a line the series does not change it becomes a pre-existing note.
 */
struct finding *check_report_at(struct check_ctx *c, enum check_severity sev,
				int tok, int qfirst, int qlast,
				const char *fmt, ...) PRINTF(6, 7);
/*
 * The same, for a problem the series makes at token tok by what it adds
 * at token cause (a lock taken before an unchanged return): when the line
 * of cause is added it is reported as the series' own, wherever tok is
 */
struct finding *check_report_caused(struct check_ctx *c, enum check_severity sev,
				    int tok, int cause, int qfirst, int qlast,
				    const char *fmt, ...) PRINTF(7, 8);

/*
 * The checkers (the table of checkers/checkers.c): each file of a rule
 * exports its descriptor, checkers/<file>.c <file>_checker, and nothing
 * else of the rule; checkers/seriescheck.c holds six, seriescheck_<rule>
 */
extern const struct checker lazyfree_checker;
extern const struct checker progress_checker;
extern const struct checker oneline_checker;
extern const struct checker ptemapnull_checker;
extern const struct checker pteexit_checker;
extern const struct checker rcuexit_checker;
extern const struct checker unlockexit_checker;
extern const struct checker atomicsleep_checker;
extern const struct checker lockassert_checker;
extern const struct checker checkpatch_checker;
extern const struct checker seriescheck_signoff;
extern const struct checker seriescheck_fixes;
extern const struct checker seriescheck_subject;
extern const struct checker seriescheck_numbering;
extern const struct checker seriescheck_cover;
extern const struct checker seriescheck_base;
extern const struct checker codespell_checker;

/*
 * What the current rule could not decide from the hunks alone (no tree):
 * one note per patch names the rules and places (check.c)
 */
void check_undecided(struct check_ctx *c, int tok, const char *fmt, ...) PRINTF(3, 4);

/* Identifier helpers */
bool check_ident_has(const struct ctok *t, const char *part);	/* substring, any case */
/* Does t contain one of w[0..n), in any case? */
bool check_ident_has_any(const struct ctok *t, const char *const *w, size_t n);

#endif
