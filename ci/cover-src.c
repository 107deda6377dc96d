// SPDX-License-Identifier: GPL-2.0
/*
 * A C source file as the coverage sees it (ci/cover.h): per line,
 * whether it holds code, a directive or nothing, and the conditional
 * group it is in.  Comments, string and character literals and line
 * continuations are followed; nothing else of C is.
 */
#include <stdlib.h>

#include "lib/util.h"
#include "ci/cover.h"

#define DIRECTIVE_SHOWN 72	/* characters of a directive kept for messages */

/* ---- needs ---- */

static void add_sym(char ***v, size_t *nr, size_t *alloc, const char *s)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], s))
			return;
	ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[(*nr)++] = xstrdup(s);
}

void cover_needs_on(struct cover_needs *n, const char *sym)
{
	add_sym(&n->on, &n->on_nr, &n->on_alloc, sym);
}

void cover_needs_off(struct cover_needs *n, const char *sym)
{
	add_sym(&n->off, &n->off_nr, &n->off_alloc, sym);
}

void cover_needs_fixed(struct cover_needs *n, const char *why)
{
	if (!n->fixed)
		n->fixed = xstrdup(why);
}

void cover_needs_merge(struct cover_needs *dst, const struct cover_needs *src)
{
	size_t i;

	for (i = 0; i < src->on_nr; i++)
		cover_needs_on(dst, src->on[i]);
	for (i = 0; i < src->off_nr; i++)
		cover_needs_off(dst, src->off[i]);
	if (src->fixed)
		cover_needs_fixed(dst, src->fixed);
}

void cover_needs_release(struct cover_needs *n)
{
	size_t i;

	for (i = 0; i < n->on_nr; i++)
		free(n->on[i]);
	for (i = 0; i < n->off_nr; i++)
		free(n->off[i]);
	free(n->on);
	free(n->off);
	free(n->fixed);
	memset(n, 0, sizeof(*n));
}

/* ---- scanning ---- */

struct chain {
	int group;		/* the open group of this #if chain */
	int outer;		/* the group around the chain */
	struct strbuf negated;	/* "!(c1) && !(c2) && " of the groups before */
	char *first;		/* the #if line as written, for #else's message */
};

struct scan {
	struct cover_src *s;
	struct chain *ch;
	size_t ch_nr, ch_alloc;
	int cur;		/* innermost open group */
};

static int new_group(struct scan *sc, int parent, int line, int first,
		     const char *cond, const char *directive)
{
	struct cover_src *s = sc->s;
	struct cover_group *g;

	ALLOC_GROW(s->g, s->g_nr + 1, s->g_alloc);
	g = &s->g[s->g_nr];
	g->parent = parent;
	g->line = line;
	g->first = first;
	g->last = s->nr;
	g->cond = xstrdup(cond);
	g->directive = xstrdup(directive);
	return (int)s->g_nr++;
}

static const char *skip_sp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static size_t ident_len(const char *p)
{
	size_t n = 0;

	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
		n++;
	return n;
}

/* "#ifdef   CONFIG_X  " -> "#ifdef CONFIG_X", shortened */
static char *shown(const char *kw, size_t kwlen, const char *rest)
{
	struct strbuf sb = STRBUF_INIT;
	bool sp = false;
	const char *p;

	strbuf_addf(&sb, "#%.*s", (int)kwlen, kw);
	if (*rest)
		strbuf_addch(&sb, ' ');
	for (p = rest; *p && sb.len < DIRECTIVE_SHOWN; p++) {
		if (*p == ' ' || *p == '\t') {
			sp = true;
			continue;
		}
		if (sp)
			strbuf_addch(&sb, ' ');
		sp = false;
		strbuf_addch(&sb, *p);
	}
	if (*p)
		strbuf_addstr(&sb, "...");
	return strbuf_detach(&sb, NULL);
}

