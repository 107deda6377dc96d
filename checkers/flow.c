// SPDX-License-Identifier: GPL-2.0
/*
 * The paths of a function (flow.h): a walk of the statement tree with
 * the set of resources held, as a bit mask of the takes the function
 * makes.  Joins keep what every path holds; an exit is reported to the
 * rule with what is held there.
 */
#include <ctype.h>
#include <stdlib.h>

#include "checkers/callers.h"
#include "checkers/exitleak.h"
#include "checkers/flow.h"

#define MAX_ARGS 16
#define MAX_GOTO_DEPTH 4

/* break and continue of the innermost loop or switch */
struct jumps {
	unsigned int brk;
	bool any_brk;
	unsigned int cont;
	bool any_cont;
};

static bool walk(struct flow *f, int n, unsigned int *h, struct jumps *j,
		 int via);

static bool in_tab(const struct ctok *t, const char *const *tab)
{
	for (; tab && *tab; tab++)
		if (ctok_is(t, *tab))
			return true;
	return false;
}

static bool same_tok(const struct ctok *a, const struct ctok *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

/* Tokens first..last as text without blanks ("&mm->mmap_lock") */
static char *norm(const struct cview *v, int first, int last)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	for (i = first; i <= last; i++)
		strbuf_add(&sb, v->toks[i].s, v->toks[i].len);
	return strbuf_detach(&sb, NULL);
}

/* The arguments of the call whose name is at t; their number */
static int args_of(const struct cview *v, int t, struct cterm *a)
{
	int close = v->toks[t + 1].match;

	if (close < 0 || close == t + 2)
		return 0;
	return cview_split(v, t + 2, close - 1, ",", a, MAX_ARGS);
}

static bool is_name_of(const struct flow *f, int r, int i)
{
	const struct cview *v = f->v;
	int k;

	if (v->toks[i].kind != CT_IDENT || cv_is(v, i - 1, ".") || cv_is(v, i - 1, "->"))
		return false;
	for (k = 0; k < f->res[r].nr_names; k++)
		if (same_tok(&v->toks[i], &v->toks[f->res[r].names[k]]))
			return true;
	return false;
}

bool flow_mentions(const struct flow *f, int r, int first, int last)
{
	int i;

	for (i = first; i <= last && i < f->v->nr_toks; i++)
		if (is_name_of(f, r, i))
			return true;
	return false;
}

void flow_res_name(const struct flow *f, int r, struct strbuf *sb)
{
	const struct flow_res *x = &f->res[r];
	const struct ctok *t = &f->v->toks[x->tok];

	if (x->pair->how == FLOW_PTR && x->nr_names)
		strbuf_addf(sb, "'%.*s' from %.*s()", f->v->toks[x->names[0]].len,
			    f->v->toks[x->names[0]].s, t->len, t->s);
	else if (*x->key)
		strbuf_addf(sb, "%.*s(%s)", t->len, t->s, x->key);
	else
		strbuf_addstr(sb, x->pair->what);
}

/* Is the name at token name changed between tokens a and b ("pte++")? */
static bool changed(const struct cview *v, int name, int a, int b)
{
	int i;

	for (i = a; i < b; i++)
		if (same_tok(&v->toks[i], &v->toks[name]) && !cv_is(v, i - 1, ".") &&
		    !cv_is(v, i - 1, "->") &&
		    (cv_is(v, i + 1, "++") || cv_is(v, i + 1, "--") ||
		     cv_is(v, i + 1, "=") || cv_is(v, i + 1, "+=") ||
		     cv_is(v, i + 1, "-=") || cv_is(v, i - 1, "++") ||
		     cv_is(v, i - 1, "--")))
			return true;
	return false;
}

void flow_fix_text(const struct flow *f, int r, int at, struct strbuf *sb)
{
	const struct flow_res *x = &f->res[r];
	const char *give = x->pair->give ? x->pair->give[0] : NULL;
	const struct ctok *n = NULL;
	int k;

	/* the first name of the mapping (not the lock) not moved on since */
	for (k = 0; k < x->nr_names; k++) {
		if (x->names[k] == x->lock_name)
			continue;
		if (!changed(f->v, x->names[k], x->tok + 1, at)) {
			n = &f->v->toks[x->names[k]];
			break;
		}
	}
	if (!n && x->nr_names && x->pair->fix != FLOW_FIX_NAME &&
	    x->pair->fix != FLOW_FIX_NAME_LOCK)
		n = &f->v->toks[x->names[0]];

	if (!give)
		return;
	switch (x->pair->fix) {
	case FLOW_FIX_CALL:
		strbuf_addf(sb, "%s()", give);
		break;
	case FLOW_FIX_KEY:
		if (*x->key)
			strbuf_addf(sb, "%s(%s)", give, x->key);
		else if (n)
			strbuf_addf(sb, "%s(%.*s)", give, n->len, n->s);
		break;
	case FLOW_FIX_NAME:
		if (n)
			strbuf_addf(sb, "%s(%.*s)", give, n->len, n->s);
		break;
	case FLOW_FIX_NAME_LOCK:
		if (n && x->lock_name >= 0)
			strbuf_addf(sb, "%s(%.*s, %.*s)", give, n->len, n->s,
				    f->v->toks[x->lock_name].len, f->v->toks[x->lock_name].s);
		break;
	case FLOW_FIX_NONE:
		break;
	}
}

static const struct flow_pair *pair_of(const struct flow *f, const struct ctok *t)
{
	size_t k;

	for (k = 0; k < f->nr_pairs; k++)
		if (ctok_is(t, f->pairs[k].take))
			return &f->pairs[k];
	return NULL;
}

