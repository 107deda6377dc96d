// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/template.h"
#include "lib/text.h"

static struct tvar *find(const struct tvars *t, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (strlen(t->v[i].name) == len && !memcmp(t->v[i].name, name, len))
			return &t->v[i];
	return NULL;
}

static void set(struct tvars *t, const char *name, const char *value, bool html)
{
	struct tvar *v = find(t, name, strlen(name));

	if (!v) {
		ALLOC_GROW(t->v, t->nr + 1, t->alloc);
		v = &t->v[t->nr++];
		v->name = xstrdup(name);
	} else {
		free(v->value);
	}
	v->value = xstrdup(value ? value : "");
	v->html = html;
}

void template_set(struct tvars *t, const char *name, const char *value)
{
	set(t, name, value, false);
}

void template_set_html(struct tvars *t, const char *name, const char *html)
{
	set(t, name, html, true);
}

void template_setf(struct tvars *t, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	set(t, name, sb.buf, false);
	strbuf_release(&sb);
}

const char *template_get(const struct tvars *t, const char *name)
{
	struct tvar *v = find(t, name, strlen(name));

	return v ? v->value : NULL;
}

void template_vars_release(struct tvars *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		free(t->v[i].name);
		free(t->v[i].value);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static bool name_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool name_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Expand one line (without its newline) into out; -1 on an error */
static int expand_line(const char *name, int lineno, const char *p, const char *end,
		       const struct tvars *vars, enum template_mode mode,
		       struct strbuf *out, struct strbuf *err, bool *all_empty)
{
	int placeholders = 0, nonempty = 0;

	while (p < end) {
		const char *dollar = memchr(p, '$', end - p);
		const char *n, *close;
		struct tvar *v;

		if (!dollar) {
			strbuf_add(out, p, end - p);
			break;
		}
		strbuf_add(out, p, dollar - p);
		if (dollar + 1 < end && dollar[1] == '$') {
			strbuf_addch(out, '$');
			p = dollar + 2;
			continue;
		}
		if (dollar + 1 >= end || dollar[1] != '{') {
			strbuf_addch(out, '$');
			p = dollar + 1;
			continue;
		}
		n = dollar + 2;
		close = memchr(n, '}', end - n);
		if (!close) {
			strbuf_addf(err, "%s:%d: '${' without a closing '}'", name, lineno);
			return -1;
		}
		if (close == n || !name_start((unsigned char)*n)) {
			strbuf_addf(err, "%s:%d: bad placeholder '%.*s'", name, lineno,
				    (int)(close - dollar + 1), dollar);
			return -1;
		}
		for (p = n; p < close; p++) {
			if (!name_char((unsigned char)*p)) {
				strbuf_addf(err, "%s:%d: bad placeholder '%.*s'", name, lineno,
					    (int)(close - dollar + 1), dollar);
				return -1;
			}
		}
		v = find(vars, n, close - n);
		if (!v) {
			strbuf_addf(err, "%s:%d: unknown variable '%.*s'", name, lineno,
				    (int)(close - n), n);
			return -1;
		}
		placeholders++;
		if (*v->value)
			nonempty++;
		if (mode == TEMPLATE_HTML && !v->html)
			text_html_escape(out, v->value);
		else
			strbuf_addstr(out, v->value);
		p = close + 1;
	}
	*all_empty = placeholders && !nonempty;
	return 0;
}

/*
 * Text mode: a prose line that a value made longer than TEMPLATE_FOLD is
 * wrapped at TEMPLATE_WRAP.  Prose: the template line has a placeholder,
 * expanded to one line, and does not start with a blank, '>', '|' or '['
 * (code, quotes, tags, base lines) nor with "key: " (the key/value block).
 */
#define TEMPLATE_FOLD 78
#define TEMPLATE_WRAP 72

static bool key_value(const char *p, const char *end)
{
	if (p >= end || !isalpha((unsigned char)*p))
		return false;
	while (p < end && (isalnum((unsigned char)*p) || *p == ' ' || *p == '-' || *p == '_'))
		p++;
	return p + 1 < end && p[0] == ':' && p[1] == ' ';
}

static void rewrap(struct strbuf *out, size_t start, const char *p, const char *end)
{
	char *line;

	if (!memchr(p, '$', end - p) || p == end || strchr(" \t>|[", *p) ||
	    key_value(p, end) || memchr(out->buf + start, '\n', out->len - start) ||
	    text_width(out->buf + start, out->len - start) <= TEMPLATE_FOLD)
		return;
	line = xstrdup(out->buf + start);
	strbuf_setlen(out, start);
	text_wrap(out, line, TEMPLATE_WRAP, NULL);
	free(line);
}

int template_expand(const char *name, const char *text, const struct tvars *vars,
		    enum template_mode mode, struct strbuf *out, struct strbuf *err)
{
	const char *p = text;
	int lineno = 0;
	bool dropped = false;

	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		size_t start = out->len;
		bool all_empty;

		lineno++;
		/* a blank line after a dropped one, which had a blank line before it */
		if (mode == TEMPLATE_TEXT && dropped && end == p &&
		    (out->len == 0 || util_ends_with(out->buf, "\n\n"))) {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (expand_line(name, lineno, p, end, vars, mode, out, err, &all_empty))
			return -1;
		dropped = mode == TEMPLATE_TEXT && all_empty;
		if (dropped)
			strbuf_setlen(out, start);
		else if (mode == TEMPLATE_TEXT)
			rewrap(out, start, p, end);
		if (!dropped && nl)
			strbuf_addch(out, '\n');
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static bool is_dir(const char *path)
{
	return access(path, R_OK | X_OK) == 0;
}

char *template_dir(const char *configured)
{
	const char *v = configured;
	char exe[PATH_MAX];
	ssize_t n;

	if (v && *v)
		return xstrdup(v);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash, *dir;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			dir = xasprintf("%s/../templates", exe);
			if (is_dir(dir))
				return dir;
			free(dir);
			dir = xasprintf("%s/../share/lorebot/templates", exe);
			if (is_dir(dir))
				return dir;
			free(dir);
		}
	}
	return xstrdup("/usr/share/lorebot/templates");
}

int template_load(const char *dir, const char *file, struct strbuf *text,
		  struct strbuf *err)
{
	char *path = xasprintf("%s/%s", dir, file), *buf;
	size_t len;
	int r = util_read_file(path, &buf, &len, 1u << 20);

	if (r) {
		strbuf_addf(err, "cannot read template '%s': %s", path, strerror(-r));
		free(path);
		return -1;
	}
	strbuf_reset(text);
	strbuf_add(text, buf, len);
	free(buf);
	free(path);
	return 0;
}

int template_render(const char *dir, const char *file, const struct tvars *vars,
		    enum template_mode mode, struct strbuf *out, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int r = template_load(dir, file, &text, err);

	if (!r)
		r = template_expand(file, text.buf, vars, mode, out, err);
	strbuf_release(&text);
	return r;
}
