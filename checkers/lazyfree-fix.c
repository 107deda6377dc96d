// SPDX-License-Identifier: GPL-2.0
/*
 * The fix of a lazyfree decision that forgets VM_DROPPABLE, from the
 * decision's polarity.  Folios of VM_DROPPABLE VMAs are dropped even
 * when dirty and never made swap-backed again (try_to_unmap_one()), so:
 *
 *  - keeping, skipping or re-marking a folio because it is dirty
 *    ("if (folio_test_dirty(folio)) return false;") must not happen for
 *    them: "folio_test_dirty(folio) && !(vma->vm_flags & VM_DROPPABLE)"
 *    (Barry Song's fix in 004 v3 4/4), and a test of several dirty bits
 *    is grouped: "(A || B) && !(...)", other reasons to keep staying
 *    beside it;
 *  - discarding a folio because it is clean must also discard them:
 *    "!folio_test_dirty(folio)" becomes "(!folio_test_dirty(folio) ||
 *    (vma->vm_flags & VM_DROPPABLE))", mainline's form in
 *    try_to_unmap_one();
 *  - skipping work on a clean lazyfree folio (khugepaged's
 *    SCAN_PAGE_LAZYFREE) should not skip them: "!(vma->vm_flags &
 *    VM_DROPPABLE) && folio_test_lazyfree(folio) && !pte_dirty(pteval)",
 *    David Hildenbrand's form in the 003 thread.
 *
 * When the branch does neither clearly (no "goto discard", no return,
 * continue or "goto out"), no fix is offered: a wrong one in a reply is
 * worse than none.
 */
#include <stdlib.h>

#include "checkers/lazyfree.h"

#define MAX_TERMS 32

static const char *const discard_words[] = {
	"discard", "free", "drop", "reclaim",
};
static const char *const keep_calls[] = {
	"folio_set_swapbacked", "set_pte_at", "set_ptes", "set_pmd_at",
	"folio_putback_lru", "folio_activate",
};

enum lazyfree_action lazyfree_action_of(const struct cview *v, int branch)
{
	const struct cnode *b;
	bool discard = false, keep = false;
	int i;

	if (branch < 0)
		return ACT_UNKNOWN;
	b = &v->nodes[branch];
	for (i = branch; i < v->nr_nodes && v->nodes[i].first <= b->last; i++) {
		const struct cnode *x = &v->nodes[i];

		if (!cview_node_within(v, i, branch))
			continue;
		if (x->kind == CN_GOTO && x->name >= 0) {
			if (check_ident_has_any(&v->toks[x->name], discard_words,
						ARRAY_SIZE(discard_words)))
				discard = true;
			else
				keep = true;
		} else if (x->kind == CN_RETURN || x->kind == CN_CONTINUE ||
			   x->kind == CN_BREAK) {
			keep = true;
		}
	}
	for (i = b->first; i <= b->last; i++) {
		const struct ctok *t = &v->toks[i];

		if (t->kind != CT_IDENT || !cv_is(v, i + 1, "("))
			continue;
		if (ctok_is(t, "dec_mm_counter") || check_ident_has(t, "discard"))
			discard = true;
		else if (check_ident_has_any(t, keep_calls, ARRAY_SIZE(keep_calls)))
			keep = true;
	}
	if (discard == keep)
		return ACT_UNKNOWN;
	return discard ? ACT_DISCARD : ACT_KEEP;
}

/* The "struct vm_area_struct *name" parameter of the function, or "vma" */
static void vma_name(const struct cview *v, int fn, struct strbuf *sb)
{
	const struct cnode *f = fn >= 0 ? &v->nodes[fn] : NULL;
	int i;

	if (f && f->cond_open >= 0)
		for (i = f->cond_open; i < f->cond_close; i++)
			if (cv_is(v, i, "vm_area_struct") && cv_is(v, i + 1, "*") &&
			    v->toks[i + 2].kind == CT_IDENT) {
				strbuf_add(sb, v->toks[i + 2].s, v->toks[i + 2].len);
				return;
			}
	strbuf_addstr(sb, "vma");
}

