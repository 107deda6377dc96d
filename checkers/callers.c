// SPDX-License-Identifier: GPL-2.0
/*
 * Call sites and definitions across the series and its tree (callers.h).
 * The files of the tree are read and parsed at most once per run, at the
 * revision patch 1 applied to, and only when the call index names them.
 */
#include <stdlib.h>

#include "checkers/callers.h"

struct tree_view {
	char *path;
	struct cview v;
	bool ok;
};

struct check_kb {
	struct callindex *index;
	bool index_tried;
	struct tree_view **tv;	/* each allocated: call sites point into them */
	size_t nr_tv, alloc_tv;
};

struct check_kb *callers_kb_new(void)
{
	return xcalloc(1, sizeof(struct check_kb));
}

void callers_kb_free(struct check_kb *kb)
{
	size_t i;

	if (!kb)
		return;
	callindex_free(kb->index);
	for (i = 0; i < kb->nr_tv; i++) {
		free(kb->tv[i]->path);
		cview_release(&kb->tv[i]->v);
		free(kb->tv[i]);
	}
	free(kb->tv);
	free(kb);
}

bool callers_have_tree(const struct check_ctx *c)
{
	return c->s->tree && c->s->base_rev;
}

int callers_node_at(const struct cview *v, int tok)
{
	int i, best = -1, span = 0;

	for (i = 0; i < v->nr_nodes; i++) {
		const struct cnode *n = &v->nodes[i];

		if (n->first <= tok && tok <= n->last &&
		    (best < 0 || n->last - n->first < span)) {
			best = i;
			span = n->last - n->first;
		}
	}
	return best;
}

/* The file as the series leaves it: the last patch touching it */
static const struct check_file *series_file(const struct check_series *s,
					    const char *path)
{
	size_t pi = s->nr, fi;

	while (pi-- > 0) {
		const struct check_patch *p = s->patches[pi];

		for (fi = 0; fi < p->nr_files; fi++)
			if (p->files[fi]->is_c && !strcmp(p->files[fi]->path, path))
				return p->files[fi];
	}
	return NULL;
}

/*
 * The name of a definition, or of a declaration at file scope
 * ("static bool foo(struct x *a," cut short by a hunk or "[...]")
 */
static bool is_def_name(const struct cview *v, int tok)
{
	int n = callers_node_at(v, tok);

	if (n >= 0 && v->nodes[n].kind == CN_DECL && tok > 0 &&
	    (cv_is(v, tok - 1, "*") || (v->toks[tok - 1].kind == CT_IDENT &&
					!cv_is(v, tok - 1, "return"))))
		return true;
	return n >= 0 && v->nodes[n].kind == CN_FUNC && v->nodes[n].name == tok;
}

static void scan_calls(const struct cview *v, const char *path, const char *name,
		       int len, struct call_sites *out)
{
	int i;

	for (i = 0; i + 1 < v->nr_toks; i++) {
		const struct ctok *t = &v->toks[i];
		struct call_site *cs;
		int n;

		if (t->len != len || memcmp(t->s, name, len) || !cv_is(v, i + 1, "(") ||
		    cv_is(v, i - 1, ".") || cv_is(v, i - 1, "->") || is_def_name(v, i))
			continue;
		n = callers_node_at(v, i);
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		cs = &out->v[out->nr++];
		cs->v = v;
		cs->path = path;
		cs->tok = i;
		cs->fn = n < 0 ? -1 : v->nodes[n].kind == CN_FUNC ? n : v->nodes[n].func;
	}
}

static struct callindex *kb_index(struct check_ctx *c)
{
	struct check_kb *kb = c->kb;

	if (!kb->index_tried && callers_have_tree(c)) {
		kb->index_tried = true;
		kb->index = callindex_open(c->s->tree, c->s->base_rev, c->o->cachedir);
	}
	return kb->index;
}

