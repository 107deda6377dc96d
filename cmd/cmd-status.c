// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/base/db.h"
#include "bot/sched/queue.h"
#include "bot/report/report.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"

static const char *ago(int64_t t, char *buf, size_t len)
{
	int64_t d = time(NULL) - t;

	if (!t)
		return "never";
	if (d < 120)
		snprintf(buf, len, "%llds ago", (long long)d);
	else if (d < 7200)
		snprintf(buf, len, "%lldm ago", (long long)d / 60);
	else
		snprintf(buf, len, "%lldh ago", (long long)d / 3600);
	return buf;
}

/* The columns of a query, in order, as JSON keys and types */
struct col {
	const char *key;
	bool is_int;
};

static const struct col run_cols[] = {
	{ "id", true }, { "kind", false }, { "arch", false },
	{ "version", false }, { "started", true }, { "attempt", true },
	{ "executor", false }, { "slurm_job", true }, { "node", false },
};

static const struct col list_cols[] = {
	{ "name", false }, { "url", false }, { "last_poll", true },
	{ "last_ok", true }, { "failures", true }, { "last_error", false },
};

/* One object per row of q into arr */
static void rows_json(struct db_stmt *q, const struct col *cols, size_t n,
		      json_object *arr)
{
	while (q && db_step(q) > 0) {
		json_object *o = json_object_new_object();
		size_t i;

		for (i = 0; i < n; i++)
			json_object_object_add(o, cols[i].key, cols[i].is_int ?
				json_object_new_int64(db_column_int(q, (int)i)) :
				jx_new_str(db_column_text(q, (int)i)));
		json_object_array_add(arr, o);
	}
}

/* --recent N: as atoi() reads it, whatever follows the digits */
static int recent_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	(void)err;
	*(int *)opt->value = atoi(arg);
	return 0;
}

const char cmd_status_help[] =
	"NAME\n"
	"    lorebot-status - the daemon's queue, lists and recent results\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE | --config FILE] status [--json] [--recent N]\n"
	"\n"
	"DESCRIPTION\n"
	"    Prints the job queue by state, the jobs running now, each list's\n"
	"    last poll and failures, and the state of the most recent series\n"
	"    versions (testing, apply-failed, build-failed, findings, passed...).\n"
	"    It only reads the database: it works while the daemon runs.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0, or 2 when there is no database.\n";

