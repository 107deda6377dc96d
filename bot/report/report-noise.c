// SPDX-License-Identifier: GPL-2.0
/*
 * The noise policy: which checker findings a reply mails.  lorebot's
 * own mm rules are mailed, each quoted with its suggestion; checkpatch,
 * codespell and the series-hygiene checks are style, shown on the
 * dashboard and by `lorebot check`, and by default the mail only says
 * how many there are and where to see them (reply.style); a finding
 * with no location is never mailed, whatever the policy.  So are the
 * new build findings of the Coccinelle rules that only ask for a nicer
 * spelling of correct code ("style" in the build's findings).
 */
#include "bot/results/contract.h"
#include "bot/report/report-int.h"
#include "bot/store/store-results.h"

/* The rules that are style, by name or by "prefix:" */
static const char *const style_rules[] = {
	"checkpatch:", "codespell", "signed-off-by", "fixes-tag", "subject",
	"numbering", "cover-letter", "base-commit",
};

static bool is_style(const char *rule)
{
	size_t i, len;

	for (i = 0; rule && i < ARRAY_SIZE(style_rules); i++) {
		len = strlen(style_rules[i]);
		if (style_rules[i][len - 1] == ':' ? !strncmp(rule, style_rules[i], len) :
		    !strcmp(rule, style_rules[i]))
			return true;
	}
	return false;
}

enum report_class report_finding_class(const struct report_opts *o, json_object *f)
{
	const char *sev = rd_finding_severity_z(f);

	if (strcmp(sev, RD_SEV_ERROR) && strcmp(sev, RD_SEV_WARNING))
		return REPORT_DROP;
	if (is_style(rd_finding_rule(f)) && strcmp(config_v(o->cfg)->reply_style, "mail"))
		return REPORT_STYLE;
	if (!rd_finding_file(f) || rd_finding_line(f, 0) <= 0)
		return is_style(rd_finding_rule(f)) ? REPORT_STYLE : REPORT_DROP;
	return REPORT_MAIL;
}

enum report_class report_check_class(const struct report_version *v,
				     const struct report_opts *o, json_object *f)
{
	enum report_class c = report_finding_class(o, f);

	return c != REPORT_DROP && report_dismissed(v, STAGE_CHECK, f) ? REPORT_DISMISSED : c;
}

void report_check_count(const struct report_version *v, const struct report_opts *o,
			int count[REPORT_CLASS_NR])
{
	const struct result *r = store_results_find(&v->results, STAGE_CHECK, NULL);
	json_object *findings = r ? rd_doc_findings(r->doc) : NULL;
	size_t i;

	memset(count, 0, REPORT_CLASS_NR * sizeof(*count));
	for (i = 0; findings && i < json_object_array_length(findings); i++)
		count[report_check_class(v, o, rd_at(findings, i))]++;
}

bool report_build_style(const struct report_opts *o, json_object *f)
{
	return rd_finding_style(f, false) &&
	       strcmp(config_v(o->cfg)->reply_style, "mail");
}

int report_build_style_count(const struct report_version *v, const struct report_opts *o)
{
	struct strbuf seen = STRBUF_INIT;	/* "id1 id2 ..." */
	size_t i, j;
	int n = 0;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *fs = r->stage == STAGE_BUILD ? rd_doc_findings(r->doc) : NULL;

		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = rd_at(fs, j);
			char id[REPORT_ID_LEN + 1];

			if (!rd_finding_is_new(f, true) || !report_build_style(o, f) ||
			    report_dismissed(v, STAGE_BUILD, f))
				continue;
			/* the same finding on each arch is one (ids: 8 hex digits) */
			report_finding_id(STAGE_BUILD, f, id);
			if (seen.len && strstr(seen.buf, id))
				continue;
			strbuf_addf(&seen, "%s ", id);
			n++;
		}
	}
	strbuf_release(&seen);
	return n;
}