static void close_group(struct scan *sc, int line)
{
	struct chain *c = &sc->ch[sc->ch_nr - 1];

	sc->s->g[c->group].last = line - 1;
}

/*
 * A conditional directive (text: after the '#', comments gone,
 * continuations joined) on lines first..last.  Returns the group its
 * own lines belong to.
 */
static int conditional(struct scan *sc, const char *text, int first, int last)
{
	const char *p = skip_sp(text), *rest;
	size_t n = ident_len(p);
	struct strbuf cond = STRBUF_INIT;
	char *dir;
	int own = sc->cur;

	rest = skip_sp(p + n);
	dir = shown(p, n, rest);
	if ((n == 2 && !memcmp(p, "if", 2)) || (n == 5 && !memcmp(p, "ifdef", 5)) ||
	    (n == 6 && !memcmp(p, "ifndef", 6))) {
		struct chain *c;
		size_t m = ident_len(rest);

		if (n == 2)
			strbuf_addf(&cond, "(%s)", rest);
		else
			strbuf_addf(&cond, "%sdefined(%.*s)", n == 6 ? "!" : "",
				    (int)m, rest);
		ALLOC_GROW(sc->ch, sc->ch_nr + 1, sc->ch_alloc);
		c = &sc->ch[sc->ch_nr++];
		c->outer = sc->cur;
		c->first = xstrdup(dir);
		strbuf_init(&c->negated, 0);
		strbuf_addf(&c->negated, "!%s && ", cond.buf);
		c->group = new_group(sc, sc->cur, first, last + 1, cond.buf, dir);
		sc->cur = c->group;
	} else if (sc->ch_nr && ((n == 4 && !memcmp(p, "elif", 4)) ||
				 (n == 7 && !memcmp(p, "elifdef", 7)) ||
				 (n == 8 && !memcmp(p, "elifndef", 8)) ||
				 (n == 4 && !memcmp(p, "else", 4)))) {
		struct chain *c = &sc->ch[sc->ch_nr - 1];
		struct strbuf local = STRBUF_INIT;
		char *shown_dir;

		own = c->outer;
		close_group(sc, first);
		if (p[2] == 's')		/* else */
			strbuf_addstr(&local, "1");
		else if (n == 4)
			strbuf_addf(&local, "(%s)", rest);
		else
			strbuf_addf(&local, "%sdefined(%.*s)", n == 8 ? "!" : "",
				    (int)ident_len(rest), rest);
		strbuf_addf(&cond, "%s%s", c->negated.buf, local.buf);
		strbuf_addf(&c->negated, "!%s && ", local.buf);
		shown_dir = xasprintf("%s (after %s)", dir, c->first);
		c->group = new_group(sc, c->outer, first, last + 1, cond.buf, shown_dir);
		sc->cur = c->group;
		free(shown_dir);
		strbuf_release(&local);
	} else if (sc->ch_nr && n == 5 && !memcmp(p, "endif", 5)) {
		struct chain *c = &sc->ch[sc->ch_nr - 1];

		own = c->outer;
		close_group(sc, first);
		sc->cur = c->outer;
		strbuf_release(&c->negated);
		free(c->first);
		sc->ch_nr--;
	}
	free(dir);
	strbuf_release(&cond);
	return own;
}

static bool is_conditional(const char *text)
{
	static const char *const kws[] = {
		"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif",
	};
	const char *p = skip_sp(text);
	size_t n = ident_len(p), i;

	for (i = 0; i < ARRAY_SIZE(kws); i++)
		if (strlen(kws[i]) == n && !memcmp(kws[i], p, n))
			return true;
	return false;
}