/* A name in the function's parameters or a file-scope name: not ours */
static void add_name(struct flow_res *x, int tok)
{
	if (x->nr_names < (int)ARRAY_SIZE(x->names))
		x->names[x->nr_names++] = tok;
}

/* The resources: each take call in the body that the walk can follow */
static void find_takes(struct flow *f)
{
	const struct cview *v = f->v;
	int t;

	for (t = v->nodes[f->body].first; t < v->nodes[f->body].last; t++) {
		const struct flow_pair *p;
		struct flow_res *x;
		struct cterm a[MAX_ARGS];
		int s, nr, names[4], nn, k;

		if (v->toks[t].kind != CT_IDENT || !cv_is(v, t + 1, "(") ||
		    !(p = pair_of(f, &v->toks[t])) || f->nr_res >= FLOW_MAX ||
		    cv_is(v, t - 1, ".") || cv_is(v, t - 1, "->"))
			continue;
		s = callers_node_at(v, t);
		if (s < 0)
			continue;
		x = &f->res[f->nr_res];
		memset(x, 0, sizeof(*x));
		x->pair = p;
		x->tok = t;
		x->var = -1;
		x->lock_name = -1;
		nr = args_of(v, t, a);
		x->key = nr && p->lock_arg < 0 && p->how != FLOW_PTR ?
			 norm(v, a[0].first, a[0].last) : xstrdup("");
		if ((v->nodes[s].kind == CN_IF || v->nodes[s].kind == CN_WHILE) &&
		    v->nodes[s].cond_open < t && t < v->nodes[s].cond_close) {
			if (p->how == FLOW_PLAIN || p->how == FLOW_PTR) {
				free(x->key);
				continue;
			}
			x->in_cond = true;
		} else if (v->nodes[s].kind != CN_EXPR) {
			free(x->key);
			continue;	/* in a return, a declaration list... */
		} else {
			nn = exitleak_held_names(v, t, names, 4);
			if (!nn && v->nodes[s].first != t) {
				free(x->key);
				continue;	/* an argument of something else */
			}
			if (p->how == FLOW_PTR) {
				if (!nn) {
					free(x->key);
					continue;	/* "vmf->pte = ...": not followed */
				}
				for (k = 0; k < nn; k++)
					add_name(x, names[k]);
			} else if (nn) {
				x->var = names[0];
			}
		}
		/* "&ptl" as the lock argument: ptl holds the lock */
		if (p->lock_arg >= 0 && p->lock_arg < nr && cv_is(v, a[p->lock_arg].first, "&") &&
		    a[p->lock_arg].first + 1 == a[p->lock_arg].last) {
			add_name(x, a[p->lock_arg].last);
			x->lock_name = a[p->lock_arg].last;
		}
		if (p->how == FLOW_PTR && !x->nr_names) {
			free(x->key);
			continue;
		}
		f->nr_res++;
	}
}

/* Does the give call at t give back resource r? */
static bool gives_back(const struct flow *f, int r, int t)
{
	const struct cview *v = f->v;
	const struct flow_res *x = &f->res[r];
	struct cterm a[MAX_ARGS];
	char *arg;
	bool same, exact = false;
	int nr, q;

	if (!in_tab(&v->toks[t], x->pair->give))
		return false;
	nr = args_of(v, t, a);
	if (x->nr_names && nr)
		return flow_mentions(f, r, v->toks[t + 1].match > t ? t + 2 : t,
				     v->toks[t + 1].match);
	if (!*x->key || !nr)
		return true;	/* rcu_read_unlock() */
	arg = norm(v, a[0].first, a[0].last);
	same = !strcmp(arg, x->key);
	/* another lock of this kind taken here: this one is not it */
	for (q = 0; !same && q < f->nr_res; q++)
		if (q != r && f->res[q].pair == x->pair && !strcmp(f->res[q].key, arg))
			exact = true;
	free(arg);
	return same || !exact;
}

bool flow_gives(const struct flow *f, int r, int first, int last)
{
	int i;

	for (i = first; i <= last && i + 1 < f->v->nr_toks; i++)
		if (f->v->toks[i].kind == CT_IDENT && cv_is(f->v, i + 1, "(") &&
		    gives_back(f, r, i))
			return true;
	return false;
}

/*
 * The key of a lock (its first argument, "&resv->lock", "mm") as the
 * function called at t sees it: the same text (a global, or a name both
 * use: "vma"), or the parameter the caller passes it in ("&resv->lock"
 * passed as "resv" to "struct resv_map *map": "&map->lock").  At most
 * max keys in keys[], to be freed; their number.
 */
static int callee_keys(const struct flow *f, int r, int t, const struct cview *cv,
		       const struct cnode *fn, char **keys, int max)
{
	const struct cview *v = f->v;
	const char *key = f->res[r].key;
	struct cterm a[MAX_ARGS], p[MAX_ARGS];
	int na, np = 0, k, n = 0;

	keys[n++] = xstrdup(key);
	na = args_of(v, t, a);
	if (fn->cond_open >= 0 && cv->toks[fn->cond_open].match > fn->cond_open + 1)
		np = cview_split(cv, fn->cond_open + 1, cv->toks[fn->cond_open].match - 1,
				 ",", p, MAX_ARGS);
	for (k = 0; k < na && k < np && n < max; k++) {
		char *arg = norm(v, a[k].first, a[k].last);
		const char *rest = key, *amp = "";
		const struct ctok *pn = &cv->toks[p[k].last];
		size_t al = strlen(arg);

		if (*rest == '&' && *arg != '&') {
			rest++;
			amp = "&";
		}
		if (pn->kind == CT_IDENT && al && !strncmp(rest, arg, al) &&
		    (!rest[al] || !strncmp(rest + al, "->", 2) || rest[al] == '.')) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "%s%.*s%s", amp, pn->len, pn->s, rest + al);
			keys[n++] = strbuf_detach(&sb, NULL);
		}
		free(arg);
	}
	return n;
}

