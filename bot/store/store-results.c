// SPDX-License-Identifier: GPL-2.0
/* Stage results in the database (table results, migrations "report-1" and "report-5") */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "lib/jsonx.h"

static char *strip_brackets(const char *id)
{
	size_t len = strlen(id);

	if (len >= 2 && id[0] == '<' && id[len - 1] == '>')
		return xstrndup(id + 1, len - 2);
	return xstrdup(id);
}

static int db_fail(struct db *db, struct strbuf *err)
{
	strbuf_addstr(err, db_error(db));
	return -1;
}

/* versions.generation of id: 1 when found, 0 when unknown, -1 */
static int version_generation(struct db *db, const char *id, int64_t *gen)
{
	struct db_stmt *s = db_prepare(db, "SELECT generation FROM versions WHERE id = ?");
	int r;

	if (!s || db_bind_text(s, 1, id))
		return -1;
	r = db_step(s);
	if (r > 0) {
		*gen = db_column_int(s, 0);
		db_reset(s);
	}
	return r;
}

/*
 * The arch object with the document's other top-level keys (compiler,
 * config, base, ...) copied in where it has none of its own
 */
static json_object *arch_doc(json_object *doc, json_object *a)
{
	json_object *copy = NULL;

	json_object_deep_copy(a, &copy, NULL);
	json_object_object_foreach(doc, key, val) {
		if (!strcmp(key, RK_(doc, archs)) || json_object_object_get_ex(copy, key, NULL))
			continue;
		json_object_object_add(copy, key, json_object_get(val));
	}
	return copy;
}

static int insert(struct db *db, const char *version, const struct result *r,
		  int64_t gen, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(db,
		"INSERT INTO results (version, stage, arch, status, summary, findings, json,"
		" generation, recorded) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
		" ON CONFLICT (version, stage, arch) DO UPDATE SET status = ?4, summary = ?5,"
		" findings = ?6, json = ?7, generation = ?8, recorded = ?9");

	if (!s || db_bind_text(s, 1, version) ||
	    db_bind_text(s, 2, plan_stage_name(r->stage)) ||
	    db_bind_text(s, 3, r->arch) || db_bind_text(s, 4, plan_status_name(r->status)) ||
	    db_bind_text(s, 5, r->summary) || db_bind_int(s, 6, r->findings) ||
	    db_bind_text(s, 7, jx_text(r->doc, false)) ||
	    db_bind_int(s, 8, gen) || db_bind_int(s, 9, (int64_t)time(NULL)) ||
	    db_run(s))
		return db_fail(db, err);
	return 0;
}

/* Fill rows (arch, doc) for the document; the number, or -1 */
static int split_archs(enum stage stage, const char *arch, json_object *doc,
		       struct results *rows, struct strbuf *err)
{
	json_object *archs = rd_doc_archs(doc);
	size_t i;

	if (!plan_per_arch(stage)) {
		if (arch && *arch) {
			strbuf_addf(err, "%s results are not per arch", plan_stage_name(stage));
			return -1;
		}
		ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
		memset(&rows->v[rows->nr], 0, sizeof(rows->v[0]));
		rows->v[rows->nr].arch = xstrdup("");
		rows->v[rows->nr++].doc = json_object_get(doc);
		return 0;
	}
	if (!archs) {
		if (jx_get(doc, RK_(doc, archs))) {
			strbuf_addf(err, "%s result: 'archs' is not a list",
				    plan_stage_name(stage));
			return -1;
		}
		if (!rd_doc_arch(doc)) {
			strbuf_addf(err, "%s result: neither an 'archs' list nor an arch object",
				    plan_stage_name(stage));
			return -1;
		}
		if (arch && strcmp(arch, rd_doc_arch(doc))) {
			strbuf_addf(err, "%s result: the document is for arch '%s', not '%s'",
				    plan_stage_name(stage), rd_doc_arch(doc), arch);
			return -1;
		}
		ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
		memset(&rows->v[rows->nr], 0, sizeof(rows->v[0]));
		rows->v[rows->nr].arch = xstrdup(rd_doc_arch(doc));
		rows->v[rows->nr++].doc = json_object_get(doc);
		return 0;
	}
	for (i = 0; i < json_object_array_length(archs); i++) {
		json_object *a = json_object_array_get_idx(archs, i);
		const char *name = rd_doc_arch(a);

		if (!name) {
			strbuf_addf(err, "%s result: item %zu of 'archs' has no 'arch'",
				    plan_stage_name(stage), i + 1);
			return -1;
		}
		if (arch && strcmp(arch, name))
			continue;
		ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
		memset(&rows->v[rows->nr], 0, sizeof(rows->v[0]));
		rows->v[rows->nr].arch = xstrdup(name);
		rows->v[rows->nr++].doc = arch_doc(doc, a);
	}
	if (!rows->nr) {
		if (arch)
			strbuf_addf(err, "%s result: no arch '%s' in 'archs'",
				    plan_stage_name(stage), arch);
		else
			strbuf_addf(err, "%s result: 'archs' is empty", plan_stage_name(stage));
		return -1;
	}
	return 0;
}

int store_results_split(enum stage stage, const char *arch, json_object *doc,
			struct results *rows, struct strbuf *err)
{
	if (arch && !*arch)
		arch = NULL;
	/* the table takes any name: the stage table is what says which */
	if (stage >= STAGE_RESULTS) {
		strbuf_addf(err, "'%s' is not a stage that records results",
			    plan_stage_name(stage));
		return -EINVAL;
	}
	if (!doc || !json_object_is_type(doc, json_type_object)) {
		strbuf_addf(err, "%s result: the document is not a JSON object",
			    plan_stage_name(stage));
		return -EINVAL;
	}
	return split_archs(stage, arch, doc, rows, err) ? -EINVAL : 0;
}

