// SPDX-License-Identifier: GPL-2.0
/*
 * one-line-args: in a function declaration or definition the patch adds
 * or changes, parameters split one per continuation line are packed onto
 * as few lines as fit the column limit.  From Kefeng Wang's review of
 * "[PATCH v3 2/4] mm: Support tlbbatch flush for a range of PTEs":
 * "Only one line for arguments, same for other functions".
 *
 * The layout is judged against the packed one: the first parameter stays
 * after the "(", later ones fill each line up to the limit (tabs count
 * 8), continuation lines keep the indentation the author chose.  Only a
 * prototype that takes more lines than its packed form, and that has a
 * parameter alone on its line where another would have fit, is reported:
 * a last parameter alone on its line because it would not fit is fine.
 *
 * Layouts left alone (false alarms on merged patches of the corpus,
 * bench/corpus/): a prototype whose continuation lines the patch does not
 * touch (a rename, a new return type) or edits in place line for line (a
 * type changed over the tree), parameters grouped on purpose, a pair or
 * a same-typed group per line (old/new, src/dst, the VFS ->rename()
 * convention), and XFS's tab-aligned columns.
 *
 * A style rule: it catches no real bug, and the benchmark of real mm bugs
 * (bench/bugs/) has none for it; on its merged patches it draws only the
 * nits judged correct.
 */
#include <ctype.h>

#include "checkers/rules.h"

#define MAX_PARAMS 64

struct proto {
	int first;		/* first token (column 0) */
	int name, open, close;
	struct cterm params[MAX_PARAMS];
	int nr;
};

static bool all_caps(const struct ctok *t)
{
	int i;

	for (i = 0; i < t->len; i++)
		if (islower((unsigned char)t->s[i]))
			return false;
	return true;
}

/* Is this a parameter declaration ("struct mm_struct *mm", "void", "...")? */
static bool param_like(const struct cview *v, const struct cterm *p)
{
	if (p->first == p->last)
		return cv_is(v, p->first, "void") || cv_is(v, p->first, "...");
	return v->toks[p->last].kind == CT_IDENT || cv_is(v, p->last, "]") ||
	       cv_is(v, p->last, ")");
}

/* A prototype starting at token i (an identifier at column 0)? */
static bool find_proto(const struct cview *v, int i, struct proto *pr)
{
	int j, k;

	for (j = i; j < v->nr_toks; j++) {
		const struct ctok *t = &v->toks[j];

		if (ctok_is(t, "("))
			break;
		if (t->kind != CT_IDENT && !ctok_is(t, "*"))
			return false;
		if (ctok_is(t, "typedef") || ctok_is(t, "return") ||
		    ctok_is(t, "goto") || ctok_is(t, "else"))
			return false;
	}
	if (j >= v->nr_toks || j - 1 <= i || v->toks[j - 1].kind != CT_IDENT)
		return false;
	if (all_caps(&v->toks[j - 1]) || v->toks[j].match < 0)
		return false;
	pr->first = i;
	pr->name = j - 1;
	pr->open = j;
	pr->close = v->toks[j].match;
	/* after ")": attributes, then ";" or "{" */
	for (k = pr->close + 1; k < v->nr_toks; k++) {
		const struct ctok *t = &v->toks[k];

		if (ctok_is(t, ";") || ctok_is(t, "{"))
			break;
		if (t->kind == CT_IDENT && k + 1 < v->nr_toks &&
		    ctok_is(&v->toks[k + 1], "(") && v->toks[k + 1].match > k) {
			k = v->toks[k + 1].match;
			continue;
		}
		if (t->kind != CT_IDENT)
			return false;
	}
	if (k >= v->nr_toks)
		return false;
	if (pr->close == pr->open + 1)
		return false;
	pr->nr = cview_split(v, pr->open + 1, pr->close - 1, ",", pr->params,
			     MAX_PARAMS);
	if (pr->nr < 2 || pr->nr >= MAX_PARAMS)
		return false;
	for (k = 0; k < pr->nr; k++) {
		pr->params[k].neg = false;
		if (!param_like(v, &pr->params[k]))
			return false;
	}
	return true;
}

/* Text of a parameter as written, blanks squeezed */
static void param_text(const struct cview *v, const struct cterm *p,
		       struct strbuf *sb)
{
	/* parameters have no "!" or outer parentheses for cview_split() to strip */
	cview_text(v, p->first, p->last, sb);
}

struct layout {
	int lines;
	struct strbuf text;
};

/*
 * Pack the parameters: head is the first line up to "(", indent the
 * continuation indentation, tail what follows the ")" on its line.
 */
