/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The apply engine: a series of patch mails onto a base, one commit per
 * patch, without any working tree (blobs and trees in the object
 * database only, through bot/git/gitrepo.h), and a precise account of what
 * happened: the base chosen and why, every base tried, how each hunk
 * applied (exact, at an offset, with reduced context, by a three-way
 * merge) and, when something does not apply, the patch, file and hunk
 * with what the tree has where the hunk should go.
 *
 * Base selection: the series' base-commit (when it is a commit id and
 * the repository has it), then each base revision in order (git.base:
 * mm-new first; or --base).  The first base on which every patch
 * applies is chosen; when none does, the report is for the first base
 * that exists.  Each attempt is recorded with its outcome.
 *
 * Hunks are placed as git apply places them (bot/apply/apply-hunk.h): no fuzz
 * unless min_context >= 0.  When a file's hunks do not all fit and the
 * pre-image blob of its "index" line is in the repository, a three-way
 * merge with it is tried (as git am -3).
 *
 * Refused, with the reason: paths with "..", ".", empty or ".git"
 * components, absolute paths, control characters; writing beyond a
 * symbolic link (one in the tree or created by the same patch);
 * symbolic links pointing outside the tree (absolute, or ".." past the
 * top); submodules; binary patches without data; patches larger than
 * max_patch_size.  Nothing outside the object database is read or
 * written.
 */
#ifndef LOREBOT_APPLY_H
#define LOREBOT_APPLY_H

#include "bot/apply/apply-hunk.h"
#include "bot/git/gitrepo.h"
#include "bot/mail/patch.h"

enum apply_status {
	APPLY_APPLIED,
	APPLY_FAILED,
	APPLY_SKIPPED,		/* an earlier patch failed */
};

/* How a hunk (or a patch: its worst hunk) applied; in this order */
enum apply_method {
	METHOD_NONE,
	METHOD_EXACT,		/* at the line the header names */
	METHOD_OFFSET,		/* elsewhere, all context matching */
	METHOD_FUZZ,		/* with reduced context (min_context) */
	METHOD_3WAY,		/* merged with the pre-image blob */
	METHOD_BINARY,		/* a binary patch */
};

const char *apply_status_name(enum apply_status s);
const char *apply_method_name(enum apply_method m);

/* A line of the tree near a failing hunk (see struct near_line) */
struct apply_near_line {
	char kind;
	int file_no;
	char *text;
};

/*
 * One hunk of one file, or a problem with a whole file (header NULL:
 * missing file, refused path, binary without data...).
 */
struct apply_hunk {
	char *file;		/* the path patched */
	char *header;		/* "@@ -322,13 +322,6 @@ ..." or NULL */
	int index;		/* 1-based number of the hunk in its file */
	int old_start, new_start;
	bool applied;
	enum apply_method method;
	int line;		/* applied: 1-based line; failed: expected line */
	int offset;		/* applied: lines from the header's (git apply -v) */
	char *message;		/* failed: why */
	char *excerpt;		/* failed: the first lines of the hunk */
	/* failed: what the tree has where the hunk should go */
	bool near_found;	/* false: nothing alike in the file */
	int near_start, near_end, near_matched, near_total;
	struct apply_near_line *near;
	size_t nr_near;
};

struct apply_patch {
	int n, total;
	char *subject;
	char *msgid;
	enum apply_status status;
	enum apply_method method;	/* applied: the worst of its hunks */
	char commit[GITOID_HEXSZ + 1];	/* applied: the commit made */
	char *message;		/* failed or skipped: why, in one line */
	struct apply_hunk *hunks;	/* every hunk, applied or not */
	size_t nr_hunks;
	size_t nr_failed;
	/* skipped patches: tried alone on the base (-1: not tried) */
	int alone;
	struct apply_hunk *alone_hunks;	/* the failures when alone */
	size_t nr_alone;
	char *alone_message;
};

struct apply_attempt {
	char *name;		/* "base-commit 1234abcd...", "mm-new" */
	char *origin;		/* "base-commit", "git.base", "--base" */
	char sha[GITOID_HEXSZ + 1];	/* "" when not resolved */
	bool resolved;
	bool applied;		/* every patch applied there */
	char *outcome;		/* "not in the repository", "applies", ... */
};

