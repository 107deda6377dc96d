// SPDX-License-Identifier: GPL-2.0
/*
 * What the findings of the previous version became: a v2 reply says
 * which of v1's mailed findings are fixed and which are still present.
 * A finding is the same when its rule (or "build"), file and message
 * are: its line moves with the patches around it.
 */
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/report/report-int.h"

struct since_list {
	char **keys;		/* "rule\nfile\nmessage" */
	char **shown;		/* "file: message [rule]" */
	size_t nr, alloc;
};

static bool since_has(const struct since_list *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->keys[i], key))
			return true;
	return false;
}

static void since_add(struct since_list *l, const char *rule, json_object *f)
{
	const char *file = rd_finding_file(f), *msg = rd_finding_message_z(f);
	char *key = xasprintf("%s\n%s\n%s", rule, file ? file : "", msg);

	if (since_has(l, key)) {
		free(key);
		return;
	}
	ALLOC_GROW(l->keys, l->nr + 1, l->alloc);
	l->shown = xrealloc(l->shown, l->alloc * sizeof(*l->shown));
	l->keys[l->nr] = key;
	l->shown[l->nr++] = xasprintf("%s%s%s [%s]", file ? file : "", file ? ": " : "",
				      msg, rule);
}

static void since_release(struct since_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->keys[i]);
		free(l->shown[i]);
	}
	free(l->keys);
	free(l->shown);
	memset(l, 0, sizeof(*l));
}

/* The findings of v a reply mails: check findings by policy, new build ones */
static void mailed_findings(const struct report_version *v, const struct report_opts *o,
			    struct since_list *l)
{
	size_t i, j;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *findings = rd_doc_findings(r->doc);

		for (j = 0; findings && j < json_object_array_length(findings); j++) {
			json_object *f = rd_at(findings, j);

			if (r->stage == STAGE_CHECK && report_check_class(v, o, f) == REPORT_MAIL)
				since_add(l, rd_finding_rule_z(f), f);
			else if (r->stage == STAGE_BUILD && rd_finding_is_new(f, true) &&
				 !report_build_style(o, f) &&
				 !report_dismissed(v, STAGE_BUILD, f))
				since_add(l, "build", f);
		}
	}
}

/* The latest earlier version of v's series that has results, or NULL */
static char *previous_version(struct store *st, const struct report_version *v)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT v.id FROM versions v WHERE v.series = ?1 AND v.version < ?2"
		" AND v.gone = 0 AND EXISTS (SELECT 1 FROM results r WHERE r.version = v.id)"
		" ORDER BY v.version DESC, v.date DESC LIMIT 1");
	char *id = NULL;

	if (!s || db_bind_text(s, 1, v->series_id) || db_bind_int(s, 2, v->version))
		return NULL;
	if (db_step(s) > 0)
		id = xstrdup_or_null(db_column_text(s, 0));
	db_reset(s);
	return id;
}

int report_since_var(struct report_ctx *c, struct strbuf *err)
{
	struct since_list before = { 0 }, now = { 0 };
	struct strbuf sb = STRBUF_INIT, fixed = STRBUF_INIT, still = STRBUF_INIT;
	struct report_version prev;
	char *id = c->v->version > 1 ? previous_version(c->st, c->v) : NULL;
	size_t i;
	int r = id ? report_version_load(c->st, id, 0, &prev, err) : 0;

	template_set(&c->vars, "since", "");
	free(id);
	if (r <= 0)
		return r;
	mailed_findings(&prev, c->o, &before);
	mailed_findings(c->v, c->o, &now);
	for (i = 0; i < before.nr; i++) {
		struct strbuf *to = since_has(&now, before.keys[i]) ? &still : &fixed;

		strbuf_addf(to, "    %s\n", before.shown[i]);
	}
	if (fixed.len)
		strbuf_addf(&sb, "Fixed since v%d:\n\n%s", prev.version, fixed.buf);
	if (still.len)
		strbuf_addf(&sb, "%sStill present since v%d:\n\n%s", sb.len ? "\n" : "",
			    prev.version, still.buf);
	strbuf_rtrim(&sb);
	template_set(&c->vars, "since", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&fixed);
	strbuf_release(&still);
	since_release(&before);
	since_release(&now);
	report_version_release(&prev);
	return 0;
}
