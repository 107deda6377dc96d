/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the dashboard (dash*.c) */
#ifndef LOREBOT_DASH_INT_H
#define LOREBOT_DASH_INT_H

#include <json-c/json.h>

#include "bot/web/dash.h"
#include "bot/report/reply.h"
#include "bot/report/report.h"
#include "bot/stage/stage.h"
#include "bot/store/store.h"
#include "lib/template.h"
#include "bot/web/web.h"

struct dash {
	struct store st;		/* read-only */
	char *botname;
	struct report_opts ro;
	char *templates;
	char *logroot;
	int64_t refresh_s;
	struct web *web;
	bool has_results;		/* the report tables exist */
	bool has_jobs;			/* the daemon's jobs table exists */
	bool has_states;		/* the version_states table exists */
	char **roots;			/* server directories, longest first (dash-public.c) */
	size_t nr_roots, alloc_roots;
};

/* Why a version is in its state (dash-cause.c) */
struct dash_cause {
	struct strbuf line;	/* "riscv: mm/vmscan.c:3871: error (7/9)"; empty: none */
	struct strbuf text;	/* the error text, the apply failure, the base's story */
	const struct result *r;	/* the result it is from (its log), or NULL */
};

/* The findings of a version split by severity */
enum dash_sev {
	DASH_ERROR,
	DASH_WARNING,
	DASH_NOTE,
	DASH_SEV_NR,
};

extern const char *const dash_sev_names[DASH_SEV_NR];	/* "errors", ... */

/* A job of the daemon's queue still to end (dash-jobs.c) */
struct dash_job {
	int64_t id;
	char *kind, *arch;	/* arch: "" when the stage is not per arch */
	bool running;		/* else queued */
	int64_t started;	/* unix seconds, when running */
	bool has_log;
};

struct dash_jobs {
	struct dash_job *v;
	size_t nr, alloc;
};

/* Does the database have this table (dash-api.c)? */
bool dash_has_table(struct dash *d, const char *name);
/* The queued and running jobs of a version (none without a jobs table); 0 or -1 */
int dash_jobs_load(struct dash *d, const char *version, struct dash_jobs *out);
void dash_jobs_release(struct dash_jobs *js);
const struct dash_job *dash_job_find(const struct dash_jobs *js, const char *kind,
				     const char *arch);
/* "queued", "building 4m", "booting 30s" */
void dash_job_label(const struct dash_job *j, int64_t now, struct strbuf *sb);
/* "riscv building 4m, arm64 booting 30s, 2 jobs queued" into an empty sb */
void dash_jobs_cause(const struct dash_jobs *js, int64_t now, struct strbuf *sb);
/* The log file of job id, or NULL; caller frees */
char *dash_job_log(struct dash *d, int64_t id);

/* A version with what the pages show about it */
struct dash_version {
	struct report_version v;
	const char *state;
	struct reply_rows replies;
	struct dash_cause cause;	/* not with DASH_LIGHT */
	int counts[DASH_SEV_NR];	/* not with DASH_LIGHT */
	struct dash_jobs jobs;		/* not with DASH_LIGHT */
	struct fixup_rows fixups;	/* diffs in replies to it; not with DASH_LIGHT */
};

struct dash_versions {
	struct dash_version *v;
	size_t nr, alloc;
	size_t total;		/* matching versions, before limit and offset */
};

struct dash_filter {
	const char *state, *author, *q;
	const char *series;	/* series id or version id */
	size_t limit;		/* 0: all */
	size_t offset;
	int64_t after_date;	/* with after_id: only versions older than */
	const char *after_id;	/* this one (the API's cursor) */
};

/* Filters and loading (dash-load.c) */

/* ?cursor= ("DATE:VERSION-ID", the API's "next") into f; -1 when malformed */
int dash_filter_cursor(struct dash_filter *f, const char *cursor);

/* limit and offset from a request (?limit=, ?offset=), limit def when absent */
void dash_filter_paging(struct dash_filter *f, const struct web_request *req, size_t def);

/*
 * Versions (not gone) matching f, newest first; with_mail loads reply
 * texts.  Without a state, author or text filter only the page asked
 * for is loaded.
 */
enum dash_load_flags {
	DASH_MAIL = 1 << 0,	/* the replies with their text */
	DASH_LIGHT = 1 << 1,	/* state and counts only (REPORT_LIGHT), no replies */
};

int dash_load(struct dash *d, const struct dash_filter *f, unsigned int flags,
	      struct dash_versions *out, struct strbuf *err);
/*
 * Does the database keep every version's state for our options
 * (report_states_valid())?  Then a state filter is a range of its index
 * and the counts by state a GROUP BY.
 */
bool dash_states_kept(struct dash *d);
/* The versions in each of report_states[] (REPORT_STATES_NR), from the kept states */
int dash_state_counts(struct dash *d, int64_t n[], struct strbuf *err);
void dash_versions_release(struct dash_versions *vs);

/*
 * The cause of dv's state into c (empty strbufs), pointing into dv's
 * results; release with dash_cause_release()
 */
void dash_cause(const struct dash *d, const struct dash_version *dv, struct dash_cause *c);
void dash_cause_release(struct dash_cause *c);
/*
 * Findings by severity: check findings by theirs, new build findings
 * (errors, the rest warnings), failing boots (errors)
 */
void dash_counts(const struct report_version *v, int n[DASH_SEV_NR]);

/* fn on every finding of v's stages that have findings, in result order */
typedef void dash_finding_fn(const struct result *r, json_object *f, void *data);
void dash_findings_each(const struct report_version *v, dash_finding_fn *fn, void *data);

/*
 * Server paths out of what pages show (dash-public.c): the directories
 * of cfg (statedir, logroot, repository...) are dropped from every
 * string of the results' documents and summaries, so that what is
 * under them reads relative ("jobs/12/build-riscv.log"); a path key
 * ("log", "build_dir"...) outside them keeps its last part only.
 */
void dash_public_init(struct dash *d, const struct config *cfg);
void dash_public_release(struct dash *d);
void dash_public_results(const struct dash *d, struct results *rs);
/* s with the server's directories dropped, appended to out */
void dash_public_text(const struct dash *d, const char *s, struct strbuf *out);

/* The version object of the API (dash-api.c) */
json_object *dash_version_json(const struct dash_version *dv, bool with_mail);

/* handlers: id is what follows the route's prefix, or NULL */
typedef void dash_handler_fn(struct dash *d, const struct web_request *req, const char *id,
			     struct web_response *res);
dash_handler_fn dash_api_series, dash_api_one, dash_api_checks, dash_healthz, dash_metrics;
dash_handler_fn dash_page_list, dash_page_series, dash_log, dash_job_log_page,
	dash_page_queue, dash_config;
/* /r/<id>[/json|/mbox|/config/<arch>]: a report's permanent page (dash-report.c) */
dash_handler_fn dash_report;
void dash_error(struct dash *d, struct web_response *res, int status, const char *msg);

/* Render a page template around body (title, refresh) into res */
void dash_render(struct dash *d, struct web_response *res, const char *file,
		 struct tvars *vars);

#endif
