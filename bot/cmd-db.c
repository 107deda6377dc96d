// SPDX-License-Identifier: GPL-2.0
/* Opening the state database for a command */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/cmd.h"
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
