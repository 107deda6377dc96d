// SPDX-License-Identifier: GPL-2.0
/*
 * What the stages' summarisers share (stage_summarise() checks a document
 * against its contract, bot/results/contract.h, and calls them): the error, the
 * counts, the summary of a stage without a summariser of its own; and a
 * result's infra document and release.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/results/results.h"

int results_bad(struct strbuf *err, enum stage stage, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(err, "%s result: ", plan_stage_name(stage));
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

void results_plural(struct strbuf *sb, int n, const char *one, const char *many)
{
	if (sb->len)
		strbuf_addstr(sb, ", ");
	strbuf_addf(sb, "%d %s", n, n == 1 ? one : many);
}

int results_summarise_findings(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *fs = rd_doc_findings(doc);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int n = 0;

	for (i = 0; fs && i < json_object_array_length(fs); i++)
		n += rd_finding_is_new(rd_at(fs, i), true);
	if (n)
		results_plural(&sb, n, "finding", "findings");
	else
		strbuf_addstr(&sb, plan_status_name(r->status));
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = n;
	return 0;
}

json_object *results_infra_doc(enum stage stage, const char *arch, const char *why)
{
	json_object *o = json_object_new_object();

	if (plan_per_arch(stage))
		json_object_object_add(o, RK_(doc, arch), json_object_new_string(arch ? arch : ""));
	json_object_object_add(o, RK_(doc, status),
			       json_object_new_string(plan_status_name(STATUS_INFRA)));
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
