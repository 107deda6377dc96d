// SPDX-License-Identifier: GPL-2.0
/*
 * build: each patch of the applied branch built per arch (lorebot build)
 */
#include "bot/results/contract.h"
#include "bot/report/html.h"
#include "bot/report/report-int.h"
#include "bot/report/report.h"
#include "bot/report/pcheck.h"
#include "bot/results/results.h"
#include "lib/text.h"

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
			results_plural(&sb, errors, "error", "errors");
		if (warnings)
			results_plural(&sb, warnings, "new warning", "new warnings");
		if (!sb.len)
			strbuf_addstr(&sb, plan_status_name(r->status));
	}
	if (style)
		results_plural(&sb, style, "style finding", "style findings");
	cover_summary(a, &sb);
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = errors + warnings;
	return 0;
}

/* An answer ignores a compiler warning by its option (-Wunused-variable) */
static const char *build_rule(json_object *f)
{
	return rd_finding_option(f);
}

static void build_finding_id(json_object *f, struct strbuf *sb)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "build:%s", rd_finding_option(f) ? rd_finding_option(f) :
		    rd_finding_severity_z(f));
	report_id_text(sb, key.buf, f);
	strbuf_release(&key);
}

/* The series page's links: the compiler, the log and the .config */
static void build_links(struct strbuf *sb, const struct result *r)
{
	const char *compiler = rd_name_of(rd_doc_compiler(r->doc));

	if (compiler) {
		text_html_escape(sb, compiler);
		strbuf_addch(sb, ' ');
	}
	html_log_link(sb, r);
	if (rd_doc_config_file(r->doc))
		strbuf_addf(sb, " <a href=\"/config/%lld\">.config</a>", (long long)r->id);
}

/* build: per arch, the diagnostics (new ones ">>"), config and compiler */

/* Is f an error (or fatal), not a warning? */
static bool build_error(json_object *f)
{
	const char *sev = rd_finding_severity_z(f);

	return !strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL);
}

/* Does the section's filter show f? */
static bool build_shows(const struct report_ctx *c, json_object *f)
{
	if (report_build_style(c->o, f))
		return false;	/* counted in the style line */
	return c->build == BUILD_ALL || build_error(f) == (c->build == BUILD_ERRORS);
}

static bool build_arch_shows(const struct report_ctx *c, json_object *findings)
{
	size_t j;

	for (j = 0; findings && j < json_object_array_length(findings); j++)
		if (rd_finding_is_new(rd_at(findings, j), true) &&
		    build_shows(c, rd_at(findings, j)))
			return true;
	return false;
}

static void build_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, info = STRBUF_INIT;
	struct strbuf shown = STRBUF_INIT;	/* "\npatch:file:line\n" excerpted */
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	size_t i, j, nn = 0;
	int errors = 0, warnings = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *findings = rd_doc_findings(r->doc);
		size_t nf = findings ? json_object_array_length(findings) : 0;

		if (r->stage != STAGE_BUILD || !r->findings || !build_arch_shows(c, findings))
			continue;
		names[nn++] = r->arch;
		report_arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; j < nf; j++) {
			json_object *f = rd_at(findings, j);
			bool is_new = rd_finding_is_new(f, true);
			const char *raw = rd_finding_raw(f) ? rd_finding_raw(f) : rd_finding_output(f);
			const char *sev = rd_finding_severity_z(f);
			int patch = (int)rd_finding_patch(f, 0);
			char id[REPORT_ID_LEN + 1];
			size_t mark;

			if (!build_shows(c, f) || (is_new && report_dismissed(c->v, STAGE_BUILD, f)))
				continue;
			if (is_new && (!strcmp(sev, RD_SEV_ERROR) || !strcmp(sev, RD_SEV_FATAL)))
				errors++;
			else if (is_new)
				warnings++;
			if (raw) {
				strbuf_addstr(&out, is_new ? ">> " : "   ");
				report_add_block(&out, "", raw);
			} else {
				report_finding_line(&out, is_new ? ">> " : "   ", STAGE_BUILD, f);
			}
			if (!is_new)
				continue;
			report_finding_id(STAGE_BUILD, f, id);
			if (patch > 0)
				strbuf_addf(&out, "   (first seen with patch %d/%d; id %s)\n", patch,
					    c->v->total, id);
			else if (raw)
				strbuf_addf(&out, "   (id %s)\n", id);
			/* the same place on another arch: its code once */
			mark = shown.len;
			strbuf_addf(&shown, "\n%d:%s:%lld\n", patch, rd_finding_file_z(f),
				    (long long)rd_finding_line(f, 0));
			if (strstr(shown.buf, shown.buf + mark) != shown.buf + mark) {
				strbuf_setlen(&shown, mark);
				continue;
			}
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, patch, rd_finding_file(f), (int)rd_finding_line(f, 0),
					   1, NULL, &ex))
				strbuf_setlen(&ex, mark);
		}
	}
	template_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	template_set(&c->vars, "what", errors && warnings ? "errors and new warnings" :
		     errors ? "errors" : "new warnings");
	strbuf_rtrim(&ex);
	template_set(&c->vars, "excerpts", ex.buf);
	report_arch_vars(c, names, nn, &info, &out);
	free(names);
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&info);
	strbuf_release(&shown);
}

/* The reply's record: the new findings of the build sections it has */
static bool build_snap(const struct report_ctx *c, const struct result *r, json_object *out)
{
	json_object *fs = rd_doc_findings(r->doc);
	bool any = false;
	size_t i;

	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object *f = rd_at(fs, i);

		if (!rd_finding_is_new(f, true) || report_build_style(c->o, f) ||
		    !c->d->sections[build_error(f) ? SECTION_BUILD_ERRORS :
				    SECTION_BUILD_WARNINGS])
			continue;
		json_object_array_add(out, report_snap_finding(r->stage, r->arch, f));
		any = true;
	}
	return any;
}

/* ... and the arch's config, compiler and make lines */
static void build_snap_arch(json_object *o, const struct result *r)
{
	const char *config = rd_name_of(rd_doc_config(r->doc));

	report_snap_str(o, "config", config ? config : rd_name_of(rd_doc_profile(r->doc)));
	report_snap_str(o, "compiler", rd_name_of(rd_doc_compiler(r->doc)));
	if (rd_doc_make(r->doc))
		json_object_object_add(o, "make", report_snap_copy(rd_doc_make(r->doc)));
}

const struct stage_ops stage_build = {
	.name = "build",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_APPLY,
	.after_on = ST(APPLIED),
	.command = "build",
	.input = STAGE_IN_BRANCH,
	.log_dir = true,
	.first_arch = true,
	.statuses = ST(OK) | ST(WARNINGS) | ST(ERRORS) | ST(INFRA) | ST(PARTIAL),
	.fails = "build-failed",
	.fail_on = ST(ERRORS),
	.findings = true,
	.keys = (const struct stage_key[]){
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = false },
		{ .key = NULL },
	},
	.status_required = true,
	.summarise = summarise_build,
	.old_findings = true,
	.finding_rule = build_rule,
	.finding_id = build_finding_id,
	.dash = true,
	.page_links = build_links,
	.section_vars = build_vars,
	.pcheck_context = "lorebot-build",
	.pchecks = pcheck_build,
	.snap_findings = build_snap,
	.snap_arch = build_snap_arch,
	.kcidb = STAGE_KCIDB_BUILD,
};
