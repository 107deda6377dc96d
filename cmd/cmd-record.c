// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/jsonx.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/stage/stage.h"
#include "bot/series/series-out.h"

static int read_input(const char *path, char **buf, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-"))
		return util_read_file(path, buf, len, 256u << 20);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		strbuf_add(&sb, chunk, n);
	if (ferror(stdin)) {
		strbuf_release(&sb);
		return -EIO;
	}
	*buf = strbuf_detach(&sb, len);
	return 0;
}

static void print_recorded(struct store *st, const char *version, enum stage stage,
			   bool json)
{
	struct results rs = RESULTS_INIT;
	struct strbuf err = STRBUF_INIT;
	json_object *arr = json_object_new_array(), *o;
	char *id = xstrdup(version);
	size_t i;

	if (*id == '<') {
		memmove(id, id + 1, strlen(id));
		if (*id && id[strlen(id) - 1] == '>')
			id[strlen(id) - 1] = 0;
	}
	store_results_load(st, id, 0, &rs, &err);
	for (i = 0; i < rs.nr; i++) {
		const struct result *r = &rs.v[i];

		if (r->stage != stage)
			continue;
		if (!json) {
			printf("%s%s%s: %s (%s)\n", plan_stage_name(stage), *r->arch ? " " : "",
			       r->arch, plan_status_name(r->status), r->summary);
			continue;
		}
		o = json_object_new_object();
		json_object_object_add(o, "stage",
				       json_object_new_string(plan_stage_name(stage)));
		json_object_object_add(o, "arch", json_object_new_string(r->arch));
		json_object_object_add(o, "status",
				       json_object_new_string(plan_status_name(r->status)));
		json_object_object_add(o, "summary", json_object_new_string(r->summary));
		json_object_object_add(o, "findings", json_object_new_int(r->findings));
		json_object_array_add(arr, o);
	}
	if (json) {
		o = json_object_new_object();
		json_object_object_add(o, "version", json_object_new_string(id));
		json_object_object_add(o, "recorded", arr);
		jx_print(o, stdout);
		json_object_put(o);
	} else {
		json_object_put(arr);
	}
	store_results_release(&rs);
	strbuf_release(&err);
	free(id);
}

const char cmd_record_help[] =
	"NAME\n"
	"    lorebot-record - record what a stage found for a series version\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE] record --version ID --stage apply|check|build|boot\n"
	"                               [--arch ARCH] [--json] FILE.json\n"
	"\n"
	"DESCRIPTION\n"
	"    Stores FILE.json (- for stdin), the --json output of 'lorebot apply',\n"
	"    'lorebot check', 'lorebot build' or 'lorebot boot', as the result of\n"
	"    that stage for the series version ID (the Message-ID of its cover\n"
	"    letter, or of patch 1 without one, as 'lorebot series' prints it).\n"
	"    The daemon does the same after each stage; this command is for\n"
	"    scripts and tests.  An earlier result of the same version, stage and\n"
	"    arch is replaced.  Replies ('lorebot reply') and the dashboard\n"
	"    ('lorebot serve') are made from these results.\n"
	"\n"
	"    The document is checked against the stage's contract: apply needs a\n"
	"    'patches' list with a 'status' each, check a 'findings' list with\n"
	"    severities error, warning or note, build and boot an 'archs' list\n"
	"    (or a single arch object) with an 'arch' and a known 'status' each.\n"
	"    Other keys are kept as they are.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when recorded, 2 when the document, the version or an option is\n"
	"    wrong, 3 when the database cannot be written.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot apply --mbox s.mbx --json >apply.json\n"
	"    lorebot --db mm.db record --version 20250115033807.46664-1-21cnbao@gmail.com \\\n"
	"            --stage apply apply.json\n";

int cmd_record(int argc, char **argv, struct ctx *ctx)
{
	const char *version = NULL, *stage_arg = NULL, *arch = NULL, *file;
	struct strbuf err = STRBUF_INIT;
	enum stage stage;
	json_object *doc;
	struct store *st = ctx->st;
	char *buf = NULL;
	size_t len = 0;
	bool json = false;
	int ret;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "version", &version, "ID",
			   "the series version"),
		OPT_STRING(0, "stage", &stage_arg, "STAGE",
			   "apply, check, build or boot"),
		OPT_STRING(0, "arch", &arch, "ARCH",
			   "build and boot: record only this arch of the document"),
		OPT_BOOL(0, "json", &json,
			 "print what was recorded: {\"recorded\": [{stage, arch, status, summary, "
			 "findings}]}"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "record", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (!version || !*version)
		return cmd_usage_error("record", "--version is required");
	if (!stage_arg)
		return cmd_usage_error("record", "--stage is required");
	if (plan_stage_parse(stage_arg, &stage) || stage >= STAGE_RESULTS) {
		struct strbuf names = STRBUF_INIT;

		for (stage = 0; stage < STAGE_RESULTS; stage++)
			strbuf_addf(&names, "%s%s", stage ? ", " : "", plan_stage_name(stage));
		ret = cmd_usage_error("record", "unknown stage '%s' (%s)", stage_arg, names.buf);
		strbuf_release(&names);
		return ret;
	}
	if (argc != 1)
		return cmd_usage_error("record", "one result file expected");
	file = argv[0];
	ret = read_input(file, &buf, &len);
	if (ret) {
		fprintf(stderr, "lorebot: cannot read '%s': %s\n", file, strerror(-ret));
		return EXIT_USAGE;
	}
	doc = jx_parse(buf, len, &err);
	free(buf);
	if (!doc) {
		fprintf(stderr, "lorebot: %s: %s\n", file, err.buf);
		strbuf_release(&err);
		return EXIT_USAGE;
	}
	ret = stage_record(st, version, stage, arch, doc, &err);
	if (ret < 0) {
		fprintf(stderr, "lorebot: %s: %s\n", file, err.buf);
		ret = ret == -EINVAL ? EXIT_USAGE : EXIT_INFRA;
	} else {
		ret = EXIT_OK;
		print_recorded(st, version, stage, json);
	}
	json_object_put(doc);
	strbuf_release(&err);
	return ret;
}
