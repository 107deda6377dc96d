// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON in json-c's layout; see jsonw.h */
#include <inttypes.h>
#include <stdlib.h>

#include "lib/jsonw.h"

static void indent(struct jsonw *w)
{
	static const char spaces[] = "                                "
		"                                ";
	size_t n = 2 * (size_t)w->depth;

	strbuf_addch(w->sb, '\n');
	while (n) {
		size_t k = MIN(n, sizeof(spaces) - 1);

		strbuf_add(w->sb, spaces, k);
		n -= k;
	}
}

/* Before a value or a key: the separator and the line it goes on */
static void item(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->depth)
		return;
	if (w->has_items[w->depth - 1])
		strbuf_addch(w->sb, ',');
	w->has_items[w->depth - 1] = true;
	if (w->pretty)
		indent(w);
}

static void open_(struct jsonw *w, char c)
{
	item(w);
	strbuf_addch(w->sb, c);
	if (w->depth >= JSONW_MAX_DEPTH)
		abort();	/* has_items[] would overflow */
	w->has_items[w->depth] = false;
	w->depth++;
}

static void close_(struct jsonw *w, char c)
{
	w->depth--;
	if (w->pretty)
		indent(w);	/* json-c breaks the line of an empty one too */
	strbuf_addch(w->sb, c);
}

void jw_obj(struct jsonw *w)
{
	open_(w, '{');
}

void jw_end_obj(struct jsonw *w)
{
	close_(w, '}');
}

void jw_arr(struct jsonw *w)
{
	open_(w, '[');
}

void jw_end_arr(struct jsonw *w)
{
	close_(w, ']');
}

/* What JSON needs escaped: controls, '"' and '\\' */
static const bool needs_escape[256] = {
	[0 ... 31] = true, ['"'] = true, ['\\'] = true,
};

static void quoted(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s, *end = s + len;

	strbuf_grow(sb, len + 2);
	strbuf_addch(sb, '"');
	for (; s < end; s++) {
		unsigned char c = *s;
		const char *esc = NULL;

		if (!needs_escape[c])
			continue;
		switch (c) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		}
		strbuf_add(sb, run, s - run);
		run = s + 1;
		if (esc) {
			strbuf_addstr(sb, esc);
		} else {
			char u[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };

			strbuf_addstr(sb, u);
		}
	}
	strbuf_add(sb, run, end - run);
	strbuf_addch(sb, '"');
}

void jw_key(struct jsonw *w, const char *key)
{
	item(w);
	quoted(w->sb, key, strlen(key));
	strbuf_addch(w->sb, ':');
	w->after_key = true;
}

void jw_str_len(struct jsonw *w, const char *s, size_t len)
{
	item(w);
	quoted(w->sb, s, len);
}

void jw_str(struct jsonw *w, const char *s)
{
	if (!s)
		jw_null(w);
	else
		jw_str_len(w, s, strlen(s));
}

void jw_int(struct jsonw *w, int64_t v)
{
	char digits[24], *p = digits + sizeof(digits);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	item(w);
	do {
		*--p = '0' + u % 10;
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	strbuf_add(w->sb, p, digits + sizeof(digits) - p);
}

void jw_bool(struct jsonw *w, bool v)
{
	item(w);
	strbuf_addstr(w->sb, v ? "true" : "false");
}

void jw_null(struct jsonw *w)
{
	item(w);
	strbuf_addstr(w->sb, "null");
}

void jw_raw(struct jsonw *w, const char *json)
{
	item(w);
	strbuf_addstr(w->sb, json);
}
