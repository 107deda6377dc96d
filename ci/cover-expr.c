// SPDX-License-Identifier: GPL-2.0
/*
 * #if expressions against a .config (ci/cover.h): parsed into a small
 * tree, evaluated with three values (true, false, unknown), and asked
 * what would make them true.  Bounded: an expression of more than
 * MAX_NODES nodes is unknown.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "ci/cover.h"

#define MAX_NODES 256
#define SHOWN 72

enum ntype {
	N_BAD, N_NUM, N_ID, N_DEFINED, N_CALL, N_NOT, N_AND, N_OR, N_CMP,
	N_ARITH, N_COND, N_NEG,
};

struct node {
	enum ntype t;
	long long v;
	const char *name;	/* N_ID, N_DEFINED, N_CALL (the macro), into the text */
	size_t len;
	const char *arg;	/* N_CALL: its argument */
	size_t alen;
	char op[3];
	struct node *a, *b, *c;
};

struct parser {
	const char *p;
	struct node pool[MAX_NODES];
	int used;
	bool bad;
};

static struct node *mk(struct parser *ps, enum ntype t)
{
	struct node *n;

	if (ps->used >= MAX_NODES) {
		ps->bad = true;
		n = &ps->pool[MAX_NODES - 1];
		n->t = N_BAD;
		return n;
	}
	n = &ps->pool[ps->used++];
	memset(n, 0, sizeof(*n));
	n->t = t;
	return n;
}

static void ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static bool is_id(int c)
{
	return isalnum(c) || c == '_';
}

static bool eat(struct parser *ps, const char *op)
{
	size_t n = strlen(op);

	ws(ps);
	if (strncmp(ps->p, op, n))
		return false;
	/* "&" is not "&&", "<" is not "<<" or "<=", "!" is not "!=" */
	if (n == 1 && ps->p[1] && strchr("&|<>=", op[0]) && ps->p[1] == op[0])
		return false;
	if (n == 1 && strchr("<>!", op[0]) && ps->p[1] == '=')
		return false;
	ps->p += n;
	return true;
}

static struct node *expr(struct parser *ps);

static struct node *primary(struct parser *ps)
{
	struct node *n;

	ws(ps);
	if (eat(ps, "(")) {
		n = expr(ps);
		if (!eat(ps, ")"))
			ps->bad = true;
		return n;
	}
	if (isdigit((unsigned char)*ps->p)) {
		char *end;

		n = mk(ps, N_NUM);
		n->v = strtoll(ps->p, &end, 0);
		ps->p = end;
		while (is_id((unsigned char)*ps->p))	/* UL, ULL suffixes */
			ps->p++;
		return n;
	}
	if (*ps->p == '\'') {
		n = mk(ps, N_NUM);
		n->v = (unsigned char)ps->p[1];
		ps->p = strchrnul(ps->p + 1, '\'');
		if (*ps->p)
			ps->p++;
		return n;
	}
	if (is_id((unsigned char)*ps->p)) {
		const char *s = ps->p;
		size_t len;

		while (is_id((unsigned char)*ps->p))
			ps->p++;
		len = ps->p - s;
		if (len == 7 && !memcmp(s, "defined", 7)) {
			bool paren = eat(ps, "(");

			ws(ps);
			n = mk(ps, N_DEFINED);
			n->name = ps->p;
			while (is_id((unsigned char)*ps->p))
				ps->p++;
			n->len = ps->p - n->name;
			if (!n->len || (paren && !eat(ps, ")")))
				ps->bad = true;
			return n;
		}
		ws(ps);
		if (*ps->p == '(') {
			int depth = 0;

			n = mk(ps, N_CALL);
			n->name = s;
			n->len = len;
			ps->p++;
			ws(ps);
			n->arg = ps->p;
			for (; *ps->p; ps->p++) {
				if (*ps->p == '(')
					depth++;
				else if (*ps->p == ')' && !depth--)
					break;
			}
			n->alen = ps->p - n->arg;
			while (n->alen && (n->arg[n->alen - 1] == ' ' || n->arg[n->alen - 1] == '\t'))
				n->alen--;
			if (*ps->p)
				ps->p++;
			else
				ps->bad = true;
			return n;
		}
		n = mk(ps, N_ID);
		n->name = s;
		n->len = len;
		return n;
	}
	ps->bad = true;
	return mk(ps, N_BAD);
}

static struct node *unary(struct parser *ps)
{
	struct node *n;

	if (eat(ps, "!")) {
		n = mk(ps, N_NOT);
		n->a = unary(ps);
		return n;
	}
	if (eat(ps, "-") || eat(ps, "~")) {
		n = mk(ps, N_NEG);
		n->op[0] = ps->p[-1];
		n->a = unary(ps);
		return n;
	}
	if (eat(ps, "+"))
		return unary(ps);
	return primary(ps);
}

/* Binary levels, loosest last: each a list of operators */
static const char *const levels[][6] = {
	{ "*", "/", "%", NULL },
	{ "+", "-", NULL },
	{ "<<", ">>", NULL },
	{ "<=", ">=", "<", ">", NULL },
	{ "==", "!=", NULL },
	{ "&", NULL },
	{ "^", NULL },
	{ "|", NULL },
	{ "&&", NULL },
	{ "||", NULL },
};

