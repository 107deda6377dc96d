// SPDX-License-Identifier: GPL-2.0
/* Patchwork checks: which are due, stored before any attempt (patchwork.h) */
#include <stdlib.h>
#include <time.h>

#include "bot/export/patchwork-int.h"
#include "bot/report/pcheck.h"

bool patchwork_enabled(const struct config *cfg)
{
	const char *url = config_v(cfg)->patchwork_url;

	return url && *url;
}

static int fail(struct store *st, struct strbuf *err)
{
	strbuf_addstr(err, db_error(st->db));
	return -1;
}

static int insert(struct store *st, const struct report_version *v, const struct pcheck *c,
		  const char *phase, const char *url, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"INSERT INTO pw_checks (version, patch, msgid, context, phase, state,"
		" description, target_url, status, created, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'queued', ?9, ?9)"
		" ON CONFLICT (msgid, context, phase) DO NOTHING");

	if (!s || db_bind_text(s, 1, v->id) || db_bind_int(s, 2, c->patch) ||
	    db_bind_text(s, 3, c->msgid) || db_bind_text(s, 4, c->context) ||
	    db_bind_text(s, 5, phase) || db_bind_text(s, 6, pcheck_state_name(c->state)) ||
	    db_bind_text(s, 7, c->description) || db_bind_text(s, 8, *url ? url : NULL) ||
	    db_bind_int(s, 9, now) || db_run(s))
		return fail(st, err);
	return db_changes(st->db);
}

int patchwork_plan(struct store *st, const struct report_opts *o, const char *version,
		   struct strbuf *err)
{
	bool pending = config_v(o->cfg)->patchwork_pending;
	struct strbuf url = STRBUF_INIT;
	struct report_version v;
	struct pchecks cs;
	int64_t now = (int64_t)time(NULL);
	int r, n = 0;
	size_t i;

	if (!patchwork_enabled(o->cfg))
		return 0;
	r = report_version_load(st, version, 0, &v, err);
	if (r <= 0)
		return r;
	/* a superseded version's checks no longer say anything new */
	if (v.superseded_by || v.gone) {
		report_version_release(&v);
		return 0;
	}
	/* patchwork keeps target_url to 200 characters */
	pcheck_url(o->cfg, &v, 200, &url);
	pcheck_derive(&v, o, pending ? PCHECK_WITH_PENDING : 0, &cs);
	for (i = 0; i < cs.nr && r >= 0; i++) {
		r = insert(st, &v, &cs.v[i], cs.v[i].state == PCHECK_PENDING ? "pending" : "final",
			   url.buf, now, err);
		n += r > 0;
	}
	pcheck_release(&cs);
	report_version_release(&v);
	strbuf_release(&url);
	return r < 0 ? -1 : n;
}

int64_t patchwork_due(struct store *st, int64_t now)
{
	int64_t n = 0;
	struct db_stmt *s = db_prepare(st->db,
		"SELECT count(*) FROM pw_checks WHERE status IN ('queued', 'sending')"
		" AND next_attempt <= ?");

	if (!s || db_bind_int(s, 1, now) || db_step(s) <= 0)
		return -1;
	n = db_column_int(s, 0);
	db_reset(s);
	return n;
}

/* The table's rows */

#define COLUMNS "id, version, patch, msgid, context, phase, state, description," \
	" target_url, status, pw_patch, pw_check, attempts, reason"

static void row_read(struct db_stmt *s, struct pw_row *r)
{
	memset(r, 0, sizeof(*r));
	r->id = db_column_int(s, 0);
	r->version = xstrdup(db_column_text(s, 1));
	r->patch = (int)db_column_int(s, 2);
	r->msgid = xstrdup(db_column_text(s, 3));
	r->context = xstrdup(db_column_text(s, 4));
	r->phase = xstrdup(db_column_text(s, 5));
	r->state = xstrdup(db_column_text(s, 6));
	r->description = xstrdup(db_column_text(s, 7));
	r->target_url = xstrdup_or_null(db_column_text(s, 8));
	r->status = xstrdup(db_column_text(s, 9));
	r->pw_patch = db_column_int(s, 10);
	r->pw_check = db_column_int(s, 11);
	r->attempts = (int)db_column_int(s, 12);
	r->reason = xstrdup_or_null(db_column_text(s, 13));
}

