// SPDX-License-Identifier: GPL-2.0
/*
 * What the daemon is doing about a version while it runs (its jobs
 * table, when there is one): "queued", "building 4m", "booting 30s" per
 * arch instead of a blank, with the live log of the running job.
 */
#include <stdlib.h>

#include "bot/web/dash-int.h"

int dash_jobs_load(struct dash *d, const char *version, struct dash_jobs *out)
{
	struct db_stmt *s;
	int r;

	memset(out, 0, sizeof(*out));
	if (!d->has_jobs)
		return 0;
	s = db_prepare(d->st.db,
		"SELECT id, kind, arch, state, coalesce(started, 0), log IS NOT NULL"
		" FROM jobs WHERE version = ?1 AND state IN ('queued', 'running')"
		" ORDER BY id");
	if (!s || db_bind_text(s, 1, version))
		return -1;
	while ((r = db_step(s)) > 0) {
		struct dash_job *j;

		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		j = &out->v[out->nr++];
		j->id = db_column_int(s, 0);
		j->kind = xstrdup(db_column_text(s, 1));
		j->arch = xstrdup(db_column_text(s, 2));
		j->running = !strcmp(db_column_text(s, 3), "running");
		j->started = db_column_int(s, 4);
		j->has_log = db_column_int(s, 5);
	}
	return r < 0 ? -1 : 0;
}

void dash_jobs_release(struct dash_jobs *js)
{
	size_t i;

	for (i = 0; i < js->nr; i++) {
		free(js->v[i].kind);
		free(js->v[i].arch);
	}
	free(js->v);
	memset(js, 0, sizeof(*js));
}

const struct dash_job *dash_job_find(const struct dash_jobs *js, const char *kind,
				     const char *arch)
{
	size_t i;

	for (i = 0; i < js->nr; i++)
		if (!strcmp(js->v[i].kind, kind) && !strcmp(js->v[i].arch, arch ? arch : ""))
			return &js->v[i];
	return NULL;
}

/* "4m", "30s", "2h05m" */
static void short_age(struct strbuf *sb, int64_t s)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		strbuf_addf(sb, "%llds", (long long)s);
	else if (s < 3600)
		strbuf_addf(sb, "%lldm", (long long)(s / 60));
	else
		strbuf_addf(sb, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
}

void dash_job_label(const struct dash_job *j, int64_t now, struct strbuf *sb)
{
	static const struct {
		const char *kind, *doing;
	} doing[] = {
		{ "apply", "applying" }, { "check", "checking" }, { "build", "building" },
		{ "boot", "booting" }, { "reply", "replying" },
	};
	size_t i;

	if (!j->running) {
		strbuf_addstr(sb, "queued");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(doing); i++)
		if (!strcmp(j->kind, doing[i].kind))
			break;
	strbuf_addf(sb, "%s ", i < ARRAY_SIZE(doing) ? doing[i].doing : "running");
	short_age(sb, now - j->started);
}

char *dash_job_log(struct dash *d, int64_t id)
{
	struct db_stmt *s;
	char *path = NULL;

	if (!d->has_jobs)
		return NULL;
	s = db_prepare(d->st.db, "SELECT log FROM jobs WHERE id = ?1 AND log IS NOT NULL");
	if (!s || db_bind_int(s, 1, id))
		return NULL;
	if (db_step(s) > 0) {
		path = xstrdup(db_column_text(s, 0));
		db_reset(s);
	}
	return path;
}

void dash_jobs_cause(const struct dash_jobs *js, int64_t now, struct strbuf *sb)
{
	size_t i, queued = 0;

	for (i = 0; i < js->nr; i++) {
		const struct dash_job *j = &js->v[i];

		if (!j->running) {
			queued++;
			continue;
		}
		if (sb->len)
			strbuf_addstr(sb, ", ");
		if (*j->arch)
			strbuf_addf(sb, "%s ", j->arch);
		dash_job_label(j, now, sb);
	}
	if (queued)
		strbuf_addf(sb, "%s%zu job%s queued", sb->len ? ", " : "", queued,
			    queued == 1 ? "" : "s");
}