static struct node *binary(struct parser *ps, int level)
{
	struct node *l = level ? binary(ps, level - 1) : unary(ps);

	for (;;) {
		const char *const *op;
		struct node *n;

		for (op = levels[level]; *op; op++)
			if (eat(ps, *op))
				break;
		if (!*op || ps->bad)
			return l;
		n = mk(ps, level == 8 ? N_AND : level == 9 ? N_OR :
		       (level == 3 || level == 4) ? N_CMP : N_ARITH);
		snprintf(n->op, sizeof(n->op), "%s", *op);
		n->a = l;
		n->b = level ? binary(ps, level - 1) : unary(ps);
		l = n;
	}
}

static struct node *expr(struct parser *ps)
{
	struct node *c = binary(ps, (int)ARRAY_SIZE(levels) - 1), *n;

	if (!eat(ps, "?"))
		return c;
	n = mk(ps, N_COND);
	n->a = c;
	n->b = expr(ps);
	if (!eat(ps, ":"))
		ps->bad = true;
	n->c = expr(ps);
	return n;
}

static struct node *parse(struct parser *ps, const char *text)
{
	struct node *n;

	ps->p = text;
	ps->used = 0;
	ps->bad = false;
	n = expr(ps);
	ws(ps);
	if (*ps->p)
		ps->bad = true;
	return ps->bad ? NULL : n;
}

/* ---- values ---- */

struct val {
	bool known;
	long long v;
};

static bool name_is(const struct node *n, const char *s)
{
	return strlen(s) == n->len && !memcmp(n->name, s, n->len);
}

static const char *config_value(const struct kconf *c, const char *name, size_t len)
{
	char buf[160];

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return kconf_get(c, buf);
}

/* Is the name defined in a built-in unit?  -1 unknown */
static int name_defined(const char *name, size_t len, const struct kconf *c)
{
	static const char *const yes[] = { "__KERNEL__", "__GNUC__", "__STDC__" };
	static const char *const no[] = {
		"MODULE", "__ASSEMBLY__", "__CHECKER__", "__GENKSYMS__", "__cplusplus",
	};
	size_t i;

	if (len > 7 && !memcmp(name, "CONFIG_", 7)) {
		const char *v = config_value(c, name, len);

		if (len > 14 && !memcmp(name + len - 7, "_MODULE", 7)) {
			const char *b = config_value(c, name, len - 7);

			return b && !strcmp(b, "m");
		}
		return v && strcmp(v, "m");
	}
	for (i = 0; i < ARRAY_SIZE(yes); i++)
		if (strlen(yes[i]) == len && !memcmp(yes[i], name, len))
			return 1;
	for (i = 0; i < ARRAY_SIZE(no); i++)
		if (strlen(no[i]) == len && !memcmp(no[i], name, len))
			return 0;
	return -1;
}

static struct val known(long long v)
{
	return (struct val){ .known = true, .v = v };
}

static const struct val unknown = { .known = false };

/* IS_ENABLED() and friends of a "CONFIG_X" argument: -1 not one of them */
static int config_macro(const struct node *n, const struct kconf *c)
{
	const char *v;
	bool y, m;

	if (n->alen < 8 || memcmp(n->arg, "CONFIG_", 7))
		return -1;
	v = config_value(c, n->arg, n->alen);
	y = v && !strcmp(v, "y");
	m = v && !strcmp(v, "m");
	if (name_is(n, "IS_ENABLED") || name_is(n, "IS_REACHABLE"))
		return y || (m && name_is(n, "IS_ENABLED"));
	if (name_is(n, "IS_BUILTIN"))
		return y;
	if (name_is(n, "IS_MODULE"))
		return m;
	return -1;
}

static struct val eval(const struct node *n, const struct kconf *c)
{
	struct val a, b;
	int d;