struct apply_result {
	/* the base reported */
	char *base_name;	/* "mm-new", "base-commit", or NULL: none */
	char *base_ref;		/* "refs/heads/mm-new" or the id */
	char base_sha[GITOID_HEXSZ + 1];
	char *base_reason;
	bool base_commit_unknown;	/* given by the series, not in the repo */
	struct apply_attempt *attempts;
	size_t nr_attempts;

	struct apply_patch *patches;
	size_t nr;
	bool applied;		/* every patch applied */
	char *branch;		/* the ref made, NULL unless applied */
	char tip[GITOID_HEXSZ + 1];	/* last commit, "" if none */
	char tree[GITOID_HEXSZ + 1];	/* its tree (for build exports) */
	char *error;		/* infrastructure problem */
	char *export_base;	/* checkouts made for builds (bot/git/checkout.h) */
	char *export_tip;
};

/* One patch of the series as the caller found it */
struct apply_input {
	const char *subject;	/* as in the mail, for reports */
	const char *msgid;
	const struct patch *p;	/* NULL: not available (see missing) */
	const char *missing;	/* why p is NULL: "not in the mbox" */
	/* trailers the commit gets besides the mail's own (replies, Link:) */
	const struct trailers *trailers;
};

struct apply_opts {
	const char *base_commit;	/* of the series, or NULL */
	const char *const *bases;	/* revisions tried in order */
	size_t nr_bases;
	const char *bases_origin;	/* "git.base" or "--base" */
	const char *branch;	/* ref made when everything applies, or NULL */
	uint64_t max_patch_size;	/* 0: no limit */
	uint64_t max_files;	/* files one patch changes; 0: no limit */
	uint64_t max_hunks;	/* hunks of one patch; 0: no limit */
	uint64_t max_binary_size;	/* a binary literal or delta, inflated */
	int min_context;	/* -1: as git apply; n: like git apply -C<n> */
	bool no_3way;
	bool no_alone;		/* do not try skipped patches alone */
	struct gitrepo_sig committer;	/* time 0: now */
};

#define APPLY_OPTS_INIT { .min_context = -1, .bases_origin = "git.base", \
	.committer = { .name = "lorebot", .email = "lorebot@localhost" } }

/*
 * Apply in[0..n) in order.  0 when the work was done (res->applied says
 * whether everything applied); -errno with res->error set when it could
 * not be (no base at all, repository errors).  Release res afterwards.
 */
int apply_series(struct gitrepo *r, const struct apply_opts *o,
		 const struct apply_input *in, size_t n,
		 struct apply_result *res);
void apply_result_release(struct apply_result *res);

/*
 * One patch onto tree, without a commit (apply-patch.c): 0 when it
 * applies (the new tree in out), 1 when it does not (pr says why),
 * -errno on repository errors (err says which).  pr is filled either
 * way (status, method, hunks); release it with apply_patch_release().
 */
int apply_patch_tree(struct gitrepo *r, const struct apply_opts *o,
		     const struct gitoid *tree, const struct apply_input *in,
		     struct apply_patch *pr, struct gitoid *out,
		     struct strbuf *err);
void apply_patch_release(struct apply_patch *pr);
void apply_hunks_release(struct apply_hunk *h, size_t nr);

/* refs/heads/lorebot/<series-id>/v<version> */
char *apply_branch_name(const char *series_id, int version);

/*
 * The budget of one patch (apply-budget.c), checked on its text before
 * it is parsed: NULL, or why not (why says how much).
 */
const char *apply_budget_problem(const char *diff, size_t len,
				 const struct apply_opts *o, struct strbuf *why);

/* Path checks (apply-path.c): NULL when fine, else why not */
#define APPLY_PATH_MAX 4096	/* a path, or a symbolic link's target */
const char *apply_path_problem(const char *path);
const char *apply_symlink_problem(const char *path, const char *target,
				  size_t len);
/*
 * Absolute paths in the file headers of a patch text ("diff --git",
 * "---", "+++", "rename/copy from/to"), which libgit2's parser would
 * make relative: the header line goes to line.
 */
const char *apply_header_problem(const char *text, size_t len,
				 struct strbuf *line);

#endif
