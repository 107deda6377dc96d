// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer of the C scanner: views of a touched file, tokens without
 * comments, preprocessor lines apart, brackets matched per segment.
 */
#include <ctype.h>
#include <stdlib.h>

#include "checkers/cscan.h"

#define MAX_PP_NEST 64
#define MAX_BRACKETS 4096

static void add_line(struct cview *v, const char *text, int len, int no,
		     bool added, int seg)
{
	struct cline *l;

	ALLOC_GROW(v->lines, v->nr_lines + 1, v->alloc_lines);
	l = &v->lines[v->nr_lines++];
	l->text = text;
	l->len = len;
	l->no = no;
	l->added = added;
	l->pp = false;
	l->elision = false;
	l->moved = false;
	l->seg = seg;
}

static struct cseg *add_seg(struct cview *v, const char *hint, size_t hint_len)
{
	struct cseg *s;

	ALLOC_GROW(v->segs, v->nr_segs + 1, v->alloc_segs);
	s = &v->segs[v->nr_segs++];
	memset(s, 0, sizeof(*s));
	s->first_line = s->end_line = v->nr_lines;
	if (hint && hint_len) {
		s->func_hint = xstrndup(hint, hint_len);
		v->hints = xrealloc(v->hints, (v->nr_segs + 1) * sizeof(*v->hints));
		v->hints[v->nr_segs - 1] = s->func_hint;
	} else {
		v->hints = xrealloc(v->hints, (v->nr_segs + 1) * sizeof(*v->hints));
		v->hints[v->nr_segs - 1] = NULL;
	}
	return s;
}

/* "static bool foo(struct x *a," -> "foo"; NULL when it is not a function */
static const char *hint_name(const char *h, size_t *len)
{
	const char *paren = strchr(h, '(');
	const char *e, *b;

	if (!paren || paren == h)
		return NULL;
	e = paren;
	while (e > h && e[-1] == ' ')
		e--;
	b = e;
	while (b > h && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
		b--;
	if (b == e || b == h)	/* no name, or no type before it */
		return NULL;
	*len = e - b;
	return b;
}

/*
 * What the function of a hunk header returns, by the words before its
 * name at b (h..b): 1 a value, 2 a pointer or void ("static bool" is 1,
 * "static struct page *" and "static void" are 2)
 */
static signed char header_ret(const char *h, const char *b)
{
	const char *p;

	for (p = h; p < b; p++)
		if (*p == '*' || *p == '(' || *p == ')')
			return 2;
	for (p = h; p + 4 <= b; p++)
		if (!memcmp(p, "void", 4) && (p == h || !isalnum((unsigned char)p[-1])) &&
		    (p + 4 == b || !isalnum((unsigned char)p[4])))
			return 2;
	return 1;
}

void cview_from_hunks(struct cview *v, const struct diff_file *f)
{
	size_t i, j;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < f->nr; i++) {
		const struct diff_hunk *h = &f->hunks[i];
		const char *ctx = strstr(h->header + 2, "@@");
		const char *name = NULL;
		size_t nlen = 0;
		struct cseg *s;

		if (ctx) {
			ctx += 2;
			while (*ctx == ' ')
				ctx++;
			name = hint_name(ctx, &nlen);
		}
		s = add_seg(v, name, nlen);
		if (name)
			s->hint_ret = header_ret(ctx, name);
		for (j = 0; j < h->nr; j++) {
			const struct diff_line *l = &h->lines[j];

			if (l->kind == '-')
				continue;
			add_line(v, l->text, (int)l->len, l->new_no,
				 l->kind == '+', v->nr_segs - 1);
		}
		s = &v->segs[v->nr_segs - 1];
		s->end_line = v->nr_lines;
	}
	cview_lex(v);
	cview_parse(v);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

void cview_from_text(struct cview *v, char *text, size_t len,
		     const struct diff_file *f)
{
	int *added = NULL, nr_added = 0, k = 0;
	size_t alloc_added = 0;
	size_t i, j, pos = 0;
	int no = 1;

	memset(v, 0, sizeof(*v));
	v->own = text;
	v->complete = true;
	for (i = 0; f && i < f->nr; i++)
		for (j = 0; j < f->hunks[i].nr; j++)
			if (f->hunks[i].lines[j].kind == '+') {
				ALLOC_GROW(added, nr_added + 1, alloc_added);
				added[nr_added++] = f->hunks[i].lines[j].new_no;
			}
	if (nr_added)
		qsort(added, nr_added, sizeof(*added), cmp_int);
	add_seg(v, NULL, 0);
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - text) : len;
		bool a;

		while (k < nr_added && added[k] < no)
			k++;
		a = k < nr_added && added[k] == no;
		add_line(v, text + pos, (int)(e - pos), no++, a, 0);
		pos = e + 1;
	}
	v->segs[0].end_line = v->nr_lines;
	free(added);
	cview_lex(v);
	cview_parse(v);
}

