// SPDX-License-Identifier: GPL-2.0
/*
 * lazyfree-droppable: code that decides to skip, keep, discard or
 * re-mark a lazyfree folio (folio_test_lazyfree(), or folio_test_anon()
 * && !folio_test_swapbacked()) from its dirtiness (pte_dirty(),
 * pmd_dirty(), folio_test_dirty()) must account for VMAs with
 * VM_DROPPABLE, whose folios are lazyfree and dropped even when dirty
 * (try_to_unmap_one() in mm/rmap.c).  From Barry Song's, Lance Yang's
 * and David Hildenbrand's review of "[PATCH mm-new v7 4/5] mm:
 * khugepaged: skip lazy-free folios": Barry Song's "Even if a lazyfree
 * folio is dirty, if the VMA has the VM_DROPPABLE flag, a lazyfree folio
 * may still be dropped"
 * (<CAmqoEVoQJzl7lq2bnmeE6MqC8pI-U8eDc0f8DMkBl7ZOxtqJs_n@mail.gmail.com>),
 * Lance Yang's reply <9fd4ca1b-634a-4737-89cd-86eca7f21424@linux.dev> and
 * David Hildenbrand's <f677a6c3-b104-47c7-ad19-683219ccd2cd@kernel.org>.
 *
 * A decision is the condition of an if or while that tests dirtiness.
 * It is a lazyfree decision when lazyfree-ness holds where it runs
 * (cview_guards(): its own condition, enclosing ifs, earlier early exits
 * and assertions such as VM_WARN_ON_FOLIO(folio_test_swapbacked(folio),
 * folio)), or, when the function itself says nothing, when every call of
 * the function passes a lazyfree folio: the callers are followed one
 * level, two when the first says nothing either, in the series and with
 * --repo in the tree (callers.h).  Mainline's
 * __discard_anon_folio_pmd_locked() had exactly that shape for several
 * releases: its only caller tested anon && !swapbacked, and it kept dirty
 * folios of VM_DROPPABLE VMAs until Barry Song's "[PATCH v4 4/4] mm:
 * Avoid splitting pmd for lazyfree pmd-mapped THP in try_to_unmap"
 * <20250214093015.51024-5-21cnbao@gmail.com>.
 *
 * Droppability is handled only when the exemption reaches the decision:
 * VM_DROPPABLE (or a name or helper saying droppable) in its condition,
 * in a guard that holds there, in an early exit before it (also at the
 * start of its own branch), or at every call of its function.  A test in
 * an outer branch that lets droppable VMAs in ("lazyfree || droppable")
 * is not an exemption.  The suggestion follows the decision's polarity
 * (lazyfree-fix.c).  Only setting the dirty flag from the page table
 * ("if (pte_dirty(pte)) folio_mark_dirty(folio);") is not a decision.
 *
 * The real bugs of bench/bugs/ it finds: Lance Yang's
 * __discard_anon_folio_pmd_locked() (<20240614015138.31461-4-ioworker0@gmail.com>),
 * Jason A. Donenfeld's diff dropping the exemption in a reply to v22 of
 * MAP_DROPPABLE (<ZpAR0CgLc28gEkV3@zx2c4.com>), and the v7 khugepaged patch
 * Barry Song reviewed.
 *
 * From hunks alone, a dirtiness test next to lazyfree code (swapbacked,
 * lazyfree, MADV_FREE in the function) whose guards or callers the hunks
 * do not show gets a note saying so, instead of silence.
 */
#include <stdlib.h>

#include "checkers/callers.h"
#include "checkers/lazyfree.h"

#define MAX_TERMS 32
#define MAX_DEPTH 8
#define CALLER_LEVELS 2

static const char *const lazyfree_fns[] = { "folio_test_lazyfree" };
static const char *const anon_fns[] = { "folio_test_anon", "PageAnon" };
static const char *const swapbacked_fns[] = {
	"folio_test_swapbacked", "PageSwapBacked",
};
static const char *const dirty_fns[] = {
	"pte_dirty", "pmd_dirty", "pud_dirty", "huge_pte_dirty",
	"folio_test_dirty", "PageDirty", "folio_test_clear_dirty",
	"TestClearPageDirty",
};
/* dirty-propagation: the body of "if (pte_dirty(pte)) ..." that is fine */
static const char *const dirty_setters[] = {
	"folio_mark_dirty", "folio_set_dirty", "set_page_dirty",
	"SetPageDirty", "folio_mark_dirty_lock", "set_page_dirty_lock",
};
/*
 * Re-marking a folio swap-backed: only a lazyfree folio (anon, not
 * swap-backed) needs it, so the code doing it on the dirty side of a
 * decision says the folio is lazyfree (__folio_set_swapbacked() of a
 * new folio is another thing)
 */
