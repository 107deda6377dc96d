// SPDX-License-Identifier: GPL-2.0
/*
 * progress-accounting: a scan function that reports its work through a
 * counter out-parameter (hpage_collapse_scan_pmd(..., unsigned int
 * *cur_progress, ...) in "[PATCH mm-new v7 2/5] mm: khugepaged: refine
 * scan progress number") must
 *  - NULL-check the counter at every write when a caller passes NULL
 *    (madvise_collapse() does),
 *  - not charge the full amount (*cur_progress = HPAGE_PMD_NR) whatever
 *    the scan did when the scan can stop early: the SCAN_PTE_MAPPED_HUGEPAGE
 *    case the author found later in the thread; an amount that depends
 *    on how the scan ended is fine,
 *  - account on every path that returns after scanning,
 * and its callers must add the reported amount, not a fixed HPAGE_PMD_NR.
 *
 * The real bug of bench/bugs/ it finds: the v7 patch itself, whose
 * file scan charges a full PMD on SCAN_PTE_MAPPED_HUGEPAGE (the author's
 * own finding later in the thread); the review cases' b05-b07 are derived
 * from it.
 *
 * Counters are pointer-to-integer parameters named like "progress" or
 * "scanned".  With a tree the whole function is read; from hunks alone
 * the rule says so when it could not see the scan loop.
 */
#include <ctype.h>
#include <stdlib.h>

#include "checkers/rules.h"

#define MAX_ARGS 32

struct counter {
	char *func;
	char *param;
	int index;		/* parameter position */
	char *null_caller;	/* a function passing NULL for it, or NULL */
	bool checks_null;	/* the function itself tests the pointer */
};

struct progress_state {
	struct counter *v;
	size_t nr, alloc;
};

static const char *const int_types[] = {
	"int", "long", "unsigned", "size_t", "ssize_t", "u8", "u16", "u32",
	"u64", "s32", "s64", "short", "pgoff_t",
};

static bool counter_name(const struct ctok *t)
{
	return check_ident_has(t, "progress") || check_ident_has(t, "scanned") ||
	       check_ident_has(t, "nr_scan");
}

static bool tok_eq(const struct ctok *t, const char *s)
{
	return s && ctok_is(t, s);
}

static bool tok_same(const struct ctok *a, const struct ctok *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

static struct counter *find_counter(struct progress_state *st, const struct ctok *t)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (tok_eq(t, st->v[i].func))
			return &st->v[i];
	return NULL;
}

/* Are function nodes a and b the same function (hunks of one)? */
static bool same_func(const struct cview *v, int a, int b)
{
	const struct cnode *x, *y;

	if (a == b)
		return true;
	if (a < 0 || b < 0)
		return false;
	x = &v->nodes[a];
	y = &v->nodes[b];
	return x->fname && y->fname && x->fname_len == y->fname_len &&
	       !memcmp(x->fname, y->fname, x->fname_len);
}

/* "unsigned int *cur_progress": an integer pointer named like a counter */
static bool counter_param(const struct cview *v, const struct cterm *p)
{
	int i;
	bool int_type = false;

	if (p->last - p->first < 2 || !counter_name(&v->toks[p->last]) ||
	    !cv_is(v, p->last - 1, "*") || cv_is(v, p->last - 2, "*"))
		return false;
	for (i = p->first; i < p->last - 1; i++) {
		size_t k;

		for (k = 0; k < ARRAY_SIZE(int_types); k++)
			if (ctok_is(&v->toks[i], int_types[k]))
				int_type = true;
		if (cv_is(v, i, "struct") || cv_is(v, i, "("))
			return false;
	}
	return int_type;
}

/* A NULL test of name in the tokens first..last */
static bool tests_null(const struct cview *v, int first, int last, const char *name)
{
	int i;

	for (i = first; i <= last; i++) {
		if (!tok_eq(&v->toks[i], name) || cv_is(v, i - 1, "*") ||
		    cv_is(v, i - 1, "&"))
			continue;
		if (cv_is(v, i - 1, "!") || cv_is(v, i + 1, "&&") ||
		    cv_is(v, i - 1, "&&") || cv_is(v, i + 1, "?") ||
		    cv_is(v, i + 1, "==") || cv_is(v, i + 1, "!=") ||
		    (cv_is(v, i - 1, "(") && cv_is(v, i + 1, ")") &&
		     (cv_is(v, i - 2, "if") || cv_is(v, i - 2, "while"))))
			return true;
	}
	return false;
}

