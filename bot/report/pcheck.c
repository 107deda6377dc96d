// SPDX-License-Identifier: GPL-2.0
/* A version's results as one verdict per patch and context (pcheck.h) */
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/report/pcheck.h"
#include "bot/store/store-results.h"

static const char *const state_names[] = {
	[PCHECK_PENDING] = "pending",
	[PCHECK_SUCCESS] = "success",
	[PCHECK_WARNING] = "warning",
	[PCHECK_FAIL] = "fail",
};

const char *pcheck_state_name(enum pcheck_state s)
{
	return state_names[s];
}

void pcheck_release(struct pchecks *cs)
{
	size_t i;

	for (i = 0; i < cs->nr; i++) {
		free(cs->v[i].msgid);
		free(cs->v[i].context);
		free(cs->v[i].description);
	}
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

void pcheck_url(const struct config *cfg, const struct report_version *v, size_t max,
		struct strbuf *sb)
{
	const char *dash = config_v(cfg)->core_dashboardurl;
	size_t mark = sb->len;

	if (!dash || !*dash)
		return;
	strbuf_addstr(sb, dash);
	if (!util_ends_with(dash, "/"))
		strbuf_addch(sb, '/');
	strbuf_addf(sb, "series/%s#v%d", v->series_id, v->version);
	if (sb->len - mark > max)
		strbuf_setlen(sb, mark);
}

/* One line, cut at PCHECK_DESC_MAX on a character boundary */
static char *one_line(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	for (; *s && n < PCHECK_DESC_MAX; s++, n++)
		strbuf_addch(&sb, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
	if (*s) {
		/* do not end inside a UTF-8 sequence */
		while (sb.len && ((unsigned char)sb.buf[sb.len - 1] & 0xc0) == 0x80)
			strbuf_setlen(&sb, sb.len - 1);
		if (sb.len && (unsigned char)sb.buf[sb.len - 1] >= 0xc0)
			strbuf_setlen(&sb, sb.len - 1);
		while (sb.len + 3 > PCHECK_DESC_MAX)
			strbuf_setlen(&sb, sb.len - 1);
		strbuf_addstr(&sb, "...");
	}
	return strbuf_detach(&sb, NULL);
}

static void add(struct pchecks *out, const struct report_version *v, int n,
		const char *context, enum pcheck_state state, const char *desc)
{
	json_object *p = report_patch(v, n);
	struct pcheck *c;

	if (!p || !rd_vpatch_msgid(p))
		return;
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	c = &out->v[out->nr++];
	c->patch = n;
	c->msgid = xstrdup(rd_vpatch_msgid(p));
	c->context = xstrdup(context);
	c->state = state;
	c->description = one_line(desc);
}

static void base_text(const struct report_version *v, struct strbuf *sb)
{
	const struct result *a = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = a ? rd_doc_base(a->doc) : NULL;

	if (rd_base_name(base) && rd_base_sha(base) && strcmp(rd_base_name(base), rd_base_sha(base)))
		strbuf_addf(sb, "%s %.12s", rd_base_name(base), rd_base_sha(base));
	else if (rd_base_sha(base))
		strbuf_addf(sb, "%.12s", rd_base_sha(base));
	else
		strbuf_addstr(sb, "the base");
}

void pcheck_apply(const struct report_version *v, const struct report_opts *o,
		  const struct result *r, struct pchecks *out)
{
	json_object *ps = rd_doc_patches(r->doc);
	struct strbuf sb = STRBUF_INIT, base = STRBUF_INIT;
	bool unknown = report_base_unknown(v);
	int failed = 0, n;
	size_t i;

	base_text(v, &base);
	if (r->status == STATUS_INFRA) {
		strbuf_addf(&sb, "not applied: %s", r->summary);
		for (n = 1; n <= v->total; n++)
			add(out, v, n, plan_stage(r->stage)->pcheck_context, PCHECK_WARNING, sb.buf);
		goto out;
	}
	for (i = 0; ps && i < json_object_array_length(ps); i++) {
		json_object *p = rd_at(ps, i);
		const char *st = rd_patch_status_z(p);
		enum pcheck_state state;

		n = (int)rd_patch_n(p, 0);
		strbuf_reset(&sb);
		if (!strcmp(st, RD_PATCH_APPLIED)) {
			state = PCHECK_SUCCESS;
			strbuf_addf(&sb, "applies to %s", base.buf);
		} else if (!strcmp(st, RD_PATCH_FAILED)) {
			state = unknown ? PCHECK_WARNING : PCHECK_FAIL;
			if (unknown)
				strbuf_addf(&sb, "base-commit %.12s is not in lorebot's tree; ",
					    v->base_commit);
			strbuf_addf(&sb, "does not apply to %s", base.buf);
			if (rd_patch_file(p))
				strbuf_addf(&sb, ": %s", rd_patch_file(p));
			if (!failed)
				failed = n;
		} else {
			state = PCHECK_WARNING;
			if (failed)
				strbuf_addf(&sb, "not applied: patch %d/%d before it does not apply",
					    failed, v->total);
			else
				strbuf_addstr(&sb, "not applied");
		}
		add(out, v, n, plan_stage(r->stage)->pcheck_context, state, sb.buf);
	}
out:
	strbuf_release(&sb);
	strbuf_release(&base);
}

enum pcheck_state pcheck_review(const struct report_opts *o, json_object *findings, int n,
				struct strbuf *desc)
{
	struct strbuf rules = STRBUF_INIT;
	int errors = 0, warnings = 0, style = 0;
	enum pcheck_state state = PCHECK_SUCCESS;
	size_t i;

	for (i = 0; findings && i < json_object_array_length(findings); i++) {
		json_object *f = rd_at(findings, i);
		const char *sev = rd_finding_severity_z(f);
		enum report_class cl;

		if (rd_finding_patch(f, 0) != n)
			continue;
		cl = report_finding_class(o, f);
		if (cl == REPORT_STYLE && strcmp(sev, RD_SEV_NOTE)) {
			style++;
			continue;
		}
		if (cl != REPORT_MAIL)
			continue;
		if (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL))
			errors++;
		else if (!strcmp(sev, RD_SEV_WARNING))
			warnings++;
		else
			continue;
		if (rd_finding_rule(f) && !strstr(rules.buf, rd_finding_rule(f)))
			strbuf_addf(&rules, "%s%s", rules.len ? ", " : "", rd_finding_rule(f));
	}
	if (errors)
		state = PCHECK_FAIL;
	else if (warnings)
		state = PCHECK_WARNING;
	if (errors || warnings) {
		strbuf_addf(desc, "%d error%s, %d warning%s", errors, errors == 1 ? "" : "s",
			    warnings, warnings == 1 ? "" : "s");
		if (rules.len)
			strbuf_addf(desc, ": %s", rules.buf);
	} else {
		strbuf_addstr(desc, "no review finding");
	}
	if (style)
		strbuf_addf(desc, " (%d style finding%s not counted)", style,
			    style == 1 ? "" : "s");
	strbuf_release(&rules);
	return state;
}

void pcheck_check(const struct report_version *v, const struct report_opts *o,
			  const struct result *r, struct pchecks *out)
{
	struct strbuf sb = STRBUF_INIT;
	enum pcheck_state state;
	int n;

	for (n = 1; n <= v->total; n++) {
		strbuf_reset(&sb);
		if (r->status == STATUS_INFRA) {
			strbuf_addf(&sb, "not reviewed: %s", r->summary);
			state = PCHECK_WARNING;
		} else {
			state = pcheck_review(o, rd_doc_findings(r->doc), n, &sb);
		}
		add(out, v, n, plan_stage(r->stage)->pcheck_context, state, sb.buf);
	}
	strbuf_release(&sb);
}

/* The status lorebot build gave patch n, or NULL when the document has none */
static const char *patch_status(json_object *doc, int n)
{
	json_object *ps = jx_array(doc, "patches");
	size_t i;

	for (i = 0; ps && i < json_object_array_length(ps); i++)
		if (jx_int(rd_at(ps, i), "n", 0) == n)
			return jx_str(rd_at(ps, i), "status");
	return NULL;
}

void pcheck_build(const struct report_version *v, const struct report_opts *o,
		  const struct result *r,
			 struct pchecks *out)
{
	json_object *fs = rd_doc_findings(r->doc);
	const char *config = rd_name_of(rd_doc_config(r->doc)) ?
		rd_name_of(rd_doc_config(r->doc)) : rd_name_of(rd_doc_profile(r->doc));
	struct strbuf sb = STRBUF_INIT, ctx = STRBUF_INIT;
	int n;
	size_t i;

	strbuf_addf(&ctx, "%s-%s", plan_stage(r->stage)->pcheck_context, r->arch);
	for (n = 1; n <= v->total; n++) {
		const char *st = patch_status(r->doc, n);
		int errors = 0, warnings = 0, style = 0;
		const char *first = NULL;

		strbuf_reset(&sb);
		if (r->status == STATUS_INFRA || (st && !strcmp(st, "infra"))) {
			strbuf_addf(&sb, "not built: %s", r->summary);
			add(out, v, n, ctx.buf, PCHECK_WARNING, sb.buf);
			continue;
		}
		if (st && !strcmp(st, "skipped")) {
			add(out, v, n, ctx.buf, PCHECK_WARNING, "not built at this patch");
			continue;
		}
		for (i = 0; fs && i < json_object_array_length(fs); i++) {
			json_object *f = rd_at(fs, i);
			const char *sev = rd_finding_severity_z(f);

			if (rd_finding_patch(f, 0) != n || !rd_finding_is_new(f, true))
				continue;
			if (rd_finding_style(f, false))
				style++;
			else if (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL))
				errors++;
			else
				warnings++;
			if (!rd_finding_style(f, false) &&
			    (!first || (errors == 1 && warnings == 0)))
				first = rd_finding_message(f);
		}
		if (errors || warnings) {
			strbuf_addf(&sb, "%d new error%s, %d new warning%s", errors,
				    errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
			if (first)
				strbuf_addf(&sb, ": %s", first);
		} else {
			strbuf_addstr(&sb, "builds, no new warning");
			if (config)
				strbuf_addf(&sb, " (%s config)", config);
		}
		if (style)
			strbuf_addf(&sb, " (%d style finding%s not counted)", style,
				    style == 1 ? "" : "s");
		add(out, v, n, ctx.buf, errors ? PCHECK_FAIL : warnings ? PCHECK_WARNING :
		    PCHECK_SUCCESS, sb.buf);
	}
	strbuf_release(&sb);
	strbuf_release(&ctx);
}

/* The boot is of the series' tip: its verdict goes on the last patch */
void pcheck_boot(const struct report_version *v, const struct report_opts *o,
		 const struct result *r,
			struct pchecks *out)
{
	json_object *tests = rd_doc_tests(r->doc);
	struct strbuf sb = STRBUF_INIT, ctx = STRBUF_INIT, names = STRBUF_INIT;
	int pass = 0, fail = 0, flaky = 0, splats = 0;
	enum pcheck_state state = PCHECK_SUCCESS;
	size_t i;

	strbuf_addf(&ctx, "%s-%s", plan_stage(r->stage)->pcheck_context, r->arch);
	for (i = 0; tests && i < json_object_array_length(tests); i++) {
		json_object *t = rd_at(tests, i);
		const char *res = rd_test_result_z(t);

		if (!strcmp(res, RD_TEST_PASS)) {
			pass++;
		} else if (!strcmp(res, RD_TEST_FLAKY)) {
			flaky++;
		} else if (!strcmp(res, RD_TEST_FAIL) && rd_test_is_new(t, false)) {
			fail++;
			strbuf_addf(&names, "%s%s", names.len ? ", " : "", rd_test_name_z(t));
		}
	}
	for (i = 0; i < rd_doc_findings_len(r->doc); i++)
		if (!strstr(rd_finding_kind_z(rd_at(rd_doc_findings(r->doc), i)), "kselftest"))
			splats++;
	switch (r->status) {
	case STATUS_INFRA:
		state = PCHECK_WARNING;
		strbuf_addf(&sb, "not booted: %s", r->summary);
		break;
	case STATUS_BOOT_FAILURE:
		state = PCHECK_FAIL;
		strbuf_addf(&sb, "the series does not boot: %s", r->summary);
		break;
	case STATUS_REGRESSIONS:
		state = PCHECK_FAIL;
		if (fail)
			strbuf_addf(&sb, "%d new kselftest failure%s: %s", fail,
				    fail == 1 ? "" : "s", names.buf);
		else
			strbuf_addstr(&sb, r->summary);
		if (fail && splats)
			strbuf_addf(&sb, "; %d kernel report%s", splats, splats == 1 ? "" : "s");
		break;
	default:
		strbuf_addf(&sb, "the series boots; %d kselftest%s pass", pass,
			    pass == 1 ? "" : "s");
		if (flaky)
			strbuf_addf(&sb, ", %d flaky", flaky);
		break;
	}
	add(out, v, v->total, ctx.buf, state, sb.buf);
	strbuf_release(&sb);
	strbuf_release(&ctx);
	strbuf_release(&names);
}

static void pending(const struct report_version *v, const char *context,
		    struct pchecks *out, bool last_only)
{
	int n;

	for (n = last_only ? v->total : 1; n <= v->total; n++)
		add(out, v, n, context, PCHECK_PENDING, "not tested yet");
}

static int by_patch(const void *a, const void *b)
{
	const struct pcheck *x = a, *y = b;

	if (x->patch != y->patch)
		return x->patch < y->patch ? -1 : 1;
	return strcmp(x->context, y->context);
}

/* A stage's checks not tested yet: pending, for every patch or the tip */
static void pending_stage(const struct report_version *v, const struct report_opts *o,
			  const struct plan *p, enum stage st, struct pchecks *out)
{
	const struct stage_ops *s = plan_stage(st);
	struct strbuf ctx = STRBUF_INIT;
	size_t i;

	if (!s->pcheck_context || (s->boot_enable && !o->boot))
		return;
	if (!s->per_arch) {
		if (p->need[st][0] == NEED_WAIT || p->need[st][0] == NEED_RUN)
			pending(v, s->pcheck_context, out, s->pcheck_tip);
		return;
	}
	for (i = 0; i < p->nr_archs && i < o->nr_archs; i++) {
		if (p->need[st][i] != NEED_WAIT && p->need[st][i] != NEED_RUN)
			continue;
		strbuf_reset(&ctx);
		strbuf_addf(&ctx, "%s-%s", s->pcheck_context, o->archs[i]);
		pending(v, ctx.buf, out, s->pcheck_tip);
	}
	strbuf_release(&ctx);
}

void pcheck_derive(const struct report_version *v, const struct report_opts *o,
		   unsigned int flags, struct pchecks *out)
{
	struct plan p;
	size_t i;
	int st;

	memset(out, 0, sizeof(*out));
	report_plan(v, o, &p);
	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		const struct stage_ops *s = r->stage < STAGE_NR ? plan_stage(r->stage) : NULL;

		if (s && s->pchecks)
			s->pchecks(v, o, r, out);
	}
	if ((flags & PCHECK_WITH_PENDING) && !v->superseded_by)
		for (st = 0; st < STAGE_NR; st++)
			pending_stage(v, o, &p, st, out);
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), by_patch);
}