static const char *const remark_fns[] = { "folio_set_swapbacked", "SetPageSwapBacked" };
/* helpers of the tree worth reading: names that say what they test */
static const char *const helper_words[] = {
	"lazyfree", "lazy_free", "clean", "dirty", "droppable", "swapbacked",
};
/* what says code deals with lazyfree folios (for the hunks note) */
static const char *const hint_words[] = {
	"swapbacked", "swap-backed", "lazyfree", "lazy_free", "lazy-free",
	"madv_free",
};

#define IN(t, tab) ctok_in(t, tab, ARRAY_SIZE(tab))

/* Does text[0..len) contain word, in any case? */
static bool strcasestr_n(const char *text, int len, const char *word)
{
	int n = (int)strlen(word), i;

	for (i = 0; i + n <= len; i++)
		if (!strncasecmp(text + i, word, n))
			return true;
	return false;
}

static bool droppable_tok(const struct ctok *t)
{
	return ctok_is(t, "VM_DROPPABLE") || check_ident_has(t, "droppable");
}

/* What the tokens first..last test, helpers not followed */
static unsigned int mentions(const struct ctok *toks, int n, int first, int last)
{
	unsigned int fl = 0;
	int i;

	for (i = first; i <= last && i < n; i++) {
		const struct ctok *t = &toks[i];
		bool call = i + 1 < n && ctok_is(&toks[i + 1], "(");

		if (t->kind != CT_IDENT)
			continue;
		if (droppable_tok(t))
			fl |= T_DROPPABLE;
		else if (call && IN(t, lazyfree_fns))
			fl |= T_LAZYFREE;
		else if (call && IN(t, anon_fns))
			fl |= T_ANON;
		else if (call && IN(t, swapbacked_fns))
			fl |= T_SWAPBACKED;
		else if (call && IN(t, dirty_fns))
			fl |= T_DIRTY;
	}
	return fl;
}

static bool lazyfree_mention(unsigned int m)
{
	return (m & T_LAZYFREE) || ((m & T_ANON) && (m & T_SWAPBACKED));
}

static void add_helper(struct lazyfree_state *st, const char *s, int len,
		       unsigned int fl)
{
	char *name;
	uintptr_t old;

	if (lazyfree_mention(fl))
		fl |= T_LAZYFREE;
	fl &= T_LAZYFREE | T_DIRTY | T_DROPPABLE;
	/* a helper counts for what it adds: lazyfree, or droppability */
	if (!(fl & (T_LAZYFREE | T_DROPPABLE)))
		fl = 0;
	fl |= T_KNOWN;
	name = xstrndup(s, len);
	old = (uintptr_t)strmap_get(&st->helpers, name);
	strmap_put(&st->helpers, name, (void *)(old | fl));
	if (old)
		free(name);	/* the map keeps its first key */
}

/* A helper's T_* from its body: a function of one return statement */
static unsigned int body_mentions(const struct cview *v, int fn)
{
	const struct cnode *n = &v->nodes[fn], *r;

	if (n->child < 0 || v->nodes[n->child].child < 0)
		return 0;
	r = &v->nodes[v->nodes[n->child].child];
	if (r->kind != CN_RETURN || r->next >= 0)
		return 0;
	return mentions(v->toks, v->nr_toks, r->first, r->last);
}

static void learn_view(struct lazyfree_state *st, const struct cview *v)
{
	int i;

	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];
		unsigned int m;

		if (n->kind != CN_FUNC || n->name < 0)
			continue;
		m = body_mentions(v, i);
		if (m & (T_LAZYFREE | T_ANON | T_SWAPBACKED | T_DROPPABLE))
			add_helper(st, v->toks[n->name].s, v->toks[n->name].len, m);
	}
	for (i = 0; i < v->nr_macros; i++) {
		const struct cmacro *m = &v->macros[i];

		if (m->first > m->last)
			continue;
		add_helper(st, v->pptoks[m->name].s, v->pptoks[m->name].len,
			   mentions(v->pptoks, v->nr_pptoks, m->first, m->last));
	}
}

