// SPDX-License-Identifier: GPL-2.0
/*
 * The statement tree of the C scanner: functions at file scope, and
 * inside them blocks, conditions, loops, jumps and expressions.  The
 * parser never fails: what it cannot make sense of becomes an
 * expression statement, and nesting deeper than MAX_DEPTH is skipped.
 * The views of cscan.c call it; it calls nothing of theirs, and holds
 * the line geometry (columns, indentation) it shares with the rules.
 */
#include <stdlib.h>

#include "checkers/cscan.h"

#define MAX_DEPTH 200

struct parser {
	struct cview *v;
	int end;		/* end of the segment's tokens */
	int depth;
	int func;		/* the function being parsed, -1 */
};

/* Line geometry (cscan.h): the parser reads indentation, rules too */
int cview_line_width(const struct cline *l, int col)
{
	int w = 0, i;

	for (i = 0; i < col && i < l->len; i++)
		w = l->text[i] == '\t' ? (w / 8 + 1) * 8 : w + 1;
	return w;
}

int cview_line_indent(const struct cline *l)
{
	int i = 0;

	while (i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'))
		i++;
	if (i == l->len)
		return -1;
	return cview_line_width(l, i);
}

static int new_node(struct parser *p, enum cnode_kind kind, int first,
		    int parent)
{
	struct cview *v = p->v;
	struct cnode *n;

	ALLOC_GROW(v->nodes, v->nr_nodes + 1, v->alloc_nodes);
	n = &v->nodes[v->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->first = first;
	n->last = first;
	n->cond_open = n->cond_close = -1;
	n->parent = parent;
	n->child = n->next = n->els = -1;
	n->func = p->func;
	n->name = -1;
	return v->nr_nodes++;
}

static bool is(struct parser *p, int i, const char *s)
{
	return i < p->end && cv_is(p->v, i, s);
}

static int match_of(struct parser *p, int i)
{
	int m = p->v->toks[i].match;

	return m >= 0 && m < p->end ? m : -1;
}

static bool is_ident(struct parser *p, int i)
{
	return i < p->end && p->v->toks[i].kind == CT_IDENT;
}

static const char *const keywords[] = {
	"if", "else", "while", "for", "do", "switch", "case", "default",
	"return", "goto", "break", "continue", "sizeof", "typeof",
	"__typeof__", "_Generic", "asm", "__asm__", "struct", "union", "enum",
};

static bool is_keyword(const struct ctok *t)
{
	size_t k;

	for (k = 0; k < ARRAY_SIZE(keywords); k++)
		if (ctok_is(t, keywords[k]))
			return true;
	return false;
}

/* list_for_each_entry(), xas_for_each(), for_each_vma() ... */
static bool is_loop_macro_name(const struct ctok *t)
{
	const char *s = t->s;
	int i;

	for (i = 0; i + 4 <= t->len; i++)
		if (!memcmp(s + i, "each", 4) || !memcmp(s + i, "loop", 4))
			return true;
	return t->len > 4 && !memcmp(s, "for_", 4);
}

static int parse_stmt(struct parser *p, int *i, int parent);

static void link_child(struct parser *p, int parent, int *last, int child)
{
	if (child < 0)
		return;
	if (*last < 0)
		p->v->nodes[parent].child = child;
	else
		p->v->nodes[*last].next = child;
	*last = child;
}

/*
 * Statements of a block from *i until its closing brace close (or, when
 * close < 0, until an unmatched "}" or the end of the segment).
 */
static void parse_body(struct parser *p, int *i, int block, int close)
{
	struct cview *v = p->v;
	int last = -1;

	while (*i < p->end) {
		int before = *i, c;

		if (close >= 0 && *i >= close)
			break;
		if (is(p, *i, "}") && close < 0)
			break;
		if (is(p, *i, "}")) {	/* stray closer inside: skip it */
			(*i)++;
			continue;
		}
		c = parse_stmt(p, i, block);
		link_child(p, block, &last, c);
		if (*i == before)
			(*i)++;
	}
	if (close >= 0 && *i == close) {
		v->nodes[block].last = close;
		(*i)++;
	} else {
		v->nodes[block].last = *i > 0 ? *i - 1 : 0;
	}
}

static int parse_block(struct parser *p, int *i, int parent)
{
	int n = new_node(p, CN_BLOCK, *i, parent);
	int close = match_of(p, *i);

	(*i)++;
	if (close < 0) {
		/* unterminated in the view: runs to the end of the segment */
		parse_body(p, i, n, -1);
		return n;
	}
	if (p->depth >= MAX_DEPTH) {
		p->v->nodes[n].last = close;
		*i = close + 1;
		return n;
	}
	parse_body(p, i, n, close);
	return n;
}

/* to the ";" ending an expression statement, not past a closing brace */
static void skip_expr(struct parser *p, int *i, int node)
{
	struct cview *v = p->v;

	while (*i < p->end) {
		const struct ctok *t = &v->toks[*i];

		if (ctok_is(t, ";")) {
			v->nodes[node].last = *i;
			(*i)++;
			return;
		}
		if (ctok_is(t, "}"))
			break;
		if ((ctok_is(t, "(") || ctok_is(t, "[") || ctok_is(t, "{"))) {
			int m = match_of(p, *i);

			if (m < 0)
				break;
			*i = m + 1;
			continue;
		}
		if (ctok_is(t, ")") && t->match < 0) {
			/* the head of a block that began above the view */
			int m = *i;

			v->nodes[node].kind = CN_OPEN;
			v->nodes[node].cond_close = m;
			v->nodes[node].last = m;
			(*i)++;
			if (*i < p->end && !is(p, *i, "}")) {
				int c = parse_stmt(p, i, node);

				v->nodes[node].child = c;
				if (c >= 0)
					v->nodes[node].last = v->nodes[c].last;
			}
			return;
		}
		(*i)++;
	}
	v->nodes[node].last = *i > v->nodes[node].first ? *i - 1 : v->nodes[node].first;
}

/* "kw ( cond ) body" */
static int parse_cond_stmt(struct parser *p, int *i, int parent,
			   enum cnode_kind kind)
{
	struct cview *v = p->v;
	int n = new_node(p, kind, *i, parent);
	int open = *i + 1, close = is(p, open, "(") ? match_of(p, open) : -1, c;

	if (close < 0) {
		v->nodes[n].kind = CN_EXPR;
		(*i)++;
		skip_expr(p, i, n);
		return n;
	}
	v->nodes[n].cond_open = open;
	v->nodes[n].cond_close = close;
	*i = close + 1;
	if (is(p, *i, ";") && kind == CN_WHILE) {	/* while (x); */
		v->nodes[n].last = *i;
		(*i)++;
		return n;
	}
	c = parse_stmt(p, i, n);
	v->nodes[n].child = c;
	v->nodes[n].last = c >= 0 ? v->nodes[c].last : close;
	if (kind == CN_IF && is(p, *i, "else")) {
		(*i)++;
		c = parse_stmt(p, i, n);
		v->nodes[n].els = c;
		if (c >= 0)
			v->nodes[n].last = v->nodes[c].last;
	}
	return n;
}

static int parse_stmt(struct parser *p, int *i, int parent)
{
	struct cview *v = p->v;
	const struct ctok *t;
	int n, m;

	if (*i >= p->end)
		return -1;
	t = &v->toks[*i];
	if (ctok_is(t, "}"))
		return -1;
	p->depth++;
	if (p->depth > MAX_DEPTH) {
		n = new_node(p, CN_EXPR, *i, parent);
		skip_expr(p, i, n);
		goto out;
	}
	if (ctok_is(t, "{")) {
		n = parse_block(p, i, parent);
		goto out;
	}
	if (ctok_is(t, "if")) {
		n = parse_cond_stmt(p, i, parent, CN_IF);
		goto out;
	}
	if (ctok_is(t, "while")) {
		n = parse_cond_stmt(p, i, parent, CN_WHILE);
		goto out;
	}
	if (ctok_is(t, "for")) {
		n = parse_cond_stmt(p, i, parent, CN_FOR);
		goto out;
	}
	if (ctok_is(t, "switch")) {
		n = parse_cond_stmt(p, i, parent, CN_SWITCH);
		goto out;
	}
	if (ctok_is(t, "else")) {	/* its "if" is above the view */
		int c;

		n = new_node(p, CN_ELSE, *i, parent);
		(*i)++;
		c = parse_stmt(p, i, n);
		v->nodes[n].child = c;
		v->nodes[n].last = c >= 0 ? v->nodes[c].last : v->nodes[n].first;
		goto out;
	}
	if (ctok_is(t, "do")) {
		int c;

		n = new_node(p, CN_DO, *i, parent);
		(*i)++;
		c = parse_stmt(p, i, n);
		v->nodes[n].child = c;
		m = is(p, *i, "while") && is(p, *i + 1, "(") ? match_of(p, *i + 1) : -1;
		if (m >= 0) {
			v->nodes[n].cond_open = *i + 1;
			v->nodes[n].cond_close = m;
			*i = m + 1;
		}
		if (is(p, *i, ";"))
			(*i)++;
		v->nodes[n].last = *i - 1;
		goto out;
	}
	if (ctok_is(t, "return") || ctok_is(t, "goto") || ctok_is(t, "break") ||
	    ctok_is(t, "continue")) {
		enum cnode_kind k = ctok_is(t, "return") ? CN_RETURN :
				    ctok_is(t, "goto") ? CN_GOTO :
				    ctok_is(t, "break") ? CN_BREAK : CN_CONTINUE;

		n = new_node(p, k, *i, parent);
		if (k == CN_GOTO && is_ident(p, *i + 1))
			v->nodes[n].name = *i + 1;
		(*i)++;
		skip_expr(p, i, n);
		goto out;
	}
	if (ctok_is(t, "case") || ctok_is(t, "default")) {
		n = new_node(p, CN_CASE, *i, parent);
		while (*i < p->end && !is(p, *i, ":") && !is(p, *i, ";") &&
		       !is(p, *i, "}"))
			(*i)++;
		v->nodes[n].last = *i < p->end ? *i : p->end - 1;
		if (is(p, *i, ":"))
			(*i)++;
		goto out;
	}
	if (t->kind == CT_IDENT && is(p, *i + 1, ":") && !is_keyword(t)) {
		n = new_node(p, CN_LABEL, *i, parent);
		v->nodes[n].name = *i;
		v->nodes[n].last = *i + 1;
		*i += 2;
		goto out;
	}
	m = t->kind == CT_IDENT && is(p, *i + 1, "(") ? match_of(p, *i + 1) : -1;
	if (m >= 0 && !is_keyword(t) && is(p, m + 1, "{")) {
		int c;

		n = new_node(p, is_loop_macro_name(t) ? CN_LOOPMACRO : CN_OPEN,
			     *i, parent);
		v->nodes[n].cond_open = *i + 1;
		v->nodes[n].cond_close = m;
		*i = m + 1;
		c = parse_block(p, i, n);
		v->nodes[n].child = c;
		v->nodes[n].last = v->nodes[c].last;
		goto out;
	}
	n = new_node(p, CN_EXPR, *i, parent);
	skip_expr(p, i, n);
out:
	p->depth--;
	return n;
}

/* attribute-like names after a parameter list: __acquires(x), __must_hold */
static bool attr_name(const struct ctok *t)
{
	return t->kind == CT_IDENT && t->len > 2 && t->s[0] == '_' && t->s[1] == '_';
}

/*
 * A function definition: the "(" of the parameter list before the "{" at
 * brace, skipping attributes written after it; -1 when it is not one.
 */
static int func_params(struct parser *p, int first, int brace)
{
	struct cview *v = p->v;
	int k = brace - 1;

	while (k > first) {
		const struct ctok *t = &v->toks[k];
		int o;

		if (attr_name(t)) {
			k--;
			continue;
		}
		o = ctok_is(t, ")") ? t->match : -1;
		if (o < first + 1)
			return -1;
		if (v->toks[o - 1].kind != CT_IDENT)
			return -1;
		if (attr_name(&v->toks[o - 1]) && o - 2 > first &&
		    (ctok_is(&v->toks[o - 2], ")") || attr_name(&v->toks[o - 2]))) {
			k = o - 2;
			continue;
		}
		if (is_keyword(&v->toks[o - 1]))
			return -1;
		return o;
	}
	return -1;
}

static void parse_function(struct parser *p, int *i, int first, int open,
			   int brace, int name)
{
	struct cview *v = p->v;
	int n = new_node(p, CN_FUNC, first, -1);
	int b;

	v->nodes[n].func = n;
	v->nodes[n].cond_open = open;
	v->nodes[n].cond_close = open >= 0 ? v->toks[open].match : -1;
	v->nodes[n].name = name;
	if (name >= 0) {
		v->nodes[n].fname = v->toks[name].s;
		v->nodes[n].fname_len = v->toks[name].len;
	}
	p->func = n;
	*i = brace;
	b = parse_block(p, i, n);
	v->nodes[n].child = b;
	v->nodes[n].last = v->nodes[b].last;
	p->func = -1;
}

/* One declaration or definition at file scope */
static void parse_top(struct parser *p, int *i, const char *hint)
{
	struct cview *v = p->v;
	int first = *i, j = *i, n;

	if (is(p, j, "}") || is(p, j, ";")) {
		(*i)++;
		return;
	}
	while (j < p->end) {
		const struct ctok *t = &v->toks[j];

		if (ctok_is(t, ";") || ctok_is(t, "=") || ctok_is(t, "{") ||
		    ctok_is(t, "}"))
			break;
		if (ctok_is(t, ")") && t->match < 0 && is(p, j + 1, "{")) {
			/* a definition whose head is above the view */
			struct cnode *f;
			int fn;

			parse_function(p, i, first, -1, j + 1, -1);
			fn = v->nr_nodes - 1;
			while (fn >= 0 && v->nodes[fn].kind != CN_FUNC)
				fn--;
			f = &v->nodes[fn];
			if (hint) {
				f->fname = hint;
				f->fname_len = (int)strlen(hint);
			}
			return;
		}
		if (ctok_is(t, "(") || ctok_is(t, "[")) {
			int m = match_of(p, j);

			if (m < 0)
				break;
			j = m + 1;
			continue;
		}
		j++;
	}
	if (is(p, j, "{")) {
		int open = func_params(p, first, j);

		if (open >= 0) {
			parse_function(p, i, first, open, j, open - 1);
			return;
		}
	}
	/* a declaration, a struct, an initializer: skip to its ";" */
	n = new_node(p, CN_DECL, first, -1);
	while (j < p->end && !is(p, j, ";")) {
		int m;

		m = is(p, j, "{") || is(p, j, "(") || is(p, j, "[") ? match_of(p, j) : -1;
		if (m >= 0) {
			j = m + 1;
			continue;
		}
		if (is(p, j, "}") && j > first && v->toks[j].match < first)
			break;
		j++;
	}
	v->nodes[n].last = j < p->end ? j : p->end - 1;
	*i = j < p->end ? j + 1 : p->end;
	if (*i <= first)
		*i = first + 1;
}

/* A segment that starts inside a function's body (a hunk) */
static void parse_inside(struct parser *p, int *i, const char *hint)
{
	struct cview *v = p->v;
	int n = new_node(p, CN_FUNC, *i, -1);
	int b, last = -1;

	v->nodes[n].func = n;
	if (hint) {
		v->nodes[n].fname = hint;
		v->nodes[n].fname_len = (int)strlen(hint);
	}
	p->func = n;
	b = new_node(p, CN_BLOCK, *i, n);
	v->nodes[n].child = b;
	while (*i < p->end) {
		int before = *i, c;

		if (is(p, *i, "}") && v->toks[*i].match < 0) {
			/* a closing brace at column 0 ends the function */
			if (cview_line_indent(&v->lines[v->toks[*i].line]) == 0)
				break;
			(*i)++;
			continue;
		}
		c = parse_stmt(p, i, b);
		link_child(p, b, &last, c);
		if (*i == before)
			(*i)++;
	}
	v->nodes[b].last = *i < p->end ? *i : p->end - 1;
	v->nodes[n].last = v->nodes[b].last;
	if (*i < p->end)
		(*i)++;
	p->func = -1;
}

/*
 * Indented code starting with a statement keyword: the inside of a
 * function, also where no hunk header names it (a new file of quoted
 * code, a segment after "[...]")
 */
static bool stmt_start(const struct ctok *t)
{
	static const char *const kw[] = {
		"if", "while", "for", "do", "switch", "return", "goto", "break",
		"continue", "case", "else",
	};
	size_t k;

	for (k = 0; k < ARRAY_SIZE(kw); k++)
		if (ctok_is(t, kw[k]))
			return true;
	return false;
}

void cview_parse(struct cview *v)
{
	struct parser p = { .v = v, .func = -1 };
	int si;

	for (si = 0; si < v->nr_segs; si++) {
		struct cseg *s = &v->segs[si];
		int i = s->first_tok;

		p.end = s->end_tok;
		if (i < p.end && cview_line_indent(&v->lines[v->toks[i].line]) > 0 &&
		    (s->func_hint || stmt_start(&v->toks[i])))
			parse_inside(&p, &i, s->func_hint);
		else if (i < p.end && s->func_hint && cv_is(v, i, "{")) {
			int fn = v->nr_nodes;

			parse_function(&p, &i, i, -1, i, -1);
			v->nodes[fn].fname = s->func_hint;
			v->nodes[fn].fname_len = (int)strlen(s->func_hint);
		}
		while (i < p.end)
			parse_top(&p, &i, s->func_hint);
	}
}
