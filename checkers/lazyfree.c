// SPDX-License-Identifier: GPL-2.0
/*
 * lazyfree-droppable: code that decides to skip, keep, discard or
 * re-mark a lazyfree folio (folio_test_lazyfree(), or folio_test_anon()
 * && !folio_test_swapbacked()) from its dirtiness (pte_dirty(),
 * pmd_dirty(), folio_test_dirty()) must account for VMAs with
 * VM_DROPPABLE, whose folios are lazyfree and dropped even when dirty
 * (try_to_unmap_one() in mm/rmap.c).  From Barry Song's, Lance Yang's
 * and David Hildenbrand's review of "[PATCH mm-new v7 4/5] mm:
 * khugepaged: skip lazy-free folios".
 *
 * A decision is the condition of an if or while.  Its lazyfree test may
 * be in the condition itself or in what guards it: an enclosing if, or
 * an earlier "if (!lazyfree) return/goto/continue;" in an enclosing
 * block.  Droppability counts as handled when VM_DROPPABLE, a name
 * containing "droppable", or a helper whose body tests VM_DROPPABLE
 * appears in the condition, its guards or anywhere in the function.
 * Only setting the dirty flag from the page table ("if (pte_dirty(pte))
 * folio_mark_dirty(folio);") is not a decision.  Helpers and macros of
 * the series (or the tree) that test lazyfree, or lazyfree and
 * dirtiness together, count where they are called.
 */
#include <stdlib.h>

#include "bot/strmap.h"
#include "checkers/rules.h"

enum {
	T_LAZYFREE = 1,		/* lazyfree test */
	T_ANON = 2,
	T_SWAPBACKED = 4,
	T_DIRTY = 8,
	T_DROPPABLE = 16,
};

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

struct lazyfree_state {
	struct strmap helpers;	/* name -> T_* flags it stands for */
};

static bool in_table(const struct ctok *t, const char *const *tab, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ctok_is(t, tab[i]))
			return true;
	return false;
}

#define IN(t, tab) in_table(t, tab, ARRAY_SIZE(tab))

static bool called(const struct ctok *toks, int i, int n)
{
	return i + 1 < n && ctok_is(&toks[i + 1], "(");
}

/* What the tokens first..last test, helpers included */
static unsigned int classify(const struct lazyfree_state *st,
			     const struct ctok *toks, int n, int first, int last)
{
	unsigned int fl = 0;
	int i;

	for (i = first; i <= last && i < n; i++) {
		const struct ctok *t = &toks[i];

		if (t->kind != CT_IDENT)
			continue;
		if (ctok_is(t, "VM_DROPPABLE") || ident_has(t, "droppable")) {
			fl |= T_DROPPABLE;
			continue;
		}
		if (!called(toks, i, n))
			continue;
		if (IN(t, lazyfree_fns))
			fl |= T_LAZYFREE;
		else if (IN(t, anon_fns))
			fl |= T_ANON;
		else if (IN(t, swapbacked_fns))
			fl |= T_SWAPBACKED;
		else if (IN(t, dirty_fns))
			fl |= T_DIRTY;
		else if (st) {
			char *name = xstrndup(t->s, t->len);
			uintptr_t h = (uintptr_t)strmap_get(&st->helpers, name);

			fl |= (unsigned int)h;
			free(name);
		}
	}
	return fl;
}

static bool lazyfree(unsigned int fl)
{
	return (fl & T_LAZYFREE) || ((fl & T_ANON) && (fl & T_SWAPBACKED));
}

static void add_helper(struct lazyfree_state *st, const char *s, int len,
		       unsigned int fl)
{
	char *name;
	uintptr_t old;

	if (lazyfree(fl))
		fl |= T_LAZYFREE;
	fl &= T_LAZYFREE | T_DIRTY | T_DROPPABLE;
	/* a helper counts for what it adds: lazyfree, or droppability */
	if (!(fl & (T_LAZYFREE | T_DROPPABLE)))
		return;
	name = xstrndup(s, len);
	old = (uintptr_t)strmap_get(&st->helpers, name);
	strmap_put(&st->helpers, name, (void *)(old | fl));
	if (old)
		free(name);	/* the map keeps its first key */
}