static void indent_of(const struct cview *v, int tok, struct strbuf *sb)
{
	const struct cline *l = &v->lines[v->toks[tok].line];
	int i;

	for (i = 0; i < l->len && (l->text[i] == ' ' || l->text[i] == '\t'); i++)
		strbuf_addch(sb, l->text[i]);
}

struct fix {
	char *term[MAX_TERMS + 2];
	const char *join[MAX_TERMS + 2];	/* after each term but the last */
	int depth[MAX_TERMS + 2];		/* open parentheses before it */
	int nr;
};

static void fix_add_at(struct fix *fx, char *text, const char *join, int depth)
{
	if (fx->nr >= MAX_TERMS + 2) {
		free(text);
		return;
	}
	fx->term[fx->nr] = text;
	fx->depth[fx->nr] = depth;
	fx->join[fx->nr++] = join;
}

static void fix_add(struct fix *fx, char *text, const char *join)
{
	fix_add_at(fx, text, join, 0);
}

static char *term_text(const struct cview *v, const struct cterm *t)
{
	struct strbuf sb = STRBUF_INIT;

	if (t->neg)
		strbuf_addch(&sb, '!');
	cview_text(v, t->first, t->last, &sb);
	return strbuf_detach(&sb, NULL);
}

/* Is term t a dirtiness test (and no lazyfree test mixed in)? */
static bool dirty_term(struct lazyfree_state *st, const struct cview *v,
		       const struct cterm *t)
{
	return lazyfree_mentions(st, v, t->first, t->last) & T_DIRTY;
}

/*
 * "if (" + the terms, wrapped at their joiners to the column limit and
 * indented as the condition was, ") {" or ")" at the end.
 */
static char *layout(const struct fix *fx, const struct cview *v, int n, int columns)
{
	const struct cnode *x = &v->nodes[n];
	const char *kw = ctok_is(&v->toks[x->first], "while") ? "while (" : "if (";
	bool brace = cv_is(v, x->cond_close + 1, "{");
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, ind = STRBUF_INIT;
	int k, pad = (int)strlen(kw);

	indent_of(v, x->first, &ind);
	strbuf_addf(&line, "%s%s", ind.buf, kw);
	for (k = 0; k < fx->nr; k++) {
		const char *end;
		char *tail = NULL;
		struct cline l;
		int w;

		if (k == fx->nr - 1)
			end = brace ? ") {" : ")";
		else
			end = tail = xasprintf(" %s", fx->join[k]);
		if (k) {
			strbuf_addch(&line, ' ');
			l = (struct cline){ .text = line.buf, .len = (int)line.len };
			w = cview_line_width(&l, l.len) + (int)strlen(fx->term[k]) +
			    (int)strlen(end);
			if (w > columns) {
				strbuf_rtrim(&line);
				strbuf_addbuf(&sb, &line);
				strbuf_addch(&sb, '\n');
				strbuf_reset(&line);
				strbuf_addf(&line, "%s%*s", ind.buf, pad + fx->depth[k], "");
			}
		}
		strbuf_addstr(&line, fx->term[k]);
		strbuf_addstr(&line, end);
		free(tail);
	}
	strbuf_addbuf(&sb, &line);
	strbuf_release(&line);
	strbuf_release(&ind);
	return strbuf_detach(&sb, NULL);
}

static void fix_release(struct fix *fx)
{
	int k;

	for (k = 0; k < fx->nr; k++)
		free(fx->term[k]);
}

