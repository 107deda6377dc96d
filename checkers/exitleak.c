// SPDX-License-Identifier: GPL-2.0
/*
 * Early exits that leave something taken (exitleak.h).  For each call
 * that takes (a statement of its own: "rcu_read_lock();", or an
 * assignment "pte = pte_offset_map_lock(...);"), every return, and every
 * goto to a label after which nothing gives back, that comes after it
 * and before the first call giving back is an exit that leaks it.  Not
 * exits: those under a test of the held pointer (its NULL check), those
 * handing it to the caller (return pte), gotos back into the region.
 * Functions that take on purpose for their caller (a name with "lock",
 * a spinlock_t ** parameter, __acquires()) are left alone.
 *
 * This is an approximation that prefers silence: after the first give
 * back, even one in a branch, nothing more is checked.
 */
#include <stdlib.h>

#include "checkers/exitleak.h"

#define MAX_ARGS 16

/*
 * The bodies of a view: the block of each function, or with hunks only,
 * each top-level block whose head is outside them.  -1 when b is not one;
 * else the node holding the code, and the function's name (or the hunk
 * header's) in *name, *len.
 */
static int exitleak_body_of(const struct cview *v, int b, const char **name,
			    int *len)
{
	const struct cnode *n = &v->nodes[b];

	*name = NULL;
	*len = 0;
	if (n->kind == CN_FUNC && n->child >= 0) {
		*name = n->fname;
		*len = n->fname_len;
		return n->child;
	}
	if (n->kind == CN_OPEN && n->parent < 0) {
		const struct cseg *s = &v->segs[v->lines[v->toks[n->first].line].seg];

		if (s->func_hint) {
			*name = s->func_hint;
			*len = (int)strlen(s->func_hint);
		}
		return b;
	}
	return -1;
}

/* The first call of one of names (NULL-ended) in tokens first..last, -1 */
static int exitleak_find_call(const struct cview *v, int first, int last,
			      const char *const *names)
{
	int i, k;

	for (i = first; i <= last && i + 1 < v->nr_toks; i++) {
		if (v->toks[i].kind != CT_IDENT || !cv_is(v, i + 1, "("))
			continue;
		for (k = 0; names[k]; k++)
			if (ctok_is(&v->toks[i], names[k]))
				return i;
	}
	return -1;
}

/* Does the function take on purpose, for its caller? */
static bool takes_for_caller(const struct cview *v, int fn, const char *name,
			     int len)
{
	const struct cnode *f = &v->nodes[fn];
	int i;

	if (name && memmem(name, len, "lock", 4))
		return true;
	if (f->kind != CN_FUNC)
		return false;
	for (i = f->first; i < v->nr_toks && i <= f->last; i++) {
		if (cv_is(v, i, "{"))
			break;
		if (cv_is(v, i, "__acquires") ||
		    (cv_is(v, i, "spinlock_t") && cv_is(v, i + 1, "*") &&
		     cv_is(v, i + 2, "*")))
			return true;
	}
	return false;
}

/*
 * "a = b = take(", "pte_t *pte = take(": the held names before token t,
 * the count
 */
int exitleak_held_names(const struct cview *v, int t, int *names, int max)
{
	int k = t - 1, n = 0;

	while (n < max && k >= 1 && cv_is(v, k, "=") && v->toks[k - 1].kind == CT_IDENT) {
		/* "vmf->pte = ...": a field, handed around with vmf: not followed */
		if (cv_is(v, k - 2, "->") || cv_is(v, k - 2, "."))
			return 0;
		names[n++] = k - 1;
		k -= 2;
	}
	return n;
}

static bool mentions_any(const struct cview *v, int first, int last,
			 const int *names, int nr)
{
	int i, k;

	for (i = first; i <= last; i++)
		for (k = 0; k < nr; k++)
			if (v->toks[i].len == v->toks[names[k]].len &&
			    !memcmp(v->toks[i].s, v->toks[names[k]].s, v->toks[i].len))
				return true;
	return false;
}

