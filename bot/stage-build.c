// SPDX-License-Identifier: GPL-2.0
/*
 * build: each patch of the applied branch built per arch (lorebot build)
 */
#include "bot/contract.h"
#include "bot/dash-int.h"
#include "bot/report.h"
#include "lib/text.h"
#include "bot/results.h"

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
			strbuf_addstr(&sb, stage_status_name(r->status));
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
	dash_log_link(sb, r);
	if (rd_doc_config_file(r->doc))
		strbuf_addf(sb, " <a href=\"/config/%lld\">.config</a>", (long long)r->id);
}

const struct stage_ops stage_build = {
	.name = "build",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_APPLY,
	.after_on = ST(APPLIED),
	.command = "build",
	.input = STAGE_IN_BRANCH,
	.statuses = ST(OK) | ST(WARNINGS) | ST(ERRORS) | ST(INFRA) | ST(PARTIAL),
	.fails = "build-failed",
	.fail_on = ST(ERRORS),
	.findings = true,
	.keys = (const struct stage_key[]){
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = false },
		{ NULL },
	},
	.status_required = true,
	.summarise = summarise_build,
	.old_findings = true,
	.finding_rule = build_rule,
	.finding_id = build_finding_id,
	.dash = true,
	.page_links = build_links,
};