int cmd_status(int argc, char **argv, struct ctx *ctx)
{
	json_object *out, *queue, *runs, *lists, *recent;
	struct strbuf err = STRBUF_INIT;
	struct report_opts ro;
	int64_t counts[JOB_STATE_NR];
	struct db_stmt *q;
	struct store *st = ctx->st;
	bool json = false;
	int n = 10, i;
	char t1[32], t2[32];
	const struct parse_opt opts[] = {
		OPT_BOOL('j', "json", &json,
			 "print {\"queue\", \"running\", \"lists\", \"recent\"}: the same, "
			 "as JSON"),
		OPT_CALLBACK(0, "recent", &n, "N",
			     "show the N most recent series versions (default 10)",
			     recent_cb),
		OPT_END(),
	};

	if (cmd_parse_options(argc, argv, "status", opts, CMD_ANY_ARGS) < 0)
		return EXIT_USAGE;
	out = json_object_new_object();
	queue = json_object_new_object();
	runs = json_object_new_array();
	lists = json_object_new_array();
	recent = json_object_new_array();
	report_opts_init(&ro, ctx->cfg);
	if (!queue_counts(st->db, counts, &err))
		for (i = 0; i < JOB_STATE_NR; i++)
			json_object_object_add(queue, queue_job_state_name(i),
					       json_object_new_int64(counts[i]));
	q = db_prepare(st->db, "SELECT id, kind, arch, version, started, attempts,"
		       " CASE WHEN slurm_job IS NULL THEN 'local' ELSE 'slurm' END,"
		       " coalesce(slurm_job, 0), node"
		       " FROM jobs WHERE state = 'running' ORDER BY id");
	rows_json(q, run_cols, ARRAY_SIZE(run_cols), runs);
	q = db_prepare(st->db, "SELECT name, url, last_poll, last_ok, failures, last_error"
		       " FROM lists ORDER BY name");
	rows_json(q, list_cols, ARRAY_SIZE(list_cols), lists);
	q = db_prepare(st->db, "SELECT id FROM versions WHERE gone = 0"
		       " ORDER BY date DESC LIMIT ?");
	if (q) {
		char **ids = xcalloc(n > 0 ? n : 1, sizeof(*ids));
		int nr = 0;

		db_bind_int(q, 1, n);
		while (db_step(q) > 0 && nr < n)
			ids[nr++] = xstrdup(db_column_text(q, 0));
		for (i = 0; i < nr; i++) {
			struct report_version v;
			json_object *o;

			if (report_version_load(st, ids[i], REPORT_LIGHT, &v, &err) <= 0) {
				strbuf_reset(&err);
				free(ids[i]);
				continue;
			}
			o = json_object_new_object();
			json_object_object_add(o, "id", jx_new_str(v.id));
			json_object_object_add(o, "series_id", jx_new_str(v.series_id));
			json_object_object_add(o, "title", jx_new_str(v.title));
			json_object_object_add(o, "version", json_object_new_int(v.version));
			json_object_object_add(o, "state", jx_new_str(report_state(&v, &ro)));
			json_object_array_add(recent, o);
			report_version_release(&v);
			free(ids[i]);
		}
		free(ids);
	}
	json_object_object_add(out, "queue", queue);
	json_object_object_add(out, "running", runs);
	json_object_object_add(out, "lists", lists);
	json_object_object_add(out, "recent", recent);
	if (json) {
		jx_print(out, stdout);
	} else {
		printf("queue:");
		for (i = 0; i < JOB_STATE_NR; i++)
			printf(" %s %lld", queue_job_state_name(i), (long long)counts[i]);
		putchar('\n');
		for (i = 0; i < (int)json_object_array_length(runs); i++) {
			json_object *o = json_object_array_get_idx(runs, i), *v;

			const char *node = json_object_get_string(json_object_object_get(o, "node"));
			int64_t sj = json_object_get_int64(json_object_object_get(o, "slurm_job"));
			char where[96] = "local";

			if (sj)
				snprintf(where, sizeof(where), "slurm job %lld%s%s", (long long)sj,
					 node ? " on " : " (queued)", node ? node : "");
			json_object_object_get_ex(o, "started", &v);
			printf("running: job %s %s %s <%s>, %s, %s\n",
			       json_object_get_string(json_object_object_get(o, "id")),
			       json_object_get_string(json_object_object_get(o, "kind")),
			       json_object_get_string(json_object_object_get(o, "arch")),
			       json_object_get_string(json_object_object_get(o, "version")),
			       ago(json_object_get_int64(v), t1, sizeof(t1)), where);
		}
		for (i = 0; i < (int)json_object_array_length(lists); i++) {
			json_object *o = json_object_array_get_idx(lists, i);
			json_object *e = json_object_object_get(o, "last_error");

			printf("list %s: polled %s, last good %s, %lld failures%s%s\n",
			       json_object_get_string(json_object_object_get(o, "name")),
			       ago(json_object_get_int64(json_object_object_get(o, "last_poll")),
				   t1, sizeof(t1)),
			       ago(json_object_get_int64(json_object_object_get(o, "last_ok")),
				   t2, sizeof(t2)),
			       (long long)json_object_get_int64(json_object_object_get(o, "failures")),
			       e ? ": " : "", e ? json_object_get_string(e) : "");
		}
		for (i = 0; i < (int)json_object_array_length(recent); i++) {
			json_object *o = json_object_array_get_idx(recent, i);

			printf("%-13s v%d %s\n",
			       json_object_get_string(json_object_object_get(o, "state")),
			       json_object_get_int(json_object_object_get(o, "version")),
			       json_object_get_string(json_object_object_get(o, "title")));
		}
	}
	json_object_put(out);
	report_opts_release(&ro);
	strbuf_release(&err);
	return EXIT_OK;
}
