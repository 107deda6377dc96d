/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checker engine: a series of patches goes in, findings come out.
 *
 * Input is a struct check_series: the patches (each parsed into a
 * struct patch and a struct diff by diff_parse()), the cover letter, and
 * optionally a tree (struct check_tree) that can read the pre-image and
 * post-image of every touched file, so rules can read whole functions.
 * Without a tree (a bare mbox) rules work from the hunks and say so when
 * they could not see enough.
 *
 * Checkers are listed in one table (checkers/checkers.c), each with a
 * scope: once per series, per patch, or per touched file of a patch.
 * They are enabled by default or not, and the set can be changed like
 * gcc's -W flags: "checkpatch,-codespell" (see check_select()).
 *
 * Output is a list of findings, each on a line the series adds or
 * changes (or on the commit message, the cover letter, the series).
 *
 * Usage (what ci/mboxcheck.c and ci/devcheck.c do; cmd/cmd-check.c sets
 * the options from the check.* keys first):
 *	struct check_opts o = CHECK_OPTS_INIT;
 *	struct check_series s = CHECK_SERIES_INIT;
 *	struct findings f = FINDINGS_INIT;
 *	check_select(&o, "-checkpatch", &err);
 *	check_series_add(&s, check_patch_from_raw(raw, len, &err));  per mail,
 *		the cover letter first (its n = 0)
 *	check_run(&s, &o, &f);
 *	findings_print_text(&f, &s, stdout) or findings_to_json(&f, &s)
 *	check_findings_release(&f); check_series_release(&s); check_opts_release(&o);
 */
#ifndef LOREBOT_CHECK_H
#define LOREBOT_CHECK_H

#include <stdio.h>

#include "bot/git/diff.h"
#include "bot/mail/patch.h"
#include "lib/strbuf.h"
#include "bot/mail/subject.h"

enum check_severity {
	CHECK_NOTE,
	CHECK_WARNING,
	CHECK_ERROR,
};

const char *check_severity_name(enum check_severity s);
/* "error", "warning" or "note": 0, else -1 */
int check_severity_parse(const char *name, enum check_severity *out);

struct finding {
	char *rule;		/* "one-line-args", "checkpatch:LONG_LINE" */
	enum check_severity severity;
	int patch;		/* its number in the series; 0: cover letter/series */
	char *file;		/* NULL: commit message, cover letter or series */
	int line;		/* post-image line (file) or message line; 0: none */
	int column;		/* its byte, from 1 (gcc's -fdiagnostics-column-unit=byte); 0: none */
	char *message;
	char *quote;		/* the quoted lines, or NULL */
	char *suggestion;	/* a fix, or NULL */
	bool preexisting;	/* on code the series does not change (a note) */
	/*
	 * On a line the series does not change, but wrong because of one it
	 * adds (an exit a new lock now leaks, a path a new counter must
	 * account): that post-image line; 0 otherwise
	 */
	int cause;
};

struct findings {
	struct finding *v;
	size_t nr, alloc;
};

#define FINDINGS_INIT { 0 }

/* Free what one finding owns (not the finding itself) */
void check_finding_release(struct finding *f);
void check_findings_release(struct findings *f);
/* Sort by patch, file (message first), line, rule; drop exact duplicates */
void check_findings_sort(struct findings *f);
/*
 * One finding for one problem that two checkers report (findings-merge.c):
 * checkpatch's MISSING_SIGN_OFF beside signed-off-by, TYPO_SPELLING beside
 * codespell on the same word, UNKNOWN_COMMIT_ID beside fixes-tag on the
 * same id.  The lorebot checker's finding stays, with the worse severity
 * of the two; the order of the rest is kept.
 */
void findings_merge(struct findings *f);
size_t check_findings_count(const struct findings *f, enum check_severity s);
/* Findings of severity s or worse (--fail-on) */
size_t check_findings_at_least(const struct findings *f, enum check_severity s);

/*
 * A tree the series applies to.  read() fills out with path as of rev
 * (a revision from check_patch.pre_rev/post_rev): 0, -ENOENT when the
 * file does not exist there, another -errno on failure.  commit() looks
 * up a commit by (abbreviated) id: 0 with its subject line, -ENOENT.
 */
struct git_walk;

struct check_tree {
	const char *name;	/* for messages: the repository */
	int (*read)(struct check_tree *t, const char *rev, const char *path,
		    struct strbuf *out);
	int (*commit)(struct check_tree *t, const char *id, struct strbuf *subject);
	/* optional: the files of a directory (git_walk_dir() in bot/git/git.h) */
	int (*walk)(struct check_tree *t, const char *rev, struct git_walk *w);
	const char *checkpatch_gitdir;	/* GIT_DIR for checkpatch.pl, or NULL */
	void *data;
};

struct check_file;

/* One patch (or the cover letter, n == 0) of the series */
struct check_patch {
	int n;			/* 1..total; 0: the cover letter */
	char *raw;		/* the mail as sent (what checkpatch.pl reads) */
	size_t raw_len;
	char *subject;		/* the Subject: line as sent */
	struct subject subj;	/* its tags */
	struct patch p;		/* author, message, trailers, diff, ... */
	struct diff diff;	/* parsed p.diff; empty when there is none */
	char *diff_error;	/* why the diff could not be parsed, or NULL */
	char *pre_rev;		/* tree revisions around it; NULL: not applied */
	char *post_rev;
	char *apply_error;	/* why it did not apply, or NULL */

