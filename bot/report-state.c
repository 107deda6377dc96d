// SPDX-License-Identifier: GPL-2.0
/* Where a series version stands, in one word */
#include "bot/report.h"

const char *const report_states[] = {
	"pending", "incomplete", "testing", "apply-failed", "build-failed",
	"boot-failed", "findings", "infra", "passed", "superseded", NULL,
};

static bool any(const struct report_version *v, enum result_stage stage,
		const char *status, bool need_findings)
{
	size_t i;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage == stage && (!status || !strcmp(r->status, status)) &&
		    (!need_findings || r->findings))
			return true;
	}
	return false;
}

static bool done(const struct report_version *v, const struct report_opts *o)
{
	size_t i;

	if (!results_find(&v->results, STAGE_APPLY, NULL) ||
	    !results_find(&v->results, STAGE_CHECK, NULL))
		return false;
	for (i = 0; i < o->nr_archs; i++) {
		const struct result *b = results_find(&v->results, STAGE_BUILD, o->archs[i]);

		if (!b)
			return false;
		if (o->boot && !results_find(&v->results, STAGE_BOOT, o->archs[i]) &&
		    strcmp(b->status, "errors") && strcmp(b->status, "infra"))
			return false;
	}
	return true;
}

const char *report_state(const struct report_version *v, const struct report_opts *o)
{
	if (v->superseded_by)
		return "superseded";
	if (any(v, STAGE_APPLY, "failed", false))
		return "apply-failed";
	if (any(v, STAGE_BUILD, "errors", false))
		return "build-failed";
	if (any(v, STAGE_BOOT, "boot-failure", false) || any(v, STAGE_BOOT, "regressions", true))
		return "boot-failed";
	if (!v->results.nr)
		return v->complete ? "pending" : "incomplete";
	if (!done(v, o))
		return "testing";
	if (any(v, STAGE_CHECK, NULL, true) || any(v, STAGE_BUILD, NULL, true))
		return "findings";
	if (any(v, STAGE_BUILD, "infra", false) || any(v, STAGE_BOOT, "infra", false))
		return "infra";
	return "passed";
}
