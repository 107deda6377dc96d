// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "bot/sched/queue.h"

static const char *const state_names[JOB_STATE_NR] = {
	[JOB_QUEUED] = "queued", [JOB_RUNNING] = "running",
	[JOB_DONE] = "done", [JOB_FAILED] = "failed",
	[JOB_CANCELLED] = "cancelled",
};

const char *queue_job_state_name(enum job_state s)
{
	return s < JOB_STATE_NR ? state_names[s] : "?";
}

static enum job_state state_parse(const char *s)
{
	int i;

	for (i = 0; s && i < JOB_STATE_NR; i++)
		if (!strcmp(s, state_names[i]))
			return i;
	return JOB_FAILED;
}

void queue_job_release(struct job *j)
{
	free(j->version);
	free(j->arch);
	free(j->log);
	free(j->error);
	free(j->handle);
	free(j->node);
	memset(j, 0, sizeof(*j));
}

static int fail(struct db *db, struct strbuf *err)
{
	strbuf_addf(err, "job queue: %s", db_error(db));
	return -1;
}

#define JOB_COLUMNS "id, kind, version, arch, state, attempts, pid, log, " \
	"error, priority, queued, started, finished, interrupts, handle, slurm_job, node"

static void read_job(struct db_stmt *st, struct job *j)
{
	const char *k = db_column_text(st, 1);

	memset(j, 0, sizeof(*j));
	j->id = db_column_int(st, 0);
	if (plan_stage_parse(k, &j->kind))
		j->kind = STAGE_APPLY;
	j->version = xstrdup(db_column_text(st, 2) ? db_column_text(st, 2) : "");
	j->arch = xstrdup(db_column_text(st, 3) ? db_column_text(st, 3) : "");
	j->state = state_parse(db_column_text(st, 4));
	j->attempts = db_column_int(st, 5);
	j->pid = db_column_int(st, 6);
	j->log = xstrdup_or_null(db_column_text(st, 7));
	j->error = xstrdup_or_null(db_column_text(st, 8));
	j->priority = db_column_int(st, 9);
	j->queued = db_column_int(st, 10);
	j->started = db_column_int(st, 11);
	j->finished = db_column_int(st, 12);
	j->interrupts = (int)db_column_int(st, 13);
	j->handle = xstrdup_or_null(db_column_text(st, 14));
	j->slurm_job = db_column_int(st, 15);
	j->node = xstrdup_or_null(db_column_text(st, 16));
}

int queue_add(struct db *db, enum stage kind, const char *version,
	      const char *arch, int64_t priority, bool *added,
	      struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db,
		"INSERT OR IGNORE INTO jobs (kind, version, arch, priority, queued)"
		" VALUES (?, ?, ?, ?, ?)");

	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, plan_stage_name(kind));
	db_bind_text(st, 2, version);
	db_bind_text(st, 3, arch ? arch : "");
	db_bind_int(st, 4, priority);
	db_bind_int(st, 5, time(NULL));
	if (db_run(st))
		return fail(db, err);
	if (added)
		*added = db_changes(db) > 0;
	return 0;
}

/* "SELECT ... WHERE kind IN ('build', 'boot') ...": the heavy stages of the table */
static const char *claim_sql(bool heavy)
{
	static char sql[2][512];
	struct strbuf kinds = STRBUF_INIT;
	int i;

	if (sql[heavy][0])
		return sql[heavy];
	for (i = 0; i < STAGE_NR; i++)
		if (stages[i]->heavy)
			strbuf_addf(&kinds, "%s'%s'", kinds.len ? ", " : "", stages[i]->name);
	snprintf(sql[heavy], sizeof(sql[heavy]),
		 "SELECT " JOB_COLUMNS " FROM jobs WHERE state = 'queued'"
		 " AND kind %sIN (%s)"
		 /* replies go out one at a time: they share the reply lock */
		 " AND NOT (kind = 'reply' AND EXISTS (SELECT 1 FROM jobs"
		 "  WHERE kind = 'reply' AND state = 'running'))"
		 " ORDER BY priority DESC, id LIMIT 1", heavy ? "" : "NOT ", kinds.buf);
	strbuf_release(&kinds);
	return sql[heavy];
}

