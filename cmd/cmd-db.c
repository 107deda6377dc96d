// SPDX-License-Identifier: GPL-2.0
/* Opening the state database for a command */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "bot/db.h"
#include "bot/store.h"

int cmd_open_store(struct ctx *ctx, struct store *st, bool create)
{
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct stat sb;
	int ret;

	if (ctx->db_path && *ctx->db_path)
		strbuf_addstr(&path, ctx->db_path);
	else
		strbuf_addf(&path, "%s/lorebot.db", config_get(ctx->cfg, "core.statedir"));
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
			mkdir_p(dir, 0755);
			free(dir);
		}
	}
	ret = store_open(st, path.buf, &err);
	if (ret)
		fprintf(stderr, "lorebot: %s\n", err.buf);
	else
		st->nr_trusted = config_get_all(ctx->cfg, "series.trust", &st->trusted);
	strbuf_release(&err);
	strbuf_release(&path);
	return ret ? EXIT_INFRA : EXIT_OK;
}

const char cmd_db_help[] =
	"NAME\n"
	"    lorebot-db - maintain the state database\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE | --config FILE] db rebuild [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    rebuild assembles every stored message again into series,\n"
	"    versions, patches and trailers, and brings those tables up to date\n"
	"    (what changed gets a new generation, what assembly no longer makes\n"
	"    is marked gone).  A fetch assembles only the threads and series\n"
	"    its new messages touch; rebuild is the reference that incremental\n"
	"    assembly must equal, and the repair after anything doubtful.  It\n"
	"    takes the database's write lock for as long as it runs.\n"
	"\n"
	"OPTIONS\n"
	"    --json    print {\"versions\": N, \"changed\": N} instead of a line\n"
	"\n"
	"EXIT STATUS\n"
	"    0, 2 on a usage error or when there is no database, 3 when the\n"
	"    database fails.\n";

struct db_cmd {
	const char *name;
	int (*fn)(struct ctx *ctx, struct store *st);
};

static int db_rebuild(struct ctx *ctx, struct store *st)
{
	struct strbuf err = STRBUF_INIT;
	struct store_changes ch = { 0 };
	int64_t n = 0;

	if (store_rebuild_series(st, &ch, &err)) {
		fprintf(stderr, "lorebot db: %s\n", err.buf);
		strbuf_release(&err);
		return EXIT_INFRA;
	}
	db_query_int(st->db, "SELECT count(*) FROM versions WHERE gone = 0", 0, &n);
	if (ctx->json)
		printf("{\"versions\": %lld, \"changed\": %zu}\n", (long long)n, ch.nr);
	else
		printf("%lld series versions; %zu changed\n", (long long)n, ch.nr);
	store_changes_release(&ch);
	strbuf_release(&err);
	return EXIT_OK;
}

static const struct db_cmd db_cmds[] = {
	{ "rebuild", db_rebuild },
};

int cmd_db(int argc, char **argv, struct ctx *ctx)
{
	const struct db_cmd *c = NULL;
	struct store st;
	size_t i;
	int ret, k;

	if (cmd_wants_help(argc, argv, cmd_db_help))
		return EXIT_OK;
	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--json"))
			ctx->json = true;
		else if (c || *argv[k] == '-')
			return cmd_usage_error("db", "unknown argument '%s'", argv[k]);
		for (i = 0; !c && i < ARRAY_SIZE(db_cmds); i++)
			if (!strcmp(argv[k], db_cmds[i].name))
				c = &db_cmds[i];
		if (!c && strcmp(argv[k], "--json"))
			return cmd_usage_error("db", "unknown subcommand '%s'", argv[k]);
	}
	if (!c)
		return cmd_usage_error("db", "which: rebuild");
	ret = cmd_open_store(ctx, &st, false);
	if (ret)
		return ret;
	ret = c->fn(ctx, &st);
	store_close(&st);
	return ret;
}