/*
 * Does the function called at t drop the caller's lock r?  Its definition
 * is in view (the series or the tree) and its first word on that lock is
 * a give-back: it releases what its caller holds, on some path or all
 * (expand_stack() the mmap lock when it fails, hugetlb_no_page() the
 * fault mutex and the hugetlb VMA lock, allocate_file_region_entries()
 * resv->lock when an allocation fails, mfill_atomic_hugetlb() the
 * map_changing_lock).  The caller cannot tell from its own code whether
 * it still holds the lock after the call: the rule no longer follows it.
 * Locks by key only (not a returned pointer, not RCU).
 */
static bool callee_releases(const struct flow *f, int r, int t)
{
	const struct cview *v = f->v, *cv;
	const struct flow_res *x = &f->res[r];
	const struct cnode *fn;
	char *keys[MAX_ARGS + 1];
	int nk, cfn, i, k;
	bool released = false, done = false;

	if (!*x->key || x->pair->how == FLOW_PTR || x->pair->object ||
	    (f->fname && f->fname_len == v->toks[t].len &&
	     !memcmp(f->fname, v->toks[t].s, v->toks[t].len)))
		return false;
	if (!callers_def(f->c, v->toks[t].s, v->toks[t].len, &cv, &cfn))
		return false;
	fn = &cv->nodes[cfn];
	if (fn->child < 0)
		return false;
	nk = callee_keys(f, r, t, cv, fn, keys, (int)ARRAY_SIZE(keys));
	for (i = cv->nodes[fn->child].first; !done && i < cv->nodes[fn->child].last; i++) {
		struct cterm b[MAX_ARGS];
		bool give;
		char *arg;

		if (cv->toks[i].kind != CT_IDENT || !cv_is(cv, i + 1, "(") ||
		    cv_is(cv, i - 1, ".") || cv_is(cv, i - 1, "->"))
			continue;
		give = in_tab(&cv->toks[i], x->pair->give);
		if (!give && !pair_of(f, &cv->toks[i]))
			continue;
		if (!args_of(cv, i, b))
			continue;
		arg = norm(cv, b[0].first, b[0].last);
		for (k = 0; k < nk; k++)
			if (!strcmp(arg, keys[k])) {
				released = give;
				done = true;
				break;
			}
		free(arg);
	}
	for (k = 0; k < nk; k++)
		free(keys[k]);
	return released;
}

/*
 * A folio or page lock handed on by its object: "return folio;" (to the
 * caller), "*foliop = folio;" or "x->folio = folio;" (stored for it)
 */
static bool object_handed(const struct flow *f, int r, int i)
{
	const struct cview *v = f->v;
	const struct flow_res *x = &f->res[r];
	const struct ctok *t = &v->toks[i];

	if (!x->pair->object || t->kind != CT_IDENT || strlen(x->key) != (size_t)t->len ||
	    memcmp(x->key, t->s, t->len) || !cv_is(v, i + 1, ";"))
		return false;
	if (cv_is(v, i - 1, "return"))
		return true;
	return cv_is(v, i - 1, "=") &&
	       (cv_is(v, i - 3, "->") || cv_is(v, i - 3, ".") || cv_is(v, i - 3, "*") ||
		cv_is(v, i - 2, "]"));
}

