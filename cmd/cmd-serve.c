// SPDX-License-Identifier: GPL-2.0
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/web/dash.h"

const char cmd_serve_help[] =
	"NAME\n"
	"    lorebot-serve - the dashboard and JSON API over HTTP\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--config FILE] [--db FILE] serve [--listen HOST:PORT] [--arch LIST]\n"
	"\n"
	"DESCRIPTION\n"
	"    Serves, read-only from the database, the list of series versions\n"
	"    (newest first: title and under it the cause of the state in one line,\n"
	"    author, version, patches, base, apply result, build and boot per arch\n"
	"    ('queued', 'building 4m', 'booting 30s' while the daemon works on\n"
	"    them), findings split into errors, warnings and notes, replies, state,\n"
	"    age; filters by state, author and text; refreshing itself every\n"
	"    web.refresh), a page per series (a 'why' box under the state, each\n"
	"    patch with its findings, each arch with its build and boot and their\n"
	"    logs, the live log of a running job, the replies with their text,\n"
	"    links to lore; superseded versions folded), /queue (the jobs running\n"
	"    and queued, as 'lorebot status' shows them, where each runs: local\n"
	"    or its Slurm job and node, with their live logs),\n"
	"    and a JSON API:\n"
	"\n"
	"        /api/series        {\"series\": [...]}: the version objects of\n"
	"                           'lorebot series --json', newest first, each with\n"
	"                           \"state\", \"results\" (per stage; build and boot\n"
	"                           per arch) and \"mails\" (the replies)\n"
	"        /api/series/ID     {\"series\": {id, title, author, versions}} of a\n"
	"                           series id or version id, with the reply texts\n"
	"        /healthz           {\"status\": \"ok\"} (503 when the database fails)\n"
	"        /metrics           Prometheus text: series versions by state, jobs\n"
	"                           by state (when the daemon's jobs table exists),\n"
	"                           replies by state, queue lengths, the last\n"
	"                           successful lore poll per list\n"
	"\n"
	"    The pages need no external assets and run no scripts; everything from\n"
	"    mail is HTML-escaped.  Runs until interrupted (SIGINT, SIGTERM).\n"
	"\n"
	"    Each client address has at most 8 connections waiting for their\n"
	"    request at once (of 256): one more from it closes the one that has\n"
	"    waited longest, and a connection idle for 15 s is closed.  So one\n"
	"    address trickling headers (slowloris) holds at most 8 slots and never\n"
	"    keeps out the dashboard's clients, those on its own address (a\n"
	"    health check, a proxy) included.  Exposed beyond a\n"
	"    trusted network, put a reverse proxy in front that bounds the whole\n"
	"    request header in time (nginx: client_header_timeout 10s;\n"
	"    limit_conn perip 8), since many addresses together are beyond a\n"
	"    per-address limit.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 after an interrupt, 2 on usage errors or a missing database, 3 when\n"
	"    it cannot listen.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot --db mm.db serve --listen 127.0.0.1:8080\n"
	"    curl -s http://127.0.0.1:8080/api/series | jq '.series[].state'\n";

int cmd_serve(int argc, char **argv, struct ctx *ctx)
{
	struct dash_opts o = { .cfg = ctx->cfg };
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct dash *d;
	sigset_t set;
	int sig = 0;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "listen", &o.listen, "ADDR:PORT",
			   "where to listen (default: web.listen, 127.0.0.1:8080); port 0 picks a "
			   "free one (printed on stderr)"),
		OPT_STRING(0, "arch", &o.archs, "LIST",
			   "the architectures shown (default: build.arch, else "
			   "x86_64,arm64,riscv)"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "serve", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if (ctx->db_path && *ctx->db_path)
		strbuf_addstr(&path, ctx->db_path);
	else
		strbuf_addf(&path, "%s/lorebot.db", config_v(ctx->cfg)->core_statedir);
	if (access(path.buf, R_OK)) {
		fprintf(stderr, "lorebot: no database '%s' (lorebot fetch creates it)\n", path.buf);
		strbuf_release(&path);
		return EXIT_USAGE;
	}
	o.db_path = path.buf;
	/* the web thread inherits the mask: only this thread takes the signals */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (dash_start(&d, &o, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		strbuf_release(&err);
		strbuf_release(&path);
		return EXIT_INFRA;
	}
	{
		const char *l = o.listen ? o.listen : config_v(ctx->cfg)->web_listen;
		const char *colon = strrchr(l, ':');

		fprintf(stderr, "lorebot: dashboard on http://%.*s:%u/\n",
			(int)(colon ? colon - l : (long)strlen(l)), l, dash_port(d));
	}
	sigwait(&set, &sig);
	fprintf(stderr, "lorebot: %s, stopping\n", sig == SIGINT ? "interrupted" : "terminated");
	dash_stop(d);
	strbuf_release(&err);
	strbuf_release(&path);
	return EXIT_OK;
}
