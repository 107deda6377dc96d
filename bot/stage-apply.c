// SPDX-License-Identifier: GPL-2.0
/*
 * apply: the version's mail applied onto its base (lorebot apply), the
 * branch every later stage reads
 */
#include "bot/contract.h"
#include "bot/results.h"

static int summarise_apply(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *patches = rd_doc_patches(doc), *base = rd_doc_base(doc);
	json_object *failed = NULL;
	size_t i, nr, bad_patches = 0;
	struct strbuf sb = STRBUF_INIT;

	nr = json_object_array_length(patches);
	for (i = 0; i < nr; i++) {
		json_object *p = rd_at(patches, i);
		const char *status = rd_patch_status(p);

		if (!status)
			return results_bad(err, STAGE_APPLY, "patch %lld has no '%s'",
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

const struct stage_ops stage_apply = {
	.name = "apply",
	.after = STAGE_NONE,
	.command = "apply",
	.input = STAGE_IN_MBOX,
	.sandbox = true,
	.statuses = ST(APPLIED) | ST(FAILED) | ST(INFRA),
	.fails = "apply-failed",
	.fail_on = ST(FAILED),
	.keys = (const struct stage_key[]){
		{ RK_(doc, patches), STAGE_KEY_LIST, .required = true },
		{ NULL },
	},
	.summarise = summarise_apply,
	.dash = true,
};
