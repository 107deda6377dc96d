/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage results of a series version: what apply, the checkers, the
 * builds and the boots found, each as the JSON document of its
 * contract (issues 4-7), stored in the results table (migration
 * "report-1") with a status and a one-line summary derived here.
 *
 *	apply  {"base": {name, sha, reason}, "branch", "patches": [{n,
 *	       subject, status: applied|failed|skipped, method, file, hunk,
 *	       message, failures: [{file, hunk, ...}]}]}
 *	       or {"status": "infra", "message"}
 *	check  {"findings": [{rule, severity: error|warning|note, patch,
 *	       file, line, message, suggestion, quote}]}
 *	       or {"status": "infra", "message"}
 *	build  {"archs": [{arch, status: ok|warnings|errors|infra,
 *	       findings: [{patch, file, line, severity, message, new}]}]}
 *	boot   {"archs": [{arch, status: ok|regressions|boot-failure|infra,
 *	       tests: [{name, result, new}], findings: [{kind, message}]}]}
 *
 * The keys are bot/results/contract.h's.  Documents are read defensively: other keys (logs, quoted lines,
 * compiler, config) are kept as they are, and a key of the wrong type
 * reads as absent.  Build and boot are stored one row per arch: the
 * arch's object, with the document's other top-level keys (compiler,
 * config, base...) copied in where the arch object lacks them.
 */
#ifndef LOREBOT_RESULTS_H
#define LOREBOT_RESULTS_H

#include <json-c/json.h>
#include <stdint.h>

#include "bot/results/plan.h"
#include "lib/strbuf.h"

struct result {
	int64_t id;
	enum stage stage;	/* one of the first STAGE_RESULTS */
	char *arch;		/* "" for apply and check */
	/*
	 * apply: applied or failed; check: errors, warnings, notes or
	 * clean; build and boot: the arch's status; any stage: infra
	 */
	enum status status;
	char *summary;		/* "patch 2/4 does not apply: FILE", ... */
	int findings;		/* what a reply would report */
	int64_t generation;
	int64_t recorded;	/* unix seconds */
	json_object *doc;	/* the stored document (owned) */
};

struct results {
	struct result *v;
	size_t nr, alloc;
};

#define RESULTS_INIT { 0 }

void results_release(struct result *r);

/*
 * For the stages' summarisers (struct stage_ops): "<stage> result: "
 * and the message into err, -1; ", 3 errors" (one: "1 error")
 */
int results_bad(struct strbuf *err, enum stage stage, const char *fmt, ...) PRINTF(3, 4);
void results_plural(struct strbuf *sb, int n, const char *one, const char *many);
/*
 * The summary of a stage without a summariser of its own: its new
 * findings (a finding is new unless it says "new": false) counted
 */
int results_summarise_findings(json_object *doc, struct result *r, struct strbuf *err);

/*
 * The changed lines of a series compiled on at least one arch, from the
 * build arch objects' "coverage" (those that measured):
 * uncompiled is [{"patch", "file", "from", "to", "lines", "spans",
 * "reasons": {arch: reason}}], the lines no arch compiled (owned).
 */
struct results_cover {
	int archs;		/* arch objects that measured */
	int changed;		/* counted changed lines */
	int compiled;		/* ... compiled on at least one arch */
	int missed;		/* ... on none */
	/*
	 * ... of those, lines of arches lorebot builds but this build did
	 * not ("--build=riscv" of an arm64 change): left out of the verdict
	 */
	int excused;
	char *excused_arches;	/* their arch/ directories, "arm64,x86" */
	json_object *uncompiled;
};

void results_cover_union(json_object *const *archs, size_t n, struct results_cover *out);
void results_cover_release(struct results_cover *c);
/* Did the archs compile less than min percent of what they could? */
bool results_cover_below(const struct results_cover *c, int64_t min);
/*
 * One line for people: "compiled 212 of 230 changed lines (92%) on at
 * least one arch; not compiled: mm/damon/core.c:100-118 (needs
 * CONFIG_DAMON)", at most max ranges named
 */
void results_cover_line(const struct results_cover *c, struct strbuf *sb, size_t max);

/*
 * The document of an infrastructure failure of a stage (why: the
 * reason), as the runner records it when a stage gave no document of
 * its own after its last attempt.  Caller puts it.
 */
json_object *results_infra_doc(enum stage stage, const char *arch, const char *why);

#endif
