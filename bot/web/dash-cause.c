// SPDX-License-Identifier: GPL-2.0
/*
 * Why a version is in its state, for the dashboard: one line for the
 * index ("riscv: mm/vmscan.c:3871: error (7/9)"), the text behind it and
 * the result it comes from (whose log the series page links), and the
 * findings split by severity.
 */
#include "bot/web/dash-int.h"
#include "bot/results/contract.h"
#include "bot/store/store-results.h"

/* Severity words of findings to the columns of the split */
static const struct {
	const char *word;
	enum dash_sev sev;
} sev_words[] = {
	{ RD_SEV_ERROR, DASH_ERROR }, { RD_SEV_FATAL, DASH_ERROR },
	{ RD_SEV_WARNING, DASH_WARNING }, { RD_SEV_NOTE, DASH_NOTE },
};

const char *const dash_sev_names[DASH_SEV_NR] = {
	[DASH_ERROR] = "errors", [DASH_WARNING] = "warnings", [DASH_NOTE] = "notes",
};

/* DASH_SEV_NR for a word that is none of them */
static enum dash_sev finding_sev(json_object *f)
{
	const char *s = rd_finding_severity_z(f);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sev_words); i++)
		if (!strcmp(s, sev_words[i].word))
			return sev_words[i].sev;
	return DASH_SEV_NR;
}

void dash_findings_each(const struct report_version *v, dash_finding_fn *fn, void *data)
{
	size_t i, j;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc);

		if (!stages[r->stage]->findings)
			continue;
		for (j = 0; fs && j < json_object_array_length(fs); j++)
			fn(r, rd_at(fs, j), data);
	}
}

/* Does r fail its stage (the stage table's rule)? */
static bool result_fails(const struct result *r)
{
	const struct stage_ops *s = stages[r->stage];
	unsigned int bit = 1u << r->status;

	return (s->fail_on & bit) || ((s->fail_on_findings & bit) && r->findings);
}

static void count_finding(const struct result *r, json_object *f, void *data)
{
	int *n = data;
	enum dash_sev s = finding_sev(f);

	if (stages[r->stage]->old_findings && !rd_finding_is_new(f, true))
		return;
	/* a build's unknown word is a warning: summarise_build()'s rule */
	if (s == DASH_SEV_NR && r->stage == STAGE_BUILD)
		s = DASH_WARNING;
	if (s < DASH_SEV_NR)
		n[s]++;
}

void dash_counts(const struct report_version *v, int n[DASH_SEV_NR])
{
	size_t i;

	memset(n, 0, DASH_SEV_NR * sizeof(*n));
	/* a boot regression or a splat is an error of the series */
	for (i = 0; i < v->results.nr; i++)
		if (v->results.v[i].stage == STAGE_BOOT && result_fails(&v->results.v[i]))
			n[DASH_ERROR] += MAX(v->results.v[i].findings, 1);
	dash_findings_each(v, count_finding, n);
}

/* " (7/9)", " (cover)" */
static void patch_of(struct strbuf *sb, const struct report_version *v, int64_t n)
{
	if (n > 0)
		strbuf_addf(sb, " (%lld/%d)", (long long)n, v->total);
	else
		strbuf_addstr(sb, " (cover)");
}

/* "[arch: ]file:line: [rule ]severity (n/t)" */
static void finding_line(struct strbuf *sb, const struct report_version *v,
			 const struct result *r, json_object *f, bool rule)
{
	if (*r->arch)
		strbuf_addf(sb, "%s: ", r->arch);
	if (rd_finding_file(f)) {
		strbuf_addstr(sb, rd_finding_file(f));
		if (rd_finding_line(f, 0) > 0)
			strbuf_addf(sb, ":%lld", (long long)rd_finding_line(f, 0));
		strbuf_addstr(sb, ": ");
	}
	if (rule && rd_finding_rule(f))
		strbuf_addf(sb, "%s ", rd_finding_rule(f));
	strbuf_addstr(sb, rd_finding_severity(f) ? rd_finding_severity(f) : "warning");
	patch_of(sb, v, rd_finding_patch(f, 0));
}