/* T_* a called helper stands for; the tree's definition is read once */
static unsigned int helper(struct lazyfree_state *st, const struct ctok *t)
{
	char *name = xstrndup(t->s, t->len);
	unsigned int h = (unsigned int)(uintptr_t)strmap_get(&st->helpers, name);
	const struct cview *v;
	int fn;

	if (!h && st->c && callers_have_tree(st->c) &&
	    check_ident_has_any(t, helper_words, ARRAY_SIZE(helper_words))) {
		h = T_KNOWN;
		if (callers_def(st->c, t->s, t->len, &v, &fn))
			h |= body_mentions(v, fn);
		add_helper(st, t->s, t->len, h);
		h = (unsigned int)(uintptr_t)strmap_get(&st->helpers, name);
	}
	free(name);
	return h & ~T_KNOWN;
}

unsigned int lazyfree_mentions(struct lazyfree_state *st, const struct cview *v,
			       int first, int last)
{
	unsigned int fl = mentions(v->toks, v->nr_toks, first, last);
	int i;

	for (i = first; st && i <= last && i < v->nr_toks; i++)
		if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "("))
			fl |= helper(st, &v->toks[i]);
	return fl;
}

/* Do facts f (F_*) say the folio is lazyfree? */
static bool lazyfree_facts_lazyfree(unsigned int f)
{
	if (f & (F_SWAPBACKED | F_NOTANON))
		return false;
	return (f & F_LAZYFREE) || ((f & F_ANON) && (f & F_NOSWAPBACKED));
}

static unsigned int term_facts(struct lazyfree_state *st, const struct cview *v,
			       int first, int last, bool holds, int depth);

/* A term that is one call: the table functions and the helpers */
static unsigned int call_facts(struct lazyfree_state *st, const struct cview *v,
			       int first, int last, bool holds, int depth)
{
	const struct ctok *t = &v->toks[first];
	unsigned int h;

	if (IN(t, lazyfree_fns))
		return holds ? F_LAZYFREE : 0;
	if (IN(t, anon_fns))
		return holds ? F_ANON : F_NOTANON;
	if (IN(t, swapbacked_fns))
		return holds ? F_SWAPBACKED : F_NOSWAPBACKED;
	if (ctok_is(t, "likely") || ctok_is(t, "unlikely"))
		return term_facts(st, v, first + 2, last - 1, holds, depth + 1);
	if (droppable_tok(t))
		return F_DROP;
	h = helper(st, t);
	if (h & T_DROPPABLE)
		return F_DROP;
	return (h & T_LAZYFREE) && holds ? F_LAZYFREE : 0;
}

/*
 * What holds when tokens first..last are true (holds) or false: terms of
 * "&&" when true, of "||" when false; a disjunction that holds tells what
 * all its terms have in common, a droppable VMA counting as lazyfree
 * (every folio of a VM_DROPPABLE VMA is lazyfree): so "lazyfree ||
 * droppable" says lazyfree, not droppable.
 */
static unsigned int term_facts(struct lazyfree_state *st, const struct cview *v,
			       int first, int last, bool holds, int depth)
{
	struct cterm t[MAX_TERMS];
	unsigned int all = ~0u, f = 0;
	int nr, k;

	if (first > last || depth > MAX_DEPTH)
		return 0;
	nr = cview_split(v, first, last, holds ? "&&" : "||", t, MAX_TERMS);
	if (nr <= 0 || nr >= MAX_TERMS)
		return 0;
	if (nr > 1 || t[0].first != first || t[0].last != last || t[0].neg) {
		for (k = 0; k < nr; k++)
			f |= term_facts(st, v, t[k].first, t[k].last,
					t[k].neg ? !holds : holds, depth + 1);
		return f;
	}
	if (v->toks[first].kind == CT_IDENT && cv_is(v, first + 1, "(") &&
	    v->toks[first + 1].match == last)
		return call_facts(st, v, first, last, holds, depth);
	nr = cview_split(v, first, last, holds ? "||" : "&&", t, MAX_TERMS);
	if (nr <= 1 || nr >= MAX_TERMS) {
		/* "vma->vm_flags & VM_DROPPABLE", "droppable", "!is_droppable" */
		return mentions(v->toks, v->nr_toks, first, last) & T_DROPPABLE ?
		       F_DROP : 0;
	}
	if (!holds)
		return 0;	/* "a && b" is false: nothing known */
	for (k = 0; k < nr; k++) {
		f = term_facts(st, v, t[k].first, t[k].last,
			       t[k].neg ? !holds : holds, depth + 1);
		if (f & F_DROP)
			f = (f & ~F_DROP) | F_LAZYFREE;
		all &= f;
	}
	return all & ~F_DROP;
}