static void learn_counters(struct progress_state *st, const struct cview *v)
{
	struct cterm params[MAX_ARGS];
	int i, k, nr;

	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];

		if (n->kind != CN_FUNC || n->cond_open < 0 || n->name < 0 ||
		    n->cond_close <= n->cond_open + 1)
			continue;
		nr = cview_split(v, n->cond_open + 1, n->cond_close - 1, ",",
				 params, MAX_ARGS);
		for (k = 0; k < nr; k++) {
			const struct ctok *pt = &v->toks[params[k].last];
			struct counter *c;

			if (!counter_param(v, &params[k]))
				continue;
			c = find_counter(st, &v->toks[n->name]);
			if (!c) {
				ALLOC_GROW(st->v, st->nr + 1, st->alloc);
				c = &st->v[st->nr++];
				memset(c, 0, sizeof(*c));
				c->func = xstrndup(v->toks[n->name].s, v->toks[n->name].len);
				c->param = xstrndup(pt->s, pt->len);
				c->index = k;
			}
			if (tests_null(v, n->first, n->last, c->param))
				c->checks_null = true;
			break;
		}
	}
}

/* Calls of counter functions: who passes NULL */
static void learn_calls(struct progress_state *st, const struct cview *v)
{
	struct cterm args[MAX_ARGS];
	int i, nr;

	for (i = 0; i + 1 < v->nr_toks; i++) {
		const struct ctok *t = &v->toks[i];
		struct counter *c;
		int close, fn;

		if (t->kind != CT_IDENT || !cv_is(v, i + 1, "("))
			continue;
		close = v->toks[i + 1].match;
		c = close < 0 ? NULL : find_counter(st, t);
		if (!c)
			continue;
		nr = cview_split(v, i + 2, close - 1, ",", args, MAX_ARGS);
		if (c->index >= nr || args[c->index].first != args[c->index].last ||
		    !cv_is(v, args[c->index].first, "NULL"))
			continue;
		if (c->null_caller)
			continue;
		/* the caller: the function node holding this token */
		for (fn = 0; fn < v->nr_nodes; fn++) {
			const struct cnode *f = &v->nodes[fn];

			if (f->kind == CN_FUNC && f->first <= i && i <= f->last &&
			    f->fname) {
				c->null_caller = xstrndup(f->fname, f->fname_len);
				break;
			}
		}
		if (!c->null_caller)
			c->null_caller = xstrdup("a caller");
	}
}

static void progress_begin(struct check_ctx *c)
{
	struct progress_state *st = xcalloc(1, sizeof(*st));
	struct check_patch *p;
	struct check_file *f;
	size_t pi, fi;

	for_each_check_file(c->s, pi, fi, p, f)
		if (f->is_c)
			learn_counters(st, &f->view);
	for_each_check_file(c->s, pi, fi, p, f)
		if (f->is_c)
			learn_calls(st, &f->view);
	c->state = st;
}

static void progress_end(struct check_ctx *c)
{
	struct progress_state *st = c->state;
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nr; i++) {
		free(st->v[i].func);
		free(st->v[i].param);
		free(st->v[i].null_caller);
	}
	free(st->v);
	free(st);
	c->state = NULL;
}

enum wkind { W_NONE, W_SET, W_ADD };

/* A statement writing *name: "*p = x;", "*p += x;", "(*p)++;", "++*p;" */
static enum wkind write_of(const struct cview *v, const struct cnode *n,
			   const char *name, int *value)
{
	int f = n->first, op;

	if (n->kind != CN_EXPR)
		return W_NONE;
	if (cv_is(v, f, "++") || cv_is(v, f, "--"))
		return cv_is(v, f + 1, "*") && tok_eq(&v->toks[f + 2], name) ?
		       W_ADD : W_NONE;
	if (cv_is(v, f, "(") && cv_is(v, f + 1, "*") && f + 4 <= n->last &&
	    tok_eq(&v->toks[f + 2], name) && cv_is(v, f + 3, ")"))
		op = f + 4;
	else if (cv_is(v, f, "*") && f + 2 <= n->last && tok_eq(&v->toks[f + 1], name))
		op = f + 2;
	else
		return W_NONE;
	*value = op + 1;
	if (cv_is(v, op, "="))
		return W_SET;
	if (cv_is(v, op, "+=") || cv_is(v, op, "++") || cv_is(v, op, "-=") ||
	    cv_is(v, op, "--"))
		return W_ADD;
	return W_NONE;
}

