// SPDX-License-Identifier: GPL-2.0
/*
 * Early exits that leave something taken (exitleak.h): on the paths of
 * each function (flow.c), a return or a goto whose path reaches the
 * function's end with a lock, an RCU section or a mapped page table still
 * held, when the function gives it back on other paths (one that never
 * does keeps it for its caller).  Not exits: a NULL check of the held
 * pointer (nothing was taken), a return handing it to the caller
 * ("return pte;"), a hand-over to a callee that may give it back.
 * Also the helpers the NULL and sleep rules share: the names a take
 * assigns, NULL tests, each call of a body.
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

/*
 * "goto abort;" past the unlock: the label of the ladder before it whose
 * code gives r back ("goto unlock_abort;"), or NULL
 */
static char *goto_fix(const struct flow *f, int r, int g, int label)
{
	const struct cview *v = f->v;
	const struct cline *l = &v->lines[v->toks[v->nodes[g].first].line];
	struct strbuf sb = STRBUF_INIT;
	int k, best = -1, i;

	for (k = v->nodes[f->body].child; k >= 0 && k != label; k = v->nodes[k].next)
		if (v->nodes[k].kind == CN_LABEL && v->nodes[k].first > v->nodes[g].last &&
		    flow_gives(f, r, v->nodes[k].first, v->nodes[label].first))
			best = k;
	if (best < 0 || v->nodes[best].name < 0)
		return NULL;
	for (i = 0; i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'); i++)
		strbuf_addch(&sb, l->text[i]);
	strbuf_addf(&sb, "goto %.*s;", v->toks[v->nodes[best].name].len,
		    v->toks[v->nodes[best].name].s);
	return strbuf_detach(&sb, NULL);
}

/*
 * Was the function entered holding what r takes?  Its first word on the
 * lock is a give-back: it drops the caller's lock and takes it again
 * before returning (cluster_reclaim_range() with si->lock, a page walk
 * callback with the hugetlb VMA lock).  Leaving with it held is the
 * caller's contract, not a leak.
 */
static bool entered_held(const struct flow *f, int r)
{
	const struct cview *v = f->v;
	int g = v->nodes[f->body].first, i;

	/* the first give-back of it, before its take */
	while (g < f->res[r].tok && !flow_gives(f, r, g, g))
		g++;
	if (g >= f->res[r].tok)
		return false;
	/* which undoes no take before it (a loop's earlier take and unlock) */
	for (i = 0; i < f->nr_res; i++)
		if (f->res[i].tok < g && flow_gives(f, i, g, g))
			return false;
	return true;
}

/* A leaking exit: at the return or goto, the resource named */
static void leak_exit(struct flow *f, int exit, int label, unsigned int held)
{
	const struct cview *v = f->v;
	struct check_ctx *c = f->c;
	int r;

	if (exit < 0)
		return;		/* falling off the end: kept for the caller */
	/*
	 * the function's last statement, or the last before the labels of
	 * its error paths, keeps it on purpose (__pte_offset_map() returns
	 * in the RCU section it entered): not an early exit
	 */
	if (v->nodes[exit].parent == f->body && label < 0) {
		int n = v->nodes[exit].next;

		while (n >= 0 && v->nodes[n].kind == CN_LABEL)
			n = v->nodes[n].next;
		/* but a lock it never gives back and cannot hand over is lost */
		if (n < 0 || v->nodes[v->nodes[exit].next].kind == CN_LABEL)
			held &= f->lost;
	}
	for (r = 0; r < f->nr_res; r++) {
		const struct cnode *e = &v->nodes[exit];
		const struct flow_res *x = &f->res[r];
		struct strbuf what = STRBUF_INIT, fix = STRBUF_INIT, lab = STRBUF_INIT;
		const struct cline *el = &v->lines[v->toks[e->first].line];
		struct finding *fd;
		bool take_added = v->lines[v->toks[x->tok].line].added;

		if (!(held & (1u << r)) ||
		    !check_sees(c, take_added || el->added || el->moved) ||
		    (f->data && entered_held(f, r)))
			continue;
		flow_res_name(f, r, &what);
		if (label >= 0 && v->nodes[label].name >= 0)
			strbuf_addf(&lab, " (through '%.*s')",
				    v->toks[v->nodes[label].name].len,
				    v->toks[v->nodes[label].name].s);
		fd = check_report_caused(c, CHECK_WARNING, e->first,
					 take_added || !el->moved ? x->tok : e->first, e->first,
					 e->last, "this %s leaves with %s of line %d held%s: "
					 "%s() does not undo it on this path%s",
					 e->kind == CN_RETURN ? "return" : "goto", what.buf,
					 v->lines[v->toks[x->tok].line].no, lab.buf,
					 x->pair->give ? x->pair->give[0] : "nothing",
					 (f->lost & (1u << r)) ? " (the function never gives it "
					 "back, and returns a value, not the lock)" : "");
		flow_fix_text(f, r, e->first, &fix);
		if (fix.len && label < 0)
			fd->suggestion = suggestion(v, exit, fix.buf);
		else if (label >= 0)
			fd->suggestion = goto_fix(f, r, exit, label);
		strbuf_release(&what);
		strbuf_release(&fix);
		strbuf_release(&lab);
	}
}

static const struct flow_ops leak_ops = { .exit = leak_exit };
static const struct flow_ops lost_ops = { .exit = leak_exit, .lost = true };

void exitleak_run(struct check_ctx *c, const struct flow_pair *pairs, size_t n)
{
	flow_run(c, pairs, n, &leak_ops, NULL);
}

void exitleak_run_entered(struct check_ctx *c, const struct flow_pair *pairs, size_t n)
{
	static bool entered = true;

	flow_run(c, pairs, n, &leak_ops, &entered);
}

void exitleak_run_lost(struct check_ctx *c, const struct flow_pair *pairs, size_t n)
{
	static bool entered = true;

	flow_run(c, pairs, n, &lost_ops, &entered);
}
