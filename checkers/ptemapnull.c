// SPDX-License-Identifier: GPL-2.0
/*
 * pte-map-null: since Hugh Dickins' "mm/pgtable: allow
 * pte_offset_map[_lock]() to fail"
 * (<8218ffdc-8be-54e5-0a8-83f5542af283@google.com>, Linux 6.5), the
 * pte_offset_map*() family returns NULL when the page table was freed or
 * replaced under it (a THP collapse, a racing zap): the pointer must be
 * tested before it is used, and the caller retries or moves on, as every
 * caller converted in that series does (Yang Shi's review of its
 * khugepaged part: <CAHbLzkrf-Ft6geL0XKwGCY+Btn3cW=FMRjujQ48VJEnCfVki9g@mail.gmail.com>;
 * Jann Horn on zap_pte_range() retrying "when zap_pte_range() encounters a
 * pte_offset_map_lock() failure",
 * <CAG48ez3WS3EH9DuhE1b+7AX3+1=dVtd1M7y_5Ev4Shp2YxiYWg@mail.gmail.com>).
 *
 * Reported: the first use of the result that comes before any test of
 * it, held in a name or a member ("vmf->pte = pte_offset_map(...)"), and a
 * result used directly (ptep_get(pte_offset_map(pmd, addr))).  A finding
 * names what it is about: the name, the member or the call.  A hunk that
 * starts inside a comment block is read as a comment (cscan.c): the
 * false alarms of issue 40 were its lines.
 */
#include "checkers/exitleak.h"

static const char *const maps[] = {
	"pte_offset_map", "pte_offset_map_lock", "pte_offset_map_nolock",
	"pte_offset_map_ro_nolock", "pte_offset_map_rw_nolock",
	"__pte_offset_map", "__pte_offset_map_lock",
};

/*
 * What holds the result: a name ("pte", "start_pte = pte = ...") or a
 * member ("vmf->pte = ..."), as token runs [first, last] before the "="
 */
struct holder {
	int first, last;
};

/* Is the run of tokens at i the same as holder h ("vmf", "->", "pte")? */
static bool is_holder(const struct cview *v, const struct holder *h, int i)
{
	int k;

	if (i - 1 >= 0 && (cv_is(v, i - 1, ".") || cv_is(v, i - 1, "->")))
		return false;
	for (k = 0; k <= h->last - h->first; k++)
		if (i + k >= v->nr_toks ||
		    v->toks[i + k].len != v->toks[h->first + k].len ||
		    memcmp(v->toks[i + k].s, v->toks[h->first + k].s, v->toks[i + k].len))
			return false;
	return true;
}

/* The holders "a = b->c = take(": up to max */
static int holders(const struct cview *v, int t, struct holder *out, int max)
{
	int k = t - 1, n = 0;

	while (n < max && k >= 1 && cv_is(v, k, "=") && v->toks[k - 1].kind == CT_IDENT) {
		int first = k - 1;

		/* "vmf->pte", "walk->pte": a member, two levels at most */
		while (first >= 2 && (cv_is(v, first - 1, "->") || cv_is(v, first - 1, ".")) &&
		       v->toks[first - 2].kind == CT_IDENT && k - 1 - first < 4)
			first -= 2;
		out[n].first = first;
		out[n].last = k - 1;
		n++;
		k = first - 1;
	}
	return n;
}

/* Is the holder at token i (its last at e) tested, not used? */
static bool is_test(const struct cview *v, int i, int e)
{
	return cv_is(v, i - 1, "!") || cv_is(v, e + 1, "==") || cv_is(v, e + 1, "!=") ||
	       cv_is(v, i - 1, "==") || cv_is(v, i - 1, "!=") ||
	       cv_is(v, e + 1, "&&") || cv_is(v, e + 1, "||") ||
	       cv_is(v, i - 1, "&&") || cv_is(v, i - 1, "||") || cv_is(v, e + 1, "?") ||
	       (cv_is(v, i - 1, "(") && cv_is(v, e + 1, ")") &&
		(cv_is(v, i - 2, "if") || cv_is(v, i - 2, "while") ||
		 cv_is(v, i - 2, "likely") || cv_is(v, i - 2, "unlikely")));
}