void cview_release(struct cview *v)
{
	int i;

	free(v->lines);
	free(v->toks);
	free(v->pptoks);
	free(v->macros);
	for (i = 0; i < v->nr_segs; i++)
		free(v->hints[i]);
	free(v->hints);
	free(v->segs);
	free(v->nodes);
	free(v->own);
	memset(v, 0, sizeof(*v));
}

/* lexing */

static const char *const puncts[] = {
	">>=", "<<=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
	"!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##",
};

struct lexer {
	struct cview *v;
	bool in_comment;
	/* bracket stacks: the live one and snapshots at #if */
	int stack[MAX_BRACKETS];
	int depth;
	int *snap[MAX_PP_NEST];
	int snap_depth[MAX_PP_NEST];
	int nest;
};

static void push_tok(struct lexer *lx, bool pp, const char *s, int len,
		     enum ctok_kind kind, int line, int col)
{
	struct cview *v = lx->v;
	struct ctok *t;

	if (pp) {
		ALLOC_GROW(v->pptoks, v->nr_pptoks + 1, v->alloc_pptoks);
		t = &v->pptoks[v->nr_pptoks++];
	} else {
		ALLOC_GROW(v->toks, v->nr_toks + 1, v->alloc_toks);
		t = &v->toks[v->nr_toks++];
	}
	t->s = s;
	t->len = len;
	t->kind = kind;
	t->line = line;
	t->col = col;
	t->match = -1;
	if (pp || kind != CT_PUNCT || len != 1)
		return;
	if (*s == '(' || *s == '[' || *s == '{') {
		if (lx->depth < MAX_BRACKETS)
			lx->stack[lx->depth++] = v->nr_toks - 1;
	} else if (*s == ')' || *s == ']' || *s == '}') {
		char open = *s == ')' ? '(' : *s == ']' ? '[' : '{';
		int d = lx->depth;

		/* a closer matches the nearest opener of its kind */
		while (d > 0 && v->toks[lx->stack[d - 1]].s[0] != open)
			d--;
		if (!d)
			return;
		/* openers left open inside stay unmatched */
		t->match = lx->stack[d - 1];
		v->toks[t->match].match = v->nr_toks - 1;
		lx->depth = d - 1;
	}
}

