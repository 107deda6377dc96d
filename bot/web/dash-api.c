// SPDX-License-Identifier: GPL-2.0
/* The dashboard's JSON API, health check, metrics and logs */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bot/web/dash-int.h"
#include "bot/report/pcheck.h"
#include "bot/store/store-results.h"
#include "lib/jsonw.h"
#include "lib/jsonx.h"
#include "lib/text.h"

#define LOG_MAX (1u << 20)

json_object *dash_version_json(const struct dash_version *dv, bool with_mail)
{
	json_object *o = NULL, *mails = json_object_new_array(), *counts, *fixups;
	size_t i;

	if (dv->v.json)
		json_object_deep_copy(dv->v.json, &o, NULL);
	if (!o)
		o = json_object_new_object();
	json_object_object_add(o, "state", json_object_new_string(dv->state));
	json_object_object_add(o, "list", jx_new_str(dv->v.list));
	json_object_object_add(o, "cause", dv->cause.line.len ?
			       json_object_new_string(dv->cause.line.buf) : NULL);
	counts = json_object_new_object();
	for (i = 0; i < DASH_SEV_NR; i++)
		json_object_object_add(counts, dash_sev_names[i],
				       json_object_new_int(dv->counts[i]));
	json_object_object_add(o, "counts", counts);
	json_object_object_add(o, "results", store_results_to_json(&dv->v.results));
	for (i = 0; i < dv->replies.nr; i++)
		json_object_array_add(mails, reply_row_json(&dv->replies.v[i], with_mail));
	json_object_object_add(o, "mails", mails);
	fixups = json_object_new_array();
	for (i = 0; i < dv->fixups.nr; i++) {
		const struct fixup_row *f = &dv->fixups.v[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "msgid", jx_new_str(f->msgid));
		json_object_object_add(x, "in_reply_to", jx_new_str(f->parent));
		json_object_object_add(x, "subject", jx_new_str(f->subject));
		json_object_object_add(x, "from", jx_new_str(f->from_email));
		json_object_object_add(x, "date", json_object_new_int64(f->date));
		json_object_array_add(fixups, x);
	}
	json_object_object_add(o, "fixups", fixups);
	return o;
}

static void json_reply(struct web_response *res, int status, json_object *o)
{
	/* pretty when small (people read those), plain when large */
	const char *text = jx_text(o, false);

	if (strlen(text) < 256 * 1024)
		text = jx_text(o, true);
	res->status = status;
	res->content_type = "application/json";
	strbuf_addstr(&res->body, text);
	strbuf_addch(&res->body, '\n');
	json_object_put(o);
}

static void json_error(struct web_response *res, int status, const char *msg)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(msg));
	json_reply(res, status, o);
}

/* /api/series pages: this many versions unless ?limit= says (at most API_MAX) */
#define API_PAGE 100
#define API_MAX 1000

/* "next": the same filters from after the last version of this page */
/*
 * The messages stored: never deleted, so the last id is their count (a
 * count(*) read the whole index, a million entries for each request)
 */
static void count_messages(struct dash *d, int64_t *n)
{
	db_query_int(d->st.db, "SELECT max(id) FROM messages", 0, n);
}

static void next_link(struct strbuf *sb, const struct dash_filter *f,
		      const struct dash_version *last)
{
	static const struct { const char *key; size_t off; } keys[] = {
		{ "state", offsetof(struct dash_filter, state) },
		{ "author", offsetof(struct dash_filter, author) },
		{ "q", offsetof(struct dash_filter, q) },
	};
	size_t i;

	strbuf_addf(sb, "/api/series?limit=%zu", f->limit);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = *(const char *const *)((const char *)f + keys[i].off);

		if (!v || !*v)
			continue;
		strbuf_addf(sb, "&%s=", keys[i].key);
		text_url_escape(sb, v);
	}
	strbuf_addf(sb, "&cursor=%lld:", (long long)last->v.date);
	text_url_escape(sb, last->v.id);
}

/*
 * One page, newest first: {"series": [...], "total": N, "messages": N,
 * "next": URL or null}.  Each version is written out as soon as it is
 * made (one object in memory at a time, not a tree of the page).
 */
