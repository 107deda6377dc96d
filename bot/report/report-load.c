// SPDX-License-Identifier: GPL-2.0
/* A series version and its results, as replies and pages need them */
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/report/report.h"
#include "lib/text.h"
#include "bot/base/arch.h"
#include "bot/store/store-results.h"

static const char *const kind_names[REPLY_KIND_NR] = {
	[REPLY_APPLY] = "apply",
	[REPLY_BUILD] = "build",
	[REPLY_CHECK] = "check",
	[REPLY_BOOT] = "boot",
	[REPLY_BASE] = "base",
	[REPLY_CLEAN] = "clean",
	[REPLY_FINDINGS] = "findings",
};

const char *report_kind_name(enum reply_kind kind)
{
	return kind < REPLY_KIND_NR ? kind_names[kind] : "?";
}

void report_kind_round(struct strbuf *sb, enum reply_kind kind, int round)
{
	strbuf_addstr(sb, report_kind_name(kind));
	if (round > 0)
		strbuf_addf(sb, " (retest %d)", round);
}

int report_kind_parse(const char *name, enum reply_kind *kind)
{
	int i;

	for (i = 0; i < REPLY_KIND_NR; i++) {
		if (!strcmp(name, kind_names[i])) {
			*kind = i;
			return 0;
		}
	}
	return -1;
}

static char *col(struct db_stmt *s, int c)
{
	return xstrdup_or_null(db_column_text(s, c));
}

static void load_list(struct store *st, struct report_version *v)
{
	/*
	 * CROSS JOIN fixes the order whatever the statistics: the message by
	 * its msgid index, then each list (a few), then a primary key lookup.
	 * Left to the planner without ANALYZE, it scanned all of
	 * list_messages for every version of the dashboard's index.
	 */
	struct db_stmt *s = db_prepare(st->db,
		"SELECT l.name, l.url FROM messages m CROSS JOIN lists l"
		" CROSS JOIN list_messages lm WHERE m.msgid = ? AND lm.list = l.id"
		" AND lm.message = m.id ORDER BY l.id LIMIT 1");

	if (!s || db_bind_text(s, 1, v->id) || db_step(s) <= 0)
		return;
	v->list = col(s, 0);
	v->list_url = col(s, 1);
	db_reset(s);
}

/*
 * What answers to lorebot's mails did to v (report-4): the dismissals of
 * its series, and how often it was tested again.  A database without
 * those tables (read-only, not migrated yet) has none.
 */
static void load_answers(struct store *st, struct report_version *v)
{
	struct db_stmt *s = !store_has_answers(st) ? NULL : db_prepare(st->db,
		"SELECT kind, target, who, why, created FROM dismissals WHERE series = ?"
		" ORDER BY created, target");
	size_t alloc = 0;

	if (!store_has_answers(st) || !s || db_bind_text(s, 1, v->series_id))
		return;
	while (db_step(s) > 0) {
		struct report_dismissal *d;

		ALLOC_GROW(v->dismissals, v->nr_dismissals + 1, alloc);
		d = &v->dismissals[v->nr_dismissals++];
		d->kind = col(s, 0);
		d->target = col(s, 1);
		d->who = col(s, 2);
		d->why = col(s, 3);
		d->when = db_column_int(s, 4);
	}
	s = db_prepare(st->db, "SELECT count(*), (SELECT who FROM retests WHERE"
			     " version = ?1 ORDER BY id DESC LIMIT 1) FROM retests"
			     " WHERE version = ?1");
	if (!s || db_bind_text(s, 1, v->id) || db_step(s) <= 0)
		return;
	v->retests = (int)db_column_int(s, 0);
	v->retest_by = col(s, 1);
	db_reset(s);
}

const struct report_dismissal *report_dismissed(const struct report_version *v,
						enum stage stage, json_object *f)
{
	const char *rule = report_finding_rule(stage, f);
	char id[REPORT_ID_LEN + 1];
	size_t i;

	if (!v->nr_dismissals)
		return NULL;
	report_finding_id(stage, f, id);
	for (i = 0; i < v->nr_dismissals; i++) {
		const struct report_dismissal *d = &v->dismissals[i];

		if (!strcmp(d->kind, "finding") ? !strcmp(d->target, id) :
		    rule && !strcmp(d->target, rule))
			return d;
	}
	return NULL;
}

