// SPDX-License-Identifier: GPL-2.0
/*
 * The checker engine: which checkers run, the touched files as code,
 * running each checker at its scope, and reporting findings.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/log.h"
#include "checkers/pattern.h"
#include "checkers/rules.h"

const char *check_severity_name(enum check_severity s)
{
	static const char *const names[] = {
		[CHECK_NOTE] = "note",
		[CHECK_WARNING] = "warning",
		[CHECK_ERROR] = "error",
	};

	return s <= CHECK_ERROR ? names[s] : "unknown";
}

int check_severity_parse(const char *name, enum check_severity *out)
{
	enum check_severity s;

	for (s = CHECK_NOTE; s <= CHECK_ERROR; s++) {
		if (!strcmp(name, check_severity_name(s))) {
			*out = s;
			return 0;
		}
	}
	return -1;
}

const struct checker *check_find(const char *name)
{
	size_t i;

	for (i = 0; i < checkers_nr; i++)
		if (!strcmp(checkers[i]->name, name))
			return checkers[i];
	return NULL;
}

bool check_enabled(const struct check_opts *o, const struct checker *k)
{
	size_t i = o->nr_sel;

	while (i-- > 0)
		if (!strcmp(o->sel[i].name, k->name) || !strcmp(o->sel[i].name, "all"))
			return o->sel[i].on;
	return k->on;
}

int check_select(struct check_opts *o, const char *list, struct strbuf *err)
{
	const char *p = list;

	while (*p) {
		const char *e = p + strcspn(p, ", \t");
		char *name = xstrndup(p, e - p);
		const char *n = name;
		bool on = true;

		if (*n == '-' || *n == '!') {
			on = false;
			n++;
		} else if (*n == '+') {
			n++;
		} else if (!strncmp(n, "no-", 3) && !check_find(n)) {
			on = false;
			n += 3;
		}
		if (*n) {
			if (strcmp(n, "all") && !check_find(n)) {
				strbuf_addf(err, "unknown checker '%s'", name);
				free(name);
				return -1;
			}
			o->sel = xrealloc(o->sel, (o->nr_sel + 1) * sizeof(*o->sel));
			o->sel[o->nr_sel].name = xstrdup(n);
			o->sel[o->nr_sel++].on = on;
		}
		free(name);
		p = e;
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
	}
	return 0;
}

void check_opts_release(struct check_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_sel; i++)
		free(o->sel[i].name);
	free(o->sel);
	free(o->checkpatch);
	free(o->checkpatch_flags);
	free(o->cachedir);
	free(o->fallback_repo);
	free(o->codespell_dict);
	free(o->stale_tree);
	memset(o, 0, sizeof(*o));
}

/* patches and series */

struct check_patch *check_patch_from_raw(const char *raw, size_t len,
					 struct strbuf *err)
{
	struct check_patch *cp;
	struct mail m;

	if (mail_parse(raw, len, &m, err))
		return NULL;
	cp = xcalloc(1, sizeof(*cp));
	cp->raw = xstrndup(raw, len);
	cp->raw_len = len;
	cp->subject = xstrdup(m.subject ? m.subject : "");
	subject_parse(cp->subject, &cp->subj);
	patch_extract(&m, &cp->p);
	mail_release(&m);
	cp->n = cp->subj.counted ? cp->subj.n : 1;
	if (cp->p.diff && cp->p.diff_len) {
		struct strbuf e = STRBUF_INIT;

		if (diff_parse(cp->p.diff, cp->p.diff_len, &cp->diff, &e)) {
			cp->diff_error = strbuf_detach(&e, NULL);
			memset(&cp->diff, 0, sizeof(cp->diff));
		}
		strbuf_release(&e);
	}
	return cp;
}

static void files_release(struct check_patch *p)
{
	size_t i;

	for (i = 0; i < p->nr_files; i++) {
		cview_release(&p->files[i]->view);
		free(p->files[i]->mail_start);
		free(p->files[i]);
	}
	free(p->files);
	p->files = NULL;
	p->nr_files = 0;
}

void check_patch_free(struct check_patch *p)
{
	if (!p)
		return;
	files_release(p);
	free(p->raw);
	free(p->subject);
	subject_release(&p->subj);
	patch_release(&p->p);
	diff_release(&p->diff);
	free(p->diff_error);
	free(p->pre_rev);
	free(p->post_rev);
	free(p->apply_error);
	free(p);
}