struct guard_acc {
	struct lazyfree_state *st;
	unsigned int facts;
};

static void guard_fact(const struct cview *v, const struct cterm *t, bool holds,
		       void *data)
{
	struct guard_acc *a = data;

	a->facts |= term_facts(a->st, v, t->first, t->last, holds, 0);
}

static unsigned int guard_facts(struct lazyfree_state *st, const struct cview *v,
				int n)
{
	struct guard_acc a = { st, 0 };

	cview_guards(v, n, guard_fact, &a);
	return a.facts;
}

/* What holds when decision n tests dirtiness: its condition and guards */
static unsigned int decision_facts(struct lazyfree_state *st, const struct cview *v,
				   int n)
{
	const struct cnode *x = &v->nodes[n];
	struct cterm t[MAX_TERMS];
	unsigned int f;
	int nr, k;

	f = term_facts(st, v, x->cond_open + 1, x->cond_close - 1, true, 0);
	/* "if (!lazyfree || dirty)": the dirty test runs when lazyfree */
	nr = cview_split(v, x->cond_open + 1, x->cond_close - 1, "||", t, MAX_TERMS);
	for (k = 0; nr > 1 && k < nr && nr < MAX_TERMS; k++)
		if (!(lazyfree_mentions(st, v, t[k].first, t[k].last) & T_DIRTY))
			f |= term_facts(st, v, t[k].first, t[k].last, t[k].neg, 0);
	return f | guard_facts(st, v, n);
}

/* "if (pte_dirty(pteval)) folio_mark_dirty(folio);" */
static bool only_sets_dirty(const struct cview *v, const struct cnode *n)
{
	int s = n->child;

	if (n->kind != CN_IF || n->els >= 0 || s < 0)
		return false;
	if (v->nodes[s].kind == CN_BLOCK)
		s = v->nodes[s].child;
	if (s < 0)
		return false;
	for (; s >= 0; s = v->nodes[s].next) {
		const struct cnode *x = &v->nodes[s];

		if (x->kind != CN_EXPR || !IN(&v->toks[x->first], dirty_setters))
			return false;
		if (v->nodes[n->child].kind != CN_BLOCK)
			break;
	}
	return true;
}

/* Does the branch of an if act on the folio: leave, re-mark, remap, drop? */
static bool branch_acts(const struct cview *v, const struct cnode *n)
{
	int i;

	if (n->kind != CN_IF)
		return true;	/* a loop: its body is what it does */
	if (n->child < 0)
		return false;
	for (i = n->child; i < v->nr_nodes &&
	     v->nodes[i].first <= v->nodes[n->child].last; i++)
		if (cview_node_within(v, i, n->child) && cview_node_is_jump(v, i))
			return true;
	return lazyfree_action_of(v, n->child) != ACT_UNKNOWN;
}

/*
 * Is line li in the 32-bit branch of "#ifdef CONFIG_64BIT"?  VM_DROPPABLE
 * is VM_NONE there: nothing to allow for.
 */
static bool in_32bit_branch(const struct cview *v, int li)
{
	int depth = 0;
	bool els = false;

	while (li-- > 0) {
		const struct cline *l = &v->lines[li];
		const char *t = l->text;
		int k = 0;

		if (v->lines[li].seg != v->lines[li + 1].seg)
			break;
		while (k < l->len && (t[k] == ' ' || t[k] == '\t'))
			k++;
		if (k >= l->len || t[k] != '#')
			continue;
		t += k + 1;
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncmp(t, "endif", 5)) {
			depth++;
		} else if (!strncmp(t, "if", 2)) {
			if (depth--)
				continue;
			if (!memmem(l->text, l->len, "CONFIG_64BIT", 12))
				return false;
			return els != (!strncmp(t, "ifndef", 6) ||
				       memmem(l->text, l->len, "!", 1) != NULL);
		} else if (!depth && (!strncmp(t, "else", 4) || !strncmp(t, "elif", 4))) {
			els = true;
		}
	}
	return false;
}