/* Calls that only read or write page table entries, or test: not a hand-over */
static const char *const entry_ops[] = {
	"pte", "ptep", "set_pte", "flush_tlb", "update_mmu", "arch_",
	"lazy_mmu", "likely", "unlikely", "WARN", "VM_", "BUG", "pmd_", "pud_",
	"folio_", "page_", "spin_", "set_", "clear_", "get_", "put_", "trace_",
	/* a locked VMA's tests and accessors (vma_is_anonymous(), IS_ERR()) */
	"vma_", "is_", "IS_ERR", "PTR_ERR",
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

/* Calls that read a folio or page, or count: no hand-over of its lock */
static const char *const accessors[] = {
	"folio_", "page_", "Page", "PageTrans", "VM_", "WARN", "BUG", "likely",
	"unlikely", "trace_", "count_", "mod_", "node_stat", "lruvec_", "pfn_",
};

/*
 * Is the object a lock goes with (its key, "folio") at token i passed,
 * directly or inside another argument, to a function that is no accessor
 * ("set_pmd_migration_entry(&pvmw, folio_page(folio, 0))")?
 */
static bool handed_object(const struct flow *f, int r, int i)
{
	const struct cview *v = f->v;
	const struct flow_res *x = &f->res[r];
	int c, k = i;
	size_t n;

	if (v->toks[i].kind != CT_IDENT || strlen(x->key) != (size_t)v->toks[i].len ||
	    memcmp(x->key, v->toks[i].s, v->toks[i].len) || cv_is(v, i - 1, ".") ||
	    cv_is(v, i - 1, "->") || cv_is(v, i + 1, "->") || cv_is(v, i + 1, "."))
		return false;
	while ((c = call_of_arg(v, k)) >= 0) {
		if (c == x->tok || gives_back(f, r, c))
			return false;
		for (n = 0; n < ARRAY_SIZE(accessors); n++)
			if (!strncmp(v->toks[c].s, accessors[n], strlen(accessors[n])))
				break;
		if (n == ARRAY_SIZE(accessors) && !cv_is(v, c, "if") && !cv_is(v, c, "while"))
			return true;
		k = c;
	}
	return false;
}

/*
 * What the tokens first..last do to the held set, in order: calls (the
 * rule sees each with what is held), takes, gives, names handed on or
 * set again
 */
static void scan(struct flow *f, int first, int last, unsigned int *h,
		 bool cond)
{
	const struct cview *v = f->v;
	int i, r;

	for (i = first; i <= last && i < v->nr_toks; i++) {
		const struct ctok *t = &v->toks[i];
		bool call = t->kind == CT_IDENT && cv_is(v, i + 1, "(");

		if (call && f->ops->call)
			f->ops->call(f, i, *h);
		for (r = 0; r < f->nr_res; r++) {
			struct flow_res *x = &f->res[r];

			if (x->tok == i) {
				if (!x->in_cond && !cond)
					*h |= 1u << r;
				continue;
			}
			if (!(*h & (1u << r)))
				continue;
			if (call && (gives_back(f, r, i) || callee_releases(f, r, i))) {
				*h &= ~(1u << r);
				continue;
			}
			if (object_handed(f, r, i)) {
				*h &= ~(1u << r);
				continue;
			}
			if (x->pair->object && *x->key && handed_object(f, r, i)) {
				*h &= ~(1u << r);
				continue;
			}
			if (!is_name_of(f, r, i))
				continue;
			/* set again or stored away: "pte = NULL", "vmf->pte = pte" */
			if (cv_is(v, i + 1, "=") ||
			    (cv_is(v, i - 1, "=") && cv_is(v, i + 1, ";") &&
			     (cv_is(v, i - 3, "->") || cv_is(v, i - 3, ".") ||
			      cv_is(v, i - 2, "]") || cv_is(v, i - 3, "*")))) {
				*h &= ~(1u << r);
				continue;
			}
			/* "start_pte = pte;": another name for it */
			if (cv_is(v, i - 1, "=") && cv_is(v, i + 1, ";") &&
			    v->toks[i - 2].kind == CT_IDENT) {
				add_name(x, i - 2);
				continue;
			}
			/* handed to a function that may give it back */
			if ((cv_is(v, i - 1, "(") || cv_is(v, i - 1, ",") ||
			     cv_is(v, i - 1, "&")) &&
			    (cv_is(v, i + 1, ")") || cv_is(v, i + 1, ","))) {
				int c = call_of_arg(v, cv_is(v, i - 1, "&") ? i - 1 : i);
				size_t k;

				if (c < 0 || cv_is(v, c, "if") || cv_is(v, c, "while"))
					continue;
				/*
				 * the mapping of a locked table without its lock:
				 * read, not given back (damos_va_filter_out(..., pte,
				 * ...)), unless the callee says it unmaps
				 */
				if (x->lock_name >= 0 &&
				    !same_tok(&v->toks[i], &v->toks[x->lock_name]) &&
				    !memmem(v->toks[c].s, v->toks[c].len, "unmap", 5) &&
				    !memmem(v->toks[c].s, v->toks[c].len, "unlock", 6))
					continue;
				for (k = 0; k < ARRAY_SIZE(entry_ops); k++)
					if (!strncmp(v->toks[c].s, entry_ops[k],
						     strlen(entry_ops[k])))
						break;
				if (k == ARRAY_SIZE(entry_ops))
					*h &= ~(1u << r);
			}
		}
	}
}

/* Strip "likely(...)", "unlikely(...)" and parentheses from a condition */
static void strip(const struct cview *v, int *first, int *last)
{
	for (;;) {
		if (cv_is(v, *first, "(") && v->toks[*first].match == *last) {
			(*first)++;
			(*last)--;
		} else if ((cv_is(v, *first, "likely") || cv_is(v, *first, "unlikely")) &&
			   cv_is(v, *first + 1, "(") && v->toks[*first + 1].match == *last) {
			*first += 2;
			(*last)--;
		} else {
			return;
		}
	}
}

/*
 * Is the name at token i tested for NULL in a condition first..last?
 * -1: true when it is NULL ("!pte", "pte == NULL") or an error pointer
 * ("IS_ERR(vma)"), 1: true when it is neither ("pte", "pte != NULL",
 * "pte && ...", "!IS_ERR(vma)"), 0: it is not a test of it
 */
static int truth_test(const struct cview *v, int i, int first, int last)
{
	bool before = i == first || cv_is(v, i - 1, "&&") || cv_is(v, i - 1, "||") ||
		      cv_is(v, i - 1, "(") || cv_is(v, i - 1, "!");
	bool after = i == last || cv_is(v, i + 1, "&&") || cv_is(v, i + 1, "||") ||
		     cv_is(v, i + 1, ")");

	if ((cv_is(v, i + 1, "==") || cv_is(v, i + 1, "!=")) && cv_is(v, i + 2, "NULL"))
		return cv_is(v, i + 1, "==") ? -1 : 1;
	/* "IS_ERR(vma)": nothing was taken where it is an error pointer */
	if (cv_is(v, i - 1, "(") && cv_is(v, i + 1, ")") &&
	    (cv_is(v, i - 2, "IS_ERR") || cv_is(v, i - 2, "IS_ERR_OR_NULL")))
		return cv_is(v, i - 3, "!") ? 1 : -1;
	if (!before || !after)
		return 0;
	if (cv_is(v, i - 1, "!"))
		return -1;
	/* "(pte)" as an argument: "foo(pte)" is no test */
	if (cv_is(v, i - 1, "(") && i - 1 != first - 1 && v->toks[i - 2].kind == CT_IDENT &&
	    !cv_is(v, i - 2, "likely") && !cv_is(v, i - 2, "unlikely") &&
	    !cv_is(v, i - 2, "if") && !cv_is(v, i - 2, "while"))
		return 0;
	return 1;
}

/*
 * What a condition tells of each resource: held on the then side
 * (*ts), given up there (*tc), and likewise on the else side
 */
static void cond(struct flow *f, int n, unsigned int *ts, unsigned int *tc,
		 unsigned int *es, unsigned int *ec)
{
	const struct cview *v = f->v;
	int first = v->nodes[n].cond_open + 1, last = v->nodes[n].cond_close - 1, r;
	bool neg = false;

	*ts = *tc = *es = *ec = 0;
	strip(v, &first, &last);
	if (cv_is(v, first, "!")) {
		neg = true;
		first++;
		strip(v, &first, &last);
	}
	for (r = 0; r < f->nr_res; r++) {
		const struct flow_res *x = &f->res[r];
		unsigned int bit = 1u << r;
		int i;

		if (x->in_cond && x->tok >= v->nodes[n].cond_open &&
		    x->tok <= v->nodes[n].cond_close) {
			/* only "[!]take(...)": either side is known */
			if (x->tok != first || v->toks[first + 1].match != last)
				continue;
			if ((x->pair->how == FLOW_ZERO_OK) == neg) {
				*ts |= bit;
				*ec |= bit;
			} else {
				*es |= bit;
				*tc |= bit;
			}
			continue;
		}
		for (i = v->nodes[n].cond_open + 1; i < v->nodes[n].cond_close; i++) {
			bool var = x->var >= 0 && same_tok(&v->toks[i], &v->toks[x->var]) &&
				   !cv_is(v, i - 1, ".") && !cv_is(v, i - 1, "->");
			bool not = cv_is(v, i - 1, "!") || cv_is(v, i + 1, "==");
			int t = truth_test(v, i, first - (neg ? 1 : 0), last);

			if (is_name_of(f, r, i) && t) {
				/* "!pte": nothing was taken where it is NULL */
				if (t < 0)
					*tc |= bit;
				else
					*ec |= bit;
				continue;
			}
			if (!var)
				continue;
			if ((x->pair->how == FLOW_ZERO_OK) != not) {
				/* "if (ret)" after a killable lock: it failed */
				*tc |= bit;
			} else {
				*ec |= bit;
			}
		}
	}
}

/* The label node named by goto node g in the function, or -1 */
static int label_node(const struct flow *f, int g)
{
	const struct cview *v = f->v;
	int k, name = v->nodes[g].name;

	if (name < 0)
		return -1;
	for (k = f->fn; k < v->nr_nodes && v->nodes[k].first <= v->nodes[f->fn].last; k++)
		if (v->nodes[k].kind == CN_LABEL && v->nodes[k].name >= 0 &&
		    same_tok(&v->toks[v->nodes[k].name], &v->toks[name]) &&
		    cview_node_within(v, k, f->fn))
			return k;
	return -1;
}

/*
 * An exit with h held: what the function gives back elsewhere is the
 * rule's to report; from hunks, what it does not give back in view may
 * be given back beyond them: not decidable
 */
static void exit_at(struct flow *f, int exit, int label, unsigned int h)
{
	const struct cview *v = f->v;
	unsigned int und = h & ~f->keep & ~f->lost;
	int r;

	if ((h & (f->keep | f->lost)) && f->ops->exit)
		f->ops->exit(f, exit, label, h & (f->keep | f->lost));
	if (!und || v->complete || f->end_seen || !f->ops->exit)
		return;
	for (r = 0; r < f->nr_res; r++) {
		int t = f->res[r].tok;

		if (!(und & (1u << r)) || (exit >= 0 && flow_mentions(f, r, v->nodes[exit].first,
								      v->nodes[exit].last)))
			continue;
		if (!v->lines[v->toks[t].line].added &&
		    !(exit >= 0 && v->lines[v->toks[v->nodes[exit].first].line].added))
			continue;
		check_undecided(f->c, exit >= 0 ? v->nodes[exit].first : t,
				"whether %.*s() of line %d is undone before this %s: "
				"no give-back in the hunks", v->toks[t].len, v->toks[t].s,
				v->lines[v->toks[t].line].no,
				exit < 0 ? "end" : v->nodes[exit].kind == CN_GOTO ? "goto" :
				"return");
	}
}

/*
 * From the hunks, an exit indented deeper than the statement after it
 * is inside a block that opens above the view ("\t\treturn result;" as a
 * hunk's first line, its "if" in the context not shown): the statements
 * after it are reached.
 */
static bool opened_above(const struct cview *v, int n)
{
	int next = v->nodes[n].next;

	return !v->complete && next >= 0 &&
	       (v->nodes[n].kind == CN_RETURN || v->nodes[n].kind == CN_GOTO) &&
	       v->toks[v->nodes[n].first].col > v->toks[v->nodes[next].first].col;
}

/* Walk the statements from node n on, in its block; the fallthrough */
static bool walk_seq(struct flow *f, int n, unsigned int *h, struct jumps *j,
		     int via)
{
	bool ft = true;

	for (; n >= 0; n = f->v->nodes[n].next) {
		if (!ft) {
			if (f->v->nodes[n].kind != CN_LABEL &&
			    f->v->nodes[n].kind != CN_CASE)
				continue;	/* unreachable but through a label */
			*h = 0;
			ft = true;
		}
		ft = walk(f, n, h, j, via) || opened_above(f->v, n);
	}
	return ft;
}

/*
 * A goto (node g) to a label out of view that says it gives back:
 * "goto unlock", "goto out_unmap"
 */
static bool unseen_release(const struct flow *f, int g)
{
	const struct cview *v = f->v;
	const struct ctok *n;

	if (v->complete || v->nodes[g].kind != CN_GOTO || v->nodes[g].name < 0 ||
	    label_node(f, g) >= 0)
		return false;
	n = &v->toks[v->nodes[g].name];
	return memmem(n->s, n->len, "unlock", 6) || memmem(n->s, n->len, "unmap", 5);
}

/* goto node at leaves with h held, to where the hunks do not show */
static void undecided_goto(struct flow *f, int at, unsigned int h, const char *why)
{
	const struct cview *v = f->v;
	int r;

	for (r = 0; r < f->nr_res; r++) {
		const struct ctok *t = &v->toks[f->res[r].tok];

		if ((h & (1u << r)) && (v->lines[t->line].added ||
					v->lines[v->toks[v->nodes[at].first].line].added))
			check_undecided(f->c, v->nodes[at].first,
					"this goto leaves with %.*s() of line %d held, %s",
					t->len, t->s, v->lines[t->line].no, why);
	}
}

/* A forward goto: the code after its label, with what is held */
static void walk_goto(struct flow *f, int g, unsigned int h, int via)
{
	const struct cview *v = f->v;
	int l = label_node(f, g), at = via >= 0 ? via : g;
	struct jumps j = { 0 };

	if (!h)
		return;
	if (l < 0) {
		if (v->complete || !f->ops->exit || unseen_release(f, g))
			return;
		undecided_goto(f, at, h, "for a label outside the hunks");
		return;
	}
	if (v->nodes[l].first < v->nodes[g].first)
		return;		/* back: a loop */
	if (v->nodes[l].parent != f->body || f->depth >= MAX_GOTO_DEPTH)
		return;
	f->depth++;
	f->label = l;
	if (walk_seq(f, l, &h, &j, at)) {
		if (f->end_seen) {
			exit_at(f, at, l, h);
		} else if (f->ops->exit) {
			undecided_goto(f, at, h, "and its label's code goes on past the hunks");
		}
	}
	f->depth--;
}

/* Each case is entered from the switch with what was held there */
static bool walk_switch(struct flow *f, int n, unsigned int *h, int via)
{
	const struct cview *v = f->v;
	int b = v->nodes[n].child, s;
	unsigned int entry = *h, cur = *h;
	struct jumps in = { 0 };
	bool ft = true, dflt = false;

	if (b < 0 || v->nodes[b].kind != CN_BLOCK)
		return true;
	for (s = v->nodes[b].child; s >= 0; s = v->nodes[s].next) {
		if (v->nodes[s].kind == CN_CASE) {
			dflt |= cv_is(v, v->nodes[s].first, "default");
			cur = ft ? cur & entry : entry;
			ft = true;
			continue;
		}
		if (!ft && v->nodes[s].kind != CN_LABEL)
			continue;
		if (!ft)
			cur = 0;
		ft = walk(f, s, &cur, &in, via);
	}
	*h = ft ? cur : ~0u;
	if (!dflt)
		*h &= entry;
	if (in.any_brk)
		*h &= in.brk;
	if (!ft && !in.any_brk && dflt) {
		*h = 0;
		return false;
	}
	return true;
}

static bool is_forever(const struct cview *v, int n)
{
	const struct cnode *x = &v->nodes[n];

	if (x->kind == CN_FOR)
		return x->cond_open >= 0 && cview_find(v, x->cond_open, x->cond_close, ";") >= 0 &&
		       cv_is(v, cview_find(v, x->cond_open, x->cond_close, ";") + 1, ";");
	return x->kind == CN_WHILE && x->cond_close == x->cond_open + 2 &&
	       (cv_is(v, x->cond_open + 1, "1") || cv_is(v, x->cond_open + 1, "true"));
}

/* One statement; false when it never goes on to the next */
static bool walk(struct flow *f, int n, unsigned int *h, struct jumps *j, int via)
{
	const struct cview *v = f->v;
	const struct cnode *x = &v->nodes[n];
	unsigned int ts, tc, es, ec, a, b;
	struct jumps in = { 0 };
	bool fa, fb;
	int r;

	switch (x->kind) {
	case CN_EXPR:
		scan(f, x->first, x->last, h, false);
		return true;
	case CN_RETURN:
		scan(f, x->first, x->last, h, false);
		/* "return pte;": handed to the caller */
		for (r = 0; r < f->nr_res; r++)
			if (flow_mentions(f, r, x->first, x->last))
				*h &= ~(1u << r);
		exit_at(f, via >= 0 ? via : n, via >= 0 ? f->label : -1, *h);
		return false;
	case CN_GOTO:
		walk_goto(f, n, *h, via);
		return false;
	case CN_BREAK:
		if (j) {
			j->brk = j->any_brk ? j->brk & *h : *h;
			j->any_brk = true;
		}
		return false;
	case CN_CONTINUE:
		if (j) {
			j->cont = j->any_cont ? j->cont & *h : *h;
			j->any_cont = true;
		}
		return false;
	case CN_BLOCK:
	case CN_OPEN:
	case CN_ELSE:
	case CN_FUNC:
		if (x->cond_open >= 0 && x->kind == CN_OPEN)
			scan(f, x->cond_open, x->cond_close, h, true);
		return x->child < 0 || walk_seq(f, x->child, h, j, via);
	case CN_IF:
		scan(f, x->cond_open, x->cond_close, h, true);
		cond(f, n, &ts, &tc, &es, &ec);
		a = (*h | ts) & ~tc;
		b = (*h | es) & ~ec;
		fa = x->child < 0 || walk(f, x->child, &a, j, via);
		fb = x->els < 0 || walk(f, x->els, &b, j, via);
		*h = fa && fb ? a & b : fa ? a : b;
		return fa || fb;
	case CN_WHILE:
	case CN_FOR:
	case CN_LOOPMACRO:
		if (x->cond_open >= 0)
			scan(f, x->cond_open, x->cond_close, h, true);
		a = *h;
		fa = x->child < 0 || walk(f, x->child, &a, &in, via);
		if (in.any_cont)
			a = fa ? a & in.cont : in.cont;
		fa = fa || in.any_cont;
		if (is_forever(v, n)) {
			*h = in.brk;
			return in.any_brk;
		}
		*h = fa ? *h & a : *h;
		if (in.any_brk)
			*h &= in.brk;
		return true;
	case CN_DO:
		a = *h;
		fa = x->child < 0 || walk(f, x->child, &a, &in, via);
		if (in.any_cont)
			a = fa ? a & in.cont : in.cont;
		fa = fa || in.any_cont;
		if (x->cond_open >= 0)
			scan(f, x->cond_open, x->cond_close, &a, true);
		*h = fa ? a : 0;
		if (in.any_brk)
			*h = fa ? *h & in.brk : in.brk;
		return fa || in.any_brk;
	case CN_SWITCH:
		scan(f, x->cond_open, x->cond_close, h, true);
		return walk_switch(f, n, h, via);
	case CN_LABEL:
	case CN_CASE:
	case CN_DECL:
		return true;
	}
	return true;
}

/* Does the function take on purpose, for its caller? */
static bool takes_for_caller(const struct flow *f)
{
	static const char *const words[] = { "lock", "trylock", "relock", "acquire" };
	const struct cview *v = f->v;
	const struct cnode *fn = &v->nodes[f->fn];
	int i, s;
	size_t k;

	for (i = 0, s = 0; f->fname && i <= f->fname_len; i++) {
		if (i < f->fname_len && f->fname[i] != '_')
			continue;
		for (k = 0; k < ARRAY_SIZE(words); k++)
			if ((int)strlen(words[k]) == i - s &&
			    !memcmp(f->fname + s, words[k], i - s))
				return true;
		s = i + 1;
	}
	if (fn->kind != CN_FUNC)
		return false;
	for (i = fn->first; i < v->nr_toks && i <= fn->last; i++) {
		if (cv_is(v, i, "{"))
			break;
		if (cv_is(v, i, "__acquires") ||
		    (cv_is(v, i, "spinlock_t") && cv_is(v, i + 1, "*") &&
		     cv_is(v, i + 2, "*")))
			return true;
	}
	return false;
}

/* Does the body end with the function's own closing brace in view? */
static bool end_in_view(const struct cview *v, int fn, int body)
{
	const struct cnode *b = &v->nodes[body];

	if (v->complete)
		return true;
	if (!cv_is(v, b->last, "}") || cview_line_indent(&v->lines[v->toks[b->last].line]))
		return false;
	return v->nodes[fn].kind == CN_FUNC;
}

/* Is each resource given back somewhere in the function at all? */
static unsigned int given_somewhere(const struct flow *f)
{
	const struct cview *v = f->v;
	unsigned int m = 0;
	int r, i;

	for (r = 0; r < f->nr_res; r++) {
		for (i = v->nodes[f->body].first; i <= v->nodes[f->body].last; i++)
			if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "(") &&
			    gives_back(f, r, i)) {
				m |= 1u << r;
				break;
			}
		for (i = f->body; i < v->nr_nodes && !(m & (1u << r)) &&
		     v->nodes[i].first <= v->nodes[f->body].last; i++)
			if (cview_node_within(v, i, f->body) && unseen_release(f, i))
				m |= 1u << r;
	}
	return m;
}

