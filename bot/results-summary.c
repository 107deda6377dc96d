// SPDX-License-Identifier: GPL-2.0
/*
 * Stage documents checked against their contracts, and what a person
 * (and a reply) needs from each: a status, one line, a count.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "bot/jsonx.h"
#include "bot/results.h"

static const char *const stage_names[STAGE_NR] = {
	[STAGE_APPLY] = "apply",
	[STAGE_CHECK] = "check",
	[STAGE_BUILD] = "build",
	[STAGE_BOOT] = "boot",
};

/* the statuses an arch object may have, per stage */
static const char *const build_statuses[] = { "ok", "warnings", "errors", "infra", NULL };
static const char *const boot_statuses[] = { "ok", "regressions", "boot-failure",
					     "infra", NULL };

const char *result_stage_name(enum result_stage stage)
{
	return stage < STAGE_NR ? stage_names[stage] : "?";
}

int result_stage_parse(const char *name, enum result_stage *stage)
{
	int i;

	for (i = 0; i < STAGE_NR; i++) {
		if (!strcmp(name, stage_names[i])) {
			*stage = i;
			return 0;
		}
	}
	return -1;
}

bool result_stage_per_arch(enum result_stage stage)
{
	return stage == STAGE_BUILD || stage == STAGE_BOOT;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static int bad(struct strbuf *err, enum result_stage stage, const char *fmt, ...)
	PRINTF(3, 4);

static int bad(struct strbuf *err, enum result_stage stage, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(err, "%s result: ", result_stage_name(stage));
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* a list that must be a list of objects when present */
static int check_list(enum result_stage stage, json_object *doc, const char *key,
		      bool required, struct strbuf *err)
{
	json_object *v = jx_get(doc, key);
	size_t i;

	if (!v)
		return required ? bad(err, stage, "no '%s' list", key) : 0;
	if (!json_object_is_type(v, json_type_array))
		return bad(err, stage, "'%s' is not a list", key);
	for (i = 0; i < json_object_array_length(v); i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_object))
			return bad(err, stage, "an item of '%s' is not an object", key);
	return 0;
}

static int summarise_apply(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *patches = jx_array(doc, "patches"), *base = jx_object(doc, "base");
	json_object *failed = NULL;
	size_t i, nr, bad_patches = 0;
	struct strbuf sb = STRBUF_INIT;

	if (check_list(STAGE_APPLY, doc, "patches", true, err))
		return -1;
	nr = json_object_array_length(patches);
	for (i = 0; i < nr; i++) {
		json_object *p = json_object_array_get_idx(patches, i);
		const char *status = jx_str(p, "status");

		if (!status)
			return bad(err, STAGE_APPLY, "patch %s has no 'status'",
				   jx_get(p, "n") ? json_object_get_string(jx_get(p, "n")) : "?");
		if (!strcmp(status, "failed")) {
			bad_patches++;
			if (!failed)
				failed = p;
		}
	}
	if (failed) {
		const char *file = jx_str(failed, "file");

		strbuf_addf(&sb, "patch %d/%d does not apply",
			    (int)jx_int(failed, "n", 0),
			    (int)jx_int(failed, "total", (int64_t)nr));
		if (file)
			strbuf_addf(&sb, ": %s", file);
		r->status = xstrdup("failed");
		r->findings = (int)bad_patches;
	} else if (!jx_bool(doc, "applied", true) || (!nr && !jx_str(doc, "branch"))) {
		strbuf_addf(&sb, "not applied: %s",
			    jx_str(base, "reason") ? jx_str(base, "reason") : "no base");
		r->status = xstrdup("failed");
		r->findings = 1;
	} else {
		strbuf_addf(&sb, "applied on %s", jx_str(base, "name") ?
			    jx_str(base, "name") : "?");
		if (jx_str(base, "sha"))
			strbuf_addf(&sb, " (%.12s)", jx_str(base, "sha"));
		r->status = xstrdup("applied");
	}
	r->summary = strbuf_detach(&sb, NULL);
	return 0;
}

static void plural(struct strbuf *sb, int n, const char *one, const char *many)
{
	if (sb->len)
		strbuf_addstr(sb, ", ");
	strbuf_addf(sb, "%d %s", n, n == 1 ? one : many);
}

static int summarise_check(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *findings = jx_array(doc, "findings");
	int count[3] = { 0 };
	static const char *const sev[] = { "error", "warning", "note", NULL };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int k;

	if (check_list(STAGE_CHECK, doc, "findings", true, err))
		return -1;
	for (i = 0; i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		const char *s = jx_str(f, "severity");

		for (k = 0; sev[k]; k++)
			if (s && !strcmp(s, sev[k]))
				break;
		if (!sev[k])
			return bad(err, STAGE_CHECK, "a finding has severity '%s' "
				   "(not error, warning or note)", s ? s : "(none)");
		count[k]++;
	}
	if (count[0])
		plural(&sb, count[0], "error", "errors");
	if (count[1])
		plural(&sb, count[1], "warning", "warnings");
	if (count[2])
		plural(&sb, count[2], "note", "notes");
	r->status = xstrdup(count[0] ? "errors" : count[1] ? "warnings" :
			    count[2] ? "notes" : "clean");
	r->summary = sb.len ? strbuf_detach(&sb, NULL) : xstrdup("no findings");
	r->findings = count[0] + count[1];
	strbuf_release(&sb);
	return 0;
}

static int summarise_build(json_object *a, struct result *r, struct strbuf *err)
{
	json_object *findings = jx_array(a, "findings");
	const char *status = jx_str(a, "status");
	int errors = 0, warnings = 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!jx_str(a, "arch"))
		return bad(err, STAGE_BUILD, "an arch object has no '%s'", "arch");
	if (!status || !in_list(status, build_statuses))
		return bad(err, STAGE_BUILD, "status '%s' is not ok, warnings, errors "
			   "or infra", status ? status : "(none)");
	if (check_list(STAGE_BUILD, a, "findings", false, err))
		return -1;
	for (i = 0; findings && i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);
		const char *sev = jx_strz(f, "severity");

		if (!jx_bool(f, "new", true))
			continue;
		if (!strcmp(sev, "error") || !strcmp(sev, "fatal error"))
			errors++;
		else
			warnings++;
	}
	if (!strcmp(status, "infra")) {
		strbuf_addf(&sb, "infrastructure error%s%s", jx_str(a, "message") ? ": " : "",
			    jx_strz(a, "message"));
	} else if (!strcmp(status, "ok") && !errors && !warnings) {
		strbuf_addstr(&sb, "ok");
	} else {
		if (errors)
			plural(&sb, errors, "error", "errors");
		if (warnings)
			plural(&sb, warnings, "new warning", "new warnings");
		if (!sb.len)
			strbuf_addstr(&sb, status);
	}
	r->status = xstrdup(status);
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = strcmp(status, "infra") ? errors + warnings : 0;
	return 0;
}