	switch (n->t) {
	case N_NUM:
		return known(n->v);
	case N_ID:
		if (n->len > 7 && !memcmp(n->name, "CONFIG_", 7)) {
			const char *v = config_value(c, n->name, n->len);
			char *end;
			long long x;

			d = name_defined(n->name, n->len, c);
			if (!v || !strcmp(v, "m"))
				return known(d == 1);
			if (!strcmp(v, "y"))
				return known(1);
			x = strtoll(v, &end, 0);
			return *end ? unknown : known(x);
		}
		d = name_defined(n->name, n->len, c);
		return d < 0 ? unknown : known(d);
	case N_DEFINED:
		d = name_defined(n->name, n->len, c);
		return d < 0 ? unknown : known(d);
	case N_CALL:
		d = config_macro(n, c);
		return d < 0 ? unknown : known(d);
	case N_NOT:
		a = eval(n->a, c);
		return a.known ? known(!a.v) : unknown;
	case N_NEG:
		a = eval(n->a, c);
		if (!a.known)
			return unknown;
		return known(n->op[0] == '~' ? ~a.v : -a.v);
	case N_AND:
		a = eval(n->a, c);
		if (a.known && !a.v)
			return known(0);
		b = eval(n->b, c);
		if (b.known && !b.v)
			return known(0);
		return a.known && b.known ? known(1) : unknown;
	case N_OR:
		a = eval(n->a, c);
		if (a.known && a.v)
			return known(1);
		b = eval(n->b, c);
		if (b.known && b.v)
			return known(1);
		return a.known && b.known ? known(0) : unknown;
	case N_COND:
		a = eval(n->a, c);
		if (!a.known)
			return unknown;
		return eval(a.v ? n->b : n->c, c);
	case N_CMP:
	case N_ARITH:
		a = eval(n->a, c);
		b = eval(n->b, c);
		if (!a.known || !b.known)
			return unknown;
		switch (n->op[0]) {
		case '=': return known(a.v == b.v);
		case '!': return known(a.v != b.v);
		case '<':
			if (n->op[1] == '<')
				return b.v < 0 || b.v > 62 ? unknown : known(a.v << b.v);
			return known(n->op[1] == '=' ? a.v <= b.v : a.v < b.v);
		case '>':
			if (n->op[1] == '>')
				return b.v < 0 || b.v > 62 ? unknown : known(a.v >> b.v);
			return known(n->op[1] == '=' ? a.v >= b.v : a.v > b.v);
		case '+': return known(a.v + b.v);
		case '-': return known(a.v - b.v);
		case '*': return known(a.v * b.v);
		case '/': return b.v ? known(a.v / b.v) : unknown;
		case '%': return b.v ? known(a.v % b.v) : unknown;
		case '&': return known(a.v & b.v);
		case '|': return known(a.v | b.v);
		case '^': return known(a.v ^ b.v);
		}
		return unknown;
	default:
		return unknown;
	}
}

int cover_expr_eval(const char *text, const struct kconf *c)
{
	struct parser *ps = xmalloc(sizeof(*ps));
	struct node *n = parse(ps, text);
	struct val v = n ? eval(n, c) : unknown;

	free(ps);
	if (!v.known)
		return COVER_UNKNOWN;
	return v.v ? COVER_TRUE : COVER_FALSE;
}

/* ---- what makes it true ---- */

static void set_sym(struct cover_needs *out, const char *name, size_t len, bool on)
{
	char *s = xstrndup(name, len);

	if (on)
		cover_needs_on(out, s);
	else
		cover_needs_off(out, s);
	free(s);
}

static bool is_config(const char *name, size_t len)
{
	return len > 7 && !memcmp(name, "CONFIG_", 7);
}

static size_t cost(const struct cover_needs *n)
{
	/* enabling is cheap, disabling less so, impossible worst */
	return n->fixed ? 1000 : n->on_nr + 3 * n->off_nr;
}

/* Into out what makes n want (true or false); false when nothing can */
static bool needs(const struct node *n, bool want, const struct kconf *c,
		  struct cover_needs *out)
{
	struct val v = eval(n, c);
	struct cover_needs x = { 0 }, y = { 0 };
	bool ok = false, okx, oky;

	if (v.known && !!v.v == want)
		return true;
	switch (n->t) {
	case N_NOT:
		return needs(n->a, !want, c, out);
	case N_DEFINED:
	case N_ID:
		if (!is_config(n->name, n->len) ||
		    (n->len > 14 && !memcmp(n->name + n->len - 7, "_MODULE", 7)))
			return false;
		if (n->t == N_ID) {
			const char *val = config_value(c, n->name, n->len);

			/* a number: not a switch */
			if (val && strcmp(val, "y") && strcmp(val, "m"))
				return false;
		}
		set_sym(out, n->name, n->len, want);
		return true;
	case N_CALL:
		if (config_macro(n, c) < 0 || name_is(n, "IS_MODULE"))
			return false;
		set_sym(out, n->arg, n->alen, want);
		return true;
	case N_AND:
	case N_OR:
		if ((n->t == N_AND) == want) {
			/* both must hold */
			return needs(n->a, want, c, out) && needs(n->b, want, c, out);
		}
		/* either will do: the cheaper */
		okx = needs(n->a, want, c, &x);
		oky = needs(n->b, want, c, &y);
		if (okx && (!oky || cost(&x) <= cost(&y))) {
			cover_needs_merge(out, &x);
			ok = true;
		} else if (oky) {
			cover_needs_merge(out, &y);
			ok = true;
		}
		cover_needs_release(&x);
		cover_needs_release(&y);
		return ok;
	default:
		return false;
	}
}

void cover_expr_needs(const char *text, const struct kconf *c,
		      struct cover_needs *out)
{
	struct parser *ps = xmalloc(sizeof(*ps));
	struct node *n = parse(ps, text);
	struct cover_needs local = { 0 };

	if (n && needs(n, true, c, &local)) {
		cover_needs_merge(out, &local);
	} else {
		char *why = xasprintf("%.*s%s", SHOWN, text, strlen(text) > SHOWN ? "..." : "");

		cover_needs_merge(out, &local);
		cover_needs_fixed(out, why);
		free(why);
	}
	cover_needs_release(&local);
	free(ps);
}