void check_series_add(struct check_series *s, struct check_patch *p)
{
	if (p->subj.counted && p->n == 0) {
		check_patch_free(s->cover);
		s->cover = p;
		if (!s->base_commit && p->p.base_commit)
			s->base_commit = xstrdup(p->p.base_commit);
		return;
	}
	ALLOC_GROW(s->patches, s->nr + 1, s->alloc);
	s->patches[s->nr++] = p;
	if (!s->total)
		s->total = p->subj.counted ? p->subj.total : 1;
	if (!s->version)
		s->version = p->subj.version;
	if (!s->author_email && p->p.author_email) {
		s->author_name = xstrdup_or_null(p->p.author_name);
		s->author_email = xstrdup(p->p.author_email);
	}
	if (!s->base_commit && p->p.base_commit)
		s->base_commit = xstrdup(p->p.base_commit);
}

void check_series_release(struct check_series *s)
{
	size_t i;

	check_patch_free(s->cover);
	for (i = 0; i < s->nr; i++)
		check_patch_free(s->patches[i]);
	free(s->patches);
	free(s->author_name);
	free(s->author_email);
	free(s->base_commit);
	free(s->base_rev);
	free(s->trusted_rev);
	memset(s, 0, sizeof(*s));
}

/* findings */

static struct finding *add_finding(struct findings *out, const char *rule,
				   enum check_severity sev, int patch,
				   const char *file, int line, char *msg)
{
	struct finding *f;

	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	f = &out->v[out->nr++];
	memset(f, 0, sizeof(*f));
	f->rule = xstrdup(rule);
	f->severity = sev;
	f->patch = patch;
	f->file = xstrdup_or_null(file);
	f->line = line;
	f->message = msg;
	return f;
}

struct finding *check_report(struct check_ctx *c, const char *rule,
			     enum check_severity sev, const char *file, int line,
			     const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return add_finding(c->out, rule ? rule : c->k->name, sev,
			   c->patch ? c->patch->n : 0, file, line,
			   strbuf_detach(&sb, NULL));
}

static struct finding *report_va(struct check_ctx *c, enum check_severity sev,
				  int tok, int cause, int qfirst, int qlast,
				  const char *fmt, va_list ap) PRINTF(7, 0);

static struct finding *report_va(struct check_ctx *c, enum check_severity sev,
				  int tok, int cause, int qfirst, int qlast,
				  const char *fmt, va_list ap)
{
	const struct cview *v = &c->file->view;
	const struct cline *l = &v->lines[v->toks[tok].line];
	const struct cline *cl = cause >= 0 ? &v->lines[v->toks[cause].line] : NULL;
	bool own = l->added || (cl && (cl->added || cl->moved));
	struct strbuf sb = STRBUF_INIT, q = STRBUF_INIT;
	struct finding *f;

	if (!own) {
		strbuf_addstr(&sb, "pre-existing: ");
		sev = CHECK_NOTE;
	}
	strbuf_vaddf(&sb, fmt, ap);
	f = add_finding(c->out, c->k->name, sev, c->patch ? c->patch->n : 0,
			c->file->path, l->no, strbuf_detach(&sb, NULL));
	f->column = v->toks[tok].col + 1;
	f->preexisting = !own;
	if (!l->added && own)
		f->cause = cl->no;
	if (qfirst >= 0) {
		cview_quote(v, qfirst, qlast, &q);
		f->quote = strbuf_detach(&q, NULL);
	}
	return f;
}

struct finding *check_report_at(struct check_ctx *c, enum check_severity sev,
				int tok, int qfirst, int qlast,
				const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = report_va(c, sev, tok, -1, qfirst, qlast, fmt, ap);
	va_end(ap);
	return f;
}

struct finding *check_report_caused(struct check_ctx *c, enum check_severity sev,
				    int tok, int cause, int qfirst, int qlast,
				    const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	va_start(ap, fmt);
	f = report_va(c, sev, tok, cause, qfirst, qlast, fmt, ap);
	va_end(ap);
	return f;
}

void check_undecided(struct check_ctx *c, int tok, const char *fmt, ...)
{
	const struct cview *v = &c->file->view;
	struct strbuf *sb;
	size_t pi;
	va_list ap;

	for (pi = 0; pi < c->s->nr && c->s->patches[pi] != c->patch; pi++)
		;
	if (pi == c->s->nr || !c->undecided)
		return;
	sb = &c->undecided[pi];
	strbuf_addf(sb, "%s at %s:%d (", c->k->name, c->file->path,
		    v->lines[v->toks[tok].line].no);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	strbuf_addstr(sb, ")\n");
}

/*
 * One note per patch for what the rules could not decide from its hunks:
 * the rules and places, each once
 */