int store_results_insert(struct store *st, const char *version, const struct results *rows,
			 struct strbuf *err)
{
	char *id = strip_brackets(version);
	bool own_tx = !db_in_transaction(st->db);
	int64_t gen = 0;
	size_t i;
	int ret = -EIO, r;

	if (own_tx && db_begin(st->db)) {
		db_fail(st->db, err);
		goto out;
	}
	r = version_generation(st->db, id, &gen);
	if (r <= 0) {
		if (r < 0) {
			db_fail(st->db, err);
		} else {
			strbuf_addf(err, "no series version '%s' in the database", id);
			ret = -EINVAL;
		}
		goto rollback;
	}
	for (i = 0; i < rows->nr; i++)
		if (insert(st->db, id, &rows->v[i], gen, err))
			goto rollback;
	/* what the layer above keeps derived (the version's state), in the same transaction */
	if (st->hook && st->hook->before_commit(st, err))
		goto rollback;
	if (own_tx && db_commit(st->db)) {
		db_fail(st->db, err);
		goto rollback;
	}
	ret = (int)rows->nr;
	goto out;
rollback:
	if (own_tx)
		db_rollback(st->db);
out:
	free(id);
	return ret;
}

static int by_stage(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	int c = strcmp(x->arch, y->arch);

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

int store_results_load(struct store *st, const char *version, unsigned int flags,
		       struct results *rs, struct strbuf *err)
{
	/* without docs, apply's base all the same: the state needs it */
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id, stage, arch, status, summary, findings,"
		" CASE WHEN NOT ?2 THEN json WHEN stage = 'apply' THEN"
		"  json_object('base', json(json_extract(json, '$.base'))) END,"
		" generation, recorded"
		" FROM results WHERE version = ?1");
	bool docs = !(flags & RESULTS_NO_DOCS);
	size_t first = rs->nr;
	int r;

	if (!s || db_bind_text(s, 1, version) || db_bind_int(s, 2, !docs))
		return db_fail(st->db, err);
	while ((r = db_step(s)) > 0) {
		struct result *x;
		enum stage stage;
		json_object *doc;

		if (plan_stage_parse(db_column_text(s, 1), &stage) || stage >= STAGE_RESULTS)
			continue;
		doc = db_column_null(s, 6) ? NULL : json_tokener_parse(db_column_text(s, 6));
		if (docs && !doc)
			continue;
		ALLOC_GROW(rs->v, rs->nr + 1, rs->alloc);
		x = &rs->v[rs->nr++];
		memset(x, 0, sizeof(*x));
		x->id = db_column_int(s, 0);
		x->stage = stage;
		x->arch = xstrdup(db_column_text(s, 2));
		x->status = plan_status_parse(db_column_text(s, 3));
		x->summary = xstrdup(db_column_text(s, 4));
		x->findings = (int)db_column_int(s, 5);
		x->doc = doc;
		x->generation = db_column_int(s, 7);
		x->recorded = db_column_int(s, 8);
	}
	if (r < 0)
		return db_fail(st->db, err);
	/* in the stage table's order (not the names'), each stage's by arch */
	if (rs->nr - first > 1)
		qsort(rs->v + first, rs->nr - first, sizeof(*rs->v), by_stage);
	return 0;
}

const struct result *store_results_find(const struct results *rs, enum stage stage,
					const char *arch)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		if (rs->v[i].stage == stage && !strcmp(rs->v[i].arch, arch ? arch : ""))
			return &rs->v[i];
	return NULL;
}

size_t store_results_count(const struct results *rs, enum stage stage)
{
	size_t i, n = 0;

	for (i = 0; i < rs->nr; i++)
		n += rs->v[i].stage == stage;
	return n;
}

void store_results_release(struct results *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		results_release(&rs->v[i]);
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

static json_object *result_json(const struct result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "status", json_object_new_string(plan_status_name(r->status)));
	json_object_object_add(o, "summary", json_object_new_string(r->summary));
	json_object_object_add(o, "findings", json_object_new_int(r->findings));
	json_object_object_add(o, "recorded", json_object_new_int64(r->recorded));
	json_object_object_add(o, "result", json_object_get(r->doc));
	return o;
}

json_object *store_results_to_json(const struct results *rs)
{
	json_object *o = json_object_new_object();
	int stage;
	size_t i;

	for (stage = 0; stage < STAGE_RESULTS; stage++) {
		json_object *v = NULL;

		if (plan_per_arch(stage))
			v = json_object_new_object();
		for (i = 0; i < rs->nr; i++) {
			if (rs->v[i].stage != (enum stage)stage)
				continue;
			if (v)
				json_object_object_add(v, rs->v[i].arch, result_json(&rs->v[i]));
			else
				v = result_json(&rs->v[i]);
		}
		json_object_object_add(o, plan_stage_name(stage), v);
	}
	return o;
}

void store_results_plan(const struct results *rs, const struct plan_cfg *c, struct plan *p)
{
	struct plan_result *pr = xcalloc(rs->nr + 1, sizeof(*pr));
	size_t i;

	for (i = 0; i < rs->nr; i++)
		pr[i] = (struct plan_result){ rs->v[i].stage, rs->v[i].arch,
					      rs->v[i].status, rs->v[i].findings };
	plan_make(pr, rs->nr, c, p);
	free(pr);
}

bool store_results_available(struct db *db)
{
	int64_t n = 0;

	return !db_query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			     " AND name IN ('results', 'replies')", 0, &n) && n == 2;
}

bool store_has_results(struct store *st)
{
	if (!st->results_tables)
		st->results_tables = store_results_available(st->db) ? 1 : -1;
	return st->results_tables > 0;
}
