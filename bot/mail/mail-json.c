// SPDX-License-Identifier: GPL-2.0
/*
 * A parsed mail (struct mail) as JSON and back: what a mail parser in a
 * jail (bot/store/store-jail.c) hands to the process that holds the database.
 * Read back, it is data from an untrusted process: every field is
 * checked for its type, strings are taken with their length (a body may
 * hold NUL bytes), and the lists are bounded as the parser bounds them.
 */
#include <json-c/json.h>
#include <stdlib.h>

#include "bot/mail/mail.h"
#include "lib/jsonx.h"

/* the most addresses of To: or Cc: read back (a parser gives no more) */
#define MAX_ADDRESSES 4096

static json_object *address_json(const struct address *a)
{
	json_object *o = json_object_new_object();

	jx_add_str(o, "name", a->name);
	jx_add_str(o, "email", a->email);
	return o;
}

static json_object *addresses_json(const struct address *v, size_t nr)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < nr; i++)
		json_object_array_add(a, address_json(&v[i]));
	return a;
}

char *mail_to_json(const struct mail *m)
{
	json_object *o = json_object_new_object();
	char *s;

	jx_add_str(o, "msgid", m->msgid);
	jx_add_str(o, "in_reply_to", m->in_reply_to);
	json_object_object_add(o, "refs", jx_new_str_array(m->refs, m->nr_refs));
	jx_add_str(o, "subject", m->subject);
	json_object_object_add(o, "from", address_json(&m->from));
	jx_add_str(o, "from_text", m->from_text);
	json_object_object_add(o, "to", addresses_json(m->to, m->nr_to));
	json_object_object_add(o, "cc", addresses_json(m->cc, m->nr_cc));
	jx_add_str(o, "list_id", m->list_id);
	json_object_object_add(o, "date", json_object_new_int64(m->date));
	json_object_object_add(o, "tz", json_object_new_int(m->tz));
	json_object_object_add(o, "body", json_object_new_string_len(m->body ? m->body : "",
								      (int)m->body_len));
	jx_add_str(o, "charset", m->charset);
	json_object_object_add(o, "multipart", json_object_new_boolean(m->multipart));
	json_object_object_add(o, "skipped_parts", json_object_new_int64(m->skipped_parts));
	json_object_object_add(o, "mime_broken", json_object_new_boolean(m->mime_broken));
	jx_add_str(o, "warnings", m->warnings.buf);
	s = xstrdup(jx_text(o, false));
	json_object_put(o);
	return s;
}

static void address_from(json_object *o, struct address *a)
{
	a->name = xstrdup_or_null(jx_str(o, "name"));
	a->email = xstrdup_or_null(jx_str(o, "email"));
}

static struct address *addresses_from(json_object *o, const char *key, size_t *nr)
{
	json_object *v = jx_array(o, key);
	size_t n = v ? MIN(json_object_array_length(v), (size_t)MAX_ADDRESSES) : 0, i;
	struct address *a = xcalloc(n ? n : 1, sizeof(*a));

	*nr = 0;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (json_object_is_type(e, json_type_object))
			address_from(e, &a[(*nr)++]);
	}
	return a;
}

int mail_from_json(const char *text, size_t len, struct mail *m, struct strbuf *err)
{
	json_object *o = jx_parse(text, len, err), *v;

	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	if (!o)
		return -1;
	if (!json_object_is_type(o, json_type_object)) {
		strbuf_addstr(err, "a parsed mail that is not an object");
		json_object_put(o);
		return -1;
	}
	m->msgid = xstrdup_or_null(jx_str(o, "msgid"));
	m->in_reply_to = xstrdup_or_null(jx_str(o, "in_reply_to"));
	m->refs = jx_strdup_array(o, "refs", MAIL_MAX_REFS, &m->nr_refs);
	m->subject = xstrdup(jx_str(o, "subject") ? jx_str(o, "subject") : "");
	if (json_object_object_get_ex(o, "from", &v) && json_object_is_type(v, json_type_object))
		address_from(v, &m->from);
	m->from_text = xstrdup_or_null(jx_str(o, "from_text"));
	m->to = addresses_from(o, "to", &m->nr_to);
	m->cc = addresses_from(o, "cc", &m->nr_cc);
	m->list_id = xstrdup_or_null(jx_str(o, "list_id"));
	m->date = jx_int(o, "date", 0);
	m->tz = (int)jx_int(o, "tz", 0);
	if (json_object_object_get_ex(o, "body", &v) && json_object_is_type(v, json_type_string)) {
		m->body_len = (size_t)json_object_get_string_len(v);
		m->body = xmalloc(m->body_len + 1);
		memcpy(m->body, json_object_get_string(v), m->body_len);
		m->body[m->body_len] = '\0';
	} else {
		m->body = xstrdup("");
	}
	m->charset = xstrdup_or_null(jx_str(o, "charset"));
	m->multipart = jx_bool(o, "multipart", false);
	m->skipped_parts = (unsigned int)jx_int(o, "skipped_parts", 0);
	m->mime_broken = jx_bool(o, "mime_broken", false);
	if (jx_str(o, "warnings"))
		strbuf_addstr(&m->warnings, jx_str(o, "warnings"));
	json_object_put(o);
	return 0;
}