static void finding_text(struct strbuf *sb, json_object *f)
{
	strbuf_addstr(sb, rd_finding_message_z(f));
	if (rd_finding_quote(f)) {
		strbuf_complete_line(sb);
		strbuf_addstr(sb, rd_finding_quote(f));
	}
}

static json_object *failed_patch(json_object *doc)
{
	json_object *ps = rd_doc_patches(doc);
	size_t i;

	for (i = 0; ps && i < json_object_array_length(ps); i++) {
		const char *st = rd_patch_status(rd_at(ps, i));

		if (st && !strcmp(st, RD_PATCH_FAILED))
			return rd_at(ps, i);
	}
	return NULL;
}

typedef void cause_fn(const struct dash *d, const struct report_version *v,
		      struct dash_cause *c);

static void cause_base(const struct dash *d, const struct report_version *v,
		       struct dash_cause *c)
{
	const struct result *r = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *base = r ? rd_doc_base(r->doc) : NULL;

	c->r = r;
	strbuf_addstr(&c->line, "base unknown");
	if (!r)
		return;
	if (v->base_commit)
		strbuf_addf(&c->line, ": %.12s is not in the tree", v->base_commit);
	if (rd_base_reason(base))
		strbuf_addf(&c->text, "%s\n", rd_base_reason(base));
	strbuf_addf(&c->text, "on %s instead: %s", rd_base_name(base) ? rd_base_name(base) :
		    "another base", r->summary);
}

static void cause_apply(const struct dash *d, const struct report_version *v,
			struct dash_cause *c)
{
	const struct result *r = store_results_find(&v->results, STAGE_APPLY, NULL);
	json_object *p, *base;

	if (!r)
		return;
	c->r = r;
	p = failed_patch(r->doc);
	base = rd_doc_base(r->doc);
	if (!p) {
		strbuf_addstr(&c->line, r->summary);
		strbuf_addstr(&c->text, rd_base_reason_z(base));
		return;
	}
	strbuf_addf(&c->line, "%lld/%lld does not apply", (long long)rd_patch_n(p, 0),
		    (long long)rd_patch_total(p, v->total));
	if (rd_base_name(base))
		strbuf_addf(&c->line, " to %s", rd_base_name(base));
	if (rd_patch_file(p))
		strbuf_addf(&c->line, ": %s", rd_patch_file(p));
	if (rd_patch_hunk(p))
		strbuf_addf(&c->text, "%s\n", rd_patch_hunk(p));
	strbuf_addstr(&c->text, rd_patch_message_z(p));
}

/* The first result of stage that fails, and its first finding that is new */
static void cause_failed(const struct report_version *v, enum stage stage,
			 struct dash_cause *c)
{
	size_t i, j;

	for (i = 0; i < v->results.nr && !c->r; i++) {
		const struct result *r = &v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc);

		if (r->stage != stage || !result_fails(r))
			continue;
		c->r = r;
		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = rd_at(fs, j);

			if (stage == STAGE_BUILD && (!rd_finding_is_new(f, true) ||
						     finding_sev(f) != DASH_ERROR))
				continue;
			if (stage == STAGE_BUILD) {
				finding_line(&c->line, v, r, f, false);
			} else {
				strbuf_addf(&c->line, "%s: ",
					    *r->arch ? r->arch : plan_stage_name(stage));
				if (rd_finding_kind(f))
					strbuf_addf(&c->line, "%s: ", rd_finding_kind(f));
				strbuf_addstr(&c->line, rd_finding_message_z(f));
			}
			finding_text(&c->text, f);
			if (rd_finding_trace(f)) {
				strbuf_complete_line(&c->text);
				strbuf_addstr(&c->text, rd_finding_trace(f));
			}
			return;
		}
		/* nothing to point at (a link error, no boot): the summary */
		strbuf_addf(&c->line, "%s: %s", *r->arch ? r->arch : plan_stage_name(stage),
			    r->summary);
	}
}