static void pack(const struct cview *v, const struct proto *pr, int columns,
		 const struct cline *head_line, const char *indent,
		 const char *tail, struct layout *out)
{
	struct strbuf p = STRBUF_INIT;
	int cur, k, ind_w;
	struct cline tmp = { .text = indent, .len = (int)strlen(indent) };

	ind_w = cview_line_width(&tmp, tmp.len);
	strbuf_add(&out->text, head_line->text, v->toks[pr->open].col + 1);
	cur = cview_line_width(head_line, v->toks[pr->open].col + 1);
	out->lines = 1;
	for (k = 0; k < pr->nr; k++) {
		bool last = k == pr->nr - 1;
		int end, w;

		strbuf_reset(&p);
		param_text(v, &pr->params[k], &p);
		w = (int)p.len;
		end = last ? (int)strlen(tail) : 1;
		if (k == 0) {
			cur += w;
		} else if (cur + 1 + w + end <= columns) {
			strbuf_addch(&out->text, ' ');
			cur += 1 + w;
		} else {
			strbuf_addch(&out->text, '\n');
			strbuf_addstr(&out->text, indent);
			out->lines++;
			cur = ind_w + w;
		}
		strbuf_addbuf(&out->text, &p);
		if (last)
			strbuf_addstr(&out->text, tail);
		else
			strbuf_addch(&out->text, ',');
		cur += last ? 0 : 1;
	}
	strbuf_release(&p);
}

/* Width of line li as written, trailing blanks aside */
static int line_width(const struct cview *v, int li)
{
	const struct cline *l = &v->lines[li];
	int n = l->len;

	while (n > 0 && (l->text[n - 1] == ' ' || l->text[n - 1] == '\t'))
		n--;
	return cview_line_width(l, n);
}

/*
 * Is a parameter alone on its line although it would fit on the line
 * before, or the next one would fit after it?  That is the layout the
 * review asked to pack ("one per continuation line"); a prototype that is
 * merely not packed optimally elsewhere is left alone.
 */
static bool has_lonely(const struct cview *v, const struct proto *pr,
		       int columns, int tail)
{
	struct strbuf p = STRBUF_INIT;
	int k, w[MAX_PARAMS], line[MAX_PARAMS];
	bool lonely = false;

	for (k = 0; k < pr->nr; k++) {
		strbuf_reset(&p);
		param_text(v, &pr->params[k], &p);
		w[k] = (int)p.len + (k == pr->nr - 1 ? tail : 1);
		line[k] = v->toks[pr->params[k].first].line;
	}
	for (k = 0; k < pr->nr && !lonely; k++) {
		bool alone = (k == 0 || line[k - 1] != line[k]) &&
			     (k == pr->nr - 1 || line[k + 1] != line[k]);

		if (!alone)
			continue;
		/* it would fit at the end of the line before */
		if (k > 0 && line_width(v, line[k - 1]) + 1 + w[k] <= columns)
			lonely = true;
		/* the next parameter would fit after it */
		if (k + 1 < pr->nr && line_width(v, line[k]) + 1 + w[k + 1] <= columns)
			lonely = true;
	}
	strbuf_release(&p);
	return lonely;
}

/* Words of deliberate pairs: "old_dir, new_dir", "dst, src", "from, to" */
static const char *const pair_words[][2] = {
	{ "old", "new" }, { "src", "dst" }, { "from", "to" },
	{ "source", "dest" }, { "prev", "next" },
};

/* Is name b name a with one pair word swapped for its partner? */
static bool paired(const struct ctok *a, const struct ctok *b)
{
	size_t k, w;
	int i;

	for (k = 0; k < ARRAY_SIZE(pair_words); k++)
		for (w = 0; w < 2; w++) {
			const char *x = pair_words[k][w], *y = pair_words[k][!w];
			int xl = (int)strlen(x), yl = (int)strlen(y);

			for (i = 0; i + xl <= a->len; i++) {
				if (strncmp(a->s + i, x, xl))
					continue;
				if (b->len == a->len - xl + yl &&
				    !memcmp(b->s, a->s, i) && !memcmp(b->s + i, y, yl) &&
				    !memcmp(b->s + i + yl, a->s + i + xl, a->len - i - xl))
					return true;
			}
		}
	return false;
}

/* The type of a parameter: its tokens but the name */
static void param_type(const struct cview *v, const struct cterm *p,
		       struct strbuf *sb)
{
	strbuf_reset(sb);
	if (p->last > p->first && v->toks[p->last].kind == CT_IDENT)
		cview_text(v, p->first, p->last - 1, sb);
	else
		cview_text(v, p->first, p->last, sb);
}

/*
 * Parameters grouped on purpose, one group per line: a line holding an
 * old/new (src/dst...) pair of one type, or two lines with the same types
 * in the same order (the VFS ->rename() layout: "struct inode *old_dir,
 * struct dentry *old_dentry," over "struct inode *new_dir, struct dentry
 * *new_dentry,").  Packing them would undo the grouping.
 */