int queue_claim(struct db *db, bool heavy, struct job *j, struct strbuf *err)
{
	struct db_stmt *st;
	int r, began = !db_in_transaction(db);

	if (began && db_begin(db))
		return fail(db, err);
	st = db_prepare(db, claim_sql(heavy));
	if (!st)
		goto error;
	r = db_step(st);
	if (r < 0)
		goto error;
	if (!r) {
		if (began && db_commit(db))
			goto error;
		return 0;
	}
	read_job(st, j);
	db_reset(st);
	st = db_prepare(db, "UPDATE jobs SET state = 'running', attempts = attempts + 1,"
			" started = ?, finished = NULL, pid = NULL, slurm_job = NULL, node = NULL"
			" WHERE id = ?");
	if (!st)
		goto error_job;
	db_bind_int(st, 1, time(NULL));
	db_bind_int(st, 2, j->id);
	if (db_run(st))
		goto error_job;
	if (began && db_commit(db))
		goto error_job;
	j->state = JOB_RUNNING;
	j->attempts++;
	return 1;

error_job:
	queue_job_release(j);
error:
	fail(db, err);
	if (began)
		db_rollback(db);
	return -1;
}

int queue_set_pid(struct db *db, int64_t id, int64_t pid, const char *log,
		  struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "UPDATE jobs SET pid = ?, log = ? WHERE id = ?");

	if (!st)
		return fail(db, err);
	db_bind_int(st, 1, pid);
	db_bind_text(st, 2, log);
	db_bind_int(st, 3, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_set_handle(struct db *db, int64_t id, const char *handle, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "UPDATE jobs SET handle = ? WHERE id = ?");

	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, handle);
	db_bind_int(st, 2, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_set_where(struct db *db, int64_t id, int64_t slurm_job, const char *node,
		    struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "UPDATE jobs SET slurm_job = ?, node = ? WHERE id = ?");

	if (!st)
		return fail(db, err);
	if (slurm_job)
		db_bind_int(st, 1, slurm_job);
	else
		db_bind_null(st, 1);
	db_bind_text(st, 2, node);
	db_bind_int(st, 3, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_finish(struct db *db, int64_t id, enum job_state state,
		 const char *error, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db,
		"UPDATE jobs SET state = ?, error = ?, finished = ?, pid = NULL, handle = NULL"
		" WHERE id = ?");

	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, queue_job_state_name(state));
	db_bind_text(st, 2, error);
	db_bind_int(st, 3, time(NULL));
	db_bind_int(st, 4, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_requeue(struct db *db, int64_t id, const char *error, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db,
		"UPDATE jobs SET state = 'queued', error = ?, pid = NULL, handle = NULL WHERE id = ?");

	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, error);
	db_bind_int(st, 2, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_giveback(struct db *db, int64_t id, const char *why, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db,
		"UPDATE jobs SET state = 'queued', pid = NULL, handle = NULL,"
		" attempts = max(attempts - 1, 0), error = ?"
		" WHERE id = ? AND state = 'running'");

	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, why);
	db_bind_int(st, 2, id);
	return db_run(st) ? fail(db, err) : 0;
}

int queue_release(struct db *db, int64_t id, struct strbuf *err)
{
	return queue_giveback(db, id, "interrupted by a shutdown", err);
}