void patchwork_row_release(struct pw_row *r)
{
	free(r->version);
	free(r->msgid);
	free(r->context);
	free(r->phase);
	free(r->state);
	free(r->description);
	free(r->target_url);
	free(r->status);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

int patchwork_rows_due(struct store *st, int64_t now, const char *version,
		       struct pw_rows *rows, struct strbuf *err)
{
	/* pending before final, older first: a patch's checks in the order they came */
	struct db_stmt *s = db_prepare(st->db,
		"SELECT " COLUMNS " FROM pw_checks WHERE status IN ('queued', 'sending')"
		" AND next_attempt <= ?1 AND (?2 IS NULL OR version = ?2)"
		" ORDER BY phase = 'final', id");
	int r;

	memset(rows, 0, sizeof(*rows));
	if (!s || db_bind_int(s, 1, now) || db_bind_text(s, 2, version))
		return fail(st, err);
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(rows->v, rows->nr + 1, rows->alloc);
		row_read(s, &rows->v[rows->nr++]);
	}
	return r < 0 ? fail(st, err) : 0;
}

int patchwork_row_load(struct store *st, int64_t id, struct pw_row *r, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db, "SELECT " COLUMNS " FROM pw_checks WHERE id = ?");
	int ret;

	if (!s || db_bind_int(s, 1, id))
		return fail(st, err);
	ret = db_step(s);
	if (ret > 0) {
		row_read(s, r);
		db_reset(s);
	}
	return ret < 0 ? fail(st, err) : ret;
}

void patchwork_rows_release(struct pw_rows *rows)
{
	size_t i;

	for (i = 0; i < rows->nr; i++)
		patchwork_row_release(&rows->v[i]);
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

int patchwork_claim(struct store *st, int64_t id, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE pw_checks SET status = 'sending', attempts = attempts + 1, updated = ?2"
		" WHERE id = ?1 AND status IN ('queued', 'sending')");

	if (!s || db_bind_int(s, 1, id) || db_bind_int(s, 2, now) || db_run(s))
		return fail(st, err);
	return db_changes(st->db) > 0;
}

int patchwork_set(struct store *st, int64_t id, const char *status, int64_t next,
		  const char *reason, int64_t now, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE pw_checks SET status = ?2, next_attempt = ?3, reason = ?4, updated = ?5,"
		" sent = CASE WHEN ?2 = 'sent' THEN ?5 ELSE sent END WHERE id = ?1");

	if (!s || db_bind_int(s, 1, id) || db_bind_text(s, 2, status) ||
	    db_bind_int(s, 3, next) || db_bind_text(s, 4, reason) || db_bind_int(s, 5, now) ||
	    db_run(s))
		return fail(st, err);
	return 0;
}

int patchwork_set_ids(struct store *st, int64_t id, int64_t pw_patch, int64_t pw_check,
		      struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"UPDATE pw_checks SET pw_patch = coalesce(?2, pw_patch),"
		" pw_check = coalesce(?3, pw_check) WHERE id = ?1");

	if (!s || db_bind_int(s, 1, id) || (pw_patch ? db_bind_int(s, 2, pw_patch) :
					      db_bind_text(s, 2, NULL)) ||
	    (pw_check ? db_bind_int(s, 3, pw_check) : db_bind_text(s, 3, NULL)) || db_run(s))
		return fail(st, err);
	return 0;
}

json_object *patchwork_row_json(const struct pw_row *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(r->id));
	json_object_object_add(o, "version", json_object_new_string(r->version));
	json_object_object_add(o, "patch", json_object_new_int(r->patch));
	json_object_object_add(o, "msgid", json_object_new_string(r->msgid));
	json_object_object_add(o, "context", json_object_new_string(r->context));
	json_object_object_add(o, "phase", json_object_new_string(r->phase));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "description", json_object_new_string(r->description));
	json_object_object_add(o, "status", json_object_new_string(r->status));
	json_object_object_add(o, "reason", r->reason ? json_object_new_string(r->reason) : NULL);
	json_object_object_add(o, "attempts", json_object_new_int(r->attempts));
	json_object_object_add(o, "pw_patch", r->pw_patch ? json_object_new_int64(r->pw_patch) :
			       NULL);
	json_object_object_add(o, "pw_check", r->pw_check ? json_object_new_int64(r->pw_check) :
			       NULL);
	return o;
}