static void undecided_notes(struct check_ctx *c)
{
	size_t pi;

	for (pi = 0; pi < c->s->nr; pi++) {
		struct strbuf *u = &c->undecided[pi], msg = STRBUF_INIT;
		const char *p = u->buf, *e;
		size_t n = 0;

		if (!u->len)
			continue;
		strbuf_addstr(&msg, "not decidable from the hunks (no tree): ");
		for (; *p; p = e + 1) {
			e = strchr(p, '\n');
			if (memmem(u->buf, p - u->buf, p, e - p + 1))
				continue;	/* said already */
			if (n++)
				strbuf_addstr(&msg, "; ");
			strbuf_add(&msg, p, e - p);
		}
		strbuf_addstr(&msg, "; check with the tree (--repo) to decide");
		c->patch = c->s->patches[pi];
		check_report(c, "hunks-only", CHECK_NOTE, NULL, 0, "%s", msg.buf);
		strbuf_release(&msg);
	}
}

bool check_ident_has(const struct ctok *t, const char *part)
{
	size_t n = strlen(part);
	int i;

	if (t->kind != CT_IDENT)
		return false;
	for (i = 0; i + (int)n <= t->len; i++)
		if (!strncasecmp(t->s + i, part, n))
			return true;
	return false;
}

bool check_ident_has_any(const struct ctok *t, const char *const *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (check_ident_has(t, w[i]))
			return true;
	return false;
}

/* the touched files as code */

static bool is_c_path(const char *path)
{
	return util_ends_with(path, ".c") || util_ends_with(path, ".h");
}

/* Relocate f's hunks into the post-image text, remembering the shifts */
static void relocate(struct check_file *f, struct diff_file *df,
		     const char *text, size_t len)
{
	size_t j;

	f->mail_start = xcalloc(df->nr + 1, sizeof(*f->mail_start));
	for (j = 0; j < df->nr; j++)
		f->mail_start[j] = df->hunks[j].new_start;
	relocate_diff_file(df, text, len);
}

static void build_files(struct check_series *s, struct check_patch *p)
{
	size_t i;

	if (p->files)
		return;
	p->files = xcalloc(p->diff.nr + 1, sizeof(*p->files));
	for (i = 0; i < p->diff.nr; i++) {
		struct diff_file *df = &p->diff.files[i];
		struct strbuf sb = STRBUF_INIT;
		struct check_file *f;
		bool post;

		if (df->status == DIFF_DELETED || df->binary)
			continue;
		f = xcalloc(1, sizeof(*f));
		f->df = df;
		f->path = diff_file_path(df);
		f->is_c = is_c_path(f->path);
		post = s->tree && p->post_rev &&
		       !s->tree->read(s->tree, p->post_rev, f->path, &sb);
		/* the lines as applied, not as the mail numbers them */
		if (post)
			relocate(f, df, sb.buf, sb.len);
		if (f->is_c && post) {
			size_t len = sb.len;

			cview_from_text(&f->view, strbuf_detach(&sb, NULL), len, df);
		} else if (f->is_c) {
			cview_from_hunks(&f->view, df);
		}
		strbuf_release(&sb);
		p->files[p->nr_files++] = f;
	}
}

int check_patch_line(const struct check_patch *p, const char *path, int line)
{
	size_t i, j;

	for (i = 0; i < p->nr_files; i++) {
		const struct check_file *f = p->files[i];

		if (strcmp(f->path, path) || !f->mail_start)
			continue;
		for (j = f->df->nr; j-- > 0; ) {
			const struct diff_hunk *h = &f->df->hunks[j];

			if (line >= f->mail_start[j])
				return line + h->new_start - f->mail_start[j];
		}
	}
	return line;
}

static bool on_added_line(const struct check_patch *p, const struct finding *f,
			  int line)
{
	size_t i, j, k;

	for (i = 0; i < p->diff.nr; i++) {
		const struct diff_file *df = &p->diff.files[i];

		if (!df->new_path || strcmp(df->new_path, f->file))
			continue;
		for (j = 0; j < df->nr; j++)
			for (k = 0; k < df->hunks[j].nr; k++)
				if (df->hunks[j].lines[k].kind == '+' &&
				    df->hunks[j].lines[k].new_no == line)
					return true;
	}
	return false;
}

void check_finding_release(struct finding *f)
{
	free(f->rule);
	free(f->file);
	free(f->message);
	free(f->quote);
	free(f->suggestion);
}