static bool grouped(const struct cview *v, const struct proto *pr)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int k, j, n;
	bool found = false;

	for (k = 0; k + 1 < pr->nr && !found; k++) {
		const struct cterm *p = &pr->params[k], *q = &pr->params[k + 1];
		int line = v->toks[p->first].line;

		if (v->toks[q->first].line != line)
			continue;
		/* exactly this pair on its line */
		if ((k > 0 && v->toks[pr->params[k - 1].last].line == line) ||
		    (k + 2 < pr->nr && v->toks[pr->params[k + 2].first].line == line))
			continue;
		param_type(v, p, &a);
		param_type(v, q, &b);
		if (!strcmp(a.buf, b.buf) && paired(&v->toks[p->last], &v->toks[q->last]))
			found = true;
	}
	/* two lines of two or more parameters with the same types */
	for (k = 0; k < pr->nr && !found; k++) {
		int line = v->toks[pr->params[k].first].line;

		if (k && v->toks[pr->params[k - 1].first].line == line)
			continue;	/* not the first on its line */
		for (n = 1; k + n < pr->nr &&
		     v->toks[pr->params[k + n].first].line == line; n++)
			;
		if (n < 2 || k + 2 * n > pr->nr ||
		    v->toks[pr->params[k + n].first].line == line)
			continue;
		for (j = 0; j < n; j++) {
			param_type(v, &pr->params[k + j], &a);
			param_type(v, &pr->params[k + n + j], &b);
			if (strcmp(a.buf, b.buf) ||
			    v->toks[pr->params[k + n + j].first].line !=
			    v->toks[pr->params[k + n].first].line)
				break;
		}
		if (j == n && (k + 2 * n == pr->nr ||
			       v->toks[pr->params[k + 2 * n].first].line !=
			       v->toks[pr->params[k + n].first].line))
			found = true;
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return found;
}

/*
 * Types and names lined up in columns with tabs, one parameter a line
 * (XFS's layout: "struct xfs_mount\t*mp,"): a layout of its own, not a
 * prototype split one per line for want of packing.
 */
static bool tab_aligned(const struct cview *v, const struct proto *pr)
{
	int k, t, i;

	for (k = 0; k < pr->nr; k++) {
		const struct cterm *p = &pr->params[k];

		for (t = p->first; t < p->last; t++) {
			const struct ctok *a = &v->toks[t], *b = &v->toks[t + 1];
			const struct cline *l = &v->lines[a->line];

			if (a->line != b->line)
				continue;
			for (i = a->col + a->len; i < b->col && i < l->len; i++)
				if (l->text[i] == '\t')
					return true;
		}
	}
	return false;
}

/*
 * The parameter names a line holds, as "mm,addr,": the last identifier
 * before each comma and before the closing parenthesis
 */
static void line_names(const char *s, size_t len, struct strbuf *out)
{
	size_t i, b = 0, e = 0;
	bool in = false;

	for (i = 0; i <= len; i++) {
		char ch = i < len ? s[i] : ',';

		if (isalnum((unsigned char)ch) || ch == '_') {
			if (!in)
				b = i;
			in = true;
			e = i + 1;
			continue;
		}
		in = false;
		if (ch == ',' || ch == ')') {
			if (e > b)
				strbuf_add(out, s + b, e - b);
			strbuf_addch(out, ',');
			b = e = 0;
			if (ch == ')')
				break;
		}
	}
}

