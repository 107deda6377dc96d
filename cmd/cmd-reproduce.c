// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "ci/reproduce.h"
#include "lib/jsonx.h"
#include "lib/parse-options.h"

static int jobs_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	int *jobs = opt->value;
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || n < 1 || n > 1024) {
		strbuf_addf(err, "--jobs: '%s' is not a number of jobs", arg);
		return -1;
	}
	*jobs = (int)n;
	return 0;
}

const char cmd_reproduce_help[] =
	"NAME\n"
	"    lorebot-reproduce - make a report's build diagnostic again, here\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot reproduce [--repo DIR] [--dir DIR] [--arch ARCH] [--jobs N] [--full]\n"
	"                      [--keep] [--json]\n"
	"                      <REPORT-URL | REPORT-ID [--url URL]>[#N | #FINDING-ID]\n"
	"\n"
	"DESCRIPTION\n"
	"    Takes a lorebot report, by the URL its reply names\n"
	"    (http://lorebot.example.org/r/20260101120000.abcdefghijkl, the\n"
	"    Closes: it suggests) or by its id with --url, and makes its build\n"
	"    diagnostics again on this machine, from what the report's permanent\n"
	"    record keeps: the series (the dashboard's mbox of it), its base\n"
	"    commit (from --repo, fetched from the record's tree URL, git.url of\n"
	"    the bot, when the tree lacks it), the exact .config the build used and\n"
	"    the bot's make lines.  In a git worktree of --repo at the base, the\n"
	"    patches up to the one the diagnostics were first seen with are\n"
	"    applied with git am; the make lines run in ./build (O=) with -j of\n"
	"    --jobs, in the sandbox the build stage uses (build.sandbox,\n"
	"    build.user): olddefconfig, then, when the diagnostics are all in one\n"
	"    .c file, only its object (with --full, the image and modules as the\n"
	"    bot built them).  Each diagnostic made again is printed on stdout as\n"
	"    the reply gave it:\n"
	"\n"
	"        kernel/reboot.c:80:13: warning: unused variable 'psci_reset_type'\n"
	"\n"
	"    Progress and every command run go to stderr.  #N picks the Nth\n"
	"    finding of the report's record (/r/<id>/json), #FINDING-ID the\n"
	"    finding of that id (the 8 hex digits the reply prints as \"id\n"
	"    1a2b3c4d\"), instead of all the build diagnostics of one arch\n"
	"    (--arch, else the first's).  Boots are not made again: their recipe\n"
	"    is in the report.  Without lorebot, the report's mail says the same\n"
	"    by hand.\n"
	"\n"
	"    Needs git, make and the arch's cross compiler (Debian's\n"
	"    gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu), bubblewrap for the\n"
	"    sandbox; nothing of a lorebot installation else.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 every diagnostic was made again, 1 some were not (the build said\n"
	"    something else: its output is kept in the work directory), 2 the\n"
	"    report, its record or the tree cannot be used (or a usage error), 3\n"
	"    the network, git or make could not run.\n";

int cmd_reproduce(int argc, char **argv, struct ctx *ctx)
{
	struct reproduce_opts o = { .cfg = ctx->cfg };
	bool json = false;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "repo", &o.repo, "DIR",
			   "the kernel tree (default: the current directory); only a worktree is "
			   "added to it (and a fetch of the base)"),
		OPT_STRING(0, "url", &o.url, "URL",
			   "the dashboard, for a report id (default: core.dashboardurl)"),
		OPT_STRING(0, "dir", &o.dir, "DIR",
			   "the work directory (default: ./lorebot-reproduce-<id>); it must not "
			   "exist"),
		OPT_STRING(0, "arch", &o.arch, "ARCH",
			   "the arch whose diagnostics to make again"),
		OPT_CALLBACK(0, "jobs", &o.jobs, "N",
			     "make -j (default: build.jobs)", jobs_cb),
		OPT_BOOL(0, "full", &o.full,
			 "build what the bot built (the image), not one object"),
		OPT_BOOL(0, "keep", &o.keep,
			 "keep the worktree and the build (else removed)"),
		OPT_BOOL(0, "json", &json,
			 "print {\"report\", \"arch\", \"patch\", \"base\", \"commands\", "
			 "\"findings\": [{\"text\", \"reproduced\", \"got\"}]}"),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	json_object *out = NULL;
	enum reproduce_outcome r;
	int n;

	n = cmd_parse_options(argc, argv, "reproduce", opts, 1);
	if (n < 0)
		return EXIT_USAGE;
	if (n != 1)
		return cmd_usage_error("reproduce", "which report: its URL or its id");
	o.target = argv[0];
	o.quiet = json;
	r = reproduce_run(&o, &out, &err);
	if (err.len)
		fprintf(stderr, "lorebot reproduce: %s\n", err.buf);
	if (json)
		jx_print(out, stdout);
	json_object_put(out);
	strbuf_release(&err);
	return r == REPRODUCE_ALL ? EXIT_OK : r == REPRODUCE_NOT_ALL ? EXIT_FINDINGS :
		r == REPRODUCE_INPUT ? EXIT_USAGE : EXIT_INFRA;
}