/* A conjunction: add the exemption, or widen the "clean" test */
static bool fix_and(struct lazyfree_state *st, const struct cview *v, int n,
		    const char *vma, const struct cterm *t, int nr, struct fix *fx)
{
	const struct cnode *x = &v->nodes[n];
	bool done = false;
	int k, d = -1;

	for (k = 0; k < nr && d < 0; k++)
		if (dirty_term(st, v, &t[k]))
			d = k;
	if (d < 0)
		return false;
	if (t[d].neg && x->kind == CN_IF &&
	    lazyfree_action_of(v, x->child) == ACT_DISCARD) {
		/* discard when clean: droppable ones are discarded anyway */
		for (k = 0; k < nr; k++) {
			char *s = term_text(v, &t[k]);

			if (k == d) {
				char *w = xasprintf(nr > 1 ? "(%s || (%s->vm_flags & VM_DROPPABLE))" :
						    "%s || (%s->vm_flags & VM_DROPPABLE)",
						    s, vma);

				free(s);
				s = w;
			}
			fix_add(fx, s, "&&");
		}
		return true;
	}
	if (t[d].neg && (x->kind != CN_IF ||
			 lazyfree_action_of(v, x->child) != ACT_KEEP))
		return false;
	/* keep when dirty, or skip when clean: not for droppable ones */
	for (k = 0; k < nr; k++) {
		unsigned int m = lazyfree_mentions(st, v, t[k].first, t[k].last);

		if (!done && (m & (T_LAZYFREE | T_ANON | T_SWAPBACKED | T_DIRTY))) {
			fix_add(fx, xasprintf("!(%s->vm_flags & VM_DROPPABLE)", vma),
				"&&");
			done = true;
		}
		fix_add(fx, term_text(v, &t[k]), "&&");
	}
	return true;
}

/* A disjunction of dirty bits and other reasons to keep the folio */
static bool fix_or(struct lazyfree_state *st, const struct cview *v, int n,
		   const char *vma, const struct cterm *t, int nr, struct fix *fx)
{
	const struct cnode *x = &v->nodes[n];
	struct strbuf dirty = STRBUF_INIT;
	int k, nd = 0;

	if (x->kind != CN_IF || lazyfree_action_of(v, x->child) != ACT_KEEP)
		return false;
	for (k = 0; k < nr; k++) {
		if (!dirty_term(st, v, &t[k]))
			continue;
		if (t[k].neg) {
			strbuf_release(&dirty);
			return false;	/* "clean or ...": not a plain keep */
		}
		if (nd++)
			strbuf_addstr(&dirty, " || ");
		cview_text(v, t[k].first, t[k].last, &dirty);
	}
	if (!nd) {
		strbuf_release(&dirty);
		return false;
	}
	for (k = 0; k < nr; k++)
		if (!dirty_term(st, v, &t[k]))
			fix_add(fx, term_text(v, &t[k]), "||");
	if (fx->nr) {
		fix_add(fx, xasprintf("(%s%s%s", nd > 1 ? "(" : "", dirty.buf,
				      nd > 1 ? ")" : ""), "&&");
		fix_add_at(fx, xasprintf("!(%s->vm_flags & VM_DROPPABLE))", vma),
			   "||", 1);
	} else {
		fix_add(fx, xasprintf("(%s)", dirty.buf), "&&");
		fix_add(fx, xasprintf("!(%s->vm_flags & VM_DROPPABLE)", vma), "&&");
	}
	strbuf_release(&dirty);
	return true;
}

char *lazyfree_fix(struct lazyfree_state *st, const struct check_ctx *c,
		   const struct cview *v, int n)
{
	const struct cnode *x = &v->nodes[n];
	struct cterm t[MAX_TERMS];
	struct strbuf vma = STRBUF_INIT;
	struct fix fx = { .nr = 0 };
	char *out = NULL;
	bool ok, is_or = false;
	int nr;

	vma_name(v, x->func, &vma);
	nr = cview_split(v, x->cond_open + 1, x->cond_close - 1, "&&", t, MAX_TERMS);
	if (nr <= 0 || nr >= MAX_TERMS)
		goto out;
	if (nr == 1) {
		nr = cview_split(v, x->cond_open + 1, x->cond_close - 1, "||", t,
				 MAX_TERMS);
		if (nr <= 0 || nr >= MAX_TERMS)
			goto out;
		is_or = nr > 1;
	}
	ok = is_or ? fix_or(st, v, n, vma.buf, t, nr, &fx) :
		     fix_and(st, v, n, vma.buf, t, nr, &fx);
	if (ok && fx.nr)
		out = layout(&fx, v, n, c->o->columns);
out:
	fix_release(&fx);
	strbuf_release(&vma);
	return out;
}