/* HPAGE_PMD_NR, 512, 1 << HPAGE_PMD_ORDER: a fixed amount other than 0/1 */
static bool full_amount(const struct cview *v, int first, int last)
{
	bool any = false;
	int i, k;

	if (first == last && v->toks[first].kind == CT_NUMBER) {
		const struct ctok *t = &v->toks[first];
		int n = t->len;

		/* 0, 1, 1U, 1UL: not a full amount */
		while (n > 1 && strchr("uUlL", t->s[n - 1]))
			n--;
		return !(n == 1 && (t->s[0] == '0' || t->s[0] == '1'));
	}
	for (i = first; i <= last; i++) {
		const struct ctok *t = &v->toks[i];

		if (t->kind == CT_NUMBER)
			continue;
		if (t->kind == CT_PUNCT) {
			if (ctok_is(t, "(") || ctok_is(t, ")") || ctok_is(t, "*") ||
			    ctok_is(t, "<<") || ctok_is(t, "+") || ctok_is(t, "-"))
				continue;
			return false;
		}
		if (t->kind != CT_IDENT)
			return false;
		for (k = 0; k < t->len; k++)
			if (islower((unsigned char)t->s[k]))
				return false;
		any = true;
	}
	return any;
}

static bool is_loop(enum cnode_kind k)
{
	return k == CN_FOR || k == CN_WHILE || k == CN_DO || k == CN_LOOPMACRO;
}

/* Is the condition of if-node p only a NULL test of name? */
static bool null_test_only(const struct cview *v, const struct cnode *p,
			   const char *name)
{
	struct cterm t[16];
	int nr, k;

	nr = cview_split(v, p->cond_open + 1, p->cond_close - 1, "&&", t, 16);
	for (k = 0; k < nr; k++) {
		bool null_test = (t[k].first == t[k].last &&
				  tok_eq(&v->toks[t[k].first], name)) ||
				 (t[k].first + 2 == t[k].last &&
				  tok_eq(&v->toks[t[k].first], name) &&
				  cv_is(v, t[k].first + 1, "!=") &&
				  cv_is(v, t[k].last, "NULL"));

		if (!null_test || t[k].neg)
			return false;
	}
	return nr > 0;
}

/* Is node n under "if (name)" or after "if (!name) return;" */
static bool null_guarded(const struct cview *v, int n, const char *name)
{
	while (n >= 0) {
		int p = v->nodes[n].parent, s;

		if (p < 0)
			return false;
		if (v->nodes[p].kind == CN_IF && v->nodes[p].child == n &&
		    v->nodes[p].cond_open >= 0) {
			struct cterm t[16];
			int nr = cview_split(v, v->nodes[p].cond_open + 1,
					     v->nodes[p].cond_close - 1, "&&", t, 16), k;

			for (k = 0; k < nr; k++)
				if (!t[k].neg && t[k].first == t[k].last &&
				    tok_eq(&v->toks[t[k].first], name))
					return true;
			if (tests_null(v, v->nodes[p].cond_open, v->nodes[p].cond_close,
				       name) && !cv_is(v, v->nodes[p].cond_open + 1, "!"))
				return true;
		}
		if (v->nodes[p].kind == CN_BLOCK)
			for (s = v->nodes[p].child; s >= 0 && s != n; s = v->nodes[s].next) {
				const struct cnode *x = &v->nodes[s];

				if (x->kind == CN_IF && x->cond_open >= 0 &&
				    cv_is(v, x->cond_open + 1, "!") &&
				    tok_eq(&v->toks[x->cond_open + 2], name) &&
				    x->cond_open + 3 == x->cond_close &&
				    x->child >= 0 &&
				    (v->nodes[x->child].kind == CN_RETURN ||
				     v->nodes[x->child].kind == CN_GOTO))
					return true;
			}
		n = p;
	}
	return false;
}