void dash_api_series(struct dash *d, const struct web_request *req, const char *id,
		     struct web_response *res)
{
	struct dash_filter f = {
		.state = web_query(req, "state"),
		.author = web_query(req, "author"),
		.q = web_query(req, "q"),
	};
	struct dash_versions vs = { 0 };
	struct strbuf err = STRBUF_INIT, next = STRBUF_INIT;
	struct jsonw w = JSONW_INIT(&res->body, true);
	int64_t n = 0;
	size_t i;

	dash_filter_paging(&f, req, API_PAGE);
	f.limit = f.limit ? MIN(f.limit, API_MAX) : API_PAGE;
	if (dash_filter_cursor(&f, web_query(req, "cursor"))) {
		json_error(res, 400, "cursor: DATE:VERSION-ID, as \"next\" gives it");
		goto out;
	}
	if (dash_load(d, &f, 0, &vs, &err)) {
		json_error(res, 500, err.buf);
		goto out;
	}
	res->status = 200;
	res->content_type = "application/json";
	/*
	 * the wrapper pretty, through jsonw as every key and string is
	 * written; each version plain on its own line, its tree freed
	 * before the next is made
	 */
	jw_obj(&w);
	jw_key(&w, "series");
	jw_arr(&w);
	for (i = 0; i < vs.nr; i++) {
		json_object *o = dash_version_json(&vs.v[i], false);

		jw_raw(&w, jx_text(o, false));
		json_object_put(o);
	}
	jw_end_arr(&w);
	count_messages(d, &n);
	if (vs.nr == f.limit && vs.total > f.offset + vs.nr)
		next_link(&next, &f, &vs.v[vs.nr - 1]);
	jw_key(&w, "total");
	jw_int(&w, vs.total);
	jw_key(&w, "messages");
	jw_int(&w, n);
	jw_key(&w, "next");
	jw_str(&w, next.len ? next.buf : NULL);
	jw_end_obj(&w);
	strbuf_addch(&res->body, '\n');
out:
	dash_versions_release(&vs);
	strbuf_release(&err);
	strbuf_release(&next);
}

void dash_api_one(struct dash *d, const struct web_request *req, const char *id,
		  struct web_response *res)
{
	struct dash_filter f = { .series = id };
	struct dash_versions vs = { 0 };
	struct strbuf err = STRBUF_INIT;
	json_object *o, *s, *arr, *author;
	size_t i;

	if (dash_load(d, &f, DASH_MAIL, &vs, &err)) {
		json_error(res, 500, err.buf);
		goto out;
	}
	if (!vs.nr) {
		strbuf_addf(&err, "no series or version '%s'", id);
		json_error(res, 404, err.buf);
		goto out;
	}
	o = json_object_new_object();
	s = json_object_new_object();
	author = json_object_new_object();
	json_object_object_add(s, "id", json_object_new_string(vs.v[0].v.series_id));
	json_object_object_add(s, "title", json_object_new_string(vs.v[0].v.title));
	json_object_object_add(author, "name", jx_new_str(vs.v[0].v.author_name));
	json_object_object_add(author, "email", jx_new_str(vs.v[0].v.author_email));
	json_object_object_add(s, "author", author);
	arr = json_object_new_array();
	for (i = 0; i < vs.nr; i++)
		json_object_array_add(arr, dash_version_json(&vs.v[i], true));
	json_object_object_add(s, "versions", arr);
	json_object_object_add(o, "series", s);
	json_reply(res, 200, o);
out:
	strbuf_release(&err);
}

/*
 * /api/checks/<Message-ID>: the verdicts of a patch (or, for a cover
 * letter, of every patch of its version) per context, as patchwork's
 * checks and b4's review checks take them (bot/report/pcheck.h); the newest
 * live version that has the message.  "url" is a path on this dashboard.
 */
void dash_api_checks(struct dash *d, const struct web_request *req, const char *id,
		     struct web_response *res)
{
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT version, n FROM (SELECT p.version AS version, p.n AS n, v.date AS date"
		"  FROM patches p JOIN versions v ON v.id = p.version"
		"  WHERE p.msgid = ?1 AND v.gone = 0 UNION ALL"
		"  SELECT id, 0, date FROM versions WHERE cover = ?1 AND gone = 0)"
		" ORDER BY date DESC, version DESC LIMIT 1");
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct report_version v = { 0 };
	struct pchecks cs = { 0 };
	char *version = NULL;
	json_object *o, *arr;
	int n = 0, r;
	size_t i;