	/* filled by the engine: the touched files as code */
	struct check_file **files;
	size_t nr_files;
};

struct check_series {
	struct check_patch *cover;	/* NULL when there is none */
	struct check_patch **patches;	/* in order; patches[i]->n may skip */
	size_t nr, alloc;
	int total;			/* the M of "n/M" */
	int version;
	char *author_name;
	char *author_email;
	char *base_commit;		/* base-commit: of the series, or NULL */
	struct check_tree *tree;	/* NULL: a bare mbox */
	char *base_rev;			/* the tree revision patch 1 applied to */
	/*
	 * A revision of the tree the bot trusts (the first git.base branch
	 * there is): checkpatch.pl and its data are read from it, never
	 * from base_rev, which base-commit: of any mail may name.
	 */
	char *trusted_rev;
};

#define CHECK_SERIES_INIT { 0 }

void check_series_release(struct check_series *s);
/* Take a raw patch mail (or cover letter) apart into a new check_patch */
struct check_patch *check_patch_from_raw(const char *raw, size_t len,
					 struct strbuf *err);
void check_patch_free(struct check_patch *p);
/* Add p (taking it over); the series' author, version, total follow patch 1 */
void check_series_add(struct check_series *s, struct check_patch *p);

/* The options of a run (the check.* configuration and the command line) */
struct check_sel {
	char *name;		/* a checker, or "all" */
	bool on;
};

struct check_opts {
	struct check_sel *sel;	/* in order; the last one naming a checker wins */
	size_t nr_sel;
	int columns;		/* one-line-args: 80 or 100 */
	char *checkpatch;	/* checkpatch.pl to run; NULL: find one */
	char *checkpatch_flags;
	char *cachedir;		/* scripts extracted from a tree live here */
	char *fallback_repo;	/* checkpatch.pl from here when no tree */
	char *codespell_dict;	/* NULL: Debian's codespell dictionary */
	int jobs;		/* checkpatch processes at once; 0: cores */
	bool preexisting;	/* the mm rules also report unchanged code, as notes */
	enum check_severity fail_on;	/* exit 1 from this severity up */
	/*
	 * Why the tree may lack commits the series names (the bot's tree
	 * not fetched lately), or NULL: then an id the tree lacks is not
	 * reported (fixes-tag, checkpatch's UNKNOWN_COMMIT_ID), and one
	 * note says so and why.
	 */
	char *stale_tree;
};

#define CHECK_OPTS_INIT { .columns = 80, .fail_on = CHECK_ERROR }

void check_opts_release(struct check_opts *o);
/*
 * Turn checkers on and off: a comma-separated list of names, "-name"
 * (or "no-name") to disable, "all" and "-all".  Later entries win.
 * 0, or -1 with the unknown name in err.
 */
int check_select(struct check_opts *o, const char *list, struct strbuf *err);

enum check_scope {
	CHECK_SCOPE_SERIES,
	CHECK_SCOPE_PATCH,
	CHECK_SCOPE_FILE,
};

struct check_ctx;

struct checker {
	const char *name;
	const char *summary;
	enum check_scope scope;
	enum check_severity severity;	/* what it usually reports */
	bool on;			/* enabled by default */
	/* optional: before anything runs (start background work) */
	void (*begin)(struct check_ctx *c);
	/* once per series, patch or file, as the scope says */
	void (*run)(struct check_ctx *c);
	/* optional: after everything ran (collect background work) */
	void (*end)(struct check_ctx *c);
};

extern const struct checker *const checkers[];
extern const size_t checkers_nr;

const struct checker *check_find(const char *name);
bool check_enabled(const struct check_opts *o, const struct checker *k);

/* What a checker sees */
struct check_ctx {
	struct check_series *s;
	const struct check_opts *o;
	const struct checker *k;
	struct check_patch *patch;	/* PATCH and FILE scope */
	struct check_file *file;	/* FILE scope */
	void *state;			/* the checker's own, begin() to end() */
	struct findings *out;
	struct check_kb *kb;		/* facts gathered over the series */
	size_t ids_unchecked;		/* commit ids not reported: stale_tree */
	struct strbuf *undecided;	/* per patch of s: "rule file:line what\n" */
};

/*
 * Report a finding of the running checker (its name as rule, unless
 * rule is given) at file:line of the current patch; returns it so that
 * quote and suggestion can be set.
 */
struct finding *check_report(struct check_ctx *c, const char *rule,
			     enum check_severity sev, const char *file, int line,
			     const char *fmt, ...) PRINTF(6, 7);

/* Run the enabled checkers over s; findings are appended to out, sorted */
int check_run(struct check_series *s, const struct check_opts *o,
	      struct findings *out);

/* Output: compiler format grouped by patch, and the JSON contract */
void findings_print_text(const struct findings *f, const struct check_series *s,
			 FILE *out);
/* The same, in gcc's colours when color is set (a terminal, --color) */
void findings_print(const struct findings *f, const struct check_series *s,
		    FILE *out, bool color);
struct json_object;
struct json_object *findings_to_json(const struct findings *f,
				     const struct check_series *s);

#endif
