// SPDX-License-Identifier: GPL-2.0
/*
 * The versions the dashboard shows: the filters of a request (state,
 * author, text, series, paging, the API's cursor) and the versions
 * matching them with their state, cause, counts, jobs and replies.  The
 * pages (dash-html.c) and the API (dash-api.c) load through it; it
 * calls neither.
 */
#include <stdlib.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/web/dash-int.h"

/* The state is derived from the results: the one filter SQL cannot apply */
static bool matches(const struct dash_version *dv, const struct dash_filter *f)
{
	return !f->state || !*f->state || !strcmp(f->state, dv->state);
}

/* A count from a query argument: true when s is one */
static bool count_arg(const char *s, size_t *n)
{
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return false;
	v = strtoull(s, &end, 10);
	if (*end || *s == '-')
		return false;
	*n = (size_t)MIN(v, 1000000ULL);
	return true;
}

void dash_filter_paging(struct dash_filter *f, const struct web_request *req, size_t def)
{
	f->limit = def;
	count_arg(web_query(req, "limit"), &f->limit);
	count_arg(web_query(req, "offset"), &f->offset);
}

int dash_filter_cursor(struct dash_filter *f, const char *cursor)
{
	char *end;
	long long date;

	if (!cursor || !*cursor)
		return 0;
	date = strtoll(cursor, &end, 10);
	if (end == cursor || *end != ':' || !end[1])
		return -1;
	f->after_date = date;
	f->after_id = end + 1;
	return 0;
}

static bool filter_set(const char *v)
{
	return v && *v;
}

/* The SQL filters of a request; P is the versions table's prefix ("v.") */
#define FILTERS(P)								\
	" AND (?1 IS NULL OR instr(lower(" P "author_name), lower(?1))"		\
	"  OR instr(lower(" P "author_email), lower(?1)))"			\
	" AND (?2 IS NULL OR instr(lower(" P "title), lower(?2))"		\
	"  OR instr(lower(" P "id), lower(?2)) OR instr(lower(" P "series), lower(?2)))" \
	" AND (?3 IS NULL OR " P "date < ?3 OR (" P "date = ?3 AND " P "id < ?4))"

/*
 * The versions of the list, newest first, author and text filters and
 * the cursor applied in SQL.  The list walks versions_live, named so that
 * no statistics (or their absence) can make the plan a sort of every
 * version; filtered on a state, it walks that state's range of
 * version_states (when the database keeps them); a series page looks its few
 * versions up by series and id ("+gone": not along versions_live, which
 * without statistics the planner took, reading every live version).
 */
static struct db_stmt *list_query(struct dash *d, const struct dash_filter *f, bool page,
				  bool kept)
{
	struct db_stmt *s = db_prepare(d->st.db, f->series ?
		"SELECT id FROM versions WHERE +gone = 0 AND (series = ?1 OR id = ?1 OR"
		" series = (SELECT series FROM versions WHERE id = ?1))"
		" ORDER BY date DESC, id DESC" : kept ?
		"SELECT v.id FROM version_states c INDEXED BY version_states_state"
		" CROSS JOIN versions v ON v.id = c.version WHERE c.state = ?7 AND v.gone = 0"
		FILTERS("v.") " ORDER BY c.date DESC, c.version DESC LIMIT ?5 OFFSET ?6" :
		"SELECT id FROM versions INDEXED BY versions_live WHERE gone = 0"
		FILTERS("") " ORDER BY date DESC, id DESC LIMIT ?5 OFFSET ?6");

	if (!s)
		return NULL;
	if (f->series)
		return db_bind_text(s, 1, f->series) ? NULL : s;
	if (db_bind_text(s, 1, filter_set(f->author) ? f->author : NULL) ||
	    db_bind_text(s, 2, filter_set(f->q) ? f->q : NULL) ||
	    (f->after_id ? db_bind_int(s, 3, f->after_date) : db_bind_null(s, 3)) ||
	    db_bind_text(s, 4, f->after_id) ||
	    db_bind_int(s, 5, page ? (int64_t)f->limit : -1) ||
	    db_bind_int(s, 6, page ? (int64_t)f->offset : 0) ||
	    (kept && db_bind_text(s, 7, f->state)))
		return NULL;
	return s;
}

/* Versions matching the SQL part of f, whatever the page */
static int64_t list_count(struct dash *d, const struct dash_filter *f, bool kept)
{
	struct db_stmt *s;
	int64_t n = -1;
	int r;

	/* the index alone, without an expression per row (a third of the cost) */
	if (!filter_set(f->author) && !filter_set(f->q) && !f->after_id && !kept) {
		if (db_query_int(d->st.db, "SELECT count(*) FROM versions"
				 " INDEXED BY versions_live WHERE gone = 0", -1, &n))
			return -1;
		return n;
	}
	if (!filter_set(f->author) && !filter_set(f->q) && !f->after_id) {
		s = db_prepare(d->st.db, "SELECT count(*) FROM version_states"
			       " INDEXED BY version_states_state WHERE state = ?");
		if (!s || db_bind_text(s, 1, f->state))
			return -1;
	} else {
		s = db_prepare(d->st.db, kept ?
			"SELECT count(*) FROM version_states c INDEXED BY version_states_state"
			" CROSS JOIN versions v ON v.id = c.version WHERE c.state = ?5"
			" AND v.gone = 0" FILTERS("v.") :
			"SELECT count(*) FROM versions INDEXED BY versions_live WHERE gone = 0"
			FILTERS(""));
		if (!s || db_bind_text(s, 1, filter_set(f->author) ? f->author : NULL) ||
		    db_bind_text(s, 2, filter_set(f->q) ? f->q : NULL) ||
		    (f->after_id ? db_bind_int(s, 3, f->after_date) : db_bind_null(s, 3)) ||
		    db_bind_text(s, 4, f->after_id) ||
		    (kept && db_bind_text(s, 5, f->state)))
			return -1;
	}
	r = db_step(s);
	if (r > 0) {
		n = db_column_int(s, 0);
		db_reset(s);
	}
	return n;
}

