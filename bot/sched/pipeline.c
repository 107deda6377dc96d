// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/base/db.h"
#include "lib/log.h"
#include "bot/sched/pipeline.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/stage/stage.h"
#include "bot/base/arch.h"

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
	if (pc->nr_archs == PLAN_MAX_ARCHS)
		return;
	ALLOC_GROW(pc->archs, pc->nr_archs + 1, *alloc);
	pc->archs[pc->nr_archs++] = xstrdup(a->name);
}

void pipeline_cfg_init(struct pipeline_cfg *pc, const struct config *cfg,
		       const char *archs)
{
	const char *const *v;
	size_t alloc = 0, n, i;

	memset(pc, 0, sizeof(*pc));
	if (archs) {
		char *copy = xstrdup(archs), *save = NULL, *w;

		for (w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
			add_arch(pc, w, &alloc);
		free(copy);
	} else {
		v = config_v(cfg)->build_arch.v;
		n = config_v(cfg)->build_arch.nr;
		for (i = 0; i < n; i++)
			add_arch(pc, v[i], &alloc);
		for (i = 0; !n && i < ARRAY_SIZE(default_archs); i++)
			add_arch(pc, default_archs[i], &alloc);
	}
	pc->boot = config_v(cfg)->boot_enable;
	pc->window_s = config_v(cfg)->daemon_window / 1000;
	pc->maxage_s = config_v(cfg)->daemon_maxage / 1000;
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

struct vrow {
	bool gone, superseded, complete;
	int64_t date;
	int64_t arrived;	/* when its last message was received */
};

/* 1 found, 0 unknown, -1 */
static int version_row(struct db *db, const char *id, struct vrow *v)
{
	struct db_stmt *s = db_prepare(db,
		"SELECT gone, superseded_by IS NOT NULL, complete, date,"
		" (SELECT max(m.fetched) FROM patches p JOIN messages m ON m.id = p.message"
		"  WHERE p.version = versions.id) FROM versions WHERE id = ?");
	int r;

	if (!s || db_bind_text(s, 1, id))
		return -1;
	r = db_step(s);
	if (r <= 0)
		return r;
	v->gone = db_column_int(s, 0);
	v->superseded = db_column_int(s, 1);
	v->complete = db_column_int(s, 2);
	v->date = db_column_int(s, 3);
	v->arrived = db_column_int(s, 4);
	if (!v->arrived)
		v->arrived = v->date;
	db_reset(s);
	return 1;
}

/*
 * Jobs that failed for good without recording a result (the runner
 * crashed or hung, the daemon died under it too often): the stage ended
 * all the same, as an infrastructure failure, with the job's reason.
 */
static int record_given_up(struct store *st, const char *version, struct strbuf *err)
{
	struct job *jobs;
	size_t nr, i;
	int ret = 0;

	if (queue_version_jobs(st->db, version, &jobs, &nr, err))
		return -1;
	for (i = 0; i < nr && !ret; i++) {
		struct job *j = &jobs[i];
		struct results rs = RESULTS_INIT;
		json_object *doc;

		if (j->state != JOB_FAILED || j->kind >= STAGE_RESULTS)
			continue;
		if (store_results_load(st, version, RESULTS_NO_DOCS, &rs, err) < 0) {
			ret = -1;
			break;
		}
		if (!store_results_find(&rs, j->kind, j->arch)) {
			doc = results_infra_doc(j->kind, j->arch, j->error ? j->error : "failed");
			if (stage_record(st, version, j->kind, *j->arch ? j->arch : NULL,
					 doc, err) < 0)
				ret = -1;
			else
				log_warn("job %lld: %s%s%s of <%s> gave up: recorded as infra (%s)",
					 (long long)j->id, plan_stage_name(j->kind),
					 *j->arch ? " " : "", j->arch, version,
					 j->error ? j->error : "failed");
			json_object_put(doc);
		}
		store_results_release(&rs);
	}
	queue_free_jobs(jobs, nr);
	return ret;
}

static int queue_needs(struct store *st, const struct pipeline_cfg *pc, const char *version,
		       int64_t prio, struct strbuf *err)
{
	struct plan_cfg c = { (const char *const *)pc->archs, pc->nr_archs, pc->boot };
	struct results rs = RESULTS_INIT;
	struct plan p;
	int s, queued = 0;
	size_t a;

	if (store_results_load(st, version, RESULTS_NO_DOCS, &rs, err) < 0)
		return -1;
	store_results_plan(&rs, &c, &p);
	store_results_release(&rs);
	for (s = 0; s < STAGE_NR; s++) {
		size_t n = stages[s]->per_arch ? p.nr_archs : 1;

		for (a = 0; a < n; a++) {
			bool added;

			if (p.need[s][a] != NEED_RUN)
				continue;
			if (queue_add(st->db, s, version, stages[s]->per_arch ? pc->archs[a] : "",
				      prio, &added, err))
				return -1;
			queued += added;
		}
	}
	return queued;
}

int pipeline_plan(struct store *st, const struct pipeline_cfg *pc, const char *version,
		  int64_t now, struct strbuf *err)
{
	struct vrow v;
	int r = version_row(st->db, version, &v);

	if (r <= 0)
		return r < 0 ? db_fail(st->db, err) : 0;
	if (v.gone || v.superseded)
		return queue_cancel_version(st->db, version, err) < 0 ? -1 : 0;
	if (!v.complete && v.date > now - pc->window_s)
		return 0;	/* still waiting for its missing patches */
	if (pc->maxage_s && v.date < now - pc->maxage_s)
		return 0;
	if (record_given_up(st, version, err))
		return -1;
	/*
	 * newest first, by when lorebot received it, never by its Date:
	 * (the sender's: one dated 2100 ran before every other job, for
	 * good; issue 38)
	 */
	return queue_needs(st, pc, version, v.arrived, err);
}

int pipeline_version_over(struct store *st, const char *version)
{
	struct vrow v;
	int r = version_row(st->db, version, &v);

	return r <= 0 ? r : (v.gone || v.superseded);
}

/* The version ids the query yields (nparams integer parameters: a, b), appended */
static int query_ids(struct store *st, const char *sql, int nparams, int64_t a, int64_t b,
		     struct pipeline_ids *ids, struct strbuf *err)
{
	struct db_stmt *q = db_prepare(st->db, sql);
	int r;

	if (!q || (nparams > 0 && db_bind_int(q, 1, a)) ||
	    (nparams > 1 && db_bind_int(q, 2, b)))
		return db_fail(st->db, err);
	while ((r = db_step(q)) > 0) {
		ALLOC_GROW(ids->v, ids->nr + 1, ids->alloc);
		ids->v[ids->nr++] = xstrdup(db_column_text(q, 0));
	}
	return r < 0 ? db_fail(st->db, err) : 0;
}

void pipeline_ids_release(struct pipeline_ids *ids)
{
	while (ids->nr)
		free(ids->v[--ids->nr]);
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}

int pipeline_pending(struct store *st, const struct pipeline_cfg *pc, int64_t now,
		     struct pipeline_ids *ids, struct strbuf *err)
{
	/* not ended: no reply job that is over; superseded ones only to cancel */
	return query_ids(st,
		"SELECT v.id FROM versions v WHERE v.date >= ?1 AND NOT EXISTS"
		" (SELECT 1 FROM jobs j WHERE j.kind = 'reply' AND j.version = v.id"
		"  AND j.arch = '' AND j.state IN ('done', 'failed', 'cancelled'))"
		" AND ((v.gone = 0 AND v.superseded_by IS NULL) OR EXISTS (SELECT 1 FROM jobs j"
		"  WHERE j.version = v.id AND j.state = 'queued'))"
		" ORDER BY v.date DESC",
		1, pc->maxage_s ? now - pc->maxage_s : INT64_MIN, 0, ids, err);
}

int pipeline_plan_window(struct store *st, const struct pipeline_cfg *pc, int64_t from,
			 int64_t to, struct strbuf *err)
{
	struct pipeline_ids ids = PIPELINE_IDS_INIT;
	int queued = 0;
	size_t i;

	if (to <= from)
		return 0;
	if (query_ids(st, "SELECT id FROM versions WHERE date > ?1 AND date <= ?2"
		      " AND complete = 0 AND gone = 0 AND superseded_by IS NULL"
		      " ORDER BY date DESC", 2, from - pc->window_s, to - pc->window_s,
		      &ids, err))
		queued = -1;
	for (i = 0; i < ids.nr && queued >= 0; i++) {
		int r = pipeline_plan(st, pc, ids.v[i], to, err);

		queued = r < 0 ? -1 : queued + r;
	}
	pipeline_ids_release(&ids);
	return queued;
}