	(void)req;
	if (!d->has_results) {
		json_error(res, 404, "this database has no results");
		return;
	}
	if (!s || db_bind_text(s, 1, id)) {
		json_error(res, 500, db_error(d->st.db));
		return;
	}
	r = db_step(s);
	if (r > 0) {
		version = xstrdup(db_column_text(s, 0));
		n = (int)db_column_int(s, 1);
		db_reset(s);
	}
	if (r < 0 || !version) {
		json_error(res, r < 0 ? 500 : 404, r < 0 ? db_error(d->st.db) :
			   "no patch or cover letter with that Message-ID");
		goto out;
	}
	r = report_version_load(&d->st, version, 0, &v, &err);
	if (r <= 0) {
		json_error(res, r < 0 ? 500 : 404, r < 0 ? err.buf : "no such version");
		goto out;
	}
	dash_public_results(d, &v.results);
	pcheck_derive(&v, &d->ro, PCHECK_WITH_PENDING, &cs);
	o = json_object_new_object();
	json_object_object_add(o, "msgid", json_object_new_string(id));
	json_object_object_add(o, "version", json_object_new_string(v.id));
	json_object_object_add(o, "series", json_object_new_string(v.series_id));
	json_object_object_add(o, "patch", json_object_new_int(n));
	strbuf_addf(&sb, "/series/%s#v%d", v.series_id, v.version);
	json_object_object_add(o, "url", json_object_new_string(sb.buf));
	json_object_object_add(o, "state", json_object_new_string(report_state(&v, &d->ro)));
	arr = json_object_new_array();
	for (i = 0; i < cs.nr; i++) {
		json_object *c;

		if (n && cs.v[i].patch != n)
			continue;
		c = json_object_new_object();
		json_object_object_add(c, "patch", json_object_new_int(cs.v[i].patch));
		json_object_object_add(c, "msgid", json_object_new_string(cs.v[i].msgid));
		json_object_object_add(c, "context", json_object_new_string(cs.v[i].context));
		json_object_object_add(c, "state",
				       json_object_new_string(pcheck_state_name(cs.v[i].state)));
		json_object_object_add(c, "description",
				       json_object_new_string(cs.v[i].description));
		json_object_array_add(arr, c);
	}
	json_object_object_add(o, "checks", arr);
	json_reply(res, 200, o);
out:
	pcheck_release(&cs);
	if (version && r > 0)
		report_version_release(&v);
	free(version);
	strbuf_release(&err);
	strbuf_release(&sb);
}

void dash_healthz(struct dash *d, const struct web_request *req, const char *id,
		  struct web_response *res)
{
	json_object *o = json_object_new_object();
	int64_t n = 0;
	/* versions are never deleted: the last rowid is their count, not a scan */
	bool ok = !db_query_int(d->st.db, "SELECT max(rowid) FROM versions", 0, &n);

	json_object_object_add(o, "status", json_object_new_string(ok ? "ok" : "error"));
	if (ok)
		json_object_object_add(o, "versions", json_object_new_int64(n));
	else
		json_object_object_add(o, "error", json_object_new_string(db_error(d->st.db)));
	json_object_object_add(o, "schema", json_object_new_int(db_schema_version(d->st.db)));
	json_object_object_add(o, "results", json_object_new_boolean(d->has_results));
	json_reply(res, ok ? 200 : 503, o);
}

/* Prometheus text format */

static void metric_head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	strbuf_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* label values are ours or list names: escape \ " and newlines anyway */
static void label(struct strbuf *sb, const char *v)
{
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			strbuf_addch(sb, '\\');
		if (*v == '\n')
			strbuf_addstr(sb, "\\n");
		else
			strbuf_addch(sb, *v);
	}
}

/* "name{key=value} count" for each row of a (value, count) query; false when it failed */
static bool grouped(struct dash *d, struct strbuf *sb, const char *name, const char *key,
		    const char *sql)
{
	struct db_stmt *s = db_prepare(d->st.db, sql);
	int r;

	if (!s)
		return false;
	while ((r = db_step(s)) > 0) {
		strbuf_addf(sb, "%s{%s=\"", name, key);
		label(sb, db_column_text(s, 0));
		strbuf_addf(sb, "\"} %lld\n", (long long)db_column_int(s, 1));
	}
	return r == 0;
}