/* Scan one line (or its rest from pos) into tokens */
static void lex_line(struct lexer *lx, int li, bool pp)
{
	const struct cline *l = &lx->v->lines[li];
	const char *s = l->text;
	int n = l->len, i = 0;

	while (i < n) {
		char c = s[i];

		if (lx->in_comment) {
			const char *e = NULL;
			int k;

			for (k = i; k + 1 < n; k++)
				if (s[k] == '*' && s[k + 1] == '/') {
					e = s + k;
					break;
				}
			if (!e)
				return;
			lx->in_comment = false;
			i = (int)(e - s) + 2;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '\\' && pp) {	/* a line continuation */
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/')
			return;
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			lx->in_comment = true;
			i += 2;
			continue;
		}
		if (isalpha((unsigned char)c) || c == '_' || c == '$') {
			int b = i;

			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
					 s[i] == '$'))
				i++;
			push_tok(lx, pp, s + b, i - b, CT_IDENT, li, b);
			continue;
		}
		if (isdigit((unsigned char)c) ||
		    (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
			int b = i;

			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
					 s[i] == '.' ||
					 ((s[i] == '+' || s[i] == '-') &&
					  (s[i - 1] == 'e' || s[i - 1] == 'E' ||
					   s[i - 1] == 'p' || s[i - 1] == 'P'))))
				i++;
			push_tok(lx, pp, s + b, i - b, CT_NUMBER, li, b);
			continue;
		}
		if (c == '"' || c == '\'') {
			int b = i++;

			while (i < n && s[i] != c) {
				if (s[i] == '\\')
					i++;
				i++;
			}
			if (i < n)
				i++;
			if (i > n)
				i = n;
			push_tok(lx, pp, s + b, i - b, c == '"' ? CT_STRING : CT_CHAR,
				 li, b);
			continue;
		}
		{
			size_t k;
			int len = 1;

			for (k = 0; k < ARRAY_SIZE(puncts); k++) {
				int pl = (int)strlen(puncts[k]);

				if (pl <= n - i && !memcmp(s + i, puncts[k], pl)) {
					len = pl;
					break;
				}
			}
			push_tok(lx, pp, s + i, len, CT_PUNCT, li, i);
			i += len;
		}
	}
}

static bool directive(const struct cline *l, const char *name)
{
	const char *p = l->text, *e = l->text + l->len;
	size_t n = strlen(name);

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= e || *p != '#')
		return false;
	p++;
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return (size_t)(e - p) >= n && !memcmp(p, name, n) &&
	       ((size_t)(e - p) == n || !isalnum((unsigned char)p[n]));
}