bool exitleak_cond_tests_null(const struct cview *v, int first, int last,
			      const int *names, int nr)
{
	int i;

	for (i = first; i <= last; i++) {
		if (!mentions_any(v, i, i, names, nr) || cv_is(v, i - 1, "->") ||
		    cv_is(v, i - 1, ".") || cv_is(v, i + 1, "->") || cv_is(v, i + 1, "["))
			continue;
		if (cv_is(v, i - 1, "!") || cv_is(v, i + 1, "==") || cv_is(v, i + 1, "!=") ||
		    cv_is(v, i + 1, "&&") || cv_is(v, i + 1, "||") ||
		    cv_is(v, i - 1, "&&") || cv_is(v, i - 1, "||") ||
		    (cv_is(v, i - 1, "(") && cv_is(v, i + 1, ")") &&
		     (i - 1 == first || cv_is(v, i - 2, "likely") ||
		      cv_is(v, i - 2, "unlikely"))))
			return true;
	}
	return false;
}

/* Is exit x under a NULL test of a held name ("if (!pte)", "if (pte)")? */
static bool under_test(const struct cview *v, int x, int fn, const int *names, int nr)
{
	int p;

	for (p = v->nodes[x].parent; p >= 0 && p != fn; p = v->nodes[p].parent) {
		const struct cnode *n = &v->nodes[p];

		if ((n->kind == CN_IF || n->kind == CN_WHILE) && n->cond_open >= 0 &&
		    exitleak_cond_tests_null(v, n->cond_open, n->cond_close, names, nr))
			return true;
	}
	return false;
}

/*
 * Is a held name passed to a call, or set, between tokens a and b?  The
 * callee may give it back ("hmm_vma_handle_pte() did pte_unmap()"), keep
 * it for later (pfnmap_args_setup()), or it was given up ("pte = NULL"
 * after do_swap_page()): say nothing.
 */
/* Calls that only read or write entries: not a hand-over */
static const char *const entry_ops[] = {
	"pte", "ptep", "set_pte", "flush_tlb", "update_mmu", "arch_",
	"lazy_mmu", "likely", "unlikely", "WARN", "VM_", "BUG",
};

/* The call whose argument list holds token i: its name token, or -1 */
static int call_of_arg(const struct cview *v, int i)
{
	int k, depth = 0;

	for (k = i - 1; k > 0; k--) {
		if (cv_is(v, k, ")"))
			depth++;
		else if (cv_is(v, k, "(") && depth-- == 0)
			return v->toks[k - 1].kind == CT_IDENT ? k - 1 : -1;
		else if (cv_is(v, k, ";") || cv_is(v, k, "{") || cv_is(v, k, "}"))
			return -1;
	}
	return -1;
}

static bool handed_on(const struct cview *v, int a, int b, const int *names, int nr)
{
	int i, call;
	size_t k;

	for (i = a; i < b; i++) {
		if (!mentions_any(v, i, i, names, nr) || cv_is(v, i - 1, "->") ||
		    cv_is(v, i - 1, "."))
			continue;
		/* set again, or stored: "fw->ptep = ptep;" (folio_walk_start()) */
		if (cv_is(v, i + 1, "=") ||
		    (cv_is(v, i - 1, "=") && cv_is(v, i + 1, ";") &&
		     (cv_is(v, i - 3, "->") || cv_is(v, i - 3, ".") ||
		      cv_is(v, i - 2, "]") || cv_is(v, i - 3, "*"))))
			return true;
		if (!(cv_is(v, i - 1, "(") || cv_is(v, i - 1, ",")) ||
		    !(cv_is(v, i + 1, ")") || cv_is(v, i + 1, ",")))
			continue;
		call = call_of_arg(v, i);
		if (call < 0 || cv_is(v, call, "if") || cv_is(v, call, "while"))
			continue;
		for (k = 0; k < ARRAY_SIZE(entry_ops); k++)
			if (!strncmp(v->toks[call].s, entry_ops[k], strlen(entry_ops[k])))
				break;
		if (k == ARRAY_SIZE(entry_ops))
			return true;
	}
	return false;
}

/* "start_pte = pte;": another name for what is held */
static int add_aliases(const struct cview *v, int fn, int from, int *names, int nr)
{
	int i;

	for (i = from; i + 3 < v->nodes[fn].last && nr < 4; i++)
		if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "=") &&
		    mentions_any(v, i + 2, i + 2, names, nr) && cv_is(v, i + 3, ";") &&
		    (cv_is(v, i - 1, ";") || cv_is(v, i - 1, "{") || cv_is(v, i - 1, "}")))
			names[nr++] = i;
	return nr;
}

