// SPDX-License-Identifier: GPL-2.0
/*
 * check: the review rules, checkpatch and the series' hygiene on the
 * version's mail (lorebot check)
 */
#include "bot/contract.h"
#include "bot/results.h"

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

const struct stage_ops stage_check = {
	.name = "check",
	.after = STAGE_APPLY,
	.command = "check",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.reads_cache = true,
	.statuses = ST(ERRORS) | ST(WARNINGS) | ST(NOTES) | ST(CLEAN) | ST(INFRA),
	.findings = true,
	.keys = (const struct stage_key[]){
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = true },
		{ NULL },
	},
	.summarise = summarise_check,
};
