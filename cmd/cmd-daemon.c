// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "cmd/daemon.h"

const char cmd_daemon_help[] =
	"NAME\n"
	"    lorebot-daemon - follow lore, test every new series version, reply\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot --config FILE daemon [--once] [--listen ADDR:PORT]\n"
	"    lorebot --db FILE daemon --url URL --repo DIR [--outbox DIR]\n"
	"                   [--listen ADDR:PORT] [--arch LIST] [--once]\n"
	"\n"
	"DESCRIPTION\n"
	"    Follows the lists on lore and takes every new series version through\n"
	"    the pipeline: apply, check, build and boot per architecture, reply.\n"
	"    The pipeline, its jobs, signals, state and every configuration key\n"
	"    it reads are in the manual: man 8 lorebot-daemon.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 after a clean stop, 2 on a usage or configuration error, 3 when\n"
	"    the database or the signals cannot be set up.\n"
	"\n"
	"SEE ALSO\n"
	"    lorebot-daemon(8), lorebot-status(1), lorebot-serve(1), lorebot.conf(5)\n";

int cmd_daemon(int argc, char **argv, struct ctx *ctx)
{
	struct daemon_opts o = { 0 };
	const struct parse_opt opts[] = {
		OPT_STRING(0, "url", &o.url, "URL",
			   "follow this public-inbox (e.g. http://127.0.0.1:8080/linux-mm/) "
			   "instead of the configured [list] sections"),
		OPT_STRING(0, "repo", &o.repo, "DIR",
			   "the kernel repository series are applied to (git.repo)"),
		OPT_STRING(0, "outbox", &o.outbox, "DIR",
			   "file replies into this maildir (reply.mode=outbox)"),
		OPT_STRING(0, "listen", &o.listen, "ADDR:PORT",
			   "serve the dashboard as well: 'lorebot serve' runs as a child of the "
			   "daemon and is started again if it dies (see lorebot-serve(1))"),
		OPT_STRING(0, "arch", &o.archs, "LIST",
			   "architectures to build and boot (build.arch; default all three)"),
		OPT_BOOL(0, "once", &o.once,
			 "poll each list once, process everything pending (waiting for running "
			 "jobs), and exit 0 (the demo and the tests use it)"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "daemon", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if (!o.url && !ctx->config_path)
		return cmd_usage_error("daemon", "give --config FILE, or --url URL and --repo DIR");
	return daemon_run(ctx, &o);
}
