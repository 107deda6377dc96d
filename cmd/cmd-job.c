// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/sched/job.h"
#include "bot/base/db.h"
#include "bot/report/report.h"
#include "lib/jsonx.h"
#include "lib/log.h"

/* The options of every subcommand: one table, one manual */
struct job_cli {
	const char *repo, *outbox, *archs;
	bool json;
};

static int job_run_cmd(int argc, char **argv, struct ctx *ctx,
		       const struct job_cli *cli)
{
	struct job_env env = { .repo = cli->repo, .outbox = cli->outbox,
			       .archs = cli->archs };
	struct strbuf err = STRBUF_INIT;
	struct store st;
	struct job j;
	json_object *infra = NULL;
	char buf[4096], *end, *dbpath, *statedir, *config, *repo, *cache;
	int64_t id;
	ssize_t n;
	int ret;

	if (argc != 1)
		return cmd_usage_error("job", "job run ID");
	id = strtoll(argv[0], &end, 10);
	if (*end || id <= 0)
		return cmd_usage_error("job", "bad job id '%s'", argv[0]);
	if (!env.repo)
		env.repo = config_v(ctx->cfg)->git_repo;
	if (!env.repo)
		return cmd_usage_error("job", "no kernel repository: --repo or git.repo");
	ret = cmd_open_store(ctx, &st, false);
	if (ret)
		return ret;
	if (env.archs)
		report_states_attach(&st, ctx->cfg, env.archs);
	if (queue_get(st.db, id, &j, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		strbuf_release(&err);
		store_close(&st);
		return EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* the stages run in the job's directory, maybe in a sandbox */
	dbpath = util_path_absolute(db_path(st.db));
	statedir = util_path_dirname(dbpath);
	config = util_path_absolute(ctx->config_path);
	repo = util_path_absolute(env.repo);
	env.self = n > 0 ? buf : "lorebot";
	env.config = config;
	env.repo = repo;
	env.statedir = statedir;
	env.cache = cache = config_cachedir(ctx->cfg);
	env.timeout_ms = config_v(ctx->cfg)->daemon_jobtimeout;
	env.sandbox = config_v(ctx->cfg)->build_sandbox;
	log_set_timestamps(true);

	ret = job_execute(&st, ctx->cfg, &env, &j, &infra, &err);
	if (ret) {
		struct strbuf e2 = STRBUF_INIT;
		int max = MAX(1, config_v(ctx->cfg)->daemon_attempts);

		log_err("job %lld: %s", (long long)id, err.buf);
		/* the last attempt: the stage ended, as a failure of the infrastructure */
		if (j.attempts >= max ? job_give_up(&st, &j, infra, err.buf, &e2) :
		    queue_requeue(st.db, id, err.buf, &e2))
			log_err("job %lld: %s", (long long)id, e2.buf);
		strbuf_release(&e2);
		json_object_put(infra);
		ret = EXIT_INFRA;
	}
	queue_job_release(&j);
	free(dbpath);
	free(statedir);
	free(config);
	free(repo);
	free(cache);
	strbuf_release(&err);
	store_close(&st);
	return ret;
}

static int job_work_cmd(int argc, char **argv, struct ctx *ctx)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (argc != 1)
		return cmd_usage_error("job", "job work DIR");
	log_set_timestamps(true);
	ret = job_work(argv[0], ctx->cfg, &err);
	if (ret)
		log_err("job work '%s': %s", argv[0], err.buf);
	strbuf_release(&err);
	return ret ? EXIT_INFRA : EXIT_OK;
}

static int job_list_cmd(int argc, char **argv, struct ctx *ctx, bool json)
{
	struct store st;
	struct db_stmt *q;
	json_object *arr;
	int ret;

	if (argc)
		return cmd_usage_error("job", "unexpected argument '%s'", argv[0]);
	ret = cmd_open_store(ctx, &st, false);
	if (ret)
		return ret;
	arr = json_object_new_array();
	q = db_prepare(st.db, "SELECT id, kind, arch, state, attempts, version,"
		       " coalesce(error, ''), slurm_job, coalesce(node, '') FROM jobs ORDER BY id");
	while (q && db_step(q) > 0) {
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "id", json_object_new_int64(db_column_int(q, 0)));
			json_object_object_add(o, "kind", json_object_new_string(db_column_text(q, 1)));
			json_object_object_add(o, "arch", json_object_new_string(db_column_text(q, 2)));
			json_object_object_add(o, "state", json_object_new_string(db_column_text(q, 3)));
			json_object_object_add(o, "attempts", json_object_new_int64(db_column_int(q, 4)));
			json_object_object_add(o, "version", json_object_new_string(db_column_text(q, 5)));
			json_object_object_add(o, "error", json_object_new_string(db_column_text(q, 6)));
			json_object_object_add(o, "executor", json_object_new_string(
				db_column_int(q, 7) ? "slurm" : "local"));
			if (db_column_int(q, 7))
				json_object_object_add(o, "slurm_job",
						       json_object_new_int64(db_column_int(q, 7)));
			json_object_object_add(o, "node", json_object_new_string(db_column_text(q, 8)));
			json_object_array_add(arr, o);
		} else {
			char where[96] = "local";

			if (db_column_int(q, 7))
				snprintf(where, sizeof(where), "slurm:%lld%s%s",
					 (long long)db_column_int(q, 7), *db_column_text(q, 8) ?
					 "@" : "", db_column_text(q, 8));
			printf("%5lld %-6s %-7s %-9s %lld %s <%s> %s\n",
			       (long long)db_column_int(q, 0), db_column_text(q, 1),
			       db_column_text(q, 2), db_column_text(q, 3),
			       (long long)db_column_int(q, 4), where, db_column_text(q, 5),
			       db_column_text(q, 6));
		}
	}
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "jobs", arr);
		jx_print(o, stdout);
		json_object_put(o);
	} else {
		json_object_put(arr);
	}
	store_close(&st);
	return EXIT_OK;
}

