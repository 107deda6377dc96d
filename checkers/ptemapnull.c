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
 * The real bug of bench/bugs/ it finds: mfill_atomic_pte_poison() of the
 * posted "mm: userfaultfd: add new UFFDIO_POISON ioctl"
 * (<20230707215540.2324998-5-axelrasmussen@google.com>; mainline tests the
 * pointer).  A patch for a stable tree older than 6.5 ("[PATCH 6.1.y]") is
 * left alone: pte_offset_map() cannot fail there.
 *
 * Reported: the first use of the result that comes before any test of
 * it, held in a name or a member ("vmf->pte = pte_offset_map(...)"), and a
 * result used directly (ptep_get(pte_offset_map(pmd, addr))).  A finding
 * names what it is about: the name, the member or the call.  A hunk that
 * starts inside a comment block is read as a comment (cscan.c): the
 * false alarms of issue 40 were its lines.
 */
#include <ctype.h>
#include <stdlib.h>

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

/*
 * Does the word name a kernel release older than 6.5: "6.1.y", "5.15",
 * "v6.1", "linux-6.1.y", "stable-5.10"?  A dot is needed ("v2" is not one).
 */
static bool old_release(const char *w, size_t n)
{
	static const char *const lead[] = { "linux-", "stable-", "v" };
	unsigned long major, minor;
	const char *p = w, *end = w + n;
	char *q;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lead); i++)
		if (n > strlen(lead[i]) && !strncasecmp(p, lead[i], strlen(lead[i]))) {
			p += strlen(lead[i]);
			break;
		}
	if (!isdigit((unsigned char)*p))
		return false;
	major = strtoul(p, &q, 10);
	if (q >= end || *q != '.' || !isdigit((unsigned char)q[1]))
		return false;
	minor = strtoul(q + 1, &q, 10);
	if (q < end && !(*q == '.' && q + 1 < end &&
			 (q[1] == 'y' || isdigit((unsigned char)q[1]))))
		return false;
	return major < 6 || (major == 6 && minor < 5);
}

/* Is the patch for a stable tree whose pte_offset_map() cannot fail? */
static bool for_old_stable(const struct check_ctx *c)
{
	const char *t = c->patch->subj.tree, *p = c->patch->subj.prefixes;

	/* "6.1.y" is the tree word of "[PATCH 6.1.y]", "5.15" a prefix */
	if (t && old_release(t, strlen(t)))
		return true;
	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (old_release(p, n))
			return true;
		p += n;
		p += strspn(p, " ");
	}
	return false;
}

static void ptemapnull_run(struct check_ctx *c)
{
	if (!for_old_stable(c))
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