/*
 * Does the function return a value that cannot carry a lock to its
 * caller: not a pointer, not void ("static bool", "int")?  From its
 * definition's words before the name, or the hunk header's
 */
static bool returns_value(const struct flow *f)
{
	const struct cview *v = f->v;
	const struct cnode *fn = &v->nodes[f->fn];
	int i;

	/* a hunk inside the function: its header says */
	if (fn->kind != CN_FUNC || fn->name < 0)
		return v->segs[v->lines[v->toks[fn->first].line].seg].hint_ret == 1;
	for (i = fn->first; i < fn->name; i++)
		if (cv_is(v, i, "*") || cv_is(v, i, "void"))
			return false;
	return fn->name > fn->first;
}

/*
 * Is the object holding the lock of r ("ci" of "&ci->lock") passed whole
 * to a call after the take?  The callee may give the lock back
 * ("return alloc_swap_scan_cluster(si, ci, folio, offset);" unlocks
 * ci->lock there)
 */
static bool owner_passed(const struct flow *f, int r)
{
	const struct cview *v = f->v;
	const char *key = f->res[r].key, *e;
	int i, len;

	if (*key == '&')
		key++;
	for (e = key; *e && (isalnum((unsigned char)*e) || *e == '_'); e++)
		;
	len = (int)(e - key);
	if (!len || (strncmp(e, "->", 2) && *e != '.'))
		return false;
	for (i = f->res[r].tok + 1; i < v->nodes[f->body].last; i++)
		if (v->toks[i].kind == CT_IDENT && v->toks[i].len == len &&
		    !memcmp(v->toks[i].s, key, len) &&
		    (cv_is(v, i - 1, "(") || cv_is(v, i - 1, ",")) &&
		    (cv_is(v, i + 1, ")") || cv_is(v, i + 1, ",")) &&
		    call_of_arg(v, i) >= 0)
			return true;
	return false;
}

