// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>

#include "lib/text.h"

size_t text_width(const char *s, size_t len)
{
	size_t w = 0, i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '\t')
			w = (w / 8 + 1) * 8;
		else if ((c & 0xc0) != 0x80)	/* not a UTF-8 continuation byte */
			w++;
	}
	return w;
}

/* Lines kept as they are: indented (code, output), quoted, blank */
static bool verbatim(const char *line, size_t len)
{
	return !len || line[0] == ' ' || line[0] == '\t' ||
		(len >= 2 && (line[0] == '>' || line[0] == '|') && line[1] == ' ');
}

/* Fill the words of s[0..len) */
static void fill(struct strbuf *out, const char *s, size_t len, size_t width,
		 const char *indent, bool *first_line)
{
	size_t col = 0, i = 0, ilen = indent ? text_width(indent, strlen(indent)) : 0;
	bool line_empty = true;

	if (!*first_line) {
		strbuf_addstr(out, indent ? indent : "");
		col = ilen;
	}
	while (i < len) {
		size_t start, wlen, ww;

		while (i < len && (s[i] == ' ' || s[i] == '\n'))
			i++;
		if (i >= len)
			break;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\n')
			i++;
		wlen = i - start;
		ww = text_width(s + start, wlen);
		if (!line_empty && col + 1 + ww > width) {
			strbuf_addch(out, '\n');
			strbuf_addstr(out, indent ? indent : "");
			col = ilen;
			line_empty = true;
		}
		if (!line_empty) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, s + start, wlen);
		col += ww;
		line_empty = false;
	}
	*first_line = false;
}

void text_wrap(struct strbuf *out, const char *text, size_t width, const char *indent)
{
	const char *p = text, *para = NULL;
	bool first = true;

	for (;;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		bool end = !nl && !len;

		if (end || verbatim(p, len)) {
			if (para) {
				fill(out, para, p - para, width, indent, &first);
				strbuf_addch(out, '\n');
				para = NULL;
			}
			if (end)
				break;
			if (!first && len)
				strbuf_addstr(out, indent ? indent : "");
			strbuf_add(out, p, len);
			first = false;
			if (nl)
				strbuf_addch(out, '\n');
		} else if (!para) {
			para = p;
		}
		if (!nl) {
			if (para) {
				fill(out, para, strlen(para), width, indent, &first);
				para = NULL;
			}
			break;
		}
		p = nl + 1;
	}
}

void text_html_escape_n(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		case '\'':
			strbuf_addstr(out, "&#39;");
			break;
		default:
			strbuf_addch(out, s[i]);
		}
	}
}

void text_html_escape(struct strbuf *out, const char *s)
{
	if (s)
		text_html_escape_n(out, s, strlen(s));
}

void text_url_escape(struct strbuf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~@", c)) {
			strbuf_addch(out, c);
		} else {
			strbuf_addch(out, '%');
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
}

void text_age(struct strbuf *out, int64_t t, int64_t now)
{
	static const struct {
		int64_t secs;
		const char *one, *many;
	} units[] = {
		{ 86400 * 365, "year", "years" },
		{ 86400 * 30, "month", "months" },
		{ 86400 * 7, "week", "weeks" },
		{ 86400, "day", "days" },
		{ 3600, "hour", "hours" },
		{ 60, "minute", "minutes" },
	};
	int64_t d = now - t;
	size_t i;

	if (!t) {
		strbuf_addstr(out, "?");
		return;
	}
	if (d < 60) {
		strbuf_addstr(out, d < 0 ? "in the future" : "just now");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (d >= units[i].secs) {
			int64_t n = d / units[i].secs;

			strbuf_addf(out, "%lld %s", (long long)n, n == 1 ? units[i].one :
				    units[i].many);
			return;
		}
	}
}

void text_shell_quote(struct strbuf *sb, const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("@%+=:,./_-", *p))
			break;
	if (*s && !*p) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

void text_c_code(const char *s, size_t len, struct strbuf *out)
{
	const char *e = s + len;
	char quote = 0;

	while (s < e) {
		if (!quote && s + 1 < e && s[0] == '/' && s[1] == '*') {
			const char *end = strstr(s + 2, "*/");

			s = end && end < e ? end + 2 : e;
			if (out->len && out->buf[out->len - 1] != ' ')
				strbuf_addch(out, ' ');
			continue;
		}
		if (!quote && s + 1 < e && s[0] == '/' && s[1] == '/') {
			while (s < e && *s != '\n')
				s++;
			continue;
		}
		if (quote && *s == '\\' && s + 1 < e) {
			strbuf_add(out, s, 2);
			s += 2;
			continue;
		}
		if (*s == '"' || *s == '\'')
			quote = !quote ? *s : quote == *s ? 0 : quote;
		if (!quote && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
			if (out->len && out->buf[out->len - 1] != ' ')
				strbuf_addch(out, ' ');
			s++;
			continue;
		}
		strbuf_addch(out, *s++);
	}
	strbuf_rtrim(out);
}
