// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/series/series-out.h"
#include "bot/store/store.h"
#include "lib/jsonx.h"

static void report_json_problems(const char *file, json_object *problems)
{
	size_t i;

	for (i = 0; i < json_object_array_length(problems); i++)
		fprintf(stderr, "lorebot: %s: %s\n", file,
			json_object_get_string(json_object_array_get_idx(problems, i)));
}

/* Without --mbox: the series as stored (assembled at the last fetch) */
static int series_from_db(struct ctx *ctx, bool json)
{
	struct strbuf err = STRBUF_INIT;
	json_object *o = NULL;
	struct store st;
	int ret = cmd_open_store(ctx, &st, false);

	if (ret)
		return ret;
	if (store_series_json(&st, &o, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		ret = EXIT_INFRA;
	} else {
		report_json_problems(db_path(st.db), jx_get(o, "problems"));
		if (json) {
			jx_print(o, stdout);
		} else {
			struct strbuf sb = STRBUF_INIT;

			store_versions_text(jx_get(o, "series"), &sb);
			fputs(sb.buf, stdout);
			strbuf_release(&sb);
		}
	}
	json_object_put(o);
	strbuf_release(&err);
	store_close(&st);
	return ret;
}

/* 29360128 as "28m": the way the option is written */
static const char *human_size(uint64_t v, char *buf)
{
	static const char units[] = "kmg";
	int u = -1;

	while (v >= 1024 && !(v % 1024) && u < 2) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, 32, "%llu bytes", (unsigned long long)v);
	else
		snprintf(buf, 32, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

static void report_problem(const char *line, size_t len, void *file)
{
	fprintf(stderr, "lorebot: %s: %.*s\n", (const char *)file, (int)len, line);
}

const char cmd_series_help[] =
	"NAME\n"
	"    lorebot-series - list the patch series found in an mbox or in the database\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot series --mbox FILE [--json]\n"
	"    lorebot [--db FILE] series [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    Reads mail the way a maintainer reads a list: cover letters and patches\n"
	"    are grouped into sends by threading (or, where threading is broken, by\n"
	"    sender, version, patch count and time), sends into series and versions\n"
	"    (v1, v2, RESEND, a send interrupted and sent again), and the trailers\n"
	"    reviewers give in replies are attached to the patches they reviewed\n"
	"    (to every patch when given on the cover letter).\n"
	"\n"
	"    With --mbox, nothing but FILE is read and no state is touched: this is\n"
	"    how to look at a thread saved from lore (b4 mbox, t.mbox.gz unpacked).\n"
	"    Without it, the series in the database (see lorebot-fetch) are listed.\n"
	"\n"
	"    Problems with single messages (no Message-ID, undecodable parts, too\n"
	"    large, not threaded) are reported on stderr naming the message by its\n"
	"    position and Message-ID; every other message is still used.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when the input was read (even with problems in single messages),\n"
	"    2 when it could not be read, held no mail message at all (as check\n"
	"    and apply), or on a usage error, 3 when the scratch file failed (it\n"
	"    cannot be created, or the disk is full).\n"
	"\n"
	"EXAMPLES\n"
	"    b4 mbox 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    lorebot series --mbox 20260207081613.588598-1-vernon2gm@gmail.com.mbx\n";

int cmd_series(int argc, char **argv, struct ctx *ctx)
{
	const char *mbox = NULL;
	uint64_t max_size = config_v(ctx->cfg)->mail_maxsize;
	uint64_t memory = config_v(ctx->cfg)->series_memory;
	struct assembly a;
	bool json = false;
	int ret = EXIT_OK;
	const struct parse_opt opts[] = {
		OPT_STRING('m', "mbox", &mbox, "FILE",
			   "an mbox (mboxo or mboxrd), or a single message; - reads stdin"),
		OPT_BOOL('j', "json", &json,
			 "print {\"series\": [...]}: one object per series version with title, "
			 "author, version, total, tree, cover, patches (n, msgid, subject, "
			 "author, trailers), complete, superseded_by, resend, base_commit, "
			 "replies"),
		OPT_SIZE(0, "max-size", &max_size, "SIZE",
			 "skip messages larger than SIZE (default: mail.maxsize, 16m)"),
		OPT_SIZE(0, "memory", &memory, "SIZE",
			 "hold up to SIZE of messages in memory (default: series.memory, 28m: "
			 "about 50,000 messages); past that, everything moves to a scratch file "
			 "in $TMPDIR (else /var/tmp; about 1 KB a message), deleted on exit, of "
			 "which at most SIZE is mapped in at a time: the process stays under 64 "
			 "MB whatever the size of the mbox"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "series", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;

	if (!mbox)
		return series_from_db(ctx, json);
	series_init(&a, max_size);
	series_trust_senders(&a, config_list_copy(&config_v(ctx->cfg)->series_trust),
			     config_v(ctx->cfg)->series_trust.nr);
	a.spill_after = series_budget(memory);
	ret = series_add_mbox(&a, mbox);
	if (ret && !series_failed(&a)) {
		fprintf(stderr, "lorebot: cannot read '%s': %s\n", mbox, strerror(-ret));
		series_release(&a);
		return EXIT_USAGE;
	}
	if (!ret)
		series_build(&a);
	if (series_failed(&a)) {
		fprintf(stderr, "lorebot: %s: %s\nlorebot: %s: past --memory, "
			"series needs a writable $TMPDIR (else /var/tmp) with about "
			"1 KB a message free\n", mbox, a.fatal.buf, mbox);
		series_release(&a);
		return EXIT_INFRA;
	}
	if (a.scratch) {
		char sz[32];

		fprintf(stderr, "lorebot: %s: more than %s of messages; assembled "
			"in a scratch file\n", mbox, human_size(a.spill_after, sz));
	}
	series_each_problem(&a, report_problem, (void *)mbox);
	if (json)
		series_print_json(&a, stdout);
	else
		series_print_text(&a, stdout);
	ret = series_failed(&a) ? EXIT_INFRA : EXIT_OK;
	if (ret) {
		fprintf(stderr, "lorebot: %s: %s\n", mbox, a.fatal.buf);
	} else if (!a.nr) {
		fprintf(stderr, "lorebot: %s: no mail message in it\n", mbox);
		ret = EXIT_USAGE;
	}
	series_release(&a);
	return ret;
}
