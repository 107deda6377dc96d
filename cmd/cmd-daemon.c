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
	"    One event loop drives every stage through a job queue in the\n"
	"    database: the lists are polled (list.<name>.pollinterval); new\n"
	"    series versions are queued once complete, or as incomplete after\n"
	"    daemon.window; each version is applied onto its base, checked,\n"
	"    built and booted per architecture, and answered by one reply per\n"
	"    outcome (reply.mode: outbox by default).  Newest versions go first;\n"
	"    a superseded version's pending jobs are cancelled.\n"
	"\n"
	"    Every job runs as a child process ('lorebot job run ID') with time\n"
	"    limits; builds and boots run sandboxed without network as an\n"
	"    unprivileged user.  A job that crashes or hangs is killed, retried\n"
	"    up to daemon.attempts times, then marked failed with the reason.\n"
	"    The daemon may be killed at any instant: jobs that were running are\n"
	"    queued again at the next start, stages recorded done are not\n"
	"    repeated and no reply is sent twice.\n"
	"\n"
	"    SIGTERM and SIGINT stop the running jobs (they go back to the queue)\n"
	"    and exit; SIGHUP reloads the configuration file.  Progress is logged\n"
	"    on stderr with timestamps (or to syslog: core.syslog).\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 after a clean stop, 2 on a usage or configuration error, 3 when\n"
	"    the database or the signals cannot be set up.\n"
	"\n"
	"SEE ALSO\n"
	"    lorebot status, lorebot serve, config/lorebot.conf\n";

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
