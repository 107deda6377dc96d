// SPDX-License-Identifier: GPL-2.0
/*
 * Stage documents checked against their contracts (bot/contract.h), and
 * what a person (and a reply) needs from each: a status, one line, a
 * count.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "bot/contract.h"
#include "bot/results.h"

static int bad(struct strbuf *err, enum stage stage, const char *fmt, ...)
	PRINTF(3, 4);

static int bad(struct strbuf *err, enum stage stage, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(err, "%s result: ", stage_name(stage));
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* a list that must be a list of objects when present */
static int check_list(enum stage stage, json_object *doc, const char *key,
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

/* The status an arch object or an infra document says, checked */
static int doc_status(enum stage stage, json_object *doc, bool required,
		      struct result *r, struct strbuf *err)
{
	const char *word = rd_doc_status(doc);
	enum status st = stage_status_parse(word);
	struct strbuf list = STRBUF_INIT;
	int i;

	if (!word && !required)
		return 0;
	if (word && stage_has_status(stage, st)) {
		r->status = st;
		return 0;
	}
	for (i = STATUS_NONE + 1; i < STATUS_NR; i++)
		if (stage_has_status(stage, i))
			strbuf_addf(&list, "%s%s", list.len ? ", " : "", stage_status_name(i));
	bad(err, stage, "status '%s' is not one of %s", word ? word : "(none)", list.buf);
	strbuf_release(&list);
	return -1;
}

static void infra_summary(struct result *r, const char *why)
{
	r->status = STATUS_INFRA;
	r->summary = xasprintf("infrastructure error%s%s", why ? ": " : "", why ? why : "");
	r->findings = 0;
}

static int summarise_apply(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *patches = rd_doc_patches(doc), *base = rd_doc_base(doc);
	json_object *failed = NULL;
	size_t i, nr, bad_patches = 0;
	struct strbuf sb = STRBUF_INIT;

	if (doc_status(STAGE_APPLY, doc, false, r, err))
		return -1;
	if (r->status == STATUS_INFRA) {
		infra_summary(r, rd_doc_message(doc));
		return 0;
	}
	if (check_list(STAGE_APPLY, doc, RK_(doc, patches), true, err))
		return -1;
	nr = json_object_array_length(patches);
	for (i = 0; i < nr; i++) {
		json_object *p = rd_at(patches, i);
		const char *status = rd_patch_status(p);

		if (!status)
			return bad(err, STAGE_APPLY, "patch %lld has no '%s'",
				   (long long)rd_patch_n(p, 0), RK_(patch, status));
		if (!strcmp(status, RD_PATCH_FAILED)) {
			bad_patches++;
			if (!failed)
				failed = p;
		}
	}
	if (failed) {
		const char *file = rd_patch_file(failed);

		strbuf_addf(&sb, "patch %d/%d does not apply", (int)rd_patch_n(failed, 0),
			    (int)rd_patch_total(failed, (int64_t)nr));
		if (file)
			strbuf_addf(&sb, ": %s", file);
		r->status = STATUS_FAILED;
		r->findings = (int)bad_patches;
	} else if (!rd_doc_applied(doc, true) || (!nr && !rd_doc_branch(doc))) {
		strbuf_addf(&sb, "not applied: %s",
			    rd_base_reason(base) ? rd_base_reason(base) : "no base");
		r->status = STATUS_FAILED;
		r->findings = 1;
	} else {
		strbuf_addf(&sb, "applied on %s", rd_base_name(base) ?
			    rd_base_name(base) : "?");
		if (rd_base_sha(base))
			strbuf_addf(&sb, " (%.12s)", rd_base_sha(base));
		r->status = STATUS_APPLIED;
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
	json_object *findings = rd_doc_findings(doc);
	int count[3] = { 0 };
	static const char *const sev[] = { RD_SEV_ERROR, RD_SEV_WARNING, RD_SEV_NOTE, NULL };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int k;

	if (doc_status(STAGE_CHECK, doc, false, r, err))
		return -1;
	if (r->status == STATUS_INFRA) {
		infra_summary(r, rd_doc_message(doc));
		return 0;
	}
	if (check_list(STAGE_CHECK, doc, RK_(doc, findings), true, err))
		return -1;
	for (i = 0; i < json_object_array_length(findings); i++) {
		const char *s = rd_finding_severity(rd_at(findings, i));

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
	r->status = count[0] ? STATUS_ERRORS : count[1] ? STATUS_WARNINGS :
		count[2] ? STATUS_NOTES : STATUS_CLEAN;
	r->summary = sb.len ? strbuf_detach(&sb, NULL) : xstrdup("no findings");
	r->findings = count[0] + count[1];
	strbuf_release(&sb);
	return 0;
}

/* "; compiled 19 of 20 changed lines (95%)": the arch's own lines */
static void cover_summary(json_object *a, struct strbuf *sb)
{
	json_object *c = rd_doc_coverage(a);
	int changed = (int)rd_cover_changed(c, 0);
	int own = changed - (int)rd_cover_other_arch(c, 0);
	int compiled = (int)rd_cover_compiled(c, 0);

	if (!c)
		return;		/* a result of a lorebot before coverage */
	if (!rd_cover_measured(c, false))
		strbuf_addstr(sb, "; changed lines compiled: not measured");
	else if (own > 0)
		strbuf_addf(sb, "; compiled %d of %d changed line%s (%d%%)", compiled, own,
			    own == 1 ? "" : "s", (int)(100LL * compiled / own));
	else if (changed > 0)
		strbuf_addf(sb, "; none of the %d changed lines is this arch's code", changed);
}

static int summarise_build(json_object *a, struct result *r, struct strbuf *err)
{
	json_object *findings = rd_doc_findings(a);
	int errors = 0, warnings = 0, style = 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!rd_doc_arch(a))
		return bad(err, STAGE_BUILD, "an arch object has no '%s'", RK_(doc, arch));
	if (doc_status(STAGE_BUILD, a, true, r, err) ||
	    check_list(STAGE_BUILD, a, RK_(doc, findings), false, err))
		return -1;
	if (r->status == STATUS_INFRA) {
		/* lorebot build says why in "infra", the runner in "message" */
		infra_summary(r, rd_doc_infra(a) ? rd_doc_infra(a) : rd_doc_message(a));
		return 0;
	}
	for (i = 0; findings && i < json_object_array_length(findings); i++) {
		json_object *f = rd_at(findings, i);
		const char *sev = rd_finding_severity_z(f);

		if (!rd_finding_is_new(f, true))
			continue;
		if (rd_finding_style(f, false))
			style++;	/* a Coccinelle style rule's: not the verdict's */
		else if (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL))
			errors++;
		else
			warnings++;
	}
	if (r->status == STATUS_OK && !errors && !warnings) {
		strbuf_addstr(&sb, "ok");
	} else if (r->status == STATUS_PARTIAL && !errors && !warnings) {
		strbuf_addstr(&sb, "partial");
	} else {
		if (errors)
			plural(&sb, errors, "error", "errors");
		if (warnings)
			plural(&sb, warnings, "new warning", "new warnings");
		if (!sb.len)
			strbuf_addstr(&sb, stage_status_name(r->status));
	}
	if (style)
		plural(&sb, style, "style finding", "style findings");
	cover_summary(a, &sb);
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = errors + warnings;
	return 0;
}

static int summarise_boot(json_object *a, struct result *r, struct strbuf *err)
{
	json_object *tests = rd_doc_tests(a), *findings = rd_doc_findings(a);
	int pass = 0, fail = 0, newfail = 0, other = 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i, nf;

	if (!rd_doc_arch(a))
		return bad(err, STAGE_BOOT, "an arch object has no '%s'", RK_(doc, arch));
	if (doc_status(STAGE_BOOT, a, true, r, err) ||
	    check_list(STAGE_BOOT, a, RK_(doc, tests), false, err) ||
	    check_list(STAGE_BOOT, a, RK_(doc, findings), false, err))
		return -1;
	if (r->status == STATUS_INFRA) {
		infra_summary(r, rd_doc_message(a));
		return 0;
	}
	for (i = 0; tests && i < json_object_array_length(tests); i++) {
		json_object *t = rd_at(tests, i);
		const char *res = rd_test_result_z(t);

		if (!strcmp(res, RD_TEST_PASS))
			pass++;
		else if (!strcmp(res, RD_TEST_FAIL) && rd_test_is_new(t, false))
			newfail++;
		else if (!strcmp(res, RD_TEST_FAIL))
			fail++;
		else
			other++;
	}
	nf = findings ? json_object_array_length(findings) : 0;
	if (r->status == STATUS_BOOT_FAILURE) {
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
			strbuf_addstr(&sb, stage_status_name(r->status));
	}
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = r->status == STATUS_OK ? 0 :
		MAX((int)nf, newfail) + (r->status == STATUS_BOOT_FAILURE);
	return 0;
}

int results_summarise(enum stage stage, json_object *doc, struct result *r,
		      struct strbuf *err)
{
	static int (*const fn[STAGE_RESULTS])(json_object *, struct result *,
					      struct strbuf *) = {
		[STAGE_APPLY] = summarise_apply,
		[STAGE_CHECK] = summarise_check,
		[STAGE_BUILD] = summarise_build,
		[STAGE_BOOT] = summarise_boot,
	};

	if (stage >= STAGE_RESULTS)
		return -1;
	if (!doc || !json_object_is_type(doc, json_type_object))
		return bad(err, stage, "%s", "the document is not a JSON object");
	r->stage = stage;
	r->status = STATUS_NONE;
	r->findings = 0;
	return fn[stage](doc, r, err);
}

json_object *results_infra_doc(enum stage stage, const char *arch, const char *why)
{
	json_object *o = json_object_new_object();

	if (stage_per_arch(stage))
		json_object_object_add(o, RK_(doc, arch), json_object_new_string(arch ? arch : ""));
	json_object_object_add(o, RK_(doc, status),
			       json_object_new_string(stage_status_name(STATUS_INFRA)));
	json_object_object_add(o, RK_(doc, message), jx_new_str(why));
	return o;
}

void results_release(struct result *r)
{
	free(r->arch);
	free(r->summary);
	json_object_put(r->doc);
	memset(r, 0, sizeof(*r));
}