/* Does loop node l stop early: break (its own), goto or return inside? */
static bool stops_early(const struct cview *v, int l)
{
	int i;

	for (i = l + 1; i < v->nr_nodes && v->nodes[i].first <= v->nodes[l].last; i++) {
		const struct cnode *x = &v->nodes[i];
		int p;

		if (!cview_node_within(v, i, l))
			continue;
		if (x->kind == CN_GOTO || x->kind == CN_RETURN)
			return true;
		if (x->kind != CN_BREAK)
			continue;
		/* a break of a nested loop or switch does not count */
		for (p = x->parent; p >= 0 && p != l; p = v->nodes[p].parent)
			if (is_loop(v->nodes[p].kind) || v->nodes[p].kind == CN_SWITCH)
				break;
		if (p == l)
			return true;
	}
	return false;
}

/* A later test of how the scan ended: "if (result == SCAN_SUCCEED)" */
static int status_test_after(const struct cview *v, int fn, int from)
{
	int i;

	for (i = from; i < v->nr_nodes; i++) {
		const struct cnode *x = &v->nodes[i];
		int k;

		if (x->func != fn || x->kind != CN_IF || x->cond_open < 0)
			continue;
		for (k = x->cond_open + 1; k < x->cond_close; k++)
			if ((cv_is(v, k, "==") || cv_is(v, k, "!=")) &&
			    v->toks[k - 1].kind == CT_IDENT &&
			    v->toks[k + 1].kind == CT_IDENT &&
			    full_amount(v, k + 1, k + 1))
				return i;
	}
	return -1;
}

/* An amount that depends on how the scan ended, as the thread converged on */
static void suggest_charge(const struct cview *v, const struct counter *ctr,
			   int w, int value, int last, int status, struct finding *f)
{
	struct strbuf sb = STRBUF_INIT, var = STRBUF_INIT, ind = STRBUF_INIT;
	const struct cnode *n = &v->nodes[w];
	const struct cline *l;
	const char *stop = "<stopped early>";
	int k;

	/* indented as the "if (counter)" around the write, if there is one */
	if (n->parent >= 0 && v->nodes[n->parent].kind == CN_IF)
		n = &v->nodes[n->parent];
	l = &v->lines[v->toks[n->first].line];
	strbuf_addstr(&var, "result");
	if (status >= 0) {
		const struct cnode *x = &v->nodes[status];

		for (k = x->cond_open + 1; k < x->cond_close; k++)
			if (cv_is(v, k, "==") || cv_is(v, k, "!=")) {
				strbuf_reset(&var);
				strbuf_add(&var, v->toks[k - 1].s, v->toks[k - 1].len);
				break;
			}
	}
	for (k = 0; k < v->nr_toks; k++)
		if (cv_is(v, k, "SCAN_PTE_MAPPED_HUGEPAGE"))
			stop = "SCAN_PTE_MAPPED_HUGEPAGE";
	for (k = 0; k < l->len && (l->text[k] == ' ' || l->text[k] == '\t'); k++)
		strbuf_addch(&ind, l->text[k]);
	strbuf_addf(&sb, "%sif (%s) {\n%s\tif (%s == %s)\n%s\t\t*%s = 1;\n%s\telse\n%s\t\t*%s = ",
		    ind.buf, ctr->param, ind.buf, var.buf, stop, ind.buf, ctr->param,
		    ind.buf, ind.buf, ctr->param);
	cview_text(v, value, last, &sb);
	strbuf_addf(&sb, ";\n%s}", ind.buf);
	strbuf_release(&ind);
	f->suggestion = strbuf_detach(&sb, NULL);
	strbuf_release(&var);
}

