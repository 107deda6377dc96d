// SPDX-License-Identifier: GPL-2.0
/* Opening the state database for a command */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/base/db.h"
#include "bot/report/report.h"
#include "bot/store/store.h"
#include "lib/jsonx.h"

int cmd_open_store(struct ctx *ctx, struct store *st, bool create)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct stat sb;
	int ret;

	if (ctx->db_path && *ctx->db_path)
		strbuf_addstr(&path, ctx->db_path);
	else
		strbuf_addf(&path, "%s/lorebot.db", config_v(ctx->cfg)->core_statedir);
	if (stat(path.buf, &sb)) {
		if (!create) {
			fprintf(stderr, "lorebot: no database '%s' (lorebot fetch creates it)\n",
				path.buf);
			strbuf_release(&path);
			return EXIT_USAGE;
		}
		if (!ctx->db_path) {
			char *dir = xstrdup(path.buf);

			*strrchr(dir, '/') = 0;
			util_mkdir_p(dir, 0755);
			free(dir);
		}
	}
	ret = store_open(st, path.buf, &err);
	if (ret)
		fprintf(stderr, "lorebot: %s\n", err.buf);
	if (!ret) {
		st->trusted = config_v(ctx->cfg)->series_trust.v;
		st->nr_trusted = config_v(ctx->cfg)->series_trust.nr;
		st->series_memory =
			series_budget(config_v(ctx->cfg)->series_memory);
		report_states_attach(st, ctx->cfg, NULL);
		/* what touches mail is sandboxed: its parser too */
		if (config_v(ctx->cfg)->build_sandbox)
			store_jail_use(st, NULL);
	}
	strbuf_release(&err);
	strbuf_release(&path);
	return ret ? EXIT_INFRA : EXIT_OK;
}

struct db_cmd {
	const char *name;
	int (*fn)(struct ctx *ctx, struct store *st);
};

/* --json: {"versions": N, "<what>": N} */
static void print_counts(int64_t versions, const char *what, int64_t nr)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "versions", json_object_new_int64(versions));
	json_object_object_add(o, what, json_object_new_int64(nr));
	jx_print(o, stdout);
	json_object_put(o);
}

static int db_rebuild(struct ctx *ctx, struct store *st)
{
	struct strbuf err = STRBUF_INIT;
	struct store_changes ch = { .limit = 1 };	/* a count is all it prints */
	int64_t n = 0;

	if (store_rebuild_series(st, &ch, &err)) {
		fprintf(stderr, "lorebot db: %s\n", err.buf);
		strbuf_release(&err);
		return EXIT_INFRA;
	}
	/* the reference: every state derived again with these options */
	if (report_states_flush(st, STATES_ALL, &err)) {
		fprintf(stderr, "lorebot db: %s\n", err.buf);
		store_changes_release(&ch);
		strbuf_release(&err);
		return EXIT_INFRA;
	}
	db_query_int(st->db, "SELECT count(*) FROM versions WHERE gone = 0", 0, &n);
	if (ctx->json)
		print_counts(n, "changed", store_changes_count(&ch));
	else
		printf("%lld series versions; %zu changed\n", (long long)n,
		       store_changes_count(&ch));
	store_changes_release(&ch);
	strbuf_release(&err);
	return EXIT_OK;
}

static int db_check(struct ctx *ctx, struct store *st)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int64_t n = 0;
	int bad = -1;

	if (!report_states_flush(st, STATES_DIRTY, &err))
		bad = report_states_check(st, report_states_opts(st), &out, &err);
	if (bad < 0) {
		fprintf(stderr, "lorebot db: %s\n", err.buf);
		goto out;
	}
	fputs(out.buf, stderr);
	db_query_int(st->db, "SELECT count(*) FROM versions WHERE gone = 0", 0, &n);
	if (ctx->json)
		print_counts(n, "differences", bad);
	else
		printf("%lld series versions; %d differences in their kept states\n",
		       (long long)n, bad);
out:
	strbuf_release(&out);
	strbuf_release(&err);
	return bad < 0 ? EXIT_INFRA : bad ? EXIT_FINDINGS : EXIT_OK;
}

static const struct db_cmd db_cmds[] = {
	{ "rebuild", db_rebuild },
	{ "check", db_check },
};

const char cmd_db_help[] =
	"NAME\n"
	"    lorebot-db - maintain the state database\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE | --config FILE] db rebuild [--arch LIST] [--json]\n"
	"    lorebot [--db FILE | --config FILE] db check [--arch LIST] [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    rebuild assembles every stored message again into series,\n"
	"    versions, patches and trailers, and brings those tables up to date\n"
	"    (what changed gets a new generation, what assembly no longer makes\n"
	"    is marked gone).  A fetch assembles only the threads and series\n"
	"    its new messages touch (every message when the new ones are\n"
	"    32,768 or more, or 4,096 and a quarter of those assembled before:\n"
	"    an archive imported); rebuild is the reference that incremental\n"
	"    assembly must equal, and the repair after anything doubtful.  It\n"
	"    takes the database's write lock for as long as it runs.  It derives\n"
	"    the state of every version again too (below).\n"
	"\n"
	"    check compares the state the database keeps for every version (what\n"
	"    the dashboard's state filter and /metrics read) with the state its\n"
	"    results derive to, after deriving the versions changed since, and\n"
	"    prints a line per difference.  The states are kept for the\n"
	"    architectures of build.arch, or those of the daemon's --arch; give\n"
	"    check and rebuild the same --arch.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0, 1 when check finds a difference, 2 on a usage error or when there\n"
	"    is no database, 3 when the database fails.\n";

int cmd_db(int argc, char **argv, struct ctx *ctx)
{
	const struct db_cmd *c = NULL;
	const char *archs = NULL;
	struct store *st = ctx->st;
	size_t i;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "arch", &archs, "LIST",
			   "the architectures a version needs (comma-separated), as the daemon's "
			   "--arch"),
		OPT_BOOL(0, "json", &ctx->json,
			 "print {\"versions\": N, \"changed\": N} (rebuild) or {\"versions\": N, "
			 "\"differences\": N} (check) instead of a line"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "db", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (!argc)
		return cmd_usage_error("db", "which: rebuild or check");
	for (i = 0; !c && i < ARRAY_SIZE(db_cmds); i++)
		if (!strcmp(argv[0], db_cmds[i].name))
			c = &db_cmds[i];
	if (!c)
		return cmd_usage_error("db", "unknown subcommand '%s'", argv[0]);
	if (argc > 1)
		return cmd_usage_error("db", "unknown argument '%s'", argv[1]);
	if (archs)
		report_states_attach(st, ctx->cfg, archs);
	return c->fn(ctx, st);
}