static void cause_build(const struct dash *d, const struct report_version *v,
			struct dash_cause *c)
{
	cause_failed(v, STAGE_BUILD, c);
}

static void cause_boot(const struct dash *d, const struct report_version *v,
		       struct dash_cause *c)
{
	cause_failed(v, STAGE_BOOT, c);
}

/*
 * The worst finding first: what the noise policy would mail, then new
 * build warnings, then style; errors before warnings within each.
 */
static int finding_rank(const struct dash *d, const struct result *r, json_object *f)
{
	enum dash_sev s = finding_sev(f);

	if (stages[r->stage]->old_findings && !rd_finding_is_new(f, true))
		return -1;
	if (r->stage == STAGE_BUILD)	/* a Coccinelle style rule's: style */
		return report_build_style(&d->ro, f) ? 4 : 2;
	if (s > DASH_WARNING)
		return -1;
	switch (report_finding_class(&d->ro, f)) {
	case REPORT_MAIL:
		return s == DASH_ERROR ? 0 : 1;
	case REPORT_STYLE:
		return s == DASH_ERROR ? 3 : 4;
	default:
		return 5;
	}
}

struct worst {
	const struct dash *d;
	const struct result *r;
	json_object *f;
	int rank;
};

static void worse(const struct result *r, json_object *f, void *data)
{
	struct worst *w = data;
	int rank = finding_rank(w->d, r, f);

	if (rank >= 0 && (!w->f || rank < w->rank)) {
		w->f = f;
		w->r = r;
		w->rank = rank;
	}
}

static void cause_findings(const struct dash *d, const struct report_version *v,
			   struct dash_cause *c)
{
	struct worst w = { .d = d };

	dash_findings_each(v, worse, &w);
	if (!w.f)
		return;
	c->r = w.r;
	finding_line(&c->line, v, w.r, w.f, true);
	finding_text(&c->text, w.f);
}

static void cause_infra(const struct dash *d, const struct report_version *v,
			struct dash_cause *c)
{
	size_t i;

	for (i = 0; i < v->results.nr && !c->r; i++) {
		const struct result *r = &v->results.v[i];

		if (r->status != STATUS_INFRA)
			continue;
		c->r = r;
		strbuf_addf(&c->line, "%s%s%s: %s", plan_stage_name(r->stage), *r->arch ? " " : "",
			    r->arch, r->summary);
	}
}

/* The states that have a cause, and where it is found */
static const struct {
	const char *state;
	cause_fn *fn;
} causes[] = {
	{ "base-unknown", cause_base },
	{ "apply-failed", cause_apply },
	{ "build-failed", cause_build },
	{ "boot-failed", cause_boot },
	{ "findings", cause_findings },
	{ "infra", cause_infra },
};

void dash_cause(const struct dash *d, const struct dash_version *dv, struct dash_cause *c)
{
	size_t i;
	int s;

	for (i = 0; i < ARRAY_SIZE(causes); i++) {
		if (!strcmp(dv->state, causes[i].state)) {
			causes[i].fn(d, &dv->v, c);
			break;
		}
	}
	/* another stage's failure: its first failing result */
	for (s = 0; i == ARRAY_SIZE(causes) && s < STAGE_NR; s++)
		if (stages[s]->fails && !strcmp(dv->state, stages[s]->fails))
			cause_failed(&dv->v, s, c);
	strbuf_trim(&c->line);
	strbuf_rtrim(&c->text);
}

void dash_cause_release(struct dash_cause *c)
{
	strbuf_release(&c->line);
	strbuf_release(&c->text);
	c->r = NULL;
}