static void check_full_charge(struct check_ctx *c, const struct counter *ctr,
			      int w, int value, int last)
{
	const struct cview *v = &c->file->view;
	const struct cnode *n = &v->nodes[w];
	int p, i, loop = -1, status = -1;
	bool early = false;
	struct finding *f;

	/* conditional on anything but the NULL test: depends on the ending */
	for (p = n->parent; p >= 0 && v->nodes[p].kind != CN_FUNC; p = v->nodes[p].parent) {
		const struct cnode *x = &v->nodes[p];

		if (is_loop(x->kind) || x->kind == CN_SWITCH || x->kind == CN_OPEN ||
		    x->kind == CN_ELSE || x->kind == CN_CASE)
			return;
		if (x->kind == CN_IF && !null_test_only(v, x, ctr->param))
			return;
	}
	/* the loops of the function before it */
	for (i = 0; i < w; i++) {
		const struct cnode *x = &v->nodes[i];

		if (x->func != n->func || !is_loop(x->kind) || x->last >= n->first)
			continue;
		loop = i;
		if (stops_early(v, i))
			early = true;
	}
	if (loop >= 0 && !early)
		return;		/* every loop runs to its end */
	if (!early)
		status = status_test_after(v, n->func, w);
	if (early) {
		f = check_report_at(c, CHECK_WARNING, n->first, n->first, n->last,
				    "'%s()' charges a fixed amount to '*%s' after a scan "
				    "loop that can stop early (break, goto, return): a "
				    "partial scan is counted as a full one; report what "
				    "was scanned, or an amount that depends on how the "
				    "scan ended", ctr->func, ctr->param);
	} else if (status >= 0) {
		f = check_report_at(c, CHECK_WARNING, n->first, n->first, n->last,
				    "'%s()' charges a fixed amount to '*%s' whatever the "
				    "scan did, but the scan can end in different ways "
				    "(line %d tests how it ended): a scan that stopped "
				    "early (e.g. SCAN_PTE_MAPPED_HUGEPAGE) is charged in "
				    "full; the scan loop is not in the patch",
				    ctr->func, ctr->param,
				    v->lines[v->toks[v->nodes[status].first].line].no);
	} else {
		f = check_report_at(c, CHECK_NOTE, n->first, n->first, n->last,
				    "'%s()' charges a fixed amount to '*%s'; the scan "
				    "loop is not in the patch, so whether it can stop "
				    "early could not be checked", ctr->func, ctr->param);
	}
	suggest_charge(v, ctr, w, value, last, status, f);
}

/* Is node i a write of *name other than a reset to 0? */
static bool accounts(const struct cview *v, int i, const char *name)
{
	int value = -1;
	enum wkind w = write_of(v, &v->nodes[i], name, &value);

	if (w == W_NONE)
		return false;
	return !(w == W_SET && value >= 0 && value == v->nodes[i].last - 1 &&
		 cv_is(v, value, "0"));
}

/*
 * A write of the counter among the nodes of fn in tokens [from, to), or
 * the counter handed to a callee that writes it ("foo(..., total_scanned)"
 * in mem_cgroup_soft_limit_reclaim(): a false alarm on the corpus)
 */
static bool written_between(const struct cview *v, int fn, const char *name,
			    int from, int to)
{
	int i;

	for (i = fn; i < v->nr_nodes && v->nodes[i].first < to; i++)
		if (v->nodes[i].func == fn && v->nodes[i].first >= from &&
		    accounts(v, i, name))
			return true;
	for (i = from; i < to && i < v->nr_toks; i++)
		if (tok_eq(&v->toks[i], name) && !cv_is(v, i - 1, "*") &&
		    (cv_is(v, i - 1, ",") || cv_is(v, i - 1, "(")) &&
		    (cv_is(v, i + 1, ",") || cv_is(v, i + 1, ")")) &&
		    !(cv_is(v, i - 1, "(") && (cv_is(v, i - 2, "if") ||
					       cv_is(v, i - 2, "while"))))
			return true;
	return false;
}