/* The rules promise findings on added lines only; hold them to it */
static void keep_added(struct check_series *s, struct findings *out, size_t from,
		       const struct checker *k)
{
	size_t i, j = from;

	for (i = from; i < out->nr; i++) {
		struct finding *f = &out->v[i];
		struct check_patch *p = NULL;
		size_t pi;

		for (pi = 0; pi < s->nr; pi++)
			if (s->patches[pi]->n == f->patch)
				p = s->patches[pi];
		if (k->scope == CHECK_SCOPE_FILE && f->file && f->line > 0 && p &&
		    !f->preexisting && !on_added_line(p, f, f->line) &&
		    !(f->cause && on_added_line(p, f, f->cause))) {
			log_debug("%s: dropped a finding on unchanged %s:%d",
				  f->rule, f->file, f->line);
			check_finding_release(f);
			continue;
		}
		out->v[j++] = *f;
	}
	out->nr = j;
}

int check_run(struct check_series *s, const struct check_opts *o,
	      struct findings *out)
{
	void **state = xcalloc(checkers_nr, sizeof(*state));
	bool *on = xcalloc(checkers_nr, sizeof(*on));
	struct check_ctx c = { .s = s, .o = o, .out = out, .kb = callers_kb_new() };
	size_t i, pi, fi;

	for (i = 0; i < checkers_nr; i++)
		on[i] = check_enabled(o, checkers[i]);
	c.undecided = xcalloc(s->nr + 1, sizeof(*c.undecided));
	for (pi = 0; pi < s->nr; pi++)
		strbuf_init(&c.undecided[pi], 0);
	for (pi = 0; pi < s->nr; pi++)
		build_files(s, s->patches[pi]);
	for (pi = 0; pi < s->nr; pi++)
		moved_mark_patch(s->patches[pi]);

	for (i = 0; i < checkers_nr; i++) {
		if (!on[i] || !checkers[i]->begin)
			continue;
		c.k = checkers[i];
		c.state = NULL;
		c.patch = NULL;
		c.file = NULL;
		checkers[i]->begin(&c);
		state[i] = c.state;
	}
	for (i = 0; i < checkers_nr; i++) {
		const struct checker *k = checkers[i];
		size_t from = out->nr;

		if (!on[i] || !k->run)
			continue;
		c.k = k;
		c.state = state[i];
		c.patch = NULL;
		c.file = NULL;
		switch (k->scope) {
		case CHECK_SCOPE_SERIES:
			k->run(&c);
			break;
		case CHECK_SCOPE_PATCH:
			for (pi = 0; pi < s->nr; pi++) {
				c.patch = s->patches[pi];
				k->run(&c);
			}
			break;
		case CHECK_SCOPE_FILE:
			for (pi = 0; pi < s->nr; pi++) {
				c.patch = s->patches[pi];
				for (fi = 0; fi < c.patch->nr_files; fi++) {
					c.file = c.patch->files[fi];
					k->run(&c);
				}
			}
			break;
		}
		keep_added(s, out, from, k);
		state[i] = c.state;
	}
	for (i = 0; i < checkers_nr; i++) {
		if (!on[i] || !checkers[i]->end)
			continue;
		c.k = checkers[i];
		c.state = state[i];
		c.patch = NULL;
		c.file = NULL;
		checkers[i]->end(&c);
	}
	undecided_notes(&c);
	for (pi = 0; pi < s->nr; pi++)
		strbuf_release(&c.undecided[pi]);
	free(c.undecided);
	if (c.ids_unchecked) {
		c.patch = NULL;
		check_report(&c, "fixes-tag", CHECK_NOTE, NULL, 0,
			     "commit ids the tree lacks are not reported: %s",
			     o->stale_tree);
	}
	callers_kb_free(c.kb);
	free(state);
	free(on);
	check_findings_sort(out);
	findings_merge(out);
	return 0;
}

void check_findings_release(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		check_finding_release(&f->v[i]);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : !a ? -1 : 1;
	return strcmp(a, b);
}

static int cmp_finding(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;
	int r;

	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	r = cmp_str(a->file, b->file);
	if (r)
		return r;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	r = strcmp(a->rule, b->rule);
	return r ? r : cmp_str(a->message, b->message);
}

void check_findings_sort(struct findings *f)
{
	size_t i, j = 0;

	if (!f->nr)
		return;
	qsort(f->v, f->nr, sizeof(*f->v), cmp_finding);
	for (i = 1; i < f->nr; i++) {
		if (!cmp_finding(&f->v[j], &f->v[i])) {
			check_finding_release(&f->v[i]);
			continue;
		}
		f->v[++j] = f->v[i];
	}
	f->nr = j + 1;
}

size_t check_findings_at_least(const struct findings *f, enum check_severity sev)
{
	size_t i, n = 0;

	for (i = 0; i < f->nr; i++)
		n += f->v[i].severity >= sev;
	return n;
}

size_t check_findings_count(const struct findings *f, enum check_severity sev)
{
	size_t i, n = 0;

	for (i = 0; i < f->nr; i++)
		n += f->v[i].severity == sev;
	return n;
}