static bool same_names(const struct diff_line *a, const struct diff_line *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same;

	line_names(a->text, a->len, &x);
	line_names(b->text, b->len, &y);
	same = !strcmp(x.buf, y.buf);
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

/* Did a patch of the series before c's add line l to c's file? */
static bool series_added(const struct check_ctx *c, const struct diff_line *l)
{
	const char *path = c->file->df->new_path;
	size_t pi, fi, j, k;

	for (pi = 0; pi < c->s->nr && c->s->patches[pi] != c->patch; pi++) {
		const struct diff *d = &c->s->patches[pi]->diff;

		for (fi = 0; fi < d->nr; fi++) {
			const struct diff_file *df = &d->files[fi];

			if (!df->new_path || !path || strcmp(df->new_path, path))
				continue;
			for (j = 0; j < df->nr; j++)
				for (k = 0; k < df->hunks[j].nr; k++) {
					const struct diff_line *x = &df->hunks[j].lines[k];

					if (x->kind == '+' && x->len == l->len &&
					    !memcmp(x->text, l->text, l->len))
						return true;
				}
		}
	}
	return false;
}

/*
 * Were the prototype's changed lines edited in place, each replacing one
 * old line with the same parameters, by name ("unsigned long vm_flags" to
 * "vm_flags_t vm_flags" over a tree, a new return type re-indenting the
 * rest)?  Then the layout is the old one, unless an earlier patch of the
 * series wrote those old lines: then it is the series' own.
 */
static bool edited_in_place(const struct check_ctx *c, int first_no, int last_no)
{
	const struct diff_file *df = c->file->df;
	size_t j, k, m, a, i;
	bool any = false;

	for (j = 0; j < df->nr; j++) {
		const struct diff_hunk *h = &df->hunks[j];

		for (k = 0; k < h->nr; k = a > k ? a : k + 1) {
			bool in = false;

			/* a block: "-" lines k..m, then "+" lines m..a */
			for (m = k; m < h->nr && h->lines[m].kind == '-'; m++)
				;
			for (a = m; a < h->nr && h->lines[a].kind == '+'; a++)
				if (h->lines[a].new_no >= first_no &&
				    h->lines[a].new_no <= last_no)
					in = true;
			if (!in)
				continue;
			if (a - m != m - k)
				return false;	/* lines added or joined: a new layout */
			for (i = 0; i < m - k; i++)
				if (!same_names(&h->lines[k + i], &h->lines[m + i]) ||
				    series_added(c, &h->lines[k + i]))
					return false;
			any = true;
		}
	}
	return any;
}

static void check_proto(struct check_ctx *c, const struct proto *pr)
{
	const struct cview *v = &c->file->view;
	const struct cline *open_line = &v->lines[v->toks[pr->open].line];
	const struct cline *close_line = &v->lines[v->toks[pr->close].line];
	int first_line = v->toks[pr->open].line, last_line = v->toks[pr->close].line;
	int written = last_line - first_line + 1, li, at = -1;
	struct layout lay = { 0, STRBUF_INIT };
	struct strbuf indent = STRBUF_INIT, tail = STRBUF_INIT;
	const struct cline *cont;
	struct finding *f;
	int i;

	if (written < 2)
		return;
	/*
	 * The layout is the patch's only when it writes a continuation line:
	 * a rename or a new return type leaves it as it was.
	 */
	for (li = first_line + 1; li <= last_line; li++)
		if (v->lines[li].added)
			break;
	if (li > last_line && !c->o->preexisting)
		return;
	if (grouped(v, pr) || tab_aligned(v, pr) ||
	    edited_in_place(c, v->lines[first_line].no, v->lines[last_line].no))
		return;
	if (li > last_line) {
		at = first_line + 1;	/* a pre-existing layout: a note */
	} else {
		/* on the name's line, or the first line the patch changed */
		for (li = v->toks[pr->first].line; li <= last_line; li++)
			if (v->lines[li].added && at < 0)
				at = li;
		if (v->lines[first_line].added)
			at = first_line;
	}
	/* the continuation indentation as written */
	cont = &v->lines[first_line + 1];
	for (i = 0; i < cont->len && (cont->text[i] == ' ' || cont->text[i] == '\t'); i++)
		strbuf_addch(&indent, cont->text[i]);
	/* ")" and what follows it on its line: ";", " {", attributes */
	strbuf_add(&tail, close_line->text + v->toks[pr->close].col,
		   close_line->len - v->toks[pr->close].col);
	strbuf_rtrim(&tail);
	pack(v, pr, c->o->columns, open_line, indent.buf, tail.buf, &lay);
	if (lay.lines < written && has_lonely(v, pr, c->o->columns, (int)tail.len)) {
		for (i = 0; i < v->nr_toks && v->toks[i].line < at; i++)
			;
		f = check_report_at(c, CHECK_WARNING, i < v->nr_toks ? i : pr->name,
				    pr->open, pr->close,
				    "parameters of '%.*s()' take %d lines; packed to %d columns they fit in %d",
				    v->toks[pr->name].len, v->toks[pr->name].s,
				    written, c->o->columns, lay.lines);
		f->suggestion = strbuf_detach(&lay.text, NULL);
	}
	strbuf_release(&lay.text);
	strbuf_release(&indent);
	strbuf_release(&tail);
}

static void oneline_run(struct check_ctx *c)
{
	const struct cview *v = &c->file->view;
	int i;

	if (!c->file->is_c)
		return;
	for (i = 0; i < v->nr_toks; i++) {
		const struct ctok *t = &v->toks[i];
		struct proto pr;

		if (t->col != 0 || t->kind != CT_IDENT)
			continue;
		if (!find_proto(v, i, &pr))
			continue;
		check_proto(c, &pr);
		i = pr.close;
	}
}

const struct checker oneline_checker = {
	.name = "one-line-args",
	.summary = "parameters of a changed prototype packed onto as few lines as fit",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_WARNING,
	.on = true,
	.run = oneline_run,
};