/* Does the code after label (its name at token lab) account? */
static bool label_accounts(const struct cview *v, int fn, const char *name, int lab)
{
	int k;

	for (k = 0; k < v->nr_nodes; k++) {
		const struct cnode *l = &v->nodes[k];

		if (l->kind == CN_LABEL && l->name >= 0 && same_func(v, l->func, fn) &&
		    tok_same(&v->toks[l->name], &v->toks[lab]))
			return written_between(v, l->func, name, l->first,
					       v->nodes[l->func].last + 1);
	}
	/*
	 * Not in view: another jump to it that reports in its own block
	 * first ("if (!pte) { *cur_progress = 1; goto out; }") says it
	 * does not
	 */
	for (k = 0; k < v->nr_nodes; k++) {
		const struct cnode *g = &v->nodes[k];

		if (g->kind == CN_GOTO && g->name >= 0 && same_func(v, g->func, fn) &&
		    tok_same(&v->toks[g->name], &v->toks[lab]) && g->parent >= 0 &&
		    v->nodes[g->parent].kind == CN_BLOCK &&
		    written_between(v, g->func, name, v->nodes[g->parent].first, g->first))
			return false;
	}
	return true;	/* say nothing */
}

/*
 * Exits after the scan started that never reported anything: a return,
 * or a goto to a label that does not account, inside the first scan loop
 * or after it, with no write of the counter before it (per-iteration
 * writes in the loop count for the exits after it).
 */
/* Is function node fn whole in the view (head and closing brace)? */
static bool whole_function(const struct cview *v, int fn)
{
	const struct cnode *f = &v->nodes[fn];

	return v->complete || (f->child >= 0 &&
			       cv_is(v, v->nodes[f->child].last, "}") &&
			       v->toks[v->nodes[f->child].first].match ==
			       v->nodes[f->child].last);
}

/* Is node i under a test of the counter pointer for NULL ("if (!cur)")? */
static bool under_null_test(const struct cview *v, int i, int fn, const char *name)
{
	int p;

	for (p = v->nodes[i].parent; p >= 0 && p != fn; p = v->nodes[p].parent)
		if (v->nodes[p].kind == CN_IF && v->nodes[p].cond_open >= 0 &&
		    tests_null(v, v->nodes[p].cond_open, v->nodes[p].cond_close, name))
			return true;
	return false;
}

/* The parameter token of the counter in function node fn's head, or -1 */
static int param_tok(const struct cview *v, int fn, const char *name)
{
	int g, k;

	for (g = 0; g < v->nr_nodes; g++) {
		const struct cnode *f = &v->nodes[g];

		if (f->kind != CN_FUNC || f->cond_open < 0 || !same_func(v, g, fn))
			continue;
		for (k = f->cond_open; k <= f->cond_close; k++)
			if (tok_eq(&v->toks[k], name))
				return k;
	}
	return -1;
}

/*
 * Exits that never reported anything: a return, or a goto to a label
 * that does not account, with no write of the counter before it (a write
 * in the scan loop counts for the exits after it), also those before the
 * scan (the caller adds what the counter holds: nothing charged there
 * lets the scan overrun its budget).  An exit the series does not change
 * is its problem when the series adds the counter.
 */
static void check_paths(struct check_ctx *c, const struct counter *ctr, int fn)
{
	const struct cview *v = &c->file->view;
	int i, l, p = param_tok(v, fn, ctr->param);
	bool added = p >= 0 && v->lines[v->toks[p].line].added;

	for (l = fn; l < v->nr_nodes; l++)
		if (v->nodes[l].func == fn && is_loop(v->nodes[l].kind))
			break;
	if (l >= v->nr_nodes)
		return;
	for (i = fn + 1; i < v->nr_nodes && v->nodes[i].first <= v->nodes[fn].last; i++) {
		const struct cnode *x = &v->nodes[i];

		if (x->func != fn || (x->kind != CN_RETURN && x->kind != CN_GOTO) ||
		    !check_sees(c, added || v->lines[v->toks[x->first].line].added))
			continue;
		if (written_between(v, fn, ctr->param, v->nodes[fn].first, x->first) ||
		    under_null_test(v, i, fn, ctr->param))
			continue;
		if (x->kind == CN_GOTO &&
		    (x->name < 0 || label_accounts(v, fn, ctr->param, x->name)))
			continue;
		check_report_caused(c, CHECK_WARNING, x->first, added ? p : -1,
				    x->first, x->last,
				    "'%s()' %s here %swithout reporting the work in '*%s'",
				    ctr->func, x->kind == CN_RETURN ? "returns" : "leaves",
				    i < l ? "" : "after scanning ", ctr->param);
	}
}

