// SPDX-License-Identifier: GPL-2.0
/*
 * check: the review rules, checkpatch and the series' hygiene on the
 * version's mail (lorebot check)
 */
#include "bot/results/contract.h"
#include "bot/report/report-int.h"
#include "bot/report/pcheck.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"

static int summarise_check(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *findings = rd_doc_findings(doc);
	int count[3] = { 0 };
	static const char *const sev[] = { RD_SEV_ERROR, RD_SEV_WARNING, RD_SEV_NOTE, NULL };
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int k;

	for (i = 0; i < json_object_array_length(findings); i++) {
		const char *s = rd_finding_severity(rd_at(findings, i));

		for (k = 0; sev[k]; k++)
			if (s && !strcmp(s, sev[k]))
				break;
		if (!sev[k])
			return results_bad(err, STAGE_CHECK, "a finding has severity '%s' "
					   "(not error, warning or note)", s ? s : "(none)");
		count[k]++;
	}
	if (count[0])
		results_plural(&sb, count[0], "error", "errors");
	if (count[1])
		results_plural(&sb, count[1], "warning", "warnings");
	if (count[2])
		results_plural(&sb, count[2], "note", "notes");
	r->status = count[0] ? STATUS_ERRORS : count[1] ? STATUS_WARNINGS :
		count[2] ? STATUS_NOTES : STATUS_CLEAN;
	r->summary = sb.len ? strbuf_detach(&sb, NULL) : xstrdup("no findings");
	r->findings = count[0] + count[1];
	strbuf_release(&sb);
	return 0;
}

/* check: the findings in compiler format, by patch, with the code */

static int lines_in(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '\n';
	return n ? n : (s ? 1 : 0);
}

static void check_vars(struct report_ctx *c)
{
	const struct result *check = store_results_find(&c->v->results, STAGE_CHECK, NULL);
	json_object *findings = rd_doc_findings(check->doc);
	struct strbuf out = STRBUF_INIT, ex = STRBUF_INIT, name = STRBUF_INIT;
	size_t nr = findings ? json_object_array_length(findings) : 0, i;
	int errors = 0, n, last = -1;

	for (n = 0; n <= c->v->total; n++) {
		for (i = 0; i < nr; i++) {
			json_object *f = rd_at(findings, i);
			const char *quote = rd_finding_quote(f), *sugg = rd_finding_suggestion(f);
			size_t mark;

			if (rd_finding_patch(f, 0) != n ||
			    report_check_class(c->v, c->o, f) != REPORT_MAIL)
				continue;
			errors += !strcmp(rd_finding_severity_z(f), RD_SEV_ERROR);
			if (last != n) {
				json_object *p = report_patch(c->v, n);

				strbuf_reset(&name);
				report_patch_name(&name, c->v, n);
				strbuf_addf(&out, "%s%s", out.len ? "\n" : "", name.buf);
				if (p && rd_vpatch_title(p))
					strbuf_addf(&out, " (%s)", rd_vpatch_title(p));
				strbuf_addstr(&out, ":\n");
				last = n;
			}
			report_finding_line(&out, ">> ", STAGE_CHECK, f);
			mark = ex.len;
			strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
			if (report_excerpt(c, n, rd_finding_file(f), (int)rd_finding_line(f, 0),
					   lines_in(quote), quote, &ex)) {
				strbuf_setlen(&ex, mark);
				if (!quote && !sugg)
					continue;
				strbuf_addf(&ex, "%s", ex.len ? "\n" : "");
				strbuf_addf(&ex, "%s:%lld:\n\n", rd_finding_file(f) ?
					    rd_finding_file(f) : name.buf,
					    (long long)rd_finding_line(f, 0));
				if (quote)
					report_add_block(&ex, ">\t", quote);
			}
			if (sugg) {
				strbuf_addf(&ex, "\nsuggested [%s]:\n\n", rd_finding_rule_z(f));
				report_add_block(&ex, " \t", sugg);
			}
		}
	}
	template_set(&c->vars, "level", errors ? "ERROR" : "WARNING");
	template_set(&c->vars, "what", errors ? "errors" : "warnings");
	strbuf_rtrim(&out);
	template_set(&c->vars, "findings", out.buf);
	strbuf_rtrim(&ex);
	template_set(&c->vars, "excerpts", ex.buf);
	report_reproduce(c, "");
	strbuf_release(&out);
	strbuf_release(&ex);
	strbuf_release(&name);
}

/* The reply's record: the findings the noise policy mails */
static bool check_snap(const struct report_ctx *c, const struct result *r, json_object *out)
{
	json_object *fs = rd_doc_findings(r->doc);
	bool any = false;
	size_t i;

	if (!c->d->sections[SECTION_CHECK])
		return false;
	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object *f = rd_at(fs, i);

		if (report_finding_class(c->o, f) != REPORT_MAIL)
			continue;
		json_object_array_add(out, report_snap_finding(r->stage, r->arch, f));
		any = true;
	}
	return any;
}

/* The version check says it read: the one of its mbox, and no other */
static const char *check_version(json_object *doc)
{
	return rd_doc_sends_len(doc) == 1 ? rd_doc_send(rd_at(rd_doc_sends(doc), 0)) : NULL;
}

const struct stage_ops stage_check = {
	.name = "check",
	.after = STAGE_APPLY,
	.command = "check",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.reads_cache = true,
	.stale_tree = true,
	.doc_version = check_version,
	.statuses = ST(ERRORS) | ST(WARNINGS) | ST(NOTES) | ST(CLEAN) | ST(INFRA),
	.findings = true,
	.keys = (const struct stage_key[]){
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = true },
		{ .key = NULL },
	},
	.summarise = summarise_check,
	.section_vars = check_vars,
	.pcheck_context = "lorebot-review",
	.pchecks = pcheck_check,
	.snap_findings = check_snap,
};