const char cmd_job_help[] =
	"NAME\n"
	"    lorebot-job - run one job of the daemon's queue\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot --db FILE job run ID --repo DIR [--outbox DIR] [--arch LIST]\n"
	"    lorebot --db FILE job list [--json]\n"
	"    lorebot [--config FILE] job work DIR\n"
	"\n"
	"DESCRIPTION\n"
	"    The daemon runs every job as 'lorebot job run ID' in a process of its\n"
	"    own: the stage (apply, check, build, boot or reply) runs, its result\n"
	"    is recorded for the series version, and the job is marked done.  A\n"
	"    failure of the infrastructure (a command that cannot run, exits 3,\n"
	"    times out) queues the job again until it used daemon.attempts; then\n"
	"    the stage's result is recorded as 'infra' (the command's own document\n"
	"    when it printed one, else the reason) and the job is marked failed.\n"
	"    'job list' prints the queue, with where each job ran (local, or\n"
	"    the Slurm job and node).\n"
	"\n"
	"    'job work DIR' is what a cluster's node runs (daemon.executor =\n"
	"    slurm): the stage command the daemon described in DIR/job.json,\n"
	"    without any database; its result goes to DIR/result.json, which\n"
	"    the daemon records once the scheduler says the job ended.\n"
	"\n"
	"OPTIONS\n"
	"    Each option is one subcommand's.\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when the job is done, 3 when it failed or was queued again,\n"
	"    2 on a usage error.\n";

int cmd_job(int argc, char **argv, struct ctx *ctx)
{
	struct job_cli c = { 0 };
	const char *sub;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "repo", &c.repo, "DIR",
			   "job run: the kernel repository (default: git.repo)"),
		OPT_STRING(0, "outbox", &c.outbox, "DIR",
			   "job run of a reply: file the mails in the maildir DIR"),
		OPT_STRING(0, "arch", &c.archs, "LIST",
			   "job run of a reply: the architectures the version was built and "
			   "booted on (the daemon's --arch; default build.arch)"),
		OPT_BOOL(0, "json", &c.json, "job list: print {\"jobs\": [{id, kind, arch, "
			 "state, attempts, version, error, executor, slurm_job, node}]}"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "job", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (!argc)
		return cmd_usage_error("job", "job run ID | job list | job work DIR");
	sub = argv[0];
	if (strcmp(sub, "run") && (c.repo || c.outbox || c.archs))
		return cmd_usage_error("job", "--%s is an option of 'job run'",
				       c.repo ? "repo" : c.outbox ? "outbox" : "arch");
	if (strcmp(sub, "list") && c.json)
		return cmd_usage_error("job", "--json is an option of 'job list'");
	if (!strcmp(sub, "run"))
		return job_run_cmd(argc - 1, argv + 1, ctx, &c);
	if (!strcmp(sub, "list"))
		return job_list_cmd(argc - 1, argv + 1, ctx, c.json);
	if (!strcmp(sub, "work"))
		return job_work_cmd(argc - 1, argv + 1, ctx);
	return cmd_usage_error("job", "unknown subcommand '%s'", sub);
}