/* keep as a JSON array, for json_each() */
static char *ids_json(const int64_t *keep, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addch(&sb, '[');
	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%lld", i ? "," : "", (long long)keep[i]);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

int queue_recover_except(struct db *db, int max_interrupts, const int64_t *keep,
			 size_t nr_keep, struct strbuf *err)
{
	char *ids = ids_json(keep, nr_keep);
	struct db_stmt *st;
	int n;

	if (db_begin(db)) {
		free(ids);
		return fail(db, err);
	}
	st = db_prepare(db, "UPDATE jobs SET state = 'failed', pid = NULL, handle = NULL,"
			" finished = ?, interrupts = interrupts + 1,"
			" error = 'interrupted ' || (interrupts + 1) || ' times; giving up'"
			" WHERE state = 'running' AND interrupts + 1 >= ?"
			" AND id NOT IN (SELECT value FROM json_each(?))");
	if (!st)
		goto error;
	db_bind_int(st, 1, time(NULL));
	db_bind_int(st, 2, max_interrupts);
	db_bind_text(st, 3, ids);
	if (db_run(st))
		goto error;
	n = db_changes(db);
	/* the job did not fail, the daemon went away: the attempt is given back */
	st = db_prepare(db, "UPDATE jobs SET state = 'queued', pid = NULL, handle = NULL,"
			" attempts = max(attempts - 1, 0), interrupts = interrupts + 1,"
			" error = 'interrupted; retried' WHERE state = 'running'"
			" AND id NOT IN (SELECT value FROM json_each(?))");
	if (!st || db_bind_text(st, 1, ids) || db_run(st))
		goto error;
	n += db_changes(db);
	if (db_commit(db))
		goto error;
	free(ids);
	return n;
error:
	free(ids);
	fail(db, err);
	db_rollback(db);
	return -1;
}

int queue_recover(struct db *db, int max_interrupts, struct strbuf *err)
{
	return queue_recover_except(db, max_interrupts, NULL, 0, err);
}

int queue_cancel_version(struct db *db, const char *version, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db,
		"UPDATE jobs SET state = 'cancelled', finished = ?,"
		" error = 'superseded' WHERE version = ? AND state = 'queued'");

	if (!st)
		return fail(db, err);
	db_bind_int(st, 1, time(NULL));
	db_bind_text(st, 2, version);
	return db_run(st) ? fail(db, err) : db_changes(db);
}

int queue_get(struct db *db, int64_t id, struct job *j, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?");
	int r;

	if (!st)
		return fail(db, err);
	db_bind_int(st, 1, id);
	r = db_step(st);
	if (r < 0)
		return fail(db, err);
	if (!r) {
		strbuf_addf(err, "no job %lld", (long long)id);
		return -1;
	}
	read_job(st, j);
	db_reset(st);
	return 0;
}

static int read_jobs(struct db *db, struct db_stmt *st, struct job **jobs, size_t *nr,
		     struct strbuf *err)
{
	size_t alloc = 0;
	int r;

	while ((r = db_step(st)) > 0) {
		ALLOC_GROW(*jobs, *nr + 1, alloc);
		read_job(st, &(*jobs)[(*nr)++]);
	}
	if (r < 0) {
		queue_free_jobs(*jobs, *nr);
		*jobs = NULL;
		*nr = 0;
		return fail(db, err);
	}
	return 0;
}

int queue_version_jobs(struct db *db, const char *version, struct job **jobs,
		       size_t *nr, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "SELECT " JOB_COLUMNS
					" FROM jobs WHERE version = ? ORDER BY id");

	*jobs = NULL;
	*nr = 0;
	if (!st)
		return fail(db, err);
	db_bind_text(st, 1, version);
	return read_jobs(db, st, jobs, nr, err);
}

int queue_running(struct db *db, struct job **jobs, size_t *nr, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "SELECT " JOB_COLUMNS
					" FROM jobs WHERE state = 'running' ORDER BY id");

	*jobs = NULL;
	*nr = 0;
	if (!st)
		return fail(db, err);
	return read_jobs(db, st, jobs, nr, err);
}

void queue_free_jobs(struct job *jobs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		queue_job_release(&jobs[i]);
	free(jobs);
}

int queue_counts(struct db *db, int64_t *counts, struct strbuf *err)
{
	struct db_stmt *st = db_prepare(db, "SELECT state, count(*) FROM jobs GROUP BY state");
	int r;

	memset(counts, 0, JOB_STATE_NR * sizeof(*counts));
	if (!st)
		return fail(db, err);
	while ((r = db_step(st)) > 0)
		counts[state_parse(db_column_text(st, 0))] = db_column_int(st, 1);
	return r < 0 ? fail(db, err) : 0;
}