int report_version_load(struct store *st, const char *id, unsigned int flags,
			struct report_version *v, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id, series, title, author_name, author_email, cover, base_commit,"
		" tree, superseded_by, version, total, have, rfc, complete, resend, gone,"
		" date, CASE WHEN ?2 THEN NULL ELSE json END FROM versions WHERE id = ?1");
	bool light = flags & REPORT_LIGHT;
	int r;

	memset(v, 0, sizeof(*v));
	if (!s || db_bind_text(s, 1, id) || db_bind_int(s, 2, light)) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	r = db_step(s);
	if (r <= 0) {
		if (r < 0)
			strbuf_addstr(err, db_error(st->db));
		return r;
	}
	v->id = col(s, 0);
	v->series_id = col(s, 1);
	v->title = col(s, 2);
	v->author_name = col(s, 3);
	v->author_email = col(s, 4);
	v->cover = col(s, 5);
	v->base_commit = col(s, 6);
	v->tree = col(s, 7);
	v->superseded_by = col(s, 8);
	v->version = (int)db_column_int(s, 9);
	v->total = (int)db_column_int(s, 10);
	v->have = (int)db_column_int(s, 11);
	v->rfc = db_column_int(s, 12);
	v->complete = db_column_int(s, 13);
	v->resend = db_column_int(s, 14);
	v->gone = db_column_int(s, 15);
	v->date = db_column_int(s, 16);
	v->json = light ? NULL : json_tokener_parse(db_column_text(s, 17));
	db_reset(s);
	if (!light)
		load_list(st, v);
	load_answers(st, v);
	if (store_has_results(st) &&
	    store_results_load(st, v->id, light ? RESULTS_NO_DOCS : 0, &v->results, err)) {
		report_version_release(v);
		return -1;
	}
	return 1;
}

void report_version_release(struct report_version *v)
{
	free(v->id);
	free(v->series_id);
	free(v->title);
	free(v->author_name);
	free(v->author_email);
	free(v->cover);
	free(v->base_commit);
	free(v->tree);
	free(v->superseded_by);
	free(v->list);
	free(v->list_url);
	json_object_put(v->json);
	store_results_release(&v->results);
	for (size_t i = 0; i < v->nr_dismissals; i++) {
		free(v->dismissals[i].kind);
		free(v->dismissals[i].target);
		free(v->dismissals[i].who);
		free(v->dismissals[i].why);
	}
	free(v->dismissals);
	free(v->retest_by);
	memset(v, 0, sizeof(*v));
}

json_object *report_patch(const struct report_version *v, int n)
{
	json_object *patches = rd_ver_patches(v->json);
	size_t i;

	for (i = 0; patches && i < json_object_array_length(patches); i++) {
		json_object *p = rd_at(patches, i);

		if (rd_vpatch_n(p, 0) == n)
			return p;
	}
	return NULL;
}

void report_opts_init(struct report_opts *o, const struct config *cfg)
{
	const char *const *vals = config_v(cfg)->build_arch.v;
	size_t n = config_v(cfg)->build_arch.nr, i;
	const char **archs;

	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->mincoverage = cfg ? config_v(cfg)->build_mincoverage : 0;
	if (n) {
		archs = xcalloc(n + 1, sizeof(*archs));
		for (i = 0; i < n; i++)
			archs[i] = xstrdup(vals[i]);
	} else {
		n = arches_nr;
		archs = xcalloc(n + 1, sizeof(*archs));
		for (i = 0; i < n; i++)
			archs[i] = xstrdup(arches[i].name);
	}
	o->archs = archs;
	o->nr_archs = n;
	o->boot = config_v(cfg)->boot_enable;
	o->repo = config_v(cfg)->git_repo;
	o->now = (int64_t)time(NULL);
}

void report_opts_release(struct report_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_archs; i++)
		free((char *)o->archs[i]);
	free((void *)o->archs);
	o->archs = NULL;
	o->nr_archs = 0;
}

void report_opts_set_archs(struct report_opts *o, const char *list)
{
	char *copy = xstrdup(list), *p, *save = NULL;
	const char **v = xcalloc(1, sizeof(*v));
	size_t nr = 0, alloc = 1;

	report_opts_release(o);
	for (p = strtok_r(copy, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
		ALLOC_GROW(v, nr + 2, alloc);
		v[nr++] = xstrdup(p);
		v[nr] = NULL;
	}
	free(copy);
	o->archs = v;
	o->nr_archs = nr;
}

bool report_ignored(const struct config *cfg, const char *email)
{
	const char *const *vals = config_v(cfg)->reply_ignore.v;
	size_t n = config_v(cfg)->reply_ignore.nr, i;
	const char *at = email ? strchr(email, '@') : NULL;
	bool hit = false;

	for (i = 0; i < n && email && !hit; i++) {
		const char *v = vals[i];

		while (*v == ' ')
			v++;
		if (*v == '@')
			hit = at && !strcasecmp(at, v);
		else
			hit = !strcasecmp(email, v);
	}
	return hit;
}

void report_lore_link(struct strbuf *sb, const struct report_version *v, const char *msgid)
{
	const char *base = v->list_url && *v->list_url ? v->list_url : "https://lore.kernel.org/r/";

	strbuf_addstr(sb, base);
	if (!util_ends_with(base, "/"))
		strbuf_addch(sb, '/');
	text_url_escape(sb, msgid);
	strbuf_addch(sb, '/');
}
