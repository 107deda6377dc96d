// SPDX-License-Identifier: GPL-2.0
/*
 * Typos in commit messages and the cover letter, with the dictionary of
 * Debian's codespell package ("wrong->right" lines; several corrections,
 * or a trailing comma, mean codespell would not fix it on its own).
 *
 * The words of the texts are collected first and the dictionary is read
 * once, looking up only those: no 37,000-entry table is built.  Trailer
 * lines, quoted lines and URLs are skipped, and so are words glued to
 * digits or underscores (identifiers).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/strmap.h"
#include "checkers/rules.h"

static const char *const dict_paths[] = {
	"/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt",
	"/usr/share/codespell/dictionary.txt",
};

#define MAX_DICT (16 << 20)

/*
 * Kernel words codespell's dictionary takes for typos: names of mm
 * subsystems and flags that commit messages use as words.  Each one was a
 * false alarm on the corpus (bench/corpus/).
 */
static const char *const kernel_words[] = {
	"damon",	/* Data Access MONitor, mm/damon/ */
	"uptodate",	/* PG_uptodate, folio_test_uptodate() */
};

static bool kernel_word(const char *low)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kernel_words); i++)
		if (!strcmp(low, kernel_words[i]))
			return true;
	return false;
}

struct word {
	const char *s;		/* in the text */
	int len;
	int line;
	int text;		/* index into texts */
};

struct words {
	struct word *v;
	size_t nr, alloc;
	struct strmap seen;	/* lowercase word -> correction (or "") */
};

/*
 * "  intevals ==> intervals": a patch fixing typos lists them (15 false
 * alarms on one patch of the corpus)
 */
static bool typo_pair(const char *l, size_t n)
{
	static const char *const arrows[] = { "==>", "=>", "->", "-->" };
	size_t i = 0, k, a;

	while (i < n && isspace((unsigned char)l[i]))
		i++;
	k = i;
	while (k < n && !isspace((unsigned char)l[k]))
		k++;
	if (k == i)
		return false;
	while (k < n && l[k] == ' ')
		k++;
	for (a = 0; a < ARRAY_SIZE(arrows); a++) {
		size_t al = strlen(arrows[a]);

		if (k + al <= n && !strncmp(l + k, arrows[a], al) &&
		    (k + al == n || l[k + al] == ' '))
			return true;
	}
	return false;
}

static bool skip_line(const char *l, size_t n)
{
	size_t i = 0;

	if (n && (l[0] == '>' || l[0] == '|'))
		return true;
	if (typo_pair(l, n))
		return true;
	/* a trailer: "Name-by: ...", "Cc: ...", "Link: ..." */
	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '-'))
		i++;
	return i && i < n && l[i] == ':' && i + 1 < n && l[i + 1] == ' ';
}

static void collect(struct words *w, const char *text, int first_line, int ti)
{
	const char *p = text;
	int line = first_line;

	while (*p) {
		const char *e = strchrnul(p, '\n'), *q = p;

		if (!skip_line(p, e - p)) {
			while (q < e) {
				const char *b;

				if (!strncmp(q, "http://", 7) || !strncmp(q, "https://", 8)) {
					while (q < e && !isspace((unsigned char)*q))
						q++;
					continue;
				}
				if (!isalpha((unsigned char)*q)) {
					q++;
					continue;
				}
				b = q;
				while (q < e && (isalpha((unsigned char)*q) ||
						 (*q == '\'' && q + 1 < e &&
						  isalpha((unsigned char)q[1]))))
					q++;
				if ((b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_' ||
					       b[-1] == '/' || b[-1] == '.')) ||
				    (q < e && (isdigit((unsigned char)*q) || *q == '_' ||
					       *q == '(' || *q == '/')))
					continue;
				if (q - b >= 3) {
					char *low = xstrndup(b, q - b);
					char *k;

					for (k = low; *k; k++)
						*k = tolower((unsigned char)*k);
					if (!strmap_get(&w->seen, low))
						strmap_put(&w->seen, low, (void *)"");
					else
						free(low);
					ALLOC_GROW(w->v, w->nr + 1, w->alloc);
					w->v[w->nr++] = (struct word){ b, (int)(q - b), line, ti };
				}
			}
		}
		p = *e ? e + 1 : e;
		line++;
	}
}