/* Its branch starts by leaving for droppable VMAs: "if (droppable) goto x;" */
static bool branch_exempts(const struct cview *v, const struct cnode *n)
{
	int s = n->child;

	if (n->kind != CN_IF || s < 0 || v->nodes[s].kind != CN_BLOCK)
		return false;
	for (s = v->nodes[s].child; s >= 0; s = v->nodes[s].next) {
		const struct cnode *x = &v->nodes[s];

		if (x->kind == CN_IF && x->cond_open >= 0 && cview_node_is_jump(v, x->child) &&
		    mentions(v->toks, v->nr_toks, x->cond_open, x->cond_close) &
		    T_DROPPABLE)
			return true;
		if (cview_node_is_jump(v, s))
			break;
	}
	return false;
}

/* The caller side: F_LAZYFREE when every call passes a lazyfree folio */
static unsigned int callers_facts(struct lazyfree_state *st, const char *name,
				  int len, int level, struct strbuf *who,
				  size_t *nsites);

static unsigned int site_facts(struct lazyfree_state *st, const struct call_site *cs,
			       int level)
{
	const struct cview *v = cs->v;
	int n = callers_node_at(v, cs->tok);
	unsigned int f = 0;

	if (n < 0)
		return 0;
	if ((v->nodes[n].kind == CN_IF || v->nodes[n].kind == CN_WHILE) &&
	    v->nodes[n].cond_open < cs->tok && cs->tok < v->nodes[n].cond_close) {
		struct cterm t[MAX_TERMS];
		int nr, k;

		/* "if (anon && !swapbacked && helper(folio))" */
		nr = cview_split(v, v->nodes[n].cond_open + 1,
				 v->nodes[n].cond_close - 1, "&&", t, MAX_TERMS);
		for (k = 0; k < nr && nr < MAX_TERMS && t[k].last < cs->tok; k++)
			f |= term_facts(st, v, t[k].first, t[k].last, !t[k].neg, 0);
	}
	f |= guard_facts(st, v, n);
	if (!lazyfree_facts_lazyfree(f) && !(f & (F_SWAPBACKED | F_NOTANON)) &&
	    level < CALLER_LEVELS && cs->fn >= 0 && v->nodes[cs->fn].fname)
		f |= callers_facts(st, v->nodes[cs->fn].fname, v->nodes[cs->fn].fname_len,
				   level + 1, NULL, NULL);
	return f;
}

static unsigned int callers_facts(struct lazyfree_state *st, const char *name,
				  int len, int level, struct strbuf *who,
				  size_t *nsites)
{
	struct call_sites cs = CALL_SITES_INIT;
	unsigned int all = F_LAZYFREE | F_DROP;
	size_t i, n = 0;

	callers_find(st->c, name, len, &cs);
	for (i = 0; i < cs.nr && all; i++) {
		unsigned int f;

		/* a recursive call says nothing about the callers */
		if (cs.v[i].fn >= 0 && cview_node_func_is(cs.v[i].v, cs.v[i].fn, name, len))
			continue;
		n++;
		f = site_facts(st, &cs.v[i], level);
		all &= (lazyfree_facts_lazyfree(f) ? F_LAZYFREE : 0) | (f & F_DROP);
		if (who && !who->len && cs.v[i].fn >= 0 && cs.v[i].v->nodes[cs.v[i].fn].fname)
			strbuf_addf(who, "%.*s() in %s",
				    cs.v[i].v->nodes[cs.v[i].fn].fname_len,
				    cs.v[i].v->nodes[cs.v[i].fn].fname, cs.v[i].path);
	}
	if (!n)
		all = 0;
	if (nsites)
		*nsites = n;
	callers_sites_release(&cs);
	return all;
}

static void lazyfree_begin(struct check_ctx *c)
{
	struct lazyfree_state *st = xcalloc(1, sizeof(*st));
	struct check_patch *p;
	struct check_file *f;
	size_t pi, fi;

	/* the known helpers themselves are not decisions */
	for_each_check_file(c->s, pi, fi, p, f)
		if (f->is_c)
			learn_view(st, &f->view);
	c->state = st;
}

