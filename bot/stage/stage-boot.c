// SPDX-License-Identifier: GPL-2.0
/*
 * boot: the built kernel booted per arch with the mm kselftests (lorebot
 * boot)
 */
#include "bot/results/contract.h"
#include "bot/report/html.h"
#include "bot/report/report-int.h"
#include "bot/report/report.h"
#include "bot/report/pcheck.h"
#include "bot/results/results.h"
#include "lib/text.h"

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
			strbuf_addstr(&sb, plan_status_name(r->status));
	}
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = r->status == STATUS_OK ? 0 :
		MAX((int)nf, newfail) + (r->status == STATUS_BOOT_FAILURE);
	return 0;
}

/* An answer ignores a kind of boot finding ("warning", "kselftest") */
static const char *boot_rule(json_object *f)
{
	return rd_finding_kind(f);
}

/* The kind, where, the test it ran and the report's title */
static void boot_finding_id(json_object *f, struct strbuf *sb)
{
	strbuf_addf(sb, "boot:%s\n%s\n%s\n%s\n", rd_finding_kind_z(f), rd_finding_file_z(f),
		    rd_finding_function_z(f), rd_finding_test_z(f));
	report_id_add(sb, rd_finding_title(f));
}

/* The series page: the tests that did not pass, the findings, the flaky ones */
static void boot_details(struct strbuf *sb, const struct report_version *v,
			 const struct result *r)
{
	json_object *tests = rd_doc_tests(r->doc), *fs = rd_doc_findings(r->doc);
	size_t i;

	for (i = 0; tests && i < json_object_array_length(tests); i++) {
		json_object *t = rd_at(tests, i);
		const char *res = rd_test_result_z(t);

		if (!strcmp(res, RD_TEST_PASS))
			continue;
		strbuf_addstr(sb, "<br>");
		html_badge(sb, res, NULL);
		strbuf_addch(sb, ' ');
		text_html_escape(sb, rd_test_name_z(t));
		if (rd_test_is_new(t, false))
			strbuf_addstr(sb, " (new)");
	}
	if (fs && json_object_array_length(fs)) {
		strbuf_addstr(sb, "<ul class=\"findings\">");
		for (i = 0; i < json_object_array_length(fs); i++)
			html_finding_li(sb, v, STAGE_BOOT, rd_at(fs, i), NULL);
		strbuf_addstr(sb, "</ul>");
	}
	/* not confirmed: shown, not counted */
	fs = rd_doc_flaky(r->doc);
	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object *f = rd_at(fs, i);

		strbuf_addstr(sb, "<br>");
		html_badge(sb, RD_TEST_FLAKY, NULL);
		strbuf_addch(sb, ' ');
		text_html_escape(sb, rd_finding_message_z(f));
		strbuf_addstr(sb, " <span class=\"muted\">(");
		text_html_escape(sb, rd_finding_why_z(f));
		strbuf_addstr(sb, "; not counted)</span>");
	}
}

/* boot: new kselftest failures and kernel splats, per arch */

/* The patch bisection found for f, and how sure it is */
static void boot_culprit(struct strbuf *out, const struct report_version *v, json_object *f)
{
	json_object *cu = rd_finding_culprit(f), *conf = rd_finding_confirm(f);
	int64_t k = rd_culprit_patch(cu, 0);
	json_object *p = k > 0 ? report_patch(v, (int)k) : NULL;
	const char *subject = rd_culprit_subject(cu) ? rd_culprit_subject(cu) :
		p ? rd_vpatch_title(p) : NULL;

	if (k > 0 && rd_culprit_suspect(cu, false))
		strbuf_addf(out, "   bisection points at patch %lld/%d%s%s%s, which only changes "
			    "comments or documentation: suspect, not blamed\n", (long long)k,
			    v->total, subject ? " (\"" : "", subject ? subject : "",
			    subject ? "\")" : "");
	else if (k > 0)
		strbuf_addf(out, "   first bad patch: %lld/%d%s%s%s, found by bisection in "
			    "%lld boot%s\n", (long long)k, v->total, subject ? " (\"" : "",
			    subject ? subject : "", subject ? "\")" : "",
			    (long long)rd_culprit_boots(cu, 0),
			    rd_culprit_boots(cu, 0) == 1 ? "" : "s");
	else if (rd_culprit_why(cu))
		strbuf_addf(out, "   first bad patch not found: %s\n", rd_culprit_why(cu));
	if (conf)
		strbuf_addf(out, "   confirmed: in %lld of %lld runs on the tip, %lld of %lld "
			    "on the base\n",
			    (long long)rd_runs_bad(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_tip(conf), 0),
			    (long long)rd_runs_bad(rd_confirm_base(conf), 0),
			    (long long)rd_runs_runs(rd_confirm_base(conf), 0));
}

