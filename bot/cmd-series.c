// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/cmd.h"
#include "bot/series-out.h"

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
	"    --mbox FILE\n"
	"        an mbox (mboxo or mboxrd), or a single message; - reads stdin\n"
	"    --json\n"
	"        print {\"series\": [...]}: one object per series version with title,\n"
	"        author, version, total, tree, cover, patches (n, msgid, subject,\n"
	"        author, trailers), complete, superseded_by, resend, base_commit,\n"
	"        replies\n"
	"    --max-size SIZE\n"
	"        skip messages larger than SIZE (default: mail.maxsize, 16m)\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when the input was read (even with problems in single messages),\n"
	"    2 when it could not be read or on a usage error.\n"
	"\n"
	"EXAMPLES\n"
	"    b4 mbox 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    lorebot series --mbox 20260207081613.588598-1-vernon2gm@gmail.com.mbx\n";

/* Provided by the database front end when built in */
int series_from_db(struct ctx *ctx, struct assembly *a, struct strbuf *err)
	__attribute__((weak));

static void report_problems(const char *file, const struct strbuf *problems)
{
	const char *p = problems->buf;

	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		fprintf(stderr, "lorebot: %s: %.*s\n", file, n, p);
		p += n + (nl ? 1 : 0);
	}
}

int cmd_series(int argc, char **argv, struct ctx *ctx)
{
	static const struct option opts[] = {
		{ "mbox", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "max-size", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mbox = NULL;
	uint64_t max_size = config_get_size(ctx->cfg, "mail.maxsize");
	struct assembly a;
	bool json = false;
	int opt, ret = EXIT_OK;

	while ((opt = getopt_long(argc, argv, "m:j", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			mbox = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 's':
			if (parse_size(optarg, &max_size))
				return cmd_usage_error("series", "bad size '%s'", optarg);
			break;
		default:
			return cmd_usage_error("series", "unknown option");
		}
	}
	if (optind < argc)
		return cmd_usage_error("series", "unexpected argument '%s'", argv[optind]);

	assembly_init(&a, max_size);
	if (mbox) {
		int r = assembly_add_mbox(&a, mbox);

		if (r) {
			fprintf(stderr, "lorebot: cannot read '%s': %s\n", mbox,
				strerror(-r));
			assembly_release(&a);
			return EXIT_USAGE;
		}
	} else {
		struct strbuf err = STRBUF_INIT;

		if (!series_from_db || series_from_db(ctx, &a, &err)) {
			fprintf(stderr, "lorebot: %s\n", series_from_db ? err.buf :
				"no --mbox given and no database support built in");
			strbuf_release(&err);
			assembly_release(&a);
			return EXIT_USAGE;
		}
		strbuf_release(&err);
	}
	assembly_build(&a);
	report_problems(mbox ? mbox : ctx->db_path ? ctx->db_path : "database",
			&a.problems);
	if (json)
		assembly_print_json(&a, stdout);
	else
		assembly_print_text(&a, stdout);
	assembly_release(&a);
	return ret;
}