/* "max(cur, HPAGE_PMD_NR)", "max_t(unsigned int, cur, HPAGE_PMD_NR)" */
static bool max_with_fixed(const struct cview *v, int k, const struct ctok *var,
			   int *at)
{
	struct cterm a[MAX_ARGS];
	int i, j, nr, close, call;

	for (i = k - 1; i >= 0 && i >= k - 8; i--) {
		if (!cv_is(v, i, "(") || v->toks[i].match < k ||
		    (!cv_is(v, i - 1, "max") && !cv_is(v, i - 1, "max_t") &&
		     !cv_is(v, i - 1, "umax") && !cv_is(v, i - 1, "max3")))
			continue;
		call = i - 1;
		close = v->toks[i].match;
		nr = cview_split(v, i + 1, close - 1, ",", a, MAX_ARGS);
		for (j = 0; j < nr; j++)
			if (a[j].first == a[j].last && tok_same(&v->toks[a[j].first], var))
				break;
		if (j == nr)
			continue;
		for (j = 0; j < nr; j++)
			if (!(a[j].first == a[j].last &&
			      tok_same(&v->toks[a[j].first], var)) &&
			    full_amount(v, a[j].first, a[j].last)) {
				*at = call;
				return true;
			}
	}
	return false;
}

/* Did this rule report at line no of the current file already? */
static bool reported_at(const struct check_ctx *c, int no)
{
	size_t i;

	for (i = c->out->nr; i-- > 0; )
		if (c->out->v[i].line == no && c->out->v[i].file &&
		    !strcmp(c->out->v[i].file, c->file->path) &&
		    !strcmp(c->out->v[i].rule, c->k->name))
			return true;
	return false;
}

/*
 * Callers: the reported amount is added, not ignored, overwritten, taken
 * the max() of with a fixed amount, or replaced by a fixed one.
 */
static void check_call(struct check_ctx *c, const struct counter *ctr, int i,
		       int close, int a)
{
	const struct cview *v = &c->file->view;
	const struct ctok *var = &v->toks[a + 1];
	const struct cnode *f;
	int fn, k, at, g, end;
	bool read = false, sees = check_sees(c, v->lines[v->toks[i].line].added);

	for (fn = 0; fn < v->nr_nodes; fn++)
		if (v->nodes[fn].kind == CN_FUNC && v->nodes[fn].first <= i &&
		    i <= v->nodes[fn].last)
			break;
	if (fn >= v->nr_nodes)
		return;
	f = &v->nodes[fn];
	/* the hunks after it of the same function are read on */
	end = f->last;
	for (g = fn + 1; g < v->nr_nodes; g++)
		if (v->nodes[g].kind == CN_FUNC && v->nodes[g].first > end) {
			if (!same_func(v, g, fn))
				break;
			end = v->nodes[g].last;
		}
	for (k = f->first; k <= end; k++) {
		if (!tok_same(&v->toks[k], var) || cv_is(v, k - 1, ".") ||
		    cv_is(v, k - 1, "->") || k == a + 1)
			continue;
		if (k > close && cv_is(v, k + 1, "=") && !read) {
			/* "cur_progress = HPAGE_PMD_NR;" before anything read it */
			if (check_sees(c, v->lines[v->toks[k].line].added))
				check_report_at(c, CHECK_WARNING, k, k, k + 1,
						"'%.*s' is overwritten before what '%s()' "
						"reported in it is used", var->len, var->s,
						ctr->func);
			return;
		}
		if (cv_is(v, k + 1, "=") || (cv_is(v, k - 1, "&") && k < i))
			continue;	/* set, or passed before the call */
		if (max_with_fixed(v, k, var, &at)) {
			if (check_sees(c, v->lines[v->toks[at].line].added) &&
			    !reported_at(c, v->lines[v->toks[at].line].no))
				check_report_at(c, CHECK_WARNING, at, at,
						v->toks[at + 1].match,
						"takes the larger of what '%s()' reported "
						"and a fixed amount: a partial scan is "
						"charged in full", ctr->func);
			return;
		}
		if (k > close && counter_name(&v->toks[k - 2]) && cv_is(v, k - 1, "=") &&
		    cv_is(v, k + 1, ";") && !cv_is(v, k - 3, "*") &&
		    check_sees(c, v->lines[v->toks[k].line].added)) {
			/* "progress = cur_progress;": the total is replaced */
			check_report_at(c, CHECK_WARNING, k - 2, k - 2, k + 1,
					"'%.*s' is set to what '%s()' reported instead "
					"of adding it: the work of earlier calls is lost",
					v->toks[k - 2].len, v->toks[k - 2].s, ctr->func);
			return;
		}
		read = true;
	}
	if (read)
		return;
	/* "progress += HPAGE_PMD_NR;" in the same function */
	for (k = f->first; k < f->last; k++) {
		int e;

		if (!counter_name(&v->toks[k]) || !cv_is(v, k + 1, "+="))
			continue;
		e = cview_find(v, k + 2, f->last, ";");
		if (e < 0 || !full_amount(v, k + 2, e - 1))
			continue;
		if (v->lines[v->toks[k].line].added)
			check_report_at(c, CHECK_WARNING, k, k, e,
					"adds a fixed amount instead of what '%s()' "
					"reported in '%.*s'", ctr->func, var->len, var->s);
		else if (sees)
			check_report_at(c, CHECK_WARNING, i, i, close,
					"'%.*s' that '%s()' fills is never used: the "
					"caller still adds a fixed amount (line %d)",
					var->len, var->s, ctr->func,
					v->lines[v->toks[k].line].no);
		return;
	}
	if (sees && whole_function(v, fn))
		check_report_at(c, CHECK_WARNING, i, i, close,
				"'%.*s' that '%s()' fills is never used: the work it "
				"reports is not accounted", var->len, var->s, ctr->func);
}