/* Is a held name changed between tokens a and b ("pte++", "pte = ...")? */
static bool changed(const struct cview *v, int a, int b, const int *names, int nr)
{
	int i;

	for (i = a; i < b; i++)
		if (mentions_any(v, i, i, names, nr) &&
		    (cv_is(v, i + 1, "++") || cv_is(v, i + 1, "--") ||
		     cv_is(v, i + 1, "=") || cv_is(v, i + 1, "+=") ||
		     cv_is(v, i + 1, "-=") || cv_is(v, i - 1, "++") ||
		     cv_is(v, i - 1, "--")))
			return true;
	return false;
}

/* The code after label (its name token lab) up to fn's end gives back? */
static int label_of(const struct cview *v, int fn, int lab)
{
	int k;

	for (k = fn; k < v->nr_nodes && v->nodes[k].first <= v->nodes[fn].last; k++)
		if (v->nodes[k].kind == CN_LABEL && v->nodes[k].name >= 0 &&
		    v->toks[v->nodes[k].name].len == v->toks[lab].len &&
		    !memcmp(v->toks[v->nodes[k].name].s, v->toks[lab].s, v->toks[lab].len))
			return k;
	return -1;
}

/* The give-back line(s) put before exit x, braces added for a lone if body */
static char *suggestion(const struct cview *v, int x, const char *give)
{
	const struct cnode *n = &v->nodes[x];
	const struct cline *l = &v->lines[v->toks[n->first].line];
	struct strbuf sb = STRBUF_INIT, ind = STRBUF_INIT, stmt = STRBUF_INIT;
	int p = n->parent, i;

	for (i = 0; i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'); i++)
		strbuf_addch(&ind, l->text[i]);
	cview_text(v, n->first, n->last, &stmt);
	if (p >= 0 && v->nodes[p].kind == CN_IF && v->nodes[p].child == x &&
	    v->nodes[p].els < 0 &&
	    v->toks[v->nodes[p].first].line != v->toks[n->first].line) {
		const struct cline *h = &v->lines[v->toks[v->nodes[p].first].line];
		struct strbuf head = STRBUF_INIT;

		strbuf_add(&head, h->text, h->len);
		strbuf_rtrim(&head);
		strbuf_addf(&sb, "%s {\n%s%s;\n%s%s\n", head.buf, ind.buf, give, ind.buf,
			    stmt.buf);
		strbuf_setlen(&ind, ind.len ? ind.len - 1 : 0);
		strbuf_addf(&sb, "%s}", ind.buf);
		strbuf_release(&head);
	} else if (p >= 0 && v->nodes[p].kind == CN_BLOCK) {
		strbuf_addf(&sb, "%s%s;\n%s%s", ind.buf, give, ind.buf, stmt.buf);
	} else {
		strbuf_release(&sb);
	}
	strbuf_release(&ind);
	strbuf_release(&stmt);
	return sb.len ? strbuf_detach(&sb, NULL) : NULL;
}

/* "&ptl" as argument k of the call at t: "ptl" */
static bool lock_arg(const struct cview *v, int t, int k, struct strbuf *out)
{
	struct cterm a[MAX_ARGS];
	int nr, close = v->toks[t + 1].match;

	if (close < 0)
		return false;
	nr = cview_split(v, t + 2, close - 1, ",", a, MAX_ARGS);
	if (k >= nr || !cv_is(v, a[k].first, "&") || a[k].first + 1 != a[k].last)
		return false;
	strbuf_add(out, v->toks[a[k].last].s, v->toks[a[k].last].len);
	return true;
}

static void check_take(struct check_ctx *c, const struct leak_pair *pr, int fn,
		       int t)
{
	const struct cview *v = &c->file->view;
	int s = callers_node_at(v, t), names[4], nr = 0, x, end, g;
	const struct cnode *st;
	bool sees_take;

	if (s < 0 || v->nodes[s].kind != CN_EXPR)
		return;		/* in a condition, a return, a declaration list */
	st = &v->nodes[s];
	if (pr->result) {
		nr = exitleak_held_names(v, t, names, 4);
		if (!nr)
			return;
		nr = add_aliases(v, fn, st->last + 1, names, nr);
	} else if (st->first != t) {
		return;
	}
	sees_take = v->lines[v->toks[t].line].added;
	g = exitleak_find_call(v, st->last + 1, v->nodes[fn].last, pr->give);
	/*
	 * No path gives it back: the function keeps it for its caller
	 * (kmemleak's seq start, __pte_offset_map() and RCU): not a leak
	 */
	if (g < 0)
		return;
	end = g;
	for (x = s + 1; x < v->nr_nodes && v->nodes[x].first < end; x++) {
		const struct cnode *e = &v->nodes[x];
		struct strbuf fix = STRBUF_INIT, lk = STRBUF_INIT;
		const struct ctok *h;
		struct finding *f;
		int lab, k;

		if ((e->kind != CN_RETURN && e->kind != CN_GOTO) ||
		    e->first <= st->last || !cview_node_within(v, x, fn))
			continue;
		/*
		 * the function's last statement, or the last before the labels
		 * of its error paths, keeps it on purpose: not an early exit
		 */
		if (e->parent == fn &&
		    (e->next < 0 || v->nodes[e->next].kind == CN_LABEL))
			continue;
		if (v->lines[v->toks[e->first].line].seg != v->lines[v->toks[t].line].seg)
			break;	/* a gap between hunks: not seen */
		if (!check_sees(c, sees_take || v->lines[v->toks[e->first].line].added))
			continue;
		if (nr && (under_test(v, x, fn, names, nr) ||
			   mentions_any(v, e->first, e->last, names, nr) ||
			   handed_on(v, st->last + 1, e->first, names, nr)))
			continue;
		if (e->kind == CN_GOTO) {
			if (e->name < 0 || (lab = label_of(v, fn, e->name)) < 0)
				continue;
			if (v->nodes[lab].first > st->last && v->nodes[lab].first < e->first)
				continue;	/* back into the region: a loop */
			if (v->nodes[lab].first > e->first &&
			    exitleak_find_call(v, v->nodes[lab].first, v->nodes[fn].last,
					       pr->give) >= 0)
				continue;
			if (v->nodes[lab].first > e->first && !v->complete &&
			    v->lines[v->toks[v->nodes[fn].last].line].seg !=
			    v->lines[v->toks[e->first].line].seg)
				continue;
		}
		f = check_report_at(c, CHECK_WARNING, e->first, e->first, e->last,
				    "this %s leaves with %s: %s() at line %d is not "
				    "undone on this path (%s)",
				    e->kind == CN_RETURN ? "return" : "goto", pr->what,
				    pr->take, v->lines[v->toks[t].line].no, pr->give[0]);
		for (h = NULL, k = nr; k-- > 0; )
			if (!changed(v, st->last, e->first, &names[k], 1))
				h = &v->toks[names[k]];
		if (!nr || h) {

			if (pr->fix == FIX_CALL)
				strbuf_addf(&fix, "%s()", pr->give[0]);
			else if (pr->fix == FIX_PTR && h)
				strbuf_addf(&fix, "%s(%.*s)", pr->give[0], h->len, h->s);
			else if (pr->fix == FIX_PTR_LOCK && h && lock_arg(v, t, 3, &lk))
				strbuf_addf(&fix, "%s(%.*s, %s)", pr->give[0], h->len,
					    h->s, lk.buf);
			if (fix.len)
				f->suggestion = suggestion(v, x, fix.buf);
		}
		strbuf_release(&fix);
		strbuf_release(&lk);
	}
}

void exitleak_each_call(struct check_ctx *c,
			bool (*skip)(const struct cview *v, int b, const char *name, int len),
			void (*fn)(struct check_ctx *c, int body, int tok, void *data),
			void *data)
{
	const struct cview *v = &c->file->view;
	const char *name;
	int b, body, t, len;

	if (!c->file->is_c)
		return;
	for (b = 0; b < v->nr_nodes; b++) {
		body = exitleak_body_of(v, b, &name, &len);
		if (body < 0 || (skip && skip(v, b, name, len)))
			continue;
		for (t = v->nodes[body].first; t < v->nodes[body].last; t++)
			if (v->toks[t].kind == CT_IDENT && cv_is(v, t + 1, "("))
				fn(c, body, t, data);
	}
}

struct leak_pairs {
	const struct leak_pair *v;
	size_t n;
};

static void leak_call(struct check_ctx *c, int body, int t, void *data)
{
	const struct leak_pairs *lp = data;
	size_t k;

	for (k = 0; k < lp->n; k++)
		if (ctok_is(&c->file->view.toks[t], lp->v[k].take))
			check_take(c, &lp->v[k], body, t);
}

void exitleak_run(struct check_ctx *c, const struct leak_pair *pairs, size_t n)
{
	struct leak_pairs lp = { pairs, n };

	exitleak_each_call(c, takes_for_caller, leak_call, &lp);
}
