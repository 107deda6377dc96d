// SPDX-License-Identifier: GPL-2.0
/*
 * Which reply a version has earned: one, composed once every stage of
 * the version has ended (the stage table's plan says when), with a
 * section for each kind of problem found, worst first.  An
 * infrastructure failure is not the series' fault and earns no reply:
 * the operator sees it in `lorebot status`, /metrics and the daemon's
 * log.  Nor is a base the bot's tree lacks (reply.baseunknown).
 */
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/report/report.h"
#include "bot/store/store-results.h"

static bool status_is(const struct result *r, enum status status)
{
	return r && r->status == status;
}

/* Is a build finding a new one of the kind (error or not) asked, mailed? */
static bool build_new(const struct report_opts *o, json_object *f, bool errors)
{
	const char *sev = rd_finding_severity_z(f);
	bool is_error = !strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL);

	return rd_finding_is_new(f, true) && !report_build_style(o, f) &&
	       is_error == errors;
}

static bool build_has(const struct report_version *v, const struct report_opts *o,
		      bool errors)
{
	size_t i, j;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *findings = rd_doc_findings(r->doc);

		if (r->stage != STAGE_BUILD || !r->findings ||
		    (!status_is(r, STATUS_ERRORS) && !status_is(r, STATUS_WARNINGS)))
			continue;
		for (j = 0; findings && j < json_object_array_length(findings); j++)
			if (build_new(o, rd_at(findings, j), errors) &&
			    !report_dismissed(v, STAGE_BUILD, rd_at(findings, j)))
				return true;
	}
	return false;
}

/* Has the boot result r a finding no answer dismissed? */
static bool boot_new(const struct report_version *v, const struct result *r)
{
	json_object *fs = rd_doc_findings(r->doc);
	size_t j;

	for (j = 0; fs && j < json_object_array_length(fs); j++)
		if (rd_finding_is_new(rd_at(fs, j), true) &&
		    !report_dismissed(v, STAGE_BOOT, rd_at(fs, j)))
			return true;
	return !fs && r->findings;	/* a light load: no documents */
}

static bool boot_has(const struct report_version *v, const struct report_opts *o)
{
	size_t i;

	for (i = 0; o->boot && i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage == STAGE_BOOT && (status_is(r, STATUS_BOOT_FAILURE) ||
					       (status_is(r, STATUS_REGRESSIONS) && r->findings &&
						boot_new(v, r))))
			return true;
	}
	return false;
}

/* Has a stage of the section "findings" a new finding no answer dismissed? */
static bool findings_has(const struct report_version *v)
{
	size_t i, j;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc);

		if (!plan_stage(r->stage)->reply || !r->findings || status_is(r, STATUS_INFRA))
			continue;
		if (!r->doc)
			return true;	/* a light load: no documents */
		for (j = 0; fs && j < json_object_array_length(fs); j++)
			if (rd_finding_is_new(rd_at(fs, j), true) &&
			    !report_dismissed(v, r->stage, rd_at(fs, j)))
				return true;
	}
	return false;
}

/*
 * Everything passed: mailed with reply.clean, or when someone asked for
 * the retest (an answer is due)
 */
static bool clean(const struct report_version *v, const struct report_opts *o)
{
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	const struct result *check = store_results_find(&v->results, STAGE_CHECK, NULL);
	int count[REPORT_CLASS_NR];
	size_t i;

	report_check_count(v, o, count);
	if ((!config_v(o->cfg)->reply_clean && !v->retests) ||
	    !status_is(apply, STATUS_APPLIED) || !check ||
	    (check->findings && !v->retests) || count[REPORT_MAIL])
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		/* a partial build found nothing: the reply says what it did not compile */
		if (plan_per_arch(r->stage) && (r->findings ||
						 (!status_is(r, STATUS_OK) &&
						  !(r->stage == STAGE_BUILD &&
						    status_is(r, STATUS_PARTIAL)))))
			return false;
	}
	return true;
}

bool report_base_unknown(const struct report_version *v)
{
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = apply ? rd_doc_base(apply->doc) : NULL;
	const char *sha = rd_base_sha(base), *bc = v->base_commit;

	if (!bc || !apply)
		return false;
	return rd_base_commit_unknown(base, false) || !sha || strncmp(sha, bc, strlen(bc));
}

/* The reply's headline kind for each section, worst first */
static const enum reply_kind section_kind[SECTION_NR] = {
	[SECTION_APPLY] = REPLY_APPLY,
	[SECTION_BUILD_ERRORS] = REPLY_BUILD,
	[SECTION_BOOT] = REPLY_BOOT,
	[SECTION_BUILD_WARNINGS] = REPLY_BUILD,
	[SECTION_CHECK] = REPLY_CHECK,
	[SECTION_FINDINGS] = REPLY_FINDINGS,
};

int report_due(const struct report_version *v, const struct report_opts *o,
	       struct reply_due *due)
{
	const struct result *apply = store_results_find(&v->results, STAGE_APPLY, NULL);
	bool failed = status_is(apply, STATUS_FAILED);
	int count[REPORT_CLASS_NR];
	struct plan p;
	int s;

	memset(due, 0, sizeof(*due));
	if (v->gone || v->superseded_by)
		return 0;
	report_plan(v, o, &p);
	if (!p.ended)
		return 0;
	report_check_count(v, o, count);
	if (failed && report_base_unknown(v)) {
		/*
		 * The bot lacks the base: not the author's fault.  The review of
		 * the hunks does not depend on it: its mm-rule findings are
		 * mailed (review, line), with a line saying what was not done.
		 */
		const char *mode = config_v(o->cfg)->reply_baseunknown;

		if (!strcmp(mode, "off"))
			return 0;
		due->untested = true;
		if (count[REPORT_MAIL]) {
			due->kind = REPLY_CHECK;
			due->sections[SECTION_CHECK] = true;
			return 1;
		}
		if (strcmp(mode, "line"))
			return 0;
		due->kind = REPLY_BASE;
		return 1;
	}
	due->sections[SECTION_APPLY] = failed;
	due->sections[SECTION_BUILD_ERRORS] = build_has(v, o, true);
	due->sections[SECTION_BOOT] = boot_has(v, o);
	due->sections[SECTION_BUILD_WARNINGS] = build_has(v, o, false);
	due->sections[SECTION_CHECK] = count[REPORT_MAIL] > 0;
	due->sections[SECTION_FINDINGS] = findings_has(v);
	for (s = 0; s < SECTION_NR; s++) {
		if (due->sections[s]) {
			due->kind = section_kind[s];
			return 1;
		}
	}
	if (clean(v, o)) {
		due->kind = REPLY_CLEAN;
		return 1;
	}
	return 0;
}