static void check_callers(struct check_ctx *c, const struct counter *ctr)
{
	const struct cview *v = &c->file->view;
	struct cterm args[MAX_ARGS];
	int i, nr;

	for (i = 0; i + 1 < v->nr_toks; i++) {
		int close, a;

		if (!tok_eq(&v->toks[i], ctr->func) || !cv_is(v, i + 1, "("))
			continue;
		close = v->toks[i + 1].match;
		if (close < 0)
			continue;
		nr = cview_split(v, i + 2, close - 1, ",", args, MAX_ARGS);
		if (ctr->index >= nr)
			continue;
		a = args[ctr->index].first;
		if (!cv_is(v, a, "&") || a + 1 != args[ctr->index].last ||
		    v->toks[a + 1].kind != CT_IDENT)
			continue;
		check_call(c, ctr, i, close, a);
	}
}

static void progress_run(struct check_ctx *c)
{
	struct progress_state *st = c->state;
	const struct cview *v = &c->file->view;
	size_t ci;
	int i;

	if (!c->file->is_c || !st)
		return;
	for (ci = 0; ci < st->nr; ci++) {
		const struct counter *ctr = &st->v[ci];
		bool nullable = ctr->null_caller || ctr->checks_null;
		int fn;

		for (fn = 0; fn < v->nr_nodes; fn++) {
			if (v->nodes[fn].kind != CN_FUNC ||
			    !cview_node_func_is(v, fn, ctr->func, (int)strlen(ctr->func)))
				continue;
			for (i = fn; i < v->nr_nodes; i++) {
				const struct cnode *n = &v->nodes[i];
				enum wkind w;
				int value = -1;

				if (n->func != fn)
					continue;
				w = write_of(v, n, ctr->param, &value);
				if (w == W_NONE)
					continue;
				if (!check_sees(c, v->lines[v->toks[n->first].line].added))
					continue;
				if (nullable && !null_guarded(v, i, ctr->param))
					check_report_at(c, CHECK_ERROR, n->first, n->first, n->last,
							"'*%s' is written without a NULL check, "
							"but %s passes NULL for it",
							ctr->param, ctr->null_caller ?
							ctr->null_caller : "the function tests it for NULL, so a caller");
				if (w == W_SET && value >= 0 &&
				    full_amount(v, value, n->last - 1))
					check_full_charge(c, ctr, i, value, n->last - 1);
			}
			check_paths(c, ctr, fn);
		}
		check_callers(c, ctr);
	}
}

const struct checker progress_checker = {
	.name = "progress-accounting",
	.summary = "scan functions must report what they scanned through their counter",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.begin = progress_begin,
	.run = progress_run,
	.end = progress_end,
};
