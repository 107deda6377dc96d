// SPDX-License-Identifier: GPL-2.0
/*
 * Which replies a version has earned.  One per outcome kind, each due
 * once every result it depends on is in (the stage table's plan says
 * when a stage ended): a build reply speaks for every arch at once, so
 * it waits for the last build.  An infrastructure failure is not the
 * series' fault and earns no reply: the operator sees it in `lorebot
 * status`, /metrics and the daemon's log.
 */
#include <stdlib.h>

#include "bot/contract.h"
#include "bot/report.h"

static bool status_is(const struct result *r, enum status status)
{
	return r && r->status == status;
}

/* The one patch all reportable findings are in, else 0 (series-wide) */
struct target {
	int patch;
	bool mixed;
};

static void target_add(struct target *t, int patch)
{
	if (t->mixed)
		return;
	if (patch <= 0 || (t->patch && t->patch != patch)) {
		t->mixed = true;
		t->patch = 0;
		return;
	}
	t->patch = patch;
}

static bool build_due(const struct report_version *v, const struct plan *p, int *patch)
{
	struct target t = { 0 };
	bool any = false;
	size_t i, j;

	if (!plan_all_ended(p, STAGE_BUILD))
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *findings = rd_doc_findings(r->doc);

		if (r->stage != STAGE_BUILD || !r->findings ||
		    (!status_is(r, STATUS_ERRORS) && !status_is(r, STATUS_WARNINGS)))
			continue;
		any = true;
		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = rd_at(findings, j);

			if (rd_finding_is_new(f, true))
				target_add(&t, (int)rd_finding_patch(f, 0));
		}
	}
	*patch = t.patch;
	return any;
}

static bool check_due(const struct report_version *v, int *patch)
{
	const struct result *r = results_find(&v->results, STAGE_CHECK, NULL);
	json_object *findings;
	struct target t = { 0 };
	size_t j;

	if (!r || !r->findings)
		return false;
	findings = rd_doc_findings(r->doc);
	for (j = 0; findings && j < json_object_array_length(findings); j++) {
		json_object *f = rd_at(findings, j);
		const char *sev = rd_finding_severity_z(f);

		if (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_WARNING))
			target_add(&t, (int)rd_finding_patch(f, 0));
	}
	*patch = t.patch;
	return true;
}

static bool boot_due(const struct report_version *v, const struct report_opts *o,
		     const struct plan *p)
{
	size_t i;

	if (!o->boot || !plan_all_ended(p, STAGE_BUILD) || !plan_all_ended(p, STAGE_BOOT))
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage == STAGE_BOOT && (status_is(r, STATUS_BOOT_FAILURE) ||
					       (status_is(r, STATUS_REGRESSIONS) && r->findings)))
			return true;
	}
	return false;
}

static bool clean_due(const struct report_version *v, const struct report_opts *o,
		      const struct plan *p)
{
	const struct result *apply = results_find(&v->results, STAGE_APPLY, NULL);
	const struct result *check = results_find(&v->results, STAGE_CHECK, NULL);
	size_t i;

	if (!config_get_bool(o->cfg, "reply.clean") || !status_is(apply, STATUS_APPLIED) ||
	    !check || check->findings || !p->ended)
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (stage_per_arch(r->stage) && (r->findings || !status_is(r, STATUS_OK)))
			return false;
	}
	return true;
}

int report_due(const struct report_version *v, const struct report_opts *o,
	       struct reply_due *due)
{
	const struct result *apply = results_find(&v->results, STAGE_APPLY, NULL);
	int nr = 0, patch = 0;
	struct plan p;

	if (v->gone || v->superseded_by)
		return 0;
	report_plan(v, o, &p);
	if (status_is(apply, STATUS_FAILED)) {
		json_object *patches = rd_doc_patches(apply->doc);
		size_t i;

		for (i = 0; patches && i < json_object_array_length(patches); i++) {
			json_object *pa = rd_at(patches, i);

			if (!strcmp(rd_patch_status_z(pa), RD_PATCH_FAILED)) {
				patch = (int)rd_patch_n(pa, 0);
				break;
			}
		}
		due[nr++] = (struct reply_due){ REPLY_APPLY, patch };
	}
	if (check_due(v, &patch))
		due[nr++] = (struct reply_due){ REPLY_CHECK, patch };
	if (build_due(v, &p, &patch))
		due[nr++] = (struct reply_due){ REPLY_BUILD, patch };
	if (boot_due(v, o, &p))
		due[nr++] = (struct reply_due){ REPLY_BOOT, 0 };
	if (!nr && clean_due(v, o, &p))
		due[nr++] = (struct reply_due){ REPLY_CLEAN, 0 };
	return nr;
}
