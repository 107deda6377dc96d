// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "bot/export/patchwork.h"
#include "bot/store/store.h"
#include "lib/jsonx.h"
#include "lib/parse-options.h"

const char cmd_patchwork_help[] =
	"NAME\n"
	"    lorebot-patchwork - post the patchwork checks that are due\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--config FILE] [--db FILE] patchwork [--series ID] [--arch LIST]\n"
	"                               [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    Posts to patchwork ([patchwork] url, project, tokenfile) the checks\n"
	"    that are due: one per patch and context, lorebot-apply,\n"
	"    lorebot-review, lorebot-build-<arch> and lorebot-boot-<arch> (on the\n"
	"    series' last patch: the tip is what was booted), in patchwork's\n"
	"    states pending, success, warning and fail, with a one-line\n"
	"    description and the version's dashboard page as target_url (at most\n"
	"    200 characters).  The patch is found by its Message-ID through the\n"
	"    REST API 1.3 (GET /api/1.3/patches/?project=&msgid=), the check\n"
	"    created with POST /api/1.3/patches/<id>/checks/ and the token of\n"
	"    patchwork.tokenfile (a file only lorebot's user can read).\n"
	"\n"
	"    The daemon plans each check once the stage it is about has ended and\n"
	"    runs this command while some are due.  With --series, the checks of\n"
	"    that series version are planned first (lorebot record, then this, is\n"
	"    the daemon's way by hand).  Each check is stored before it is posted\n"
	"    and is posted once: after a crash between the POST and its record,\n"
	"    patchwork's list of the patch's checks says whether it went through.\n"
	"    A patch not on patchwork yet (it reads the list too, and may be\n"
	"    slower than lorebot) and a server error are tried again later,\n"
	"    patchwork.retrydelay doubling, patchwork.attempts times; a refusal\n"
	"    (4xx) is final.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"ENVIRONMENT\n"
	"    LOREBOT_TEST_CRASH=pw-sending|pw-sent   for tests: kill lorebot with\n"
	"    SIGKILL just after a check is marked sending, or just after patchwork\n"
	"    answered and before it is marked sent\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when every due check was handled (posted, or queued again, or\n"
	"    failed for good: see --json), 2 on a usage or configuration error, 3\n"
	"    when the database failed or another lorebot is posting.\n";

int cmd_patchwork(int argc, char **argv, struct ctx *ctx)
{
	const char *series = NULL, *archs = NULL;
	bool json = false;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "series", &series, "ID",
			   "plan that version's checks, and post only its own"),
		OPT_STRING(0, "arch", &archs, "LIST",
			   "the architectures built and booted (default: build.arch, else all "
			   "three)"),
		OPT_BOOL(0, "json", &json,
			 "print {\"checks\": [{id, version, patch, msgid, context, phase, state, "
			 "description, status, reason, attempts, pw_patch, pw_check}], \"sent\", "
			 "\"queued\", \"failed\"}"),
		OPT_END(),
	};
	struct patchwork_summary sum;
	struct strbuf err = STRBUF_INIT;
	struct report_opts ro;
	struct store *st = ctx->st;
	int ret = EXIT_OK, r = 0;

	if (cmd_parse_options(argc, argv, "patchwork", opts, 0) < 0)
		return EXIT_USAGE;
	if (!patchwork_enabled(ctx->cfg))
		return cmd_usage_error("patchwork", "patchwork.url is not set");
	report_opts_init(&ro, ctx->cfg);
	if (archs)
		report_opts_set_archs(&ro, archs);
	patchwork_summary_init(&sum);
	if (series) {
		r = store_begin(st, &err);
		if (!r)
			r = patchwork_plan(st, &ro, series, &err);
		if (r >= 0)
			r = store_commit(st, &err);
		else
			store_rollback(st);
	}
	if (!r)
		r = patchwork_deliver(st, ctx->cfg, series, &sum, &err);
	if (r < 0) {
		fprintf(stderr, "lorebot patchwork: %s\n", err.buf);
		ret = strstr(err.buf, "patchwork.") ? EXIT_USAGE : EXIT_INFRA;
	} else if (r > 0) {
		fprintf(stderr, "lorebot patchwork: another lorebot is posting checks\n");
		ret = EXIT_INFRA;
	}
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "checks", json_object_get(sum.checks));
		json_object_object_add(o, "sent", json_object_new_int(sum.sent));
		json_object_object_add(o, "queued", json_object_new_int(sum.queued));
		json_object_object_add(o, "failed", json_object_new_int(sum.failed));
		jx_print(o, stdout);
		json_object_put(o);
	} else if (!r) {
		printf("%d checks posted, %d queued again, %d failed\n", sum.sent, sum.queued,
		       sum.failed);
	}
	patchwork_summary_release(&sum);
	report_opts_release(&ro);
	strbuf_release(&err);
	return ret;
}