static void lazyfree_end(struct check_ctx *c)
{
	struct lazyfree_state *st = c->state;
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->helpers.size; i++)
		if (st->helpers.e[i].hash)
			free((char *)st->helpers.e[i].key);
	strmap_release(&st->helpers);
	free(st);
	c->state = NULL;
}

/*
 * Does the code around n deal with lazyfree folios: the words in the
 * lines of its function (or hunk) shown, comments included, or a
 * function named to discard?
 */
static bool lazyfree_hint(const struct cview *v, int n, const char *fname, int flen)
{
	int first, end, li;
	size_t k;

	if (fname && memmem(fname, flen, "discard", 7))
		return true;
	if (v->nodes[n].func >= 0) {
		first = v->toks[v->nodes[v->nodes[n].func].first].line;
		end = v->toks[v->nodes[v->nodes[n].func].last].line + 1;
	} else {
		const struct cseg *s = &v->segs[v->lines[v->toks[v->nodes[n].first].line].seg];

		first = s->first_line;
		end = s->end_line;
	}
	for (li = first; li < end; li++)
		for (k = 0; k < ARRAY_SIZE(hint_words); k++)
			if (strcasestr_n(v->lines[li].text, v->lines[li].len, hint_words[k]))
				return true;
	return false;
}

/* Is the head of what holds n outside the hunks (a block seen open)? */
static bool guards_unseen(const struct cview *v, int n)
{
	for (; n >= 0; n = v->nodes[n].parent)
		if (v->nodes[n].kind == CN_OPEN || v->nodes[n].kind == CN_ELSE)
			return true;
	return false;
}

/*
 * The statements that run when decision n finds the folio dirty: its
 * branch when the condition tests dirtiness ("if (dirty)", "a && dirty",
 * "dirty || a"), else ("if (clean && a)") its else branch or, when the
 * branch leaves, what follows it in its block up to the next exit.  The
 * first and last node of that run in *first, *last (siblings); false
 * when there is none.
 */
static bool dirty_side(struct lazyfree_state *st, const struct cview *v, int n,
		       int *first, int *last)
{
	const struct cnode *x = &v->nodes[n];
	struct cterm t[MAX_TERMS];
	bool clean = false;
	int nr, k, s;

	nr = cview_split(v, x->cond_open + 1, x->cond_close - 1, "&&", t, MAX_TERMS);
	for (k = 0; k < nr && nr < MAX_TERMS; k++)
		if (t[k].neg && (lazyfree_mentions(st, v, t[k].first, t[k].last) & T_DIRTY))
			clean = true;
	if (x->kind != CN_IF)
		return false;
	if (!clean) {
		*first = *last = x->child;
		return x->child >= 0;
	}
	if (x->els >= 0) {
		*first = *last = x->els;
		return true;
	}
	if (x->child < 0 || !cview_node_is_jump(v, x->child) || x->next < 0)
		return false;
	*first = x->next;
	for (s = x->next; s >= 0; s = v->nodes[s].next) {
		*last = s;
		if (cview_node_is_jump(v, s))
			break;
	}
	return true;
}

/* Does node s (or a node in it) test droppability, as a guard of call t? */
static bool droppable_guarded(const struct cview *v, int t, int stop)
{
	int p;

	for (p = callers_node_at(v, t); p >= 0 && p != stop; p = v->nodes[p].parent)
		if ((v->nodes[p].kind == CN_IF || v->nodes[p].kind == CN_WHILE) &&
		    v->nodes[p].cond_open >= 0 &&
		    (mentions(v->toks, v->nr_toks, v->nodes[p].cond_open,
			      v->nodes[p].cond_close) & T_DROPPABLE))
			return true;
	return false;
}

/* The re-marking calls on the dirty side of n, not guarded by droppability */
static int remarks(struct lazyfree_state *st, const struct cview *v, int n,
		   int *out, int max)
{
	int first, last, i, nr = 0;

	if (!dirty_side(st, v, n, &first, &last))
		return 0;
	for (i = v->nodes[first].first; i <= v->nodes[last].last && nr < max; i++)
		if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "(") &&
		    IN(&v->toks[i], remark_fns) &&
		    !droppable_guarded(v, i, v->nodes[n].parent))
			out[nr++] = i;
	return nr;
}