/*
 * The plain locks the series takes that the function never gives back
 * and cannot hand to its caller: it returns a value (returns_value()),
 * takes_for_caller() said no, the lock is not one that goes with its
 * object or a pointer, and the code from the take to the function's end
 * is one stretch in view (a hunk's gap could hold the give-back), and
 * the object holding the lock is passed whole to no call after the take.
 * NFS's nfs_server_clear_delayed_delegations() of "[PATCH 22/24] NFS:
 * add a separate delegation return list" (held-out set 3) took
 * delegations_lock and returned its bool with it held.
 */
static unsigned int lost_takes(const struct flow *f)
{
	const struct cview *v = f->v;
	int end = v->toks[v->nodes[f->body].last].line, r, l;
	unsigned int m = 0;

	if (!f->ops->lost || !returns_value(f))
		return 0;
	for (r = 0; r < f->nr_res; r++) {
		const struct flow_pair *p = f->res[r].pair;
		int line = v->toks[f->res[r].tok].line;
		bool one = true;

		if ((f->keep & (1u << r)) || p->object || p->how == FLOW_PTR ||
		    p->fix == FLOW_FIX_NAME || p->fix == FLOW_FIX_NONE ||
		    !v->lines[line].added || owner_passed(f, r))
			continue;
		for (l = line; l <= end && one; l++)
			one = v->lines[l].seg == v->lines[line].seg && !v->lines[l].elision;
		if (one)
			m |= 1u << r;
	}
	return m;
}