static void learn_view(struct lazyfree_state *st, const struct cview *v)
{
	int i;

	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];
		const struct cnode *r;

		/* helpers: a body of one return statement */
		if (n->kind != CN_FUNC || n->name < 0 || n->child < 0 ||
		    v->nodes[n->child].child < 0)
			continue;
		r = &v->nodes[v->nodes[n->child].child];
		if (r->kind != CN_RETURN || r->next >= 0)
			continue;
		add_helper(st, v->toks[n->name].s, v->toks[n->name].len,
			   classify(NULL, v->toks, v->nr_toks, r->first, r->last));
	}
	for (i = 0; i < v->nr_macros; i++) {
		const struct cmacro *m = &v->macros[i];

		if (m->first > m->last)
			continue;
		add_helper(st, v->pptoks[m->name].s, v->pptoks[m->name].len,
			   classify(NULL, v->pptoks, v->nr_pptoks, m->first, m->last));
	}
}

void lazyfree_begin(struct check_ctx *c)
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

void lazyfree_end(struct check_ctx *c)
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

static bool is_jump(const struct cview *v, int n)
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

/* Flags of what guards node n: enclosing ifs and earlier early exits */
static unsigned int guards(const struct lazyfree_state *st,
			   const struct cview *v, int n)
{
	unsigned int fl = 0;

	while (n >= 0 && v->nodes[n].kind != CN_FUNC) {
		int p = v->nodes[n].parent;

		if (p < 0)
			break;
		if (v->nodes[p].kind == CN_IF && v->nodes[p].cond_open >= 0)
			fl |= classify(st, v->toks, v->nr_toks, v->nodes[p].cond_open,
				       v->nodes[p].cond_close);
		if (v->nodes[p].kind == CN_BLOCK) {
			int s;

			for (s = v->nodes[p].child; s >= 0 && s != n; s = v->nodes[s].next) {
				const struct cnode *x = &v->nodes[s];

				if (x->kind == CN_IF && x->els < 0 && x->cond_open >= 0 &&
				    is_jump(v, x->child))
					fl |= classify(st, v->toks, v->nr_toks,
						       x->cond_open, x->cond_close);
			}
		}
		n = p;
	}
	return fl;
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

static void vma_name(const struct cview *v, int fn, struct strbuf *sb)
{
	const struct cnode *f = fn >= 0 ? &v->nodes[fn] : NULL;
	int i;

	if (f && f->cond_open >= 0) {
		/* a "struct vm_area_struct *name" parameter */
		for (i = f->cond_open; i < f->cond_close; i++)
			if (cv_is(v, i, "vm_area_struct") && cv_is(v, i + 1, "*") &&
			    v->toks[i + 2].kind == CT_IDENT) {
				strbuf_add(sb, v->toks[i + 2].s, v->toks[i + 2].len);
				return;
			}
	}
	strbuf_addstr(sb, "vma");
}

/* Leading blanks of the line of token tok */
static void indent_of(const struct cview *v, int tok, struct strbuf *sb)
{
	const struct cline *l = &v->lines[v->toks[tok].line];
	int i;

	for (i = 0; i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'); i++)
		strbuf_addch(sb, l->text[i]);
}

/*
 * The condition with "!(vma->vm_flags & VM_DROPPABLE)" before its first
 * lazyfree or dirtiness test (David Hildenbrand's form), wrapped at
 * "&&" to the column limit the way kernel code is.
 */
static void suggest(const struct lazyfree_state *st, const struct check_ctx *c,
		    const struct cnode *n, struct finding *f)
{
	const struct cview *v = &c->file->view;
	struct cterm t[32];
	struct strbuf sb = STRBUF_INIT, vma = STRBUF_INIT, ind = STRBUF_INIT;
	struct strbuf line = STRBUF_INIT, term = STRBUF_INIT;
	const char *kw = ctok_is(&v->toks[n->first], "while") ? "while (" : "if (";
	int nr, k, pad;
	bool done = false, brace = cv_is(v, n->cond_close + 1, "{");
	char **terms = NULL;
	int nt = 0;

	vma_name(v, n->func, &vma);
	indent_of(v, n->first, &ind);
	nr = cview_split(v, n->cond_open + 1, n->cond_close - 1, "&&", t, 32);
	terms = xcalloc(nr + 1, sizeof(*terms));
	for (k = 0; k < nr; k++) {
		unsigned int fl = classify(st, v->toks, v->nr_toks, t[k].first, t[k].last);

		if (!done && (fl & (T_LAZYFREE | T_ANON | T_SWAPBACKED | T_DIRTY))) {
			terms = xrealloc(terms, (nr + 2) * sizeof(*terms));
			terms[nt++] = xasprintf("!(%s->vm_flags & VM_DROPPABLE)", vma.buf);
			done = true;
		}
		strbuf_reset(&term);
		if (t[k].neg)
			strbuf_addch(&term, '!');
		cview_text(v, t[k].first, t[k].last, &term);
		terms[nt++] = xstrdup(term.buf);
	}
	pad = (int)strlen(kw);
	strbuf_addf(&line, "%s%s", ind.buf, kw);
	for (k = 0; k < nt; k++) {
		struct cline l;
		const char *end = k == nt - 1 ? (brace ? ") {" : ")") : " &&";
		int w;

		if (k) {
			strbuf_addch(&line, ' ');
			l = (struct cline){ .text = line.buf, .len = (int)line.len };
			w = cline_width(&l, l.len) + (int)strlen(terms[k]) + (int)strlen(end);
			if (w > c->o->columns) {
				strbuf_rtrim(&line);
				strbuf_addbuf(&sb, &line);
				strbuf_addch(&sb, '\n');
				strbuf_reset(&line);
				strbuf_addf(&line, "%s%*s", ind.buf, pad, "");
			}
		}
		strbuf_addstr(&line, terms[k]);
		strbuf_addstr(&line, end);
		free(terms[k]);
	}
	strbuf_addbuf(&sb, &line);
	free(terms);
	f->suggestion = strbuf_detach(&sb, NULL);
	strbuf_release(&vma);
	strbuf_release(&ind);
	strbuf_release(&line);
	strbuf_release(&term);
}

void lazyfree_run(struct check_ctx *c)
{
	const struct lazyfree_state *st = c->state;
	const struct cview *v = &c->file->view;
	int i;

	if (!c->file->is_c)
		return;
	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];
		unsigned int cond, ctx, fn = 0;
		int at, k;
		struct finding *f;

		if ((n->kind != CN_IF && n->kind != CN_WHILE) || n->cond_open < 0)
			continue;
		if (!check_sees(c, cview_range_added(v, n->cond_open, n->cond_close)))
			continue;
		cond = classify(st, v->toks, v->nr_toks, n->cond_open, n->cond_close);
		if (!(cond & T_DIRTY) || only_sets_dirty(v, n))
			continue;
		ctx = cond | guards(st, v, i);
		if (!lazyfree(ctx))
			continue;
		if (n->func >= 0)
			fn = classify(st, v->toks, v->nr_toks, v->nodes[n->func].first,
				      v->nodes[n->func].last);
		if ((ctx | fn) & T_DROPPABLE)
			continue;
		for (at = n->first, k = n->first; k <= n->cond_close; k++)
			if (v->lines[v->toks[k].line].added) {
				at = k;
				break;
			}
		f = check_report_at(c, CHECK_WARNING, at, n->first, n->cond_close,
				    "lazyfree folio %s by its dirtiness without VM_DROPPABLE: "
				    "folios of VM_DROPPABLE VMAs are lazyfree and dropped even "
				    "when dirty (see try_to_unmap_one() in mm/rmap.c)",
				    n->kind == CN_WHILE ? "handled" : "kept or skipped");
		suggest(st, c, n, f);
	}
}