void cover_src_scan(struct cover_src *s, const char *text, size_t len)
{
	struct scan sc = { .s = s };
	struct strbuf dtext = STRBUF_INIT;	/* the directive being read */
	const char *p = text, *end = text + len;
	bool in_comment = false, in_dir = false;
	int line = 0, dfirst = 0, i, nlines = 0;
	size_t k;

	memset(s, 0, sizeof(*s));
	for (k = 0; k < len; k++)
		nlines += text[k] == '\n';
	if (len && text[len - 1] != '\n')
		nlines++;
	s->nr = nlines;
	s->kind = xcalloc(nlines + 2, 1);
	s->group = xcalloc(nlines + 2, sizeof(*s->group));
	new_group(&sc, -1, 0, 1, "", "");

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *q;
		bool code = false, cont;

		if (!nl)
			nl = end;
		line++;
		cont = nl > p && nl[-1] == '\\';
		for (q = p; q < nl; q++) {
			if (in_comment) {
				if (q[0] == '*' && q + 1 < nl && q[1] == '/') {
					in_comment = false;
					q++;
				}
				continue;
			}
			if (q[0] == '/' && q + 1 < nl && q[1] == '*') {
				in_comment = true;
				q++;
				if (in_dir && dtext.len && dtext.buf[dtext.len - 1] != ' ')
					strbuf_addch(&dtext, ' ');
				continue;
			}
			if (q[0] == '/' && q + 1 < nl && q[1] == '/')
				break;
			if (q[0] == ' ' || q[0] == '\t' || q[0] == '\r' || q[0] == '\f' ||
			    (q[0] == '\\' && q + 1 == nl)) {
				if (in_dir && q[0] != '\\' && dtext.len &&
				    dtext.buf[dtext.len - 1] != ' ')
					strbuf_addch(&dtext, ' ');
				continue;
			}
			if (!code && !in_dir && q[0] == '#') {
				in_dir = true;
				dfirst = line;
				strbuf_reset(&dtext);
				code = true;
				continue;
			}
			code = true;
			if (q[0] == '"' || q[0] == '\'') {
				const char *o = q;

				for (q++; q < nl && *q != *o; q++)
					if (*q == '\\' && q + 1 < nl)
						q++;
				if (in_dir)
					strbuf_add(&dtext, o, (q < nl ? q + 1 : nl) - o);
				if (q >= nl)
					break;
				continue;
			}
			if (in_dir)
				strbuf_addch(&dtext, *q);
		}
		s->group[line] = sc.cur;
		if (in_dir) {
			s->kind[line] = COVER_DIRECTIVE;
			if (!cont || nl == end) {
				bool c = is_conditional(dtext.buf);
				int own = c ? conditional(&sc, dtext.buf, dfirst, line) : -1;

				for (i = dfirst; i <= line; i++) {
					s->kind[i] = c ? COVER_COND : COVER_DIRECTIVE;
					if (c)
						s->group[i] = own;
				}
				in_dir = false;
			}
		} else {
			s->kind[line] = code ? COVER_CODE : COVER_BLANK;
		}
		p = nl + 1;
	}
	/* unterminated chains end with the file */
	while (sc.ch_nr) {
		struct chain *c = &sc.ch[--sc.ch_nr];

		s->g[c->group].last = s->nr;
		strbuf_release(&c->negated);
		free(c->first);
	}
	free(sc.ch);
	strbuf_release(&dtext);
}

void cover_src_release(struct cover_src *s)
{
	size_t i;

	for (i = 0; i < s->g_nr; i++) {
		free(s->g[i].cond);
		free(s->g[i].directive);
	}
	free(s->g);
	free(s->kind);
	free(s->group);
	memset(s, 0, sizeof(*s));
}

bool cover_src_predict(const struct cover_src *s, int line, const struct kconf *c,
		       struct cover_needs *needs)
{
	bool ok = true;
	int g;

	if (line < 1 || line > s->nr)
		return false;
	for (g = s->group[line]; g > 0; g = s->g[g].parent) {
		if (cover_expr_eval(s->g[g].cond, c) != COVER_FALSE)
			continue;
		ok = false;
		if (needs)
			cover_expr_needs(s->g[g].cond, c, needs);
	}
	return ok;
}
