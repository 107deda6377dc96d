/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the report-*.c files and the stages' reply
 * sections (bot/stage/stage-*.c), not for other modules
 */
#ifndef LOREBOT_REPORT_INT_H
#define LOREBOT_REPORT_INT_H

#include "bot/report/report.h"
#include "lib/template.h"

#define REPORT_WRAP 72

/* Which build findings a build section shows */
enum build_filter {
	BUILD_ALL,
	BUILD_ERRORS,		/* errors only: boot regressions come next */
	BUILD_WARNINGS,		/* warnings only: after the boot regressions */
};

struct report_ctx {
	struct store *st;
	const struct report_version *v;
	const struct report_opts *o;
	const struct reply_due *d;
	const char *msgid;	/* of the reply */
	const char *report_id;	/* its permanent page's id */
	const char *report_url;	/* and the page's URL ("" without a dashboard) */
	enum build_filter build;
	struct tvars vars;
};

/*
 * Numbered source lines around file:line as of patch n ("vim +LINE
 * FILE", then the lines, LINE..LINE+nmark-1 marked '>'; with quote,
 * the marks start where its first line is, near LINE).  0 when written,
 * -1 when no source is at hand.
 */
int report_excerpt(struct report_ctx *c, int patch, const char *file, int line,
		   int nmark, const char *quote, struct strbuf *out);

/* Body variables of each kind (report-body.c), after the common ones */
int report_body_vars(struct report_ctx *c, struct strbuf *err);

/*
 * ${since}: what the mailed findings of the previous version (with
 * results) became, "Fixed since vN" and "Still present since vN"; empty
 * for a first version.  0, or -1 with err
 */
int report_since_var(struct report_ctx *c, struct strbuf *err);

/* Helpers of the body (report-body.c), for the mail around it too */

/* Prose wrapped at REPORT_WRAP, as a variable */
void report_set_prose(struct report_ctx *c, const char *name, const char *text);

/* "patch 2/4" or "the cover letter" */
void report_patch_name(struct strbuf *sb, const struct report_version *v, int n);

/*
 * ... and for the stages' section_vars() (bot/stage/stage.h), which write the
 * variables of their kind's reply and section
 */

/* base-commit (if any) and the base apply chose */
struct report_base {
	const char *name, *sha;
	bool from_base_commit;
	bool base_commit_unknown;
};

void report_base_info(const struct report_ctx *c, struct report_base *b);
/* ${reproduce}: the commands that do what lorebot did, in a tree "linux" */
void report_reproduce(struct report_ctx *c, const char *archs);
/* "a", "a and b", "a, b and c" */
void report_and_list(struct strbuf *sb, const char *const *items, size_t nr);
/* Indent every line of s by pre (a block quoted in the body) */
void report_add_block(struct strbuf *sb, const char *pre, const char *s);
/* "config:   arm64-small" and "compiler: ..." of an arch's result */
void report_arch_info(struct strbuf *sb, const struct result *r);
/*
 * What build and boot replies share: the archs concerned ("arm64 and
 * riscv"), their config and compiler lines (info), the findings, and
 * the commands for those archs
 */
void report_arch_vars(struct report_ctx *c, const char **names, size_t nn,
			     struct strbuf *info, struct strbuf *findings);

/*
 * The permanent record of the reply m being composed (m->msgid and
 * m->report_id set): m->snapshot and m->files.  0, or -1 with err.
 */
int report_snapshot(struct report_ctx *c, struct reply_mail *m, struct strbuf *err);
/* Add a file (gzip-compressed here) to m's record */
void report_file_add(struct reply_mail *m, const char *name, const char *data, size_t len);
/*
 * ... and for the stages' snap_findings() and snap_arch() (bot/results/plan.h),
 * which write its entries: key val in o, unless val is NULL (a string)
 * or 0 (an int)
 */
void report_snap_str(json_object *o, const char *key, const char *val);
void report_snap_int(json_object *o, const char *key, int64_t val);
/* A deep copy of v, or NULL (v NULL, or no memory) */
json_object *report_snap_copy(json_object *v);
/*
 * A finding f of stage's result (for arch, "" or NULL when not per arch)
 * as the record keeps it: its id, where it is, what it says and the line
 * the mail gives it (report_finding_line())
 */
json_object *report_snap_finding(enum stage stage, const char *arch, json_object *f);

#endif
