// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "bot/fetch/fetch.h"
#include "bot/export/kcidb.h"
#include "lib/jsonx.h"
#include "lib/parse-options.h"

const char cmd_export_help[] =
	"NAME\n"
	"    lorebot-export - the results in other systems' formats: KCIDB\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--config FILE] [--db FILE] export --kcidb [--since TIME]\n"
	"                               [--series ID] [--arch LIST]\n"
	"\n"
	"DESCRIPTION\n"
	"    --kcidb prints one JSON document of KernelCI's common reporting\n"
	"    database (KCIDB, I/O schema v5.3) with every series version that has\n"
	"    results: per version a checkout (id <kcidb.origin>:<version id>: the\n"
	"    base commit and branch, git.url as git_repository_url and its last\n"
	"    part as tree_name, the patches as patchset_files, links to their raw\n"
	"    mails on the list's archive, patchset_hash as the schema defines it,\n"
	"    sha256 over the newline-terminated sha256 of each patch file in\n"
	"    order, message_id, valid false when a patch did not apply), a build\n"
	"    per arch (config, compiler, the make lines as command, status PASS,\n"
	"    FAIL on new errors, MISS when the infrastructure failed; new\n"
	"    warnings in misc) and its tests: \"boot\", \"kselftest.mm.<name>\" per\n"
	"    kselftest, \"boot.kernel_report_N\" per kernel report.  A flaky\n"
	"    kselftest (it failed, then passed when run again) is PASS with\n"
	"    misc.flaky: the schema has no status for it, and lorebot does not\n"
	"    count it a failure.  Only what ended is exported: submitting a\n"
	"    version again later adds what ran since (KCIDB merges by id).  The\n"
	"    daemon writes each version's document when its pipeline ends\n"
	"    (kcidb.dir) and can submit it (kcidb.url, kcidb.tokenfile).\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when printed (even with no version), 2 on a usage error, 3 when\n"
	"    the database cannot be read.\n";

int cmd_export(int argc, char **argv, struct ctx *ctx)
{
	const char *since_arg = NULL, *series = NULL, *archs = NULL;
	bool kcidb = false;
	const struct parse_opt opts[] = {
		OPT_BOOL(0, "kcidb", &kcidb,
			 "the KCIDB v5.3 document (the only format so far)"),
		OPT_STRING(0, "since", &since_arg, "TIME",
			   "only versions with a result recorded since TIME: a date (2026-01-31), "
			   "a date and time (2026-01-31T09:00:00Z), unix seconds or a duration "
			   "ago (14d, 6h)"),
		OPT_STRING(0, "series", &series, "ID",
			   "only this series or series version"),
		OPT_STRING(0, "arch", &archs, "LIST",
			   "the architectures the daemon tests (default: build.arch, else all "
			   "three): what 'ended' means"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct report_opts ro;
	struct store *st = ctx->st;
	int64_t since = 0;
	json_object *doc;
	int ret = EXIT_OK;

	if (cmd_parse_options(argc, argv, "export", opts, 0) < 0)
		return EXIT_USAGE;
	if (!kcidb)
		return cmd_usage_error("export", "which format: --kcidb");
	if (since_arg && fetch_parse_since(since_arg, (int64_t)time(NULL), &since))
		return cmd_usage_error("export", "--since: '%s' is not a time", since_arg);
	if (!kcidb_origin_valid(config_v(ctx->cfg)->kcidb_origin))
		return cmd_usage_error("export", "kcidb.origin '%s': lowercase letters, digits "
				       "and _ only", config_v(ctx->cfg)->kcidb_origin);
	report_opts_init(&ro, ctx->cfg);
	if (archs)
		report_opts_set_archs(&ro, archs);
	doc = kcidb_doc_new();
	if (kcidb_export(st, &ro, since, series, doc, &err) < 0) {
		fprintf(stderr, "lorebot export: %s\n", err.buf);
		ret = EXIT_INFRA;
	} else {
		jx_print(doc, stdout);
	}
	json_object_put(doc);
	report_opts_release(&ro);
	strbuf_release(&err);
	return ret;
}
