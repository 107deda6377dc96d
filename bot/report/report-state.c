// SPDX-License-Identifier: GPL-2.0
/* Where a series version stands, in one word: the stage table's rules */
#include <stdlib.h>

#include "bot/report/report.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"

const char *const report_states[REPORT_STATES_NR + 1] = {
	"pending", "incomplete", "testing", "apply-failed", "build-failed",
	"boot-failed", "findings", "infra", "base-unknown", "partial", "passed", "superseded",
	NULL,
};

void report_plan(const struct report_version *v, const struct report_opts *o,
		 struct plan *p)
{
	struct plan_cfg c = { o->archs, o->nr_archs, o->boot };

	store_results_plan(&v->results, &c, p);
}

/* The state a stage's results give the version ("apply-failed"), or NULL */
static const char *failed(const struct report_version *v, enum stage s)
{
	const struct stage_ops *d = plan_stage(s);
	size_t i;

	for (i = 0; d->fails && i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		unsigned int bit = 1u << r->status;

		if (r->stage == s && ((d->fail_on & bit) ||
				      ((d->fail_on_findings & bit) && r->findings)))
			return d->fails;
	}
	return NULL;
}

static bool any(const struct report_version *v, bool (*fn)(const struct result *r))
{
	size_t i;

	for (i = 0; i < v->results.nr; i++)
		if (fn(&v->results.v[i]))
			return true;
	return false;
}

static bool has_findings(const struct result *r)
{
	return plan_stage(r->stage)->findings && r->findings;
}

static bool is_infra(const struct result *r)
{
	return r->status == STATUS_INFRA;
}

bool report_partial(const struct report_version *v, const struct report_opts *o)
{
	json_object **docs = xcalloc(v->results.nr + 1, sizeof(*docs));
	struct results_cover cov;
	bool partial = false;
	size_t i, n = 0;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage != STAGE_BUILD || r->status == STATUS_INFRA)
			continue;
		docs[n++] = r->doc;
		partial |= r->status == STATUS_PARTIAL;
	}
	if (!partial && n) {
		results_cover_union(docs, n, &cov);
		/* o->mincoverage: the dashboard drops o->cfg after its start */
		partial = results_cover_below(&cov, o->cfg ?
					      config_v(o->cfg)->build_mincoverage :
					      o->mincoverage);
		results_cover_release(&cov);
	}
	free(docs);
	return partial;
}

const char *report_state(const struct report_version *v, const struct report_opts *o)
{
	struct plan p;
	int s;

	if (v->superseded_by)
		return "superseded";
	/* the bot lacks the base the series names: not a failure of the series */
	if (failed(v, STAGE_APPLY) && report_base_unknown(v))
		return "base-unknown";
	for (s = 0; s < STAGE_RESULTS; s++)
		if (failed(v, s))
			return failed(v, s);
	if (!v->results.nr)
		return v->complete ? "pending" : "incomplete";
	report_plan(v, o, &p);
	if (!p.ended)
		return "testing";
	if (any(v, has_findings))
		return "findings";
	if (any(v, is_infra))
		return "infra";
	/* no green for what was not compiled */
	if (report_partial(v, o))
		return "partial";
	return "passed";
}