bool dash_has_table(struct dash *d, const char *name)
{
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
	int r;

	if (!s || db_bind_text(s, 1, name))
		return false;
	r = db_step(s);
	if (r > 0)
		db_reset(s);
	return r > 0;
}

/* Each running job and where: local, or its Slurm job and node */
static void running_jobs(struct dash *d, struct strbuf *sb)
{
	static const char *const names[] = { "id", "kind", "arch", "executor", "slurm_job",
					     "node" };
	struct db_stmt *s = db_prepare(d->st.db,
		"SELECT id, kind, arch, CASE WHEN slurm_job IS NULL THEN 'local' ELSE 'slurm' END,"
		" coalesce(slurm_job, ''), coalesce(node, '') FROM jobs WHERE state = 'running'"
		" ORDER BY id");
	size_t i;

	if (!s)
		return;		/* a database before daemon-3 */
	metric_head(sb, "lorebot_job_running", "gauge",
		    "Jobs running, with where: local, or the Slurm job and its node");
	while (db_step(s) > 0) {
		strbuf_addstr(sb, "lorebot_job_running{");
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			strbuf_addf(sb, "%s%s=\"", i ? "," : "", names[i]);
			label(sb, db_column_text(s, (int)i));
			strbuf_addch(sb, '"');
		}
		strbuf_addstr(sb, "} 1\n");
	}
}

/* Versions by state: counted where the database keeps them, else derived */
static int version_states(struct dash *d, int64_t n[], struct strbuf *err)
{
	struct dash_filter f = { 0 };
	struct dash_versions vs = { 0 };
	size_t i, j;

	if (dash_states_kept(d))
		return dash_state_counts(d, n, err);
	if (dash_load(d, &f, DASH_LIGHT, &vs, err)) {
		dash_versions_release(&vs);
		return -1;
	}
	for (i = 0; report_states[i]; i++)
		for (n[i] = 0, j = 0; j < vs.nr; j++)
			n[i] += !strcmp(vs.v[j].state, report_states[i]);
	dash_versions_release(&vs);
	return 0;
}

void dash_metrics(struct dash *d, const struct web_request *req, const char *id,
		  struct web_response *res)
{
	struct strbuf err = STRBUF_INIT, *sb = &res->body;
	int64_t n = 0, jobs_queued = -1, replies_queued = 0, states[REPORT_STATES_NR];
	size_t i;

	res->content_type = "text/plain; version=0.0.4; charset=utf-8";
	if (version_states(d, states, &err)) {
		res->status = 500;
		strbuf_addf(sb, "# error: %s\n", err.buf);
		goto out;
	}
	metric_head(sb, "lorebot_series_versions", "gauge", "Series versions by state");
	for (i = 0; report_states[i]; i++)
		strbuf_addf(sb, "lorebot_series_versions{state=\"%s\"} %lld\n", report_states[i],
			    (long long)states[i]);
	if (dash_has_table(d, "jobs")) {
		metric_head(sb, "lorebot_jobs", "gauge", "Jobs by state");
		grouped(d, sb, "lorebot_jobs", "state",
			"SELECT state, count(*) FROM jobs GROUP BY state ORDER BY state");
		db_query_int(d->st.db, "SELECT count(*) FROM jobs WHERE state = 'queued'", 0,
			     &jobs_queued);
		running_jobs(d, sb);
	}
	if (d->has_results) {
		metric_head(sb, "lorebot_replies", "gauge", "Replies by state");
		grouped(d, sb, "lorebot_replies", "state",
			"SELECT state, count(*) FROM replies GROUP BY state ORDER BY state");
		db_query_int(d->st.db, "SELECT count(*) FROM replies WHERE state IN"
			     " ('queued', 'sending')", 0, &replies_queued);
	}
	metric_head(sb, "lorebot_queue_length", "gauge", "Work waiting, by queue");
	if (jobs_queued >= 0)
		strbuf_addf(sb, "lorebot_queue_length{queue=\"jobs\"} %lld\n",
			    (long long)jobs_queued);
	strbuf_addf(sb, "lorebot_queue_length{queue=\"replies\"} %lld\n",
		    (long long)replies_queued);
	metric_head(sb, "lorebot_lore_last_success_timestamp_seconds", "gauge",
		    "When each list was last fetched from lore successfully");
	grouped(d, sb, "lorebot_lore_last_success_timestamp_seconds", "list",
		"SELECT name, last_ok FROM lists WHERE last_ok IS NOT NULL ORDER BY name");
	metric_head(sb, "lorebot_lore_failures", "gauge",
		    "Failed lore polls in a row, per list");
	grouped(d, sb, "lorebot_lore_failures", "list",
		"SELECT name, failures FROM lists ORDER BY name");
	metric_head(sb, "lorebot_messages", "gauge", "Messages stored");
	count_messages(d, &n);
	strbuf_addf(sb, "lorebot_messages %lld\n", (long long)n);
out:
	strbuf_release(&err);
}