static int summarise_boot(json_object *a, struct result *r, struct strbuf *err)
{
	json_object *tests = jx_array(a, "tests"), *findings = jx_array(a, "findings");
	const char *status = jx_str(a, "status");
	int pass = 0, fail = 0, newfail = 0, other = 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i, nf;

	if (!jx_str(a, "arch"))
		return bad(err, STAGE_BOOT, "an arch object has no '%s'", "arch");
	if (!status || !in_list(status, boot_statuses))
		return bad(err, STAGE_BOOT, "status '%s' is not ok, regressions, "
			   "boot-failure or infra", status ? status : "(none)");
	if (check_list(STAGE_BOOT, a, "tests", false, err) ||
	    check_list(STAGE_BOOT, a, "findings", false, err))
		return -1;
	for (i = 0; tests && i < json_object_array_length(tests); i++) {
		json_object *t = json_object_array_get_idx(tests, i);
		const char *res = jx_strz(t, "result");

		if (!strcmp(res, "pass"))
			pass++;
		else if (!strcmp(res, "fail") && jx_bool(t, "new", false))
			newfail++;
		else if (!strcmp(res, "fail"))
			fail++;
		else
			other++;
	}
	nf = findings ? json_object_array_length(findings) : 0;
	if (!strcmp(status, "infra")) {
		strbuf_addf(&sb, "infrastructure error%s%s", jx_str(a, "message") ? ": " : "",
			    jx_strz(a, "message"));
	} else if (!strcmp(status, "boot-failure")) {
		strbuf_addstr(&sb, "does not boot");
	} else {
		if (pass)
			plural(&sb, pass, "test passed", "tests passed");
		if (newfail)
			plural(&sb, newfail, "new failure", "new failures");
		if (fail)
			plural(&sb, fail, "old failure", "old failures");
		if (other)
			plural(&sb, other, "skipped or flaky", "skipped or flaky");
		if (nf)
			plural(&sb, (int)nf, "finding", "findings");
		if (!sb.len)
			strbuf_addstr(&sb, status);
	}
	r->status = xstrdup(status);
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = !strcmp(status, "infra") || !strcmp(status, "ok") ? 0 :
		MAX((int)nf, newfail) + !strcmp(status, "boot-failure");
	return 0;
}

int result_summarise(enum result_stage stage, json_object *doc, struct result *r,
		     struct strbuf *err)
{
	static int (*const fn[STAGE_NR])(json_object *, struct result *, struct strbuf *) = {
		[STAGE_APPLY] = summarise_apply,
		[STAGE_CHECK] = summarise_check,
		[STAGE_BUILD] = summarise_build,
		[STAGE_BOOT] = summarise_boot,
	};

	if (stage >= STAGE_NR)
		return -1;
	if (!doc || !json_object_is_type(doc, json_type_object))
		return bad(err, stage, "%s", "the document is not a JSON object");
	r->stage = stage;
	r->findings = 0;
	return fn[stage](doc, r, err);
}

void result_release(struct result *r)
{
	free(r->arch);
	free(r->status);
	free(r->summary);
	json_object_put(r->doc);
	memset(r, 0, sizeof(*r));
}
