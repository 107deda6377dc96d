// SPDX-License-Identifier: GPL-2.0
/*
 * A parsed message (struct msg, what series assembly needs) as JSON, so
 * the database can assemble series without parsing every raw message
 * again.  The raw bytes stay the truth: rows whose meta was written by
 * another lorebot version are parsed again (store_reparse()).
 */
#include <json-c/json.h>
#include <stdlib.h>

#include "bot/store/store.h"
#include "lib/jsonx.h"

char *store_msg_to_json(const struct msg *m)
{
	json_object *o = json_object_new_object();
	json_object *tr = json_object_new_array();
	char *s;
	size_t i;

	jx_add_str(o, "msgid", m->msgid);
	jx_add_str(o, "parent", m->parent);
	json_object_object_add(o, "refs", jx_new_str_array(m->refs, m->nr_refs));
	jx_add_str(o, "subject", m->subject);
	jx_add_str(o, "title", m->title);
	jx_add_str(o, "sender_name", m->sender_name);
	jx_add_str(o, "sender_email", m->sender_email);
	jx_add_str(o, "author_name", m->author_name);
	jx_add_str(o, "author_email", m->author_email);
	json_object_object_add(o, "date", json_object_new_int64(m->date));
	json_object_object_add(o, "tz", json_object_new_int(m->tz));
	json_object_object_add(o, "has_diff", json_object_new_boolean(m->has_diff));
	json_object_object_add(o, "has_diffstat", json_object_new_boolean(m->has_diffstat));
	jx_add_str(o, "base_commit", m->base_commit);
	jx_add_str(o, "change_id", m->change_id);
	jx_add_str(o, "diff_hash", m->diff_hash);
	for (i = 0; i < m->trailers.nr; i++) {
		json_object *t = json_object_new_array();

		json_object_array_add(t, json_object_new_string(m->trailers.t[i].name));
		json_object_array_add(t, json_object_new_string(m->trailers.t[i].value));
		json_object_array_add(tr, t);
	}
	json_object_object_add(o, "trailers", tr);
	json_object_object_add(o, "links", jx_new_str_array(m->links, m->nr_links));
	if (m->warnings.len)
		jx_add_str(o, "warnings", m->warnings.buf);
	s = xstrdup(jx_text(o, false));
	json_object_put(o);
	return s;
}

/* The strings of key's array, in m's pool or malloc'ed */
static char **str_array(struct msg *m, json_object *o, const char *key, size_t *nr)
{
	json_object *arr;
	size_t n, i;
	char **v;

	if (!m->pool)
		return jx_strdup_array(o, key, SIZE_MAX, nr);
	arr = jx_array(o, key);
	n = arr ? json_object_array_length(arr) : 0;
	v = strpool_alloc(m->pool, (n + 1) * sizeof(*v));
	*nr = 0;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);

		if (json_object_is_type(e, json_type_string))
			v[(*nr)++] = series_msg_keep(m, json_object_get_string(e));
	}
	return v;
}

int store_msg_from_json_pool(const char *json, struct strpool *pool, struct msg *m)
{
	json_object *o = json_tokener_parse(json), *tr;
	const char *subject;
	size_t i;

	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		subject_parse("", &m->subj);
		return -1;
	}
	m->pool = pool;
	m->trailers.pool = pool;
	m->msgid = series_msg_keep(m, jx_str(o, "msgid"));
	m->parent = series_msg_keep(m, jx_str(o, "parent"));
	m->refs = str_array(m, o, "refs", &m->nr_refs);
	subject = jx_str(o, "subject");
	/* not interned, as series_msg_from_raw_pool() keeps it */
	m->subject = pool ? strpool_strdup(pool, subject ? subject : "") :
		xstrdup(subject ? subject : "");
	subject_parse(m->subject, &m->subj);
	if (pool)
		series_msg_subject_to_pool(m);
	m->title = series_msg_keep(m, jx_str(o, "title"));
	if (!m->title)
		m->title = series_msg_keep(m, m->subj.title);
	m->sender_name = series_msg_keep(m, jx_str(o, "sender_name"));
	m->sender_email = series_msg_keep(m, jx_str(o, "sender_email"));
	m->author_name = series_msg_keep(m, jx_str(o, "author_name"));
	m->author_email = series_msg_keep(m, jx_str(o, "author_email"));
	m->date = jx_int(o, "date", 0);
	m->tz = (int)jx_int(o, "tz", 0);
	m->has_diff = jx_bool(o, "has_diff", false);
	m->has_diffstat = jx_bool(o, "has_diffstat", false);
	m->base_commit = series_msg_keep(m, jx_str(o, "base_commit"));
	m->change_id = series_msg_keep(m, jx_str(o, "change_id"));
	m->diff_hash = series_msg_keep(m, jx_str(o, "diff_hash"));
	if (json_object_object_get_ex(o, "trailers", &tr) &&
	    json_object_is_type(tr, json_type_array)) {
		for (i = 0; i < json_object_array_length(tr); i++) {
			json_object *t = json_object_array_get_idx(tr, i);
			json_object *name, *value;

			if (!json_object_is_type(t, json_type_array) ||
			    json_object_array_length(t) != 2)
				continue;
			name = json_object_array_get_idx(t, 0);
			value = json_object_array_get_idx(t, 1);
			patch_trailers_add(&m->trailers, json_object_get_string(name),
					   json_object_get_string(value));
		}
	}
	m->links = str_array(m, o, "links", &m->nr_links);
	if (jx_str(o, "warnings"))
		strbuf_addstr(&m->warnings, jx_str(o, "warnings"));
	json_object_put(o);
	return m->msgid ? 0 : -1;
}

int store_msg_from_json(const char *json, struct msg *m)
{
	return store_msg_from_json_pool(json, NULL, m);
}
