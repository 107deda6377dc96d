// SPDX-License-Identifier: GPL-2.0
/*
 * Which replies a version has earned.  One per outcome kind, each due
 * once every result it depends on is in: a build reply speaks for every
 * arch at once, so it waits for the last build.
 */
#include <stdlib.h>

#include "bot/jsonx.h"
#include "bot/report.h"

static bool status_is(const struct result *r, const char *status)
{
	return r && !strcmp(r->status, status);
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

static bool builds_done(const struct report_version *v, const struct report_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_archs; i++)
		if (!results_find(&v->results, STAGE_BUILD, o->archs[i]))
			return false;
	return true;
}

/* Booted, or cannot be booted because its build failed */
static bool boots_done(const struct report_version *v, const struct report_opts *o)
{
	size_t i;

	if (!o->boot)
		return true;
	for (i = 0; i < o->nr_archs; i++) {
		const struct result *b = results_find(&v->results, STAGE_BUILD, o->archs[i]);

		if (results_find(&v->results, STAGE_BOOT, o->archs[i]))
			continue;
		if (!b || (!status_is(b, "errors") && !status_is(b, "infra")))
			return false;
	}
	return true;
}

static bool build_due(const struct report_version *v, const struct report_opts *o,
		      int *patch)
{
	struct target t = { 0 };
	bool any = false;
	size_t i, j;

	if (!builds_done(v, o))
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *findings = jx_array(r->doc, "findings");

		if (r->stage != STAGE_BUILD || !r->findings ||
		    (!status_is(r, "errors") && !status_is(r, "warnings")))
			continue;
		any = true;
		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = json_object_array_get_idx(findings, j);

			if (jx_bool(f, "new", true))
				target_add(&t, (int)jx_int(f, "patch", 0));
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
	findings = jx_array(r->doc, "findings");
	for (j = 0; findings && j < json_object_array_length(findings); j++) {
		json_object *f = json_object_array_get_idx(findings, j);
		const char *sev = jx_strz(f, "severity");

		if (!strcmp(sev, "error") || !strcmp(sev, "warning"))
			target_add(&t, (int)jx_int(f, "patch", 0));
	}
	*patch = t.patch;
	return true;
}

static bool boot_due(const struct report_version *v, const struct report_opts *o)
{
	size_t i;

	if (!o->boot || !builds_done(v, o) || !boots_done(v, o))
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if (r->stage == STAGE_BOOT &&
		    (status_is(r, "boot-failure") || (status_is(r, "regressions") && r->findings)))
			return true;
	}
	return false;
}

static bool clean_due(const struct report_version *v, const struct report_opts *o)
{
	const struct result *apply = results_find(&v->results, STAGE_APPLY, NULL);
	const struct result *check = results_find(&v->results, STAGE_CHECK, NULL);
	size_t i;

	if (!config_get_bool(o->cfg, "reply.clean") || !status_is(apply, "applied") ||
	    !check || check->findings || !builds_done(v, o) || !boots_done(v, o))
		return false;
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];

		if ((r->stage == STAGE_BUILD || r->stage == STAGE_BOOT) &&
		    (r->findings || !status_is(r, "ok")))
			return false;
	}
	return true;
}

int report_due(const struct report_version *v, const struct report_opts *o,
	       struct reply_due *due)
{
	const struct result *apply = results_find(&v->results, STAGE_APPLY, NULL);
	int nr = 0, patch = 0;

	if (v->gone || v->superseded_by)
		return 0;
	if (status_is(apply, "failed")) {
		json_object *patches = jx_array(apply->doc, "patches");
		size_t i;

		for (i = 0; patches && i < json_object_array_length(patches); i++) {
			json_object *p = json_object_array_get_idx(patches, i);

			if (!strcmp(jx_strz(p, "status"), "failed")) {
				patch = (int)jx_int(p, "n", 0);
				break;
			}
		}
		due[nr++] = (struct reply_due){ REPLY_APPLY, patch };
	}
	if (check_due(v, &patch))
		due[nr++] = (struct reply_due){ REPLY_CHECK, patch };
	if (build_due(v, o, &patch))
		due[nr++] = (struct reply_due){ REPLY_BUILD, patch };
	if (boot_due(v, o))
		due[nr++] = (struct reply_due){ REPLY_BOOT, 0 };
	if (!nr && clean_due(v, o))
		due[nr++] = (struct reply_due){ REPLY_CLEAN, 0 };
	return nr;
}
