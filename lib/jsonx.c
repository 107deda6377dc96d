// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "lib/jsonx.h"
#include "lib/strbuf.h"

json_object *jx_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

const char *jx_str(json_object *o, const char *key)
{
	json_object *v = jx_get(o, key);

	return v && json_object_is_type(v, json_type_string) ?
		json_object_get_string(v) : NULL;
}

const char *jx_str_any(json_object *o, const char *key)
{
	json_object *v = jx_get(o, key);

	return v ? json_object_get_string(v) : NULL;
}

const char *jx_strz(json_object *o, const char *key)
{
	const char *s = jx_str(o, key);

	return s ? s : "";
}

int64_t jx_int(json_object *o, const char *key, int64_t def)
{
	json_object *v = jx_get(o, key);
	const char *s;
	char *end;
	long long n;

	if (!v)
		return def;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_int64(v);
	if (json_object_is_type(v, json_type_double))
		return (int64_t)json_object_get_double(v);
	if (!json_object_is_type(v, json_type_string))
		return def;
	s = json_object_get_string(v);
	n = strtoll(s, &end, 10);
	return *s && !*end ? n : def;
}

bool jx_bool(json_object *o, const char *key, bool def)
{
	json_object *v = jx_get(o, key);

	return v && json_object_is_type(v, json_type_boolean) ?
		json_object_get_boolean(v) : def;
}

json_object *jx_array(json_object *o, const char *key)
{
	json_object *v = jx_get(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

size_t jx_len(json_object *o, const char *key)
{
	json_object *a = jx_array(o, key);

	return a ? json_object_array_length(a) : 0;
}

json_object *jx_object(json_object *o, const char *key)
{
	json_object *v = jx_get(o, key);

	return v && json_object_is_type(v, json_type_object) ? v : NULL;
}

json_object *jx_new_str(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

json_object *jx_new_nonempty(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

json_object *jx_new_str_array(char *const *v, size_t nr)
{
	json_object *a = json_object_new_array();
	size_t i;

	for (i = 0; i < nr; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

char **jx_strdup_array(json_object *o, const char *key, size_t max, size_t *nr)
{
	json_object *a = jx_array(o, key);
	size_t n = a ? MIN(json_object_array_length(a), max) : 0, i;
	char **v = xcalloc(n + 1, sizeof(*v));

	*nr = 0;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (json_object_is_type(e, json_type_string))
			v[(*nr)++] = xstrdup(json_object_get_string(e));
	}
	return v;
}

void jx_add_str(json_object *o, const char *key, const char *s)
{
	if (s)
		json_object_object_add(o, key, json_object_new_string(s));
}

const char *jx_text(json_object *o, bool pretty)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE |
		(pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN));
}

void jx_print(json_object *o, FILE *f)
{
	fputs(jx_text(o, true), f);
	fputc('\n', f);
}

json_object *jx_parse(const char *text, size_t len, struct strbuf *err)
{
	json_tokener *tok = json_tokener_new();
	json_object *o;
	enum json_tokener_error e;
	size_t i, line = 1, col = 1;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	if (!o || e != json_tokener_success) {
		size_t off = json_tokener_get_parse_end(tok);

		for (i = 0; i < off && i < len; i++) {
			if (text[i] == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		if (e == json_tokener_continue)
			strbuf_addstr(err, "unexpected end of the JSON text");
		else
			strbuf_addf(err, "%zu:%zu: %s", line, col,
				    json_tokener_error_desc(e));
		json_object_put(o);
		o = NULL;
	} else if (json_tokener_get_parse_end(tok) < len) {
		size_t off = json_tokener_get_parse_end(tok);

		while (off < len && strchr(" \t\r\n", text[off]))
			off++;
		if (off < len) {
			strbuf_addstr(err, "text after the JSON value");
			json_object_put(o);
			o = NULL;
		}
	}
	json_tokener_free(tok);
	return o;
}
