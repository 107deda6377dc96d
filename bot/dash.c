// SPDX-License-Identifier: GPL-2.0
/* The dashboard: start, routes, loading versions */
#include <stdlib.h>
#include <strings.h>

#include "bot/dash-int.h"
#include "bot/jsonx.h"

/* A path, or a prefix ending in '/' that an id follows */
static const struct route {
	const char *path;
	bool id;
	dash_handler_fn *fn;
} routes[] = {
	{ "/", false, dash_page_list },
	{ "/series/", true, dash_page_series },
	{ "/api/series", false, dash_api_series },
	{ "/api/series/", false, dash_api_series },
	{ "/api/series/", true, dash_api_one },
	{ "/healthz", false, dash_healthz },
	{ "/metrics", false, dash_metrics },
	{ "/log/", true, dash_log },
};

static void route(void *data, const struct web_request *req, struct web_response *res)
{
	const char *path = web_path(req), *id;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(routes); i++) {
		if (!routes[i].id && !strcmp(path, routes[i].path)) {
			routes[i].fn(data, req, NULL, res);
			return;
		}
		if (routes[i].id && skip_prefix(path, routes[i].path, &id) && *id) {
			routes[i].fn(data, req, id, res);
			return;
		}
	}
	dash_error(data, res, 404, "no such page");
}

int dash_start(struct dash **dp, const struct dash_opts *o, struct strbuf *err)
{
	struct dash *d = xcalloc(1, sizeof(*d));
	const char *listen = o->listen ? o->listen : config_get(o->cfg, "web.listen");
	const char *logroot = config_get(o->cfg, "web.logroot");

	*dp = NULL;
	d->botname = xstrdup(config_get(o->cfg, "core.botname"));
	if (db_open(&d->st.db, o->db_path, DB_READONLY, err)) {
		free(d);
		return -1;
	}
	d->has_results = results_available(d->st.db);
	report_opts_init(&d->ro, o->cfg);
	if (o->archs)
		report_opts_set_archs(&d->ro, o->archs);
	/* nothing of the configuration is read after this: it may be reloaded */
	d->ro.cfg = NULL;
	d->ro.repo = NULL;
	d->templates = template_dir(o->cfg, "web.templates");
	d->logroot = xstrdup(logroot && *logroot ? logroot : config_get(o->cfg, "core.statedir"));
	d->refresh_s = (int64_t)(config_get_ms(o->cfg, "web.refresh") / 1000);
	if (web_start(&d->web, listen, route, d, err)) {
		dash_stop(d);
		return -1;
	}
	*dp = d;
	return 0;
}

unsigned int dash_port(const struct dash *d)
{
	return web_port(d->web);
}

void dash_stop(struct dash *d)
{
	if (!d)
		return;
	web_stop(d->web);
	store_close(&d->st);
	report_opts_release(&d->ro);
	free(d->templates);
	free(d->logroot);
	free(d->botname);
	free(d);
}

static bool icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return !n;
}

static bool matches(const struct dash_version *dv, const struct dash_filter *f)
{
	const struct report_version *v = &dv->v;

	if (f->state && *f->state && strcmp(f->state, dv->state))
		return false;
	if (f->author && *f->author && !icontains(v->author_name, f->author) &&
	    !icontains(v->author_email, f->author))
		return false;
	if (f->q && *f->q && !icontains(v->title, f->q) && !icontains(v->id, f->q) &&
	    !icontains(v->series_id, f->q))
		return false;
	return true;
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

static bool filtered(const struct dash_filter *f)
{
	return (f->state && *f->state) || (f->author && *f->author) || (f->q && *f->q);
}

int dash_load(struct dash *d, const struct dash_filter *f, unsigned int flags,
	      struct dash_versions *out, struct strbuf *err)
{
	/* unfiltered: the database pages; filtered: every version is looked at */
	bool sql_page = !filtered(f) && f->limit;
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT id, count(*) OVER () FROM versions WHERE gone = 0 AND (?1 IS NULL OR"
		" series = ?1 OR id = ?1 OR series = (SELECT series FROM versions WHERE id = ?1))"
		" ORDER BY date DESC, id DESC LIMIT ?2 OFFSET ?3");
	char **ids = NULL;
	size_t nr = 0, alloc = 0, i, matched = 0;
	int r, ret = 0;

	out->total = 0;
	if (!s || db_bind_text(s, 1, f->series) ||
	    db_bind_int(s, 2, sql_page ? (int64_t)f->limit : -1) ||
	    db_bind_int(s, 3, sql_page ? (int64_t)f->offset : 0)) {
		strbuf_addstr(err, db_error(d->st.db));
		return -1;
	}
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(ids, nr + 1, alloc);
		ids[nr++] = xstrdup(db_column_text(s, 0));
		out->total = (size_t)db_column_int(s, 1);
	}
	if (r < 0) {
		strbuf_addstr(err, db_error(d->st.db));
		ret = -1;
	}
	if (sql_page && !nr && f->offset) {
		/* past the end: still say how many there are */
		int64_t n = 0;

		db_query_int(d->st.db, "SELECT count(*) FROM versions WHERE gone = 0", 0, &n);
		out->total = f->series ? 0 : (size_t)n;
	}
	for (i = 0; i < nr && !ret; i++) {
		struct dash_version *dv;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		dv = &out->v[out->nr];
		memset(dv, 0, sizeof(*dv));
		/* what filters and states need first; the rest for the rows shown */
		r = report_version_load(&d->st, ids[i], REPORT_LIGHT, &dv->v, err);
		if (r <= 0) {
			ret = r;
			continue;
		}
		dv->state = report_state(&dv->v, &d->ro);
		if (!sql_page && (!matches(dv, f) || matched++ < f->offset ||
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
			if (d->has_results &&
			    replies_of_version(&d->st, dv->v.id, flags & DASH_MAIL,
					       &dv->replies, err)) {
				report_version_release(&dv->v);
				ret = -1;
				continue;
			}
		}
		out->nr++;
	}
	if (!sql_page)
		out->total = matched;
	for (i = 0; i < nr; i++)
		free(ids[i]);
	free(ids);
	return ret;
}

void dash_versions_release(struct dash_versions *vs)
{
	size_t i;

	for (i = 0; i < vs->nr; i++) {
		report_version_release(&vs->v[i].v);
		reply_rows_release(&vs->v[i].replies);
	}
	free(vs->v);
	memset(vs, 0, sizeof(*vs));
}

json_object *dash_version_json(const struct dash_version *dv, bool with_mail)
{
	json_object *o = NULL, *mails = json_object_new_array();
	size_t i;

	if (dv->v.json)
		json_object_deep_copy(dv->v.json, &o, NULL);
	if (!o)
		o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(dv->state));
	json_object_object_add(o, "list", jx_new_str(dv->v.list));
	json_object_object_add(o, "results", results_to_json(&dv->v.results));
	for (i = 0; i < dv->replies.nr; i++)
		json_object_array_add(mails, reply_row_json(&dv->replies.v[i], with_mail));
	json_object_object_add(o, "mails", mails);
	return o;
}