static bool is_pp_start(const struct cline *l)
{
	int i = 0;

	while (i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'))
		i++;
	return i < l->len && l->text[i] == '#';
}

static bool continues(const struct cline *l)
{
	int e = l->len;

	while (e > 0 && (l->text[e - 1] == ' ' || l->text[e - 1] == '\t' ||
			 l->text[e - 1] == '\r'))
		e--;
	return e > 0 && l->text[e - 1] == '\\';
}

static void pp_branch(struct lexer *lx, const struct cline *l)
{
	if (directive(l, "if") || directive(l, "ifdef") || directive(l, "ifndef")) {
		if (lx->nest < MAX_PP_NEST) {
			lx->snap[lx->nest] = xmalloc((lx->depth + 1) * sizeof(int));
			memcpy(lx->snap[lx->nest], lx->stack, lx->depth * sizeof(int));
			lx->snap_depth[lx->nest] = lx->depth;
		}
		lx->nest++;
	} else if (directive(l, "else") || directive(l, "elif") ||
		   directive(l, "elifdef") || directive(l, "elifndef")) {
		if (lx->nest > 0 && lx->nest <= MAX_PP_NEST) {
			int k = lx->nest - 1;

			memcpy(lx->stack, lx->snap[k], lx->snap_depth[k] * sizeof(int));
			lx->depth = lx->snap_depth[k];
		}
	} else if (directive(l, "endif")) {
		if (lx->nest > 0) {
			lx->nest--;
			if (lx->nest < MAX_PP_NEST)
				free(lx->snap[lx->nest]);
		}
	}
}

/* Does the segment start inside a block comment ("*" lines, then "* /")? */
/*
 * A line inside a block comment: a star, then a blank, the end of the
 * line or the closing slash (a dereference "*pte = x" has no blank after
 * its star)
 */
static bool comment_line(const struct cline *l)
{
	int i = 0;

	while (i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'))
		i++;
	return i < l->len && l->text[i] == '*' &&
	       (i + 1 == l->len || l->text[i + 1] == ' ' || l->text[i + 1] == '\t' ||
		l->text[i + 1] == '/');
}

static bool starts_in_comment(const struct cview *v, const struct cseg *s)
{
	int li, i;

	/* a hunk that starts inside a comment block: its first text line */
	for (li = s->first_line; li < s->end_line; li++) {
		const struct cline *l = &v->lines[li];

		if (cview_line_indent(l) < 0)
			continue;
		if (comment_line(l))
			return true;
		break;
	}
	for (li = s->first_line; li < s->end_line; li++) {
		const struct cline *l = &v->lines[li];

		for (i = 0; i + 1 < l->len; i++) {
			if (l->text[i] == '/' && l->text[i + 1] == '*')
				return false;
			if (l->text[i] == '*' && l->text[i + 1] == '/')
				return true;
			if (l->text[i] == '"' || (l->text[i] == '/' && l->text[i + 1] == '/'))
				break;
		}
	}
	return false;
}

static void add_macro(struct lexer *lx, int first_pp, int line)
{
	struct cview *v = lx->v;
	struct cmacro *m;
	int i = first_pp, li;

	/* "#" "define" NAME [ "(" params ")" ] body */
	if (i + 2 >= v->nr_pptoks || !ctok_is(&v->pptoks[i + 1], "define") ||
	    v->pptoks[i + 2].kind != CT_IDENT)
		return;
	ALLOC_GROW(v->macros, v->nr_macros + 1, v->alloc_macros);
	m = &v->macros[v->nr_macros++];
	m->name = i + 2;
	m->line = line;
	i += 3;
	/* function-like: "(" immediately after the name */
	if (i < v->nr_pptoks && ctok_is(&v->pptoks[i], "(") &&
	    v->pptoks[i].line == v->pptoks[i - 1].line &&
	    v->pptoks[i].col == v->pptoks[i - 1].col + v->pptoks[i - 1].len) {
		while (i < v->nr_pptoks && !ctok_is(&v->pptoks[i], ")"))
			i++;
		i++;
	}
	m->first = i;
	m->last = v->nr_pptoks - 1;
	m->added = false;
	for (li = line; li < v->nr_lines; li++) {
		if (v->lines[li].added)
			m->added = true;
		if (!continues(&v->lines[li]))
			break;
	}
}

/* "[...]", "[... unchanged lines ...]": what a mail left out */
static bool is_elision(const struct cline *l)
{
	int i = 0, e = l->len;

	while (i < e && isspace((unsigned char)l->text[i]))
		i++;
	while (e > i && isspace((unsigned char)l->text[e - 1]))
		e--;
	if (e - i < 5 || l->text[i] != '[' || l->text[e - 1] != ']')
		return false;
	for (i++; i < e && l->text[i] == ' '; i++)
		;
	return e - i >= 4 && !memcmp(l->text + i, "...", 3);
}

/*
 * The function lines [first, end) leave open: the last head at column 0
 * ("static bool foo(struct x *a,") not closed by a "}" at column 0
 * after it, else hint (the segment's own)
 */
static char *open_function(const struct cview *v, int first, int end,
			   const char *hint)
{
	const char *name = NULL;
	size_t len = 0;
	int li;

	for (li = first; li < end; li++) {
		const struct cline *l = &v->lines[li];
		char buf[256];
		const char *n;
		size_t k = (size_t)l->len < sizeof(buf) - 1 ? (size_t)l->len : sizeof(buf) - 1;

		if (!l->len || isspace((unsigned char)l->text[0]) || l->elision)
			continue;
		if (l->text[0] == '}') {
			name = NULL;
			hint = NULL;
			continue;
		}
		memcpy(buf, l->text, k);
		buf[k] = '\0';
		if (strchr(buf, ';') || strchr(buf, '#') || strstr(buf, "/*"))
			continue;
		n = hint_name(buf, &len);
		if (n)
			name = l->text + (n - buf);
	}
	if (name)
		return xstrndup(name, len);
	return hint ? xstrdup(hint) : NULL;
}

/* Split the segments at elision lines (which stay, without code) */
static void split_elisions(struct cview *v)
{
	struct cseg *segs = NULL;
	char **hints = NULL;
	size_t alloc = 0;
	int nr = 0, si, li, found = 0;

	for (li = 0; li < v->nr_lines; li++)
		if (is_elision(&v->lines[li]))
			v->lines[li].elision = ++found;
	if (!found)
		return;
	for (si = 0; si < v->nr_segs; si++) {
		struct cseg cur = v->segs[si];
		char *hint = v->hints[si];

		for (li = cur.first_line; li < cur.end_line; li++) {
			if (!v->lines[li].elision || li + 1 >= cur.end_line)
				continue;
			ALLOC_GROW(segs, nr + 1, alloc);
			hints = xrealloc(hints, (nr + 1) * sizeof(*hints));
			segs[nr] = cur;
			segs[nr].end_line = li + 1;
			segs[nr].func_hint = hints[nr] = hint;
			nr++;
			hint = open_function(v, cur.first_line, li + 1, hint);
			cur.first_line = li + 1;
			cur.hint_ret = 0;
		}
		ALLOC_GROW(segs, nr + 1, alloc);
		hints = xrealloc(hints, (nr + 1) * sizeof(*hints));
		segs[nr] = cur;
		segs[nr].func_hint = hints[nr] = hint;
		nr++;
	}
	free(v->segs);
	free(v->hints);
	v->segs = segs;
	v->hints = hints;
	v->nr_segs = nr;
	v->alloc_segs = alloc;
	for (si = 0; si < nr; si++)
		for (li = segs[si].first_line; li < segs[si].end_line; li++)
			v->lines[li].seg = si;
}

void cview_lex(struct cview *v)
{
	struct lexer *lx = xcalloc(1, sizeof(*lx));
	int si, li;

	split_elisions(v);
	lx->v = v;
	for (si = 0; si < v->nr_segs; si++) {
		struct cseg *s = &v->segs[si];
		bool cont = false;

		lx->in_comment = starts_in_comment(v, s);
		lx->depth = 0;
		while (lx->nest > 0) {
			lx->nest--;
			if (lx->nest < MAX_PP_NEST)
				free(lx->snap[lx->nest]);
		}
		s->first_tok = v->nr_toks;
		for (li = s->first_line; li < s->end_line; li++) {
			struct cline *l = &v->lines[li];

			if (!lx->in_comment && (cont || is_pp_start(l))) {
				int first_pp = v->nr_pptoks;

				l->pp = true;
				if (!cont)
					pp_branch(lx, l);
				lex_line(lx, li, true);
				if (!cont && first_pp < v->nr_pptoks)
					add_macro(lx, first_pp, li);
				else if (cont && v->nr_macros &&
					 v->macros[v->nr_macros - 1].last >= 0 &&
					 v->macros[v->nr_macros - 1].line < li &&
					 v->macros[v->nr_macros - 1].last == first_pp - 1)
					v->macros[v->nr_macros - 1].last = v->nr_pptoks - 1;
				cont = continues(l);
				/* a comment opened on a directive line ends it */
				continue;
			}
			cont = false;
			if (!l->elision)
				lex_line(lx, li, false);
		}
		s->end_tok = v->nr_toks;
	}
	while (lx->nest > 0) {
		lx->nest--;
		if (lx->nest < MAX_PP_NEST)
			free(lx->snap[lx->nest]);
	}
	free(lx);
}

/* helpers */

static void toks_text(const struct ctok *toks, int first, int last,
		      struct strbuf *sb)
{
	int i;

	for (i = first; i <= last; i++) {
		const struct ctok *t = &toks[i];

		if (i > first) {
			const struct ctok *p = &toks[i - 1];

			if (p->line != t->line || p->col + p->len != t->col)
				strbuf_addch(sb, ' ');
		}
		strbuf_add(sb, t->s, t->len);
	}
}

void cview_text(const struct cview *v, int first, int last, struct strbuf *sb)
{
	toks_text(v->toks, first, last, sb);
}

void cview_pptext(const struct cview *v, int first, int last, struct strbuf *sb)
{
	toks_text(v->pptoks, first, last, sb);
}

bool cview_range_added(const struct cview *v, int first, int last)
{
	int li;

	if (first < 0 || last < first)
		return false;
	for (li = v->toks[first].line; li <= v->toks[last].line; li++)
		if (v->lines[li].added)
			return true;
	return false;
}

void cview_quote(const struct cview *v, int first, int last, struct strbuf *sb)
{
	int li;

	if (first < 0 || last < first)
		return;
	for (li = v->toks[first].line; li <= v->toks[last].line; li++) {
		strbuf_add(sb, v->lines[li].text, v->lines[li].len);
		strbuf_addch(sb, '\n');
	}
}

bool cview_node_func_is(const struct cview *v, int fn, const char *s, int len)
{
	const struct cnode *n;

	if (fn < 0)
		return false;
	n = &v->nodes[fn];
	return n->fname && n->fname_len == len && !memcmp(n->fname, s, len);
}

int cview_find(const struct cview *v, int first, int last, const char *s)
{
	int i;

	for (i = first; i <= last && i < v->nr_toks; i++)
		if (ctok_is(&v->toks[i], s))
			return i;
	return -1;
}

bool cview_node_within(const struct cview *v, int a, int b)
{
	while (a >= 0) {
		if (a == b)
			return true;
		a = v->nodes[a].parent;
	}
	return false;
}

static void strip_parens(const struct cview *v, struct cterm *t)
{
	for (;;) {
		while (t->first <= t->last && cv_is(v, t->first, "!")) {
			t->neg = !t->neg;
			t->first++;
		}
		if (t->first < t->last && cv_is(v, t->first, "(") &&
		    v->toks[t->first].match == t->last) {
			/* "!(a && b)" keeps neg on the group */
			if (t->neg)
				return;
			t->first++;
			t->last--;
			continue;
		}
		return;
	}
}

int cview_split(const struct cview *v, int first, int last, const char *op,
		struct cterm *out, int max)
{
	struct cterm whole = { first, last, false };
	int n = 0, i, start;

	/* outer parentheses, and a negated group: "!(a && b)" is one term */
	for (;;) {
		int k = whole.first;

		while (k < whole.last && cv_is(v, k, "!"))
			k++;
		if (k >= whole.last || !cv_is(v, k, "(") ||
		    v->toks[k].match != whole.last)
			break;
		if (k > whole.first) {
			strip_parens(v, &whole);
			if (max > 0)
				out[0] = whole;
			return max > 0 ? 1 : 0;
		}
		whole.first++;
		whole.last--;
	}
	start = whole.first;
	for (i = whole.first; i <= whole.last; i++) {
		const struct ctok *t = &v->toks[i];

		if ((ctok_is(t, "(") || ctok_is(t, "[") || ctok_is(t, "{")) &&
		    t->match > i && t->match <= whole.last) {
			i = t->match;
			continue;
		}
		if (ctok_is(t, op)) {
			if (n < max && start <= i - 1) {
				out[n] = (struct cterm){ start, i - 1, false };
				strip_parens(v, &out[n]);
				n++;
			}
			start = i + 1;
		}
	}
	if (n < max && start <= whole.last) {
		out[n] = (struct cterm){ start, whole.last, false };
		strip_parens(v, &out[n]);
		n++;
	}
	return n;
}