static void boot_vars(struct report_ctx *c)
{
	struct strbuf out = STRBUF_INIT, info = STRBUF_INIT;
	const char **names = xcalloc(c->v->results.nr + 1, sizeof(*names));
	bool noboot = false;
	size_t i, j, nn = 0;
	int flaky = 0;

	for (i = 0; i < c->v->results.nr; i++) {
		const struct result *r = &c->v->results.v[i];
		json_object *tests = rd_doc_tests(r->doc);
		json_object *findings = rd_doc_findings(r->doc);

		if (r->stage == STAGE_BOOT)
			flaky += (int)rd_doc_flaky_len(r->doc);
		if (r->stage != STAGE_BOOT || (!r->findings && r->status != STATUS_BOOT_FAILURE))
			continue;
		noboot |= r->status == STATUS_BOOT_FAILURE;
		names[nn++] = r->arch;
		report_arch_info(&info, r);
		strbuf_addf(&out, "%s%s (%s):\n\n", out.len ? "\n" : "", r->arch, r->summary);
		for (j = 0; tests && j < json_object_array_length(tests); j++) {
			json_object *t = rd_at(tests, j);
			const char *res = rd_test_result_z(t);

			if (strcmp(res, RD_TEST_FAIL) && strcmp(res, RD_TEST_FLAKY))
				continue;
			bool is_new = !strcmp(res, RD_TEST_FAIL) && rd_test_is_new(t, false);

			strbuf_addf(&out, "%s%s: %s%s\n", is_new ? ">> " : "   ",
				    rd_test_name_z(t), res,
				    rd_test_is_new(t, false) ? "" : " (fails on the base too)");
		}
		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = rd_at(findings, j);
			const char *more = rd_finding_trace(f) ? rd_finding_trace(f) :
				rd_finding_output(f) ? rd_finding_output(f) : rd_finding_log(f);

			char id[REPORT_ID_LEN + 1];

			if (report_dismissed(c->v, STAGE_BOOT, f))
				continue;
			report_finding_id(STAGE_BOOT, f, id);
			strbuf_addf(&out, ">> %s: %s [id %s]\n", rd_finding_kind(f) ?
				    rd_finding_kind(f) : "finding", rd_finding_message_z(f), id);
			if (rd_finding_test(f))
				strbuf_addf(&out, "   (while running %s)\n", rd_finding_test(f));
			boot_culprit(&out, c->v, f);
			if (more) {
				strbuf_addch(&out, '\n');
				report_add_block(&out, "   ", more);
				strbuf_addch(&out, '\n');
			}
		}
	}
	if (flaky)
		strbuf_addf(&out, "%s%d flaky result%s (not in every run, or on the base "
			    "too) %s not counted: see the dashboard.\n", out.len ? "\n" : "",
			    flaky, flaky == 1 ? "" : "s", flaky == 1 ? "is" : "are");
	template_set(&c->vars, "level", noboot ? "BOOT FAILURE" : "REGRESSION");
	template_set(&c->vars, "what", noboot ? "boot failures" : "regressions");
	report_arch_vars(c, names, nn, &info, &out);
	free(names);
	strbuf_release(&out);
	strbuf_release(&info);
}

/*
 * The reply's record, with the boot section: the findings, the new
 * failures of kselftests, and a kernel that did not boot
 */
static bool boot_snap(const struct report_ctx *c, const struct result *r, json_object *out)
{
	json_object *fs = rd_doc_findings(r->doc), *tests = rd_doc_tests(r->doc);
	bool any = r->status == STATUS_BOOT_FAILURE;
	size_t i;

	if (!c->d->sections[SECTION_BOOT])
		return false;
	for (i = 0; fs && i < json_object_array_length(fs); i++) {
		json_object_array_add(out, report_snap_finding(r->stage, r->arch, rd_at(fs, i)));
		any = true;
	}
	for (i = 0; tests && i < json_object_array_length(tests); i++) {
		json_object *t = rd_at(tests, i), *o;

		if (strcmp(rd_test_result_z(t), RD_TEST_FAIL) || !rd_test_is_new(t, false))
			continue;
		o = json_object_new_object();
		report_snap_str(o, "stage", plan_stage_name(r->stage));
		report_snap_str(o, "arch", r->arch);
		report_snap_str(o, "test", rd_test_name(t));
		report_snap_str(o, "severity", "error");
		report_snap_str(o, "message", "fail");
		json_object_array_add(out, o);
		any = true;
	}
	return any;
}

/* ... and how the arch's kernel was booted */
static void boot_snap_arch(json_object *o, const struct result *r)
{
	report_snap_str(o, "qemu", rd_doc_qemu(r->doc));
	report_snap_str(o, "cmdline", rd_doc_cmdline(r->doc));
}

const struct stage_ops stage_boot = {
	.name = "boot",
	.per_arch = true,
	.heavy = true,
	.after = STAGE_BUILD,
	.after_on = ST(OK) | ST(WARNINGS) | ST(PARTIAL),
	.boot_enable = true,
	.command = "boot",
	.input = STAGE_IN_BRANCH,
	.statuses = ST(OK) | ST(REGRESSIONS) | ST(BOOT_FAILURE) | ST(INFRA),
	.fails = "boot-failed",
	.fail_on = ST(BOOT_FAILURE),
	.fail_on_findings = ST(REGRESSIONS),
	.keys = (const struct stage_key[]){
		{ RK_(doc, tests), STAGE_KEY_LIST, .required = false },
		{ RK_(doc, findings), STAGE_KEY_LIST, .required = false },
		{ .key = NULL },
	},
	.status_required = true,
	.summarise = summarise_boot,
	.finding_rule = boot_rule,
	.finding_id = boot_finding_id,
	.dash = true,
	.page_details = boot_details,
	.section_vars = boot_vars,
	.pcheck_context = "lorebot-boot",
	.pchecks = pcheck_boot,
	.pcheck_tip = true,
	.snap_findings = boot_snap,
	.snap_arch = boot_snap_arch,
	.kcidb = STAGE_KCIDB_TESTS,
};