/* A file of the tree at the base, parsed once; NULL when unreadable */
static const struct tree_view *tree_view(struct check_ctx *c, const char *path)
{
	struct check_kb *kb = c->kb;
	struct strbuf sb = STRBUF_INIT;
	struct tree_view *tv;
	size_t i, len;

	for (i = 0; i < kb->nr_tv; i++)
		if (!strcmp(kb->tv[i]->path, path))
			return kb->tv[i]->ok ? kb->tv[i] : NULL;
	ALLOC_GROW(kb->tv, kb->nr_tv + 1, kb->alloc_tv);
	tv = xcalloc(1, sizeof(*tv));
	kb->tv[kb->nr_tv++] = tv;
	tv->path = xstrdup(path);
	if (c->s->tree->read(c->s->tree, c->s->base_rev, path, &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	len = sb.len;
	cview_from_text(&tv->v, strbuf_detach(&sb, NULL), len, NULL);
	tv->ok = true;
	return tv;
}

struct find_ctx {
	struct check_ctx *c;
	const char *name;
	int len;
	struct call_sites *out;
};

static void tree_calls(const char *path, void *data)
{
	struct find_ctx *f = data;
	const struct tree_view *tv;

	if (series_file(f->c->s, path))
		return;		/* the series' version was scanned */
	tv = tree_view(f->c, path);
	if (tv)
		scan_calls(&tv->v, tv->path, f->name, f->len, f->out);
}

/*
 * fn(f, data) for the newest version of each C file of the series, newest
 * patch first, until fn returns true; whether one did
 */
static bool each_series_file(const struct check_series *s,
			     bool (*fn)(const struct check_file *f, void *data),
			     void *data)
{
	size_t pi = s->nr, fi;

	while (pi-- > 0) {
		const struct check_patch *p = s->patches[pi];

		for (fi = 0; fi < p->nr_files; fi++) {
			const struct check_file *f = p->files[fi];

			if (f->is_c && series_file(s, f->path) == f && fn(f, data))
				return true;
		}
	}
	return false;
}

static bool series_calls(const struct check_file *f, void *data)
{
	struct find_ctx *fc = data;

	scan_calls(&f->view, f->path, fc->name, fc->len, fc->out);
	return false;
}

void callers_find(struct check_ctx *c, const char *name, int len,
		  struct call_sites *out)
{
	struct find_ctx fc = { c, name, len, out };
	struct callindex *ci;

	each_series_file(c->s, series_calls, &fc);
	ci = kb_index(c);
	if (ci)
		callindex_files(ci, name, len, 'c', tree_calls, &fc);
}

void callers_sites_release(struct call_sites *cs)
{
	free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

/* A CN_FUNC with a body named name in v, or -1 */
static int find_def(const struct cview *v, const char *name, int len)
{
	int i;

	for (i = 0; i < v->nr_nodes; i++)
		if (v->nodes[i].kind == CN_FUNC && v->nodes[i].child >= 0 &&
		    cview_node_func_is(v, i, name, len))
			return i;
	return -1;
}

struct def_ctx {
	struct check_ctx *c;
	const char *name;
	int len;
	const struct cview *v;
	int fn;
};

static void tree_def(const char *path, void *data)
{
	struct def_ctx *d = data;
	const struct tree_view *tv;

	if (d->v || series_file(d->c->s, path))
		return;
	tv = tree_view(d->c, path);
	if (tv && (d->fn = find_def(&tv->v, d->name, d->len)) >= 0)
		d->v = &tv->v;
}

static bool series_def(const struct check_file *f, void *data)
{
	struct def_ctx *d = data;

	d->fn = find_def(&f->view, d->name, d->len);
	if (d->fn < 0)
		return false;
	d->v = &f->view;
	return true;
}

bool callers_def(struct check_ctx *c, const char *name, int len,
		 const struct cview **v, int *fn)
{
	struct def_ctx d = { c, name, len, NULL, -1 };
	struct callindex *ci;

	if (!each_series_file(c->s, series_def, &d)) {
		ci = kb_index(c);
		if (ci)
			callindex_files(ci, name, len, 'd', tree_def, &d);
	}
	if (!d.v)
		return false;
	*v = d.v;
	*fn = d.fn;
	return true;
}
