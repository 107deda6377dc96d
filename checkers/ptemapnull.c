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
 * it, and a result used directly (ptep_get(pte_offset_map(pmd, addr))).
 */
#include "checkers/exitleak.h"

static const char *const maps[] = {
	"pte_offset_map", "pte_offset_map_lock", "pte_offset_map_nolock",
	"pte_offset_map_ro_nolock", "pte_offset_map_rw_nolock",
	"__pte_offset_map", "__pte_offset_map_lock",
};

/* Is the name at token i tested, not used: !pte, pte == NULL, if (pte) */
static bool is_test(const struct cview *v, int i)
{
	return cv_is(v, i - 1, "!") || cv_is(v, i + 1, "==") || cv_is(v, i + 1, "!=") ||
	       cv_is(v, i - 1, "==") || cv_is(v, i - 1, "!=") ||
	       cv_is(v, i + 1, "&&") || cv_is(v, i + 1, "||") ||
	       cv_is(v, i - 1, "&&") || cv_is(v, i - 1, "||") || cv_is(v, i + 1, "?") ||
	       (cv_is(v, i - 1, "(") && cv_is(v, i + 1, ")") &&
		(cv_is(v, i - 2, "if") || cv_is(v, i - 2, "while") ||
		 cv_is(v, i - 2, "likely") || cv_is(v, i - 2, "unlikely")));
}

static void report(struct check_ctx *c, int use, int call, const struct ctok *name)
{
	const struct cview *v = &c->file->view;

	check_report_at(c, CHECK_ERROR, use, use, use,
			"'%.*s' from %.*s() at line %d is used without a NULL check: "
			"it returns NULL when the page table was freed or replaced "
			"under it (since 6.5), test it and retry or move on",
			name ? name->len : 0, name ? name->s : "", v->toks[call].len,
			v->toks[call].s, v->lines[v->toks[call].line].no);
}

static void check_call(struct check_ctx *c, int fn, int t)
{
	const struct cview *v = &c->file->view;
	int close = v->toks[t + 1].match, s, i, n = 0, names[4];
	const struct cnode *st;

	if (close < 0)
		return;
	/* the result straight into another call, a dereference, an index */
	if ((cv_is(v, t - 1, "(") && !cv_is(v, t - 2, "if") && !cv_is(v, t - 2, "!") &&
	     v->toks[t - 2].kind == CT_IDENT && !cv_is(v, t - 2, "unlikely") &&
	     !cv_is(v, t - 2, "likely") && !cv_is(v, t - 2, "while")) ||
	    cv_is(v, t - 1, "*") || cv_is(v, close + 1, "[") || cv_is(v, close + 1, "->")) {
		if (check_sees(c, v->lines[v->toks[t].line].added))
			report(c, t, t, NULL);
		return;
	}
	s = callers_node_at(v, t);
	if (s < 0 || v->nodes[s].kind != CN_EXPR)
		return;
	st = &v->nodes[s];
	n = exitleak_held_names(v, t, names, 4);
	if (!n)
		return;
	for (i = st->last + 1; i <= v->nodes[fn].last; i++) {
		int k;

		if (v->lines[v->toks[i].line].seg != v->lines[v->toks[t].line].seg)
			return;		/* beyond the hunk */
		for (k = 0; k < n; k++)
			if (v->toks[i].len == v->toks[names[k]].len &&
			    !memcmp(v->toks[i].s, v->toks[names[k]].s, v->toks[i].len))
				break;
		if (k == n || cv_is(v, i - 1, ".") || cv_is(v, i - 1, "->"))
			continue;
		if (is_test(v, i) || cv_is(v, i + 1, "="))
			return;		/* tested, or set again */
		/* "start_pte = pte;": the test may be of the other name */
		if (n < 4 && cv_is(v, i - 1, "=") && cv_is(v, i + 1, ";") &&
		    v->toks[i - 2].kind == CT_IDENT) {
			names[n++] = i - 2;
			continue;
		}
		if (check_sees(c, v->lines[v->toks[t].line].added ||
			       v->lines[v->toks[i].line].added))
			report(c, i, t, &v->toks[names[k]]);
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