/* The body of node b as a function to walk: false when it is none */
static bool setup(struct flow *f, int b)
{
	const struct cview *v = f->v;
	const struct cnode *n = &v->nodes[b];

	f->fn = b;
	if (n->kind == CN_FUNC && n->child >= 0) {
		f->body = n->child;
		f->fname = n->fname;
		f->fname_len = n->fname_len;
	} else if (n->kind == CN_OPEN && n->parent < 0) {
		const struct cseg *s = &v->segs[v->lines[v->toks[n->first].line].seg];

		f->body = b;
		f->fname = s->func_hint;
		f->fname_len = s->func_hint ? (int)strlen(s->func_hint) : 0;
	} else {
		return false;
	}
	f->end_seen = end_in_view(v, b, f->body);
	find_takes(f);
	/* one that takes for its caller: its exits are no leaks */
	if (takes_for_caller(f) && !f->ops->call) {
		while (f->nr_res)
			free(f->res[--f->nr_res].key);
	}
	/*
	 * a resource the function never gives back is kept for its
	 * caller (seen whole) or given back beyond the hunks
	 */
	f->keep = given_somewhere(f);
	f->lost = lost_takes(f);
	f->label = -1;
	return true;
}

static void release(struct flow *f)
{
	while (f->nr_res)
		free(f->res[--f->nr_res].key);
}