static void report(struct check_ctx *c, int use, int call, const char *what)
{
	const struct cview *v = &c->file->view;

	check_report_at(c, CHECK_ERROR, use, use, use,
			"%s from %.*s() at line %d is used without a NULL check: "
			"it returns NULL when the page table was freed or replaced "
			"under it (since 6.5), test it and retry or move on",
			what, v->toks[call].len, v->toks[call].s,
			v->lines[v->toks[call].line].no);
}

static void check_call(struct check_ctx *c, int fn, int t)
{
	const struct cview *v = &c->file->view;
	int close = v->toks[t + 1].match, s, i, n = 0, k;
	struct holder hs[4];
	const struct cnode *st;

	if (close < 0)
		return;
	/* the result straight into another call, a dereference, an index */
	if ((cv_is(v, t - 1, "(") && !cv_is(v, t - 2, "if") && !cv_is(v, t - 2, "!") &&
	     v->toks[t - 2].kind == CT_IDENT && !cv_is(v, t - 2, "unlikely") &&
	     !cv_is(v, t - 2, "likely") && !cv_is(v, t - 2, "while")) ||
	    cv_is(v, t - 1, "*") || cv_is(v, close + 1, "[") || cv_is(v, close + 1, "->")) {
		struct strbuf what = STRBUF_INIT;

		if (check_sees(c, v->lines[v->toks[t].line].added)) {
			strbuf_addstr(&what, "the result of '");
			cview_text(v, t, close, &what);
			strbuf_addch(&what, '\'');
			report(c, t, t, what.buf);
		}
		strbuf_release(&what);
		return;
	}
	s = callers_node_at(v, t);
	if (s < 0 || v->nodes[s].kind != CN_EXPR)
		return;
	st = &v->nodes[s];
	n = holders(v, t, hs, 4);
	if (!n)
		return;
	for (i = st->last + 1; i <= v->nodes[fn].last; i++) {
		int e;

		if (v->lines[v->toks[i].line].seg != v->lines[v->toks[t].line].seg)
			return;		/* beyond the hunk */
		for (k = 0; k < n; k++)
			if (is_holder(v, &hs[k], i))
				break;
		if (k == n)
			continue;
		e = i + hs[k].last - hs[k].first;
		/* a member of what it points at is not it: "vmf->pte" in "vmf->pte_x" */
		if (is_test(v, i, e) || cv_is(v, e + 1, "="))
			return;		/* tested, or set again */
		/* "start_pte = pte;": the test may be of the other name */
		if (n < 4 && cv_is(v, i - 1, "=") && cv_is(v, e + 1, ";") &&
		    v->toks[i - 2].kind == CT_IDENT) {
			hs[n].first = hs[n].last = i - 2;
			n++;
			i = e;
			continue;
		}
		if (check_sees(c, v->lines[v->toks[t].line].added ||
			       v->lines[v->toks[i].line].added)) {
			struct strbuf what = STRBUF_INIT;

			strbuf_addch(&what, '\'');
			cview_text(v, hs[k].first, hs[k].last, &what);
			strbuf_addch(&what, '\'');
			report(c, i, t, what.buf);
			strbuf_release(&what);
		}
		return;
	}
}

static void map_call(struct check_ctx *c, int body, int t, void *data)
{
	if (ctok_in(&c->file->view.toks[t], maps, ARRAY_SIZE(maps)))
		check_call(c, body, t);
}

static void ptemapnull_run(struct check_ctx *c)
{
	exitleak_each_call(c, NULL, map_call, NULL);
}

const struct checker ptemapnull_checker = {
	.name = "pte-map-null",
	.summary = "pte_offset_map*() results are tested for NULL before use",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_ERROR,
	.on = true,
	.run = ptemapnull_run,
};