/* Look every collected word up in the dictionary; corrections are kept */
static int lookup(struct words *w, const char *path, char **dict)
{
	size_t len, pos = 0;
	int r;

	r = util_read_file(path, dict, &len, MAX_DICT);
	if (r)
		return r;
	while (pos < len) {
		char *l = *dict + pos, *nl = memchr(l, '\n', len - pos), *arrow;
		size_t n = nl ? (size_t)(nl - l) : len - pos;

		pos += n + 1;
		arrow = memmem(l, n, "->", 2);
		if (!arrow)
			continue;
		*arrow = '\0';
		if (nl)
			*nl = '\0';
		if (strmap_get(&w->seen, l))
			strmap_put(&w->seen, l, arrow + 2);
	}
	return 0;
}

static void report(struct check_ctx *c, struct check_patch *p,
		   const struct word *x, const char *fix)
{
	struct strbuf sb = STRBUF_INIT;
	const char *q = fix;
	size_t flen = strlen(fix);
	struct finding *f;

	while (flen && (fix[flen - 1] == ',' || fix[flen - 1] == ' '))
		flen--;
	/* keep the writer's capital: "Specifc" -> "Specific" */
	while (q < fix + flen) {
		const char *e = memchr(q, ',', fix + flen - q);
		size_t n = e ? (size_t)(e - q) : (size_t)(fix + flen - q);

		if (sb.len)
			strbuf_addstr(&sb, " or ");
		strbuf_addch(&sb, '\'');
		strbuf_addch(&sb, isupper((unsigned char)x->s[0]) ?
			     toupper((unsigned char)*q) : *q);
		strbuf_add(&sb, q + 1, n - 1);
		strbuf_addch(&sb, '\'');
		q += n;
		while (q < fix + flen && (*q == ',' || *q == ' '))
			q++;
	}
	c->patch = p;
	f = check_report(c, NULL, CHECK_WARNING, NULL, x->line,
			 "'%.*s' may be a typo of %s", x->len, x->s, sb.buf);
	f->quote = xstrndup(x->s, x->len);
	c->patch = NULL;
	strbuf_release(&sb);
}

static void codespell_run(struct check_ctx *c)
{
	struct words w = { 0 };
	struct check_patch **texts;
	char *dict = NULL;
	const char *path = c->o->codespell_dict;
	size_t i, nt = 0, k;
	int r = -ENOENT;

	texts = xcalloc(c->s->nr + 1, sizeof(*texts));
	if (c->s->cover)
		texts[nt++] = c->s->cover;
	for (i = 0; i < c->s->nr; i++)
		texts[nt++] = c->s->patches[i];
	for (i = 0; i < nt; i++) {
		struct check_patch *p = texts[i];

		if (p->n && p->p.subject)
			collect(&w, p->p.subject, 1, (int)i);
		if (p->p.message)
			collect(&w, p->p.message, p->n ? 3 : 1, (int)i);
	}
	if (path)
		r = lookup(&w, path, &dict);
	for (k = 0; !path && k < ARRAY_SIZE(dict_paths) && r == -ENOENT; k++)
		r = lookup(&w, dict_paths[k], &dict);
	if (r) {
		check_report(c, NULL, CHECK_NOTE, NULL, 0,
			     "codespell's dictionary could not be read (%s): %s",
			     path ? path : dict_paths[0], strerror(-r));
		goto out;
	}
	for (i = 0; i < w.nr; i++) {
		char *low = xstrndup(w.v[i].s, w.v[i].len), *q;
		const char *fix;

		for (q = low; *q; q++)
			*q = tolower((unsigned char)*q);
		fix = strmap_get(&w.seen, low);
		if (fix && *fix && !kernel_word(low))
			report(c, texts[w.v[i].text], &w.v[i], fix);
		free(low);
	}
out:
	free(dict);
	free(w.v);
	for (k = 0; k < w.seen.size; k++)
		if (w.seen.e[k].hash)
			free((char *)w.seen.e[k].key);
	strmap_release(&w.seen);
	free(texts);
}

const struct checker codespell_checker = {
	.name = "codespell",
	.summary = "typos in commit messages and the cover letter",
	.scope = CHECK_SCOPE_SERIES,
	.severity = CHECK_WARNING,
	.on = true,
	.run = codespell_run,
};
