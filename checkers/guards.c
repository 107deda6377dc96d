// SPDX-License-Identifier: GPL-2.0
/*
 * What is known at a statement: the conditions that hold, or do not,
 * whenever it runs (cview_guards() in cscan.h).  Only what follows from
 * the shape of the code is reported:
 *
 *   if (a && b) { n }		a and b hold at n
 *   while (a && b) { n }	the same
 *   if (a || b) ...; else { n }	neither a nor b holds at n
 *   if (a || b) return; ... n	neither holds at n (return, goto,
 *				break, continue, or a block ending so)
 *   VM_WARN_ON(a || b); ... n	neither holds: asserted (also VM_BUG_ON,
 *				WARN_ON, BUG_ON and their _ONCE, _FOLIO,
 *				_PAGE, _VMA, _MM forms)
 *
 * A mixed condition ("if (a && b) return;") tells nothing and is skipped.
 */
#include "checkers/cscan.h"

#define MAX_TERMS 32

bool cview_node_is_jump(const struct cview *v, int n)
{
	const struct cnode *x;

	while (n >= 0) {
		x = &v->nodes[n];
		if (x->kind == CN_RETURN || x->kind == CN_GOTO ||
		    x->kind == CN_CONTINUE || x->kind == CN_BREAK)
			return true;
		if (x->kind != CN_BLOCK || x->child < 0)
			return false;
		/* a block ending in a jump */
		n = x->child;
		while (v->nodes[n].next >= 0)
			n = v->nodes[n].next;
	}
	return false;
}

/* VM_WARN_ON_ONCE_FOLIO, WARN_ON, BUG_ON, VM_BUG_ON_PAGE ... */
bool cview_tok_is_assert(const struct ctok *t)
{
	static const char *const heads[] = { "VM_WARN_ON", "VM_BUG_ON", "WARN_ON",
					     "BUG_ON" };
	size_t i, n;

	if (t->kind != CT_IDENT)
		return false;
	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		n = strlen(heads[i]);
		if ((size_t)t->len >= n && !memcmp(t->s, heads[i], n) &&
		    ((size_t)t->len == n || t->s[n] == '_'))
			return true;
	}
	return false;
}

/* The condition of an assertion call at tok: its first argument */
static bool assert_cond(const struct cview *v, int tok, int *first, int *last)
{
	int open = tok + 1, close, k;

	if (!cview_tok_is_assert(&v->toks[tok]) || !cv_is(v, open, "("))
		return false;
	close = v->toks[open].match;
	if (close <= open + 1)
		return false;
	for (k = open + 1; k < close; k++) {
		if (v->toks[k].match > k && (cv_is(v, k, "(") || cv_is(v, k, "[") ||
					     cv_is(v, k, "{")))
			k = v->toks[k].match;
		else if (cv_is(v, k, ","))
			break;
	}
	*first = open + 1;
	*last = k - 1;
	return true;
}

/* Terms of first..last split at op, each to fn as holding when hold */
static void terms(const struct cview *v, int first, int last, const char *op,
		  bool hold, cguard_fn fn, void *data)
{
	struct cterm t[MAX_TERMS];
	int nr, k, a, b;

	if (first > last)
		return;
	nr = cview_split(v, first, last, op, t, MAX_TERMS);
	if (nr <= 0 || nr >= MAX_TERMS)
		return;
	for (k = 0; k < nr; k++) {
		/* if (WARN_ON_ONCE(x)) return;  -> x does not hold */
		if (!t[k].neg && !hold && nr == 1 &&
		    assert_cond(v, t[k].first, &a, &b) &&
		    v->toks[t[k].first + 1].match == t[k].last) {
			terms(v, a, b, "||", false, fn, data);
			continue;
		}
		fn(v, &t[k], t[k].neg ? !hold : hold, data);
	}
}

static void cond_terms(const struct cview *v, const struct cnode *x, bool hold,
		       cguard_fn fn, void *data)
{
	if (x->cond_open < 0 || x->cond_close <= x->cond_open + 1)
		return;
	terms(v, x->cond_open + 1, x->cond_close - 1, hold ? "&&" : "||", hold,
	      fn, data);
}

void cview_guards(const struct cview *v, int n, cguard_fn fn, void *data)
{
	while (n >= 0 && v->nodes[n].kind != CN_FUNC) {
		int p = v->nodes[n].parent, s;
		const struct cnode *x;

		if (p < 0)
			break;
		x = &v->nodes[p];
		if (x->kind == CN_IF && x->child == n)
			cond_terms(v, x, true, fn, data);
		else if (x->kind == CN_IF && x->els == n)
			cond_terms(v, x, false, fn, data);
		else if (x->kind == CN_WHILE && x->child == n)
			cond_terms(v, x, true, fn, data);
		if (x->kind == CN_BLOCK || x->kind == CN_OPEN) {
			for (s = x->child; s >= 0 && s != n; s = v->nodes[s].next) {
				const struct cnode *y = &v->nodes[s];
				int a, b;

				if (y->kind == CN_IF && y->els < 0 && cview_node_is_jump(v, y->child))
					cond_terms(v, y, false, fn, data);
				else if (y->kind == CN_EXPR && assert_cond(v, y->first, &a, &b))
					terms(v, a, b, "||", false, fn, data);
			}
		}
		n = p;
	}
}