/*
 * The lines the change that added post-image line no removes (the run of
 * "-" and "+" lines around it), as one text; empty when none
 */
static void removed_around(const struct diff_file *df, int no, struct strbuf *out)
{
	size_t h, k, a, b;

	for (h = 0; df && h < df->nr; h++) {
		const struct diff_hunk *hk = &df->hunks[h];

		for (k = 0; k < hk->nr; k++) {
			if (hk->lines[k].kind != '+' || hk->lines[k].new_no != no)
				continue;
			diff_hunk_block(hk, k, &a, &b);
			for (; a < b; a++)
				if (hk->lines[a].kind == '-') {
					strbuf_add(out, hk->lines[a].text, hk->lines[a].len);
					strbuf_addch(out, '\n');
				}
			return;
		}
	}
}

/* Did the change adding the lines of tokens first..last drop a VM_DROPPABLE test? */
static bool drops_exemption(const struct check_file *f, const struct cview *v,
			    int first, int last)
{
	struct strbuf sb = STRBUF_INIT;
	bool dropped;
	int li;

	for (li = v->toks[first].line; li <= v->toks[last].line; li++)
		if (v->lines[li].added)
			removed_around(f->df, v->lines[li].no, &sb);
	dropped = strcasestr_n(sb.buf, (int)sb.len, "droppable");
	strbuf_release(&sb);
	return dropped;
}

/* The first dirtiness test of decision n: where a finding points */
static int dirty_tok(struct lazyfree_state *st, const struct cview *v, int n)
{
	int k;

	for (k = v->nodes[n].cond_open; k <= v->nodes[n].cond_close; k++)
		if (v->toks[k].kind == CT_IDENT && cv_is(v, k + 1, "(") &&
		    (lazyfree_mentions(st, v, k, k) & T_DIRTY))
			return k;
	return -1;
}

static void report_remark(struct check_ctx *c, int t, bool dropped)
{
	const struct cview *v = &c->file->view;
	const struct ctok *k = &v->toks[t];
	struct finding *f;
	int close = v->toks[t + 1].match;

	f = check_report_at(c, CHECK_WARNING, t, t, close > t ? close : t,
			    "%.*s() re-marks a dirty lazyfree folio swap-backed%s: "
			    "a folio of a VM_DROPPABLE VMA must stay lazyfree "
			    "(try_to_unmap_one() in mm/rmap.c skips it for them)",
			    k->len, k->s,
			    dropped ? ", and this change drops its VM_DROPPABLE test" :
			    " without a VM_DROPPABLE test");
	(void)f;
}

/* Report the re-marking call at token t once (seen: " tok" list) */
static void remark_once(struct check_ctx *c, int t, struct strbuf *seen)
{
	char key[24];

	snprintf(key, sizeof(key), " %d ", t);
	if (seen->len && strstr(seen->buf, key))
		return;
	strbuf_addstr(seen, key);
	report_remark(c, t, drops_exemption(c->file, &c->file->view, t, t));
}

static void report(struct lazyfree_state *st, struct check_ctx *c, int i,
		   const char *fname, int flen, const char *who)
{
	const struct cview *v = &c->file->view;
	const struct cnode *n = &v->nodes[i];
	struct strbuf why = STRBUF_INIT;
	struct finding *f;
	int at, k;

	at = dirty_tok(st, v, i);
	if (at < 0 || !v->lines[v->toks[at].line].added)
		for (at = n->first, k = n->first; k <= n->cond_close; k++)
			if (v->lines[v->toks[k].line].added) {
				at = k;
				break;
			}
	if (who)
		strbuf_addf(&why, "; '%.*s()' gets lazyfree folios only (its callers "
			    "test it, e.g. %s)", flen, fname, who);
	if (drops_exemption(c->file, v, n->cond_open, n->cond_close))
		strbuf_addstr(&why, "; this change drops the VM_DROPPABLE test it had");
	f = check_report_at(c, CHECK_WARNING, at, n->first, n->cond_close,
			    "lazyfree folio %s by its dirtiness without VM_DROPPABLE: "
			    "folios of VM_DROPPABLE VMAs are lazyfree and dropped even "
			    "when dirty (see try_to_unmap_one() in mm/rmap.c)%s",
			    n->kind == CN_WHILE ? "handled" : "kept or skipped", why.buf);
	f->suggestion = lazyfree_fix(st, c, v, i);
	strbuf_release(&why);
}

