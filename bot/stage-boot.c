// SPDX-License-Identifier: GPL-2.0
/*
 * boot: the built kernel booted per arch with the mm kselftests (lorebot
 * boot)
 */
#include "bot/contract.h"
#include "bot/results.h"

static int summarise_boot(json_object *a, struct result *r, struct strbuf *err)
{
	json_object *tests = rd_doc_tests(a), *findings = rd_doc_findings(a);
	int pass = 0, fail = 0, newfail = 0, other = 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i, nf;

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
			results_plural(&sb, pass, "test passed", "tests passed");
		if (newfail)
			results_plural(&sb, newfail, "new failure", "new failures");
		if (fail)
			results_plural(&sb, fail, "old failure", "old failures");
		if (other)
			results_plural(&sb, other, "skipped or flaky", "skipped or flaky");
		if (nf)
			results_plural(&sb, (int)nf, "finding", "findings");
		if (!sb.len)
			strbuf_addstr(&sb, stage_status_name(r->status));
	}
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = r->status == STATUS_OK ? 0 :
		MAX((int)nf, newfail) + (r->status == STATUS_BOOT_FAILURE);
	return 0;
}

const struct stage_ops stage_boot = {
	.name = "boot",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_BUILD,
	.after_on = ST(OK) | ST(WARNINGS) | ST(PARTIAL),
	.command = "boot",
	.input = STAGE_IN_BRANCH,
	.statuses = ST(OK) | ST(REGRESSIONS) | ST(BOOT_FAILURE) | ST(INFRA),
	.fails = "boot-failed",
	.fail_on = ST(BOOT_FAILURE),
	.fail_on_findings = ST(REGRESSIONS),
	.keys = (const struct stage_key[]){
		{ RK_(doc, tests), STAGE_KEY_LIST, .required = false },
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = false },
		{ NULL },
	},
	.status_required = true,
	.summarise = summarise_boot,
};