void flow_run(struct check_ctx *c, const struct flow_pair *pairs, size_t nr,
	      const struct flow_ops *ops, void *data)
{
	const struct cview *v = &c->file->view;
	int b, r;

	if (!c->file->is_c)
		return;
	for (b = 0; b < v->nr_nodes; b++) {
		struct flow f = {
			.c = c, .v = v, .pairs = pairs, .nr_pairs = nr, .ops = ops,
			.data = data,
		};
		unsigned int h = 0;

		if (!setup(&f, b))
			continue;
		if (!f.nr_res && !ops->call) {
			release(&f);
			continue;
		}
		if (walk(&f, f.body, &h, NULL, -1) && f.end_seen)
			exit_at(&f, -1, -1, h);
		else if (h && !f.end_seen && !v->complete && ops->exit)
			for (r = 0; r < f.nr_res; r++)
				/*
				 * a take the series adds, or moves (out of an if:
				 * ext4_change_inode_journal_flag() of held-out
				 * set 3 took filemap_invalidate_lock() for both
				 * directions, and one return below the hunk
				 * leaked it)
				 */
				if ((h & (1u << r)) && (v->lines[v->toks[f.res[r].tok].line].added ||
							v->lines[v->toks[f.res[r].tok].line].moved))
					check_undecided(c, f.res[r].tok,
							"the exits after %.*s() at line %d are "
							"outside the hunks",
							v->toks[f.res[r].tok].len,
							v->toks[f.res[r].tok].s,
							v->lines[v->toks[f.res[r].tok].line].no);
		release(&f);
	}
}

struct held_at {
	int tok;
	unsigned int held;
	bool seen;
	struct strbuf *what;
};

static void held_call(struct flow *f, int t, unsigned int held)
{
	struct held_at *a = f->data;
	int r;

	if (t != a->tok || a->seen)
		return;
	a->seen = true;
	a->held = held;
	for (r = 0; r < f->nr_res && a->what; r++)
		if (held & (1u << r)) {
			flow_res_name(f, r, a->what);
			strbuf_addf(a->what, " (line %d)",
				    f->v->lines[f->v->toks[f->res[r].tok].line].no);
			break;
		}
}

bool flow_held_at(struct check_ctx *c, const struct cview *v, int fn, int tok,
		  const struct flow_pair *pairs, size_t nr, struct strbuf *what)
{
	static const struct flow_ops ops = { .call = held_call };
	struct held_at a = { .tok = tok, .what = what };
	struct flow f = {
		.c = c, .v = v, .pairs = pairs, .nr_pairs = nr, .ops = &ops,
		.data = &a,
	};
	unsigned int h = 0;

	if (fn < 0 || !setup(&f, fn))
		return false;
	walk(&f, f.body, &h, NULL, -1);
	release(&f);
	return a.seen && a.held;
}