static void note_unseen(struct check_ctx *c, int i, const char *fname, int flen)
{
	const struct cview *v = &c->file->view;
	const struct cnode *n = &v->nodes[i];
	struct strbuf what = STRBUF_INIT;

	if (fname)
		strbuf_addf(&what, "what guards it and who calls '%.*s()'", flen, fname);
	else
		strbuf_addstr(&what, "what guards it");
	check_report_at(c, CHECK_NOTE, n->first, n->first, n->cond_close,
			"hunks only: this dirtiness test sits in lazyfree code, but "
			"the hunks do not show %s, so whether it decides on lazyfree "
			"folios (which must allow for VM_DROPPABLE) is not known; "
			"check with --repo", what.buf);
	strbuf_release(&what);
}

static void lazyfree_run(struct check_ctx *c)
{
	struct lazyfree_state *st = c->state;
	const struct cview *v = &c->file->view;
	struct strbuf seen = STRBUF_INIT;
	int i;

	if (!c->file->is_c || !st)
		return;
	st->c = c;
	/* re-marking swap-backed where the change drops a VM_DROPPABLE test */
	for (i = 0; i + 1 < v->nr_toks; i++)
		if (v->toks[i].kind == CT_IDENT && cv_is(v, i + 1, "(") &&
		    IN(&v->toks[i], remark_fns) && v->lines[v->toks[i].line].added &&
		    !droppable_guarded(v, i, -1) && drops_exemption(c->file, v, i, i))
			remark_once(c, i, &seen);
	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];
		const char *fname = NULL;
		struct strbuf who = STRBUF_INIT;
		unsigned int m, facts, up = 0;
		size_t nsites = 0;
		int flen = 0, rm[4], nrm, k;
		bool dropped;

		if ((n->kind != CN_IF && n->kind != CN_WHILE) || n->cond_open < 0)
			continue;
		if (!check_sees(c, cview_range_added(v, n->cond_open, n->cond_close)))
			continue;
		m = lazyfree_mentions(st, v, n->cond_open, n->cond_close);
		if (!(m & T_DIRTY) || only_sets_dirty(v, n) || !branch_acts(v, n))
			continue;
		if ((m & T_DROPPABLE) || branch_exempts(v, n) ||
		    in_32bit_branch(v, v->toks[n->first].line))
			continue;
		facts = decision_facts(st, v, i);
		if (facts & F_DROP)
			continue;
		if (n->func >= 0 && v->nodes[n->func].fname) {
			fname = v->nodes[n->func].fname;
			flen = v->nodes[n->func].fname_len;
		}
		nrm = remarks(st, v, i, rm, ARRAY_SIZE(rm));
		dropped = drops_exemption(c->file, v, n->cond_open, n->cond_close);
		if (!lazyfree_facts_lazyfree(facts) && !nrm && !dropped &&
		    !(facts & (F_SWAPBACKED | F_NOTANON)) && fname)
			up = callers_facts(st, fname, flen, 1, &who, &nsites);
		if (lazyfree_facts_lazyfree(facts) || ((nrm || dropped) &&
		    !(facts & (F_SWAPBACKED | F_NOTANON)))) {
			report(st, c, i, NULL, 0, NULL);
			for (k = 0; k < nrm; k++)
				remark_once(c, rm[k], &seen);
		} else if (up & F_LAZYFREE) {
			/* a dirtiness predicate: the decision is its callers' */
			if (!(up & F_DROP) && !memmem(fname, flen, "dirty", 5))
				report(st, c, i, fname, flen, who.buf);
		} else if (!v->complete && !(facts & (F_SWAPBACKED | F_NOTANON)) &&
			   !nsites && lazyfree_hint(v, i, fname, flen) &&
			   (guards_unseen(v, i) || fname)) {
			note_unseen(c, i, fname, flen);
		}
		strbuf_release(&who);
	}
	strbuf_release(&seen);
	st->c = NULL;
}

const struct checker lazyfree_checker = {
	.name = "lazyfree-droppable",
	.summary = "lazyfree folios kept or skipped by dirtiness must allow for VM_DROPPABLE",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.begin = lazyfree_begin,
	.run = lazyfree_run,
	.end = lazyfree_end,
};
