// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/db.h"
#include "bot/pipeline.h"
#include "bot/results.h"
#include "ci/arch.h"

static const char *const default_archs[] = { "x86_64", "arm64", "riscv" };

static void add_arch(struct pipeline_cfg *pc, const char *name, size_t *alloc)
{
	const struct arch *a = arch_lookup(name);
	size_t i;

	if (!a)
		return;		/* config --check reports unknown names */
	for (i = 0; i < pc->nr_archs; i++)
		if (!strcmp(pc->archs[i], a->name))
			return;
	ALLOC_GROW(pc->archs, pc->nr_archs + 1, *alloc);
	pc->archs[pc->nr_archs++] = xstrdup(a->name);
}

void pipeline_cfg_init(struct pipeline_cfg *pc, const struct config *cfg,
		       const char *archs)
{
	const char **v;
	size_t alloc = 0, n, i;

	memset(pc, 0, sizeof(*pc));
	if (archs) {
		char *copy = xstrdup(archs), *save = NULL, *w;

		for (w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
			add_arch(pc, w, &alloc);
		free(copy);
	} else {
		n = config_get_all(cfg, "build.arch", &v);
		for (i = 0; i < n; i++)
			add_arch(pc, v[i], &alloc);
		free(v);
		for (i = 0; !n && i < ARRAY_SIZE(default_archs); i++)
			add_arch(pc, default_archs[i], &alloc);
	}
	pc->boot = config_get_bool(cfg, "boot.enable");
	pc->window_s = config_get_ms(cfg, "daemon.window") / 1000;
}

void pipeline_cfg_release(struct pipeline_cfg *pc)
{
	size_t i;

	for (i = 0; i < pc->nr_archs; i++)
		free(pc->archs[i]);
	free(pc->archs);
	memset(pc, 0, sizeof(*pc));
}

static int db_fail(struct db *db, struct strbuf *err)
{
	strbuf_addf(err, "pipeline: %s", db_error(db));
	return -1;
}

int pipeline_sweep(struct store *st, const struct pipeline_cfg *pc,
		   int64_t now, struct strbuf *err)
{
	struct db *db = st->db;
	struct db_stmt *q;
	char **ready = NULL, **old = NULL;
	int64_t *prio = NULL;
	size_t nr = 0, alloc = 0, nr_old = 0, alloc_old = 0, alloc_p = 0, i;
	int r, queued = 0;

	/* versions without an apply job, and superseded ones with jobs */
	q = db_prepare(db,
		"SELECT v.id, v.complete, v.date, v.superseded_by IS NOT NULL,"
		"  (SELECT count(*) FROM jobs j WHERE j.version = v.id)"
		" FROM versions v WHERE v.gone = 0");
	if (!q)
		return db_fail(db, err);
	while ((r = db_step(q)) > 0) {
		const char *id = db_column_text(q, 0);
		bool complete = db_column_int(q, 1);
		int64_t date = db_column_int(q, 2);
		bool superseded = db_column_int(q, 3);
		int64_t jobs = db_column_int(q, 4);

		if (superseded) {
			if (jobs) {
				ALLOC_GROW(old, nr_old + 1, alloc_old);
				old[nr_old++] = xstrdup(id);
			}
			continue;
		}
		if (jobs || (!complete && date > now - pc->window_s))
			continue;
		ALLOC_GROW(ready, nr + 1, alloc);
		ALLOC_GROW(prio, nr + 1, alloc_p);
		ready[nr] = xstrdup(id);
		prio[nr++] = date;
	}
	if (r < 0) {
		db_fail(db, err);
		queued = -1;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		bool added;

		if (queue_add(db, JOB_APPLY, ready[i], "", prio[i], &added, err)) {
			queued = -1;
			goto out;
		}
		queued += added;
	}
	for (i = 0; i < nr_old; i++) {
		if (queue_cancel_version(db, old[i], err) < 0) {
			queued = -1;
			goto out;
		}
	}
out:
	for (i = 0; i < nr; i++)
		free(ready[i]);
	for (i = 0; i < nr_old; i++)
		free(old[i]);
	free(ready);
	free(old);
	free(prio);
	return queued;
}

/* The status a stage recorded for the version (and arch), or NULL */
static char *stage_status(struct store *st, const char *version,
			  enum result_stage stage, const char *arch,
			  struct strbuf *err)
{
	struct results rs = { 0 };
	const struct result *r;
	char *status = NULL;

	if (results_load(st, version, RESULTS_NO_DOCS, &rs, err) < 0)
		return NULL;
	r = results_find(&rs, stage, arch);
	if (r && r->status)
		status = xstrdup(r->status);
	results_release(&rs);
	return status;
}

/* Are the version's jobs, replies aside, all ended? */
static int all_ended(struct db *db, const char *version, struct strbuf *err)
{
	struct db_stmt *q = db_prepare(db,
		"SELECT count(*) FROM jobs WHERE version = ? AND kind != 'reply'"
		" AND state IN ('queued', 'running')");
	int64_t n;
	int r;

	if (!q)
		return db_fail(db, err);
	db_bind_text(q, 1, version);
	r = db_step(q);
	if (r <= 0)
		return db_fail(db, err);
	n = db_column_int(q, 0);
	db_reset(q);
	return n == 0;
}

int pipeline_advance(struct store *st, const struct pipeline_cfg *pc,
		     const struct job *j, struct strbuf *err)
{
	struct db *db = st->db;
	char *status = NULL;
	size_t i;
	int ret = 0, ended;

	if (j->state == JOB_DONE && j->kind == JOB_APPLY) {
		status = stage_status(st, j->version, STAGE_APPLY, NULL, err);
		if (queue_add(db, JOB_CHECK, j->version, "", j->priority, NULL, err))
			goto fail;
		for (i = 0; status && !strcmp(status, "applied") && i < pc->nr_archs; i++)
			if (queue_add(db, JOB_BUILD, j->version, pc->archs[i],
				      j->priority, NULL, err))
				goto fail;
	} else if (j->state == JOB_DONE && j->kind == JOB_BUILD && pc->boot) {
		status = stage_status(st, j->version, STAGE_BUILD, j->arch, err);
		if (status && (!strcmp(status, "ok") || !strcmp(status, "warnings")) &&
		    queue_add(db, JOB_BOOT, j->version, j->arch, j->priority, NULL, err))
			goto fail;
	}
	if (j->kind == JOB_REPLY)
		goto out;
	ended = all_ended(db, j->version, err);
	if (ended < 0)
		goto fail;
	if (ended && queue_add(db, JOB_REPLY, j->version, "", j->priority, NULL, err))
		goto fail;
out:
	free(status);
	return ret;
fail:
	ret = -1;
	goto out;
}