/* The log a result names, when it is a file under the log root */
static const char *const log_keys[] = { "log", "log_path", "logfile", NULL };
static const char *const config_keys[] = { "config_file", NULL };

/* The file a result's document names under one of keys, or NULL */
static char *result_file(struct dash *d, int64_t id, const char *const *keys)
{
	struct db_stmt *s = db_prepare(d->st.db, "SELECT json FROM results WHERE id = ?");
	json_object *doc = NULL;
	char *path = NULL;
	size_t i;

	if (!s || db_bind_int(s, 1, id) || db_step(s) <= 0)
		return NULL;
	doc = json_tokener_parse(db_column_text(s, 0));
	db_reset(s);
	for (i = 0; keys[i] && !path; i++)
		if (jx_str(doc, keys[i]))
			path = xstrdup(jx_str(doc, keys[i]));
	json_object_put(doc);
	return path;
}

/* The file at path (ours to free) as text, if it is under web.logroot */
static void serve_log(struct dash *d, char *path, struct web_response *res)
{
	char root[PATH_MAX], real[PATH_MAX], *buf = NULL;
	size_t rlen, len = 0;
	struct stat sb;
	int fd = -1;

	if (!path) {
		dash_error(d, res, 404, "no such log");
		goto out;
	}
	if (!realpath(d->logroot, root) || !realpath(path, real)) {
		dash_error(d, res, 404, "the log file is gone");
		goto out;
	}
	rlen = strlen(root);
	if (strncmp(real, root, rlen) || (real[rlen] != '/' && strcmp(root, "/"))) {
		dash_error(d, res, 403, "the log is outside web.logroot");
		goto out;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		dash_error(d, res, 404, "the log file cannot be read");
		goto out;
	}
	/* the end of a long log is where the failure is */
	if ((size_t)sb.st_size > LOG_MAX) {
		lseek(fd, sb.st_size - LOG_MAX, SEEK_SET);
		strbuf_addf(&res->body, "[... the first %lld bytes are not shown ...]\n",
			    (long long)(sb.st_size - LOG_MAX));
	}
	buf = xmalloc(LOG_MAX);
	for (;;) {
		ssize_t r = read(fd, buf + len, LOG_MAX - len);

		if (r <= 0)
			break;
		len += r;
		if (len == LOG_MAX)
			break;
	}
	strbuf_add(&res->body, buf, len);
	res->content_type = "text/plain; charset=utf-8";
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	free(path);
}

/* The number a page's path ends in, or 0 */
static int64_t page_id(const char *id)
{
	char *end;
	long long n = strtoll(id, &end, 10);

	return !*end && n > 0 ? n : 0;
}

void dash_log(struct dash *d, const struct web_request *req, const char *id,
	      struct web_response *res)
{
	int64_t n = page_id(id);

	serve_log(d, n && d->has_results ? result_file(d, n, log_keys) : NULL, res);
}

/* The .config a build was made with, for a recipe without lorebot */
void dash_config(struct dash *d, const struct web_request *req, const char *id,
		 struct web_response *res)
{
	int64_t n = page_id(id);

	serve_log(d, n && d->has_results ? result_file(d, n, config_keys) : NULL, res);
}

/* The log of a job as it is written: a build or boot still running */
void dash_job_log_page(struct dash *d, const struct web_request *req, const char *id,
		       struct web_response *res)
{
	int64_t n = page_id(id);

	serve_log(d, n ? dash_job_log(d, n) : NULL, res);
}
