// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/jsonx.h"
#include "bot/report/reply.h"
#include "bot/series/series-out.h"
#include "lib/template.h"

static void print_text(const struct reply_summary *sum)
{
	size_t i;

	for (i = 0; i < json_object_array_length(sum->replies); i++) {
		json_object *r = json_object_array_get_idx(sum->replies, i);

		printf("%-8s %-6s <%s> %s%s%s\n", jx_strz(r, "state"), jx_strz(r, "kind"),
		       jx_strz(r, "msgid"), jx_strz(r, "subject"),
		       jx_str(r, "reason") ? ": " : "", jx_strz(r, "reason"));
	}
	fprintf(stderr, "lorebot: %d composed, %d sent, %d queued, %d deferred, %d skipped, "
		"%d failed\n", sum->composed, sum->sent, sum->queued, sum->deferred,
		sum->skipped, sum->failed);
}

const char cmd_reply_help[] =
	"NAME\n"
	"    lorebot-reply - mail the replies that are due on the patch threads\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--config FILE] [--db FILE] reply [--series ID] [--outbox DIR]\n"
	"                               [--dry-run] [--no-wait] [--arch LIST]\n"
	"                               [--repo DIR] [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    Composes every reply the recorded results call for (see lorebot-record)\n"
	"    and sends it, or files it in the outbox: the same step the daemon runs\n"
	"    after each verdict.  One reply per series version, once every stage\n"
	"    of the version has ended, to the cover letter (or the only patch),\n"
	"    with a section per kind of problem, worst first: does not apply,\n"
	"    build errors, boot regressions, new warnings, review findings; its\n"
	"    headline and outcome are the worst.  A later result amends nothing\n"
	"    already sent.  With reply.clean, a clean result is mailed too.  To its\n"
	"    sender and, with reply.to = all, Cc everyone it went to and the list.\n"
	"    The text comes from templates/reply-<outcome>.txt.  Every reply is a\n"
	"    report with a permanent page, core.dashboardurl's /r/<id>, which keeps\n"
	"    what was mailed and what reproducing it needs; a build or boot reply\n"
	"    names it in Closes:, says how to reproduce it with lorebot in one line\n"
	"    (lorebot reproduce <page>), and without it: per arch, the .config the\n"
	"    build used (<page>/config/<arch>), the make lines, the qemu command\n"
	"    line.\n"
	"\n"
	"    Noise: checkpatch, codespell and series-hygiene findings are counted\n"
	"    in one line (reply.style: mail, line, off); findings without a file\n"
	"    and line are never mailed; Reported-by only for builds and boots.  A\n"
	"    series whose base-commit the tree lacks and that does not apply is\n"
	"    base-unknown: its mm-rule findings are mailed with one line saying it\n"
	"    was not built or booted, and nothing without such findings\n"
	"    (reply.baseunknown: review; off: never; line: that line alone).\n"
	"\n"
	"    Every finding shows its id, the same in later versions for the same\n"
	"    rule, file, function and code.  Answers to lorebot's mails (read by\n"
	"    lorebot fetch) from the series' author, a reviewer or\n"
	"    reply.maintainers: 'lorebot: invalid ID [why]' and 'lorebot: ignore\n"
	"    RULE' stop mailing a finding or a rule for the series; 'lorebot:\n"
	"    retest' tests the latest version again (reply.retestinterval), whose\n"
	"    replies then make a new round.\n"
	"\n"
	"    Policies: reply.mode (or list.<name>.replymode): off, outbox (the\n"
	"    default: files in a maildir) or smtp (smtp.url, smtp.credentials);\n"
	"    RFC series only with reply.rfc; nothing to reply.ignore'd authors;\n"
	"    at most reply.perhour replies an hour, reply.perauthor per author.\n"
	"    A reply is stored with its Message-ID before it is sent and never\n"
	"    sent twice, even after a crash; failed attempts are retried with\n"
	"    back-off (reply.retrydelay, reply.attempts).  Superseded versions get\n"
	"    no reply.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"ENVIRONMENT\n"
	"    LOREBOT_TEST_CRASH=sending|sent   for tests: kill lorebot with SIGKILL\n"
	"    just after a reply is marked sending, or just after it was handed over\n"
	"    and before it is marked sent\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when every due reply was handled, 2 on usage errors, 3 when a reply\n"
	"    could not be composed or delivered (it stays queued or is failed).\n";

int cmd_reply(int argc, char **argv, struct ctx *ctx)
{
	struct reply_run_opts o = { .wait = true };
	struct strbuf err = STRBUF_INIT;
	struct reply_summary sum;
	const char *arch = NULL, *repo = NULL;
	char *templates;
	bool json = false, no_wait = false;
	struct store *st = ctx->st;
	int ret = EXIT_OK;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "series", &o.series, "ID",
			   "only this series (or series version)"),
		OPT_STRING(0, "outbox", &o.outbox, "DIR",
			   "file new replies in the maildir DIR, whatever reply.mode says, and "
			   "deliver outbox replies there"),
		OPT_BOOL(0, "dry-run", &o.dry_run,
			 "print the replies that are due as an mbox; nothing is recorded or sent"),
		OPT_BOOL(0, "no-wait", &no_wait,
			 "do not wait for retries of failed attempts (the daemon's way); they "
			 "stay queued for the next run"),
		OPT_STRING(0, "arch", &arch, "LIST",
			   "the architectures built and booted (default: build.arch, else "
			   "x86_64,arm64,riscv): the reply waits for them all"),
		OPT_STRING(0, "repo", &repo, "DIR",
			   "kernel repository to quote source lines from (default: git.repo; "
			   "without it, lines come from the patches)"),
		OPT_BOOL(0, "json", &json,
			 "print {\"replies\": [...], \"composed\", \"sent\", \"failed\", "
			 "\"skipped\", \"deferred\", \"queued\"}"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "reply", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if (no_wait)
		o.wait = false;
	report_opts_init(&o.report, ctx->cfg);
	if (arch)
		report_opts_set_archs(&o.report, arch);
	if (repo)
		o.report.repo = repo;
	templates = template_dir(config_v(ctx->cfg)->reply_templates);
	o.report.templates = templates;
	reply_summary_init(&sum);
	if (reply_run(st, &o, &sum, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		ret = EXIT_INFRA;
	} else if (o.dry_run) {
		fputs(sum.dry.buf, stdout);
	} else if (json) {
		json_object *out = json_object_new_object();

		json_object_object_add(out, "replies", json_object_get(sum.replies));
		json_object_object_add(out, "composed", json_object_new_int(sum.composed));
		json_object_object_add(out, "sent", json_object_new_int(sum.sent));
		json_object_object_add(out, "queued", json_object_new_int(sum.queued));
		json_object_object_add(out, "deferred", json_object_new_int(sum.deferred));
		json_object_object_add(out, "skipped", json_object_new_int(sum.skipped));
		json_object_object_add(out, "failed", json_object_new_int(sum.failed));
		json_object_object_add(out, "errors", json_object_new_int(sum.errors));
		jx_print(out, stdout);
		json_object_put(out);
	} else {
		print_text(&sum);
	}
	if (!ret && (sum.failed || sum.errors))
		ret = EXIT_INFRA;
	reply_summary_release(&sum);
	report_opts_release(&o.report);
	free(templates);
	strbuf_release(&err);
	return ret;
}