bool dash_states_kept(struct dash *d)
{
	return d->has_states && report_states_valid(d->st.db, &d->ro);
}

int dash_state_counts(struct dash *d, int64_t n[], struct strbuf *err)
{
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT state, count(*) FROM version_states GROUP BY state");
	size_t i;
	int r;

	for (i = 0; report_states[i]; i++)
		n[i] = 0;
	if (!s) {
		strbuf_addstr(err, db_error(d->st.db));
		return -1;
	}
	while ((r = db_step(s)) > 0)
		for (i = 0; report_states[i]; i++)
			if (!strcmp(report_states[i], db_column_text(s, 0)))
				n[i] = db_column_int(s, 1);
	if (r < 0) {
		strbuf_addstr(err, db_error(d->st.db));
		return -1;
	}
	return 0;
}

/* The diffs posted in replies to the version's cover letter and patches */
static int fixups_load(struct dash *d, struct dash_version *dv, struct strbuf *err)
{
	json_object *ps = dv->v.json ? rd_ver_patches(dv->v.json) : NULL;
	size_t n = ps ? json_object_array_length(ps) : 0, i, k = 0;
	const char **ids = xcalloc(n + 2, sizeof(*ids));
	int ret;

	ids[k++] = dv->v.cover;
	for (i = 0; i < n; i++)
		ids[k++] = rd_vpatch_msgid(json_object_array_get_idx(ps, i));
	ret = store_fixups_of(&d->st, ids, k, &dv->fixups, err);
	free(ids);
	return ret;
}

int dash_load(struct dash *d, const struct dash_filter *f, unsigned int flags,
	      struct dash_versions *out, struct strbuf *err)
{
	/*
	 * the database pages, and filters on the state where it keeps the
	 * states; else C derives the state of every version to filter
	 */
	bool kept = filter_set(f->state) && !f->series && dash_states_kept(d);
	bool sql_page = (kept || !filter_set(f->state)) && f->limit && !f->series;
	struct db_stmt *s = list_query(d, f, sql_page, kept);
	char **ids = NULL;
	size_t nr = 0, i, matched = 0;
	int r, ret = 0;

	out->total = 0;
	if (!s || db_column_all(s, &ids, &nr)) {
		strbuf_addstr(err, db_error(d->st.db));
		return -1;
	}
	if (sql_page) {
		int64_t n = list_count(d, f, kept);

		if (n < 0 && !ret) {
			strbuf_addstr(err, db_error(d->st.db));
			ret = -1;
		}
		out->total = n < 0 ? 0 : (size_t)n;
	}
	for (i = 0; i < nr && !ret; i++) {
		struct dash_version *dv;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		dv = &out->v[out->nr];
		memset(dv, 0, sizeof(*dv));
		strbuf_init(&dv->cause.line, 0);
		strbuf_init(&dv->cause.text, 0);
		/* what filters and states need first; the rest for the rows shown */
		r = report_version_load(&d->st, ids[i], REPORT_LIGHT, &dv->v, err);
		if (r <= 0) {
			ret = r;
			continue;
		}
		dv->state = report_state(&dv->v, &d->ro);
		if (!sql_page && (!(kept || matches(dv, f)) || matched++ < f->offset ||
				  (f->limit && out->nr >= f->limit))) {
			report_version_release(&dv->v);
			continue;
		}
		if (!(flags & DASH_LIGHT)) {
			report_version_release(&dv->v);
			r = report_version_load(&d->st, ids[i], 0, &dv->v, err);
			if (r <= 0) {
				ret = r;
				continue;
			}
			dash_public_results(d, &dv->v.results);
			dash_cause(d, dv, &dv->cause);
			dash_counts(&dv->v, dv->counts);
			if (dash_jobs_load(d, dv->v.id, &dv->jobs)) {
				strbuf_addstr(err, db_error(d->st.db));
				report_version_release(&dv->v);
				dash_cause_release(&dv->cause);
				dash_jobs_release(&dv->jobs);
				ret = -1;
				continue;
			}
			/* while it is tested, the cause is what runs */
			if (!dv->cause.line.len)
				dash_jobs_cause(&dv->jobs, (int64_t)time(NULL), &dv->cause.line);
			if (fixups_load(d, dv, err) ||
			    (d->has_results &&
			     store_replies_of_version(&d->st, dv->v.id, flags & DASH_MAIL,
						      &dv->replies, err))) {
				report_version_release(&dv->v);
				dash_cause_release(&dv->cause);
				dash_jobs_release(&dv->jobs);
				ret = -1;
				continue;
			}
		}
		out->nr++;
	}
	if (!sql_page)
		out->total = matched;
	db_strings_free(ids, nr);
	return ret;
}

void dash_versions_release(struct dash_versions *vs)
{
	size_t i;

	for (i = 0; i < vs->nr; i++) {
		report_version_release(&vs->v[i].v);
		store_reply_rows_release(&vs->v[i].replies);
		store_fixup_rows_release(&vs->v[i].fixups);
		dash_cause_release(&vs->v[i].cause);
		dash_jobs_release(&vs->v[i].jobs);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}
