// SPDX-License-Identifier: GPL-2.0
/*
 * Changed-line coverage of a build directory: ci/cover-run.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "lib/util.h"
#include "ci/cover-run.h"
#include "ci/delta.h"
#include "ci/kbuild-cmd.h"
#include "ci/needs.h"
#include "ci/readers.h"

#define FILE_MAX (16 << 20)
#define DEPENDENTS_MAX 64	/* units that read a header, kept to choose from */

bool cover_path_counted(const char *path)
{
	static const char *const skip[] = {
		"tools/", "scripts/", "Documentation/", "usr/",
	};
	size_t i;

	if (!util_ends_with(path, ".c") && !util_ends_with(path, ".h"))
		return false;
	for (i = 0; i < ARRAY_SIZE(skip); i++)
		if (util_starts_with(path, skip[i]))
			return false;
	return true;
}

/* ---- results ---- */

static void range_release(struct cover_range *r)
{
	size_t i;

	for (i = 0; i < r->needs_nr; i++)
		free(r->needs[i]);
	free(r->needs);
	free(r->reason);
	free(r->spans);
	free(r->arches);
}

void cover_presult_release(struct cover_presult *p)
{
	size_t i, j;

	for (i = 0; i < p->nr; i++) {
		for (j = 0; j < p->f[i].nr; j++)
			range_release(&p->f[i].r[j]);
		free(p->f[i].r);
		free(p->f[i].file);
	}
	free(p->f);
	memset(p, 0, sizeof(*p));
}

void cover_ctx_init(struct cover_ctx *cx, struct kbuild_tree *t,
		    const struct repair *repair)
{
	char *dot = xasprintf("%s/.config", t->obj);
	char *buf = NULL;
	size_t len;

	memset(cx, 0, sizeof(*cx));
	cx->t = t;
	cx->repair = repair;
	cx->config = (struct kconf)KCONF_INIT;
	cx->ix = (struct kconf_index)KCONF_INDEX_INIT;
	/* obj/ is the build user's: read beneath it */
	if (!util_read_file_beneath(t->obj, dot, &buf, &len, 64 << 20))
		kconf_parse(&cx->config, buf, len);
	free(buf);
	free(dot);
}

void cover_ctx_release(struct cover_ctx *cx)
{
	kconf_release(&cx->config);
	kconf_index_release(&cx->ix);
	kbuild_units_free(cx->cmds, cx->cmds_nr);
	memset(cx, 0, sizeof(*cx));
}

/* ---- the units of obj/ ---- */

static void units_listed(struct cover_ctx *cx)
{
	if (cx->cmds_done)
		return;
	cx->cmds_nr = kbuild_list_units(cx->t->obj, &cx->cmds);
	cx->cmds_done = true;
}

/* ---- one patch ---- */

struct pfile {
	struct cover_file f;
	int *lines;		/* counted changed lines */
	size_t nr;
	char **deps;		/* units that read it, best first */
	size_t deps_nr, deps_alloc;
	bool is_c;
};

static bool all_compiled(const struct pfile *pf)
{
	size_t i;

	for (i = 0; i < pf->nr; i++)
		if (!cover_file_compiled(&pf->f, pf->lines[i]))
			return false;
	return true;
}

static int preprocess(struct cover_ctx *cx, const char *unit, struct pfile *pf,
		      size_t nr, struct cover_presult *out, struct strbuf *err)
{
	struct cover_file **files = xcalloc(nr + 1, sizeof(*files));
	struct strbuf i = STRBUF_INIT;
	struct kbuild_step s;
	size_t k;
	int ret;

	ret = kbuild_preprocess(cx->t, unit, &i, &s, err);
	if (!ret && s.status == KBUILD_INFRA) {
		strbuf_addf(err, "preprocessing %s: %s", unit, s.infra);
		ret = -1;
	}
	if (!ret && s.status == KBUILD_OK) {
		for (k = 0; k < nr; k++)
			files[k] = &pf[k].f;
		cover_i_parse(i.buf, i.len, cx->t->src, files, nr);
		out->units++;
	} else if (!ret) {
		log_debug("%s: %s could not be preprocessed", cx->t->arch.name, unit);
	}
	kbuild_step_release(&s);
	strbuf_release(&i);
	free(files);
	return ret;
}

/*
 * The units whose .cmd names a file of pf as a dependency: one pass over
 * obj/'s .cmd files for all of them.  kbuild names a source by the
 * absolute src/ (srctree, for an O= beside it), but ccache's base_dir
 * makes the compiler's dependencies relative to obj/: "../src/mm/x.h".
 */
static void find_dependents(struct cover_ctx *cx, struct pfile *pf, size_t nr)
{
	char **needle = xcalloc(nr + 1, sizeof(*needle));
	char **rel_needle = xcalloc(nr + 1, sizeof(*rel_needle));
	char *rel = util_relative_path(cx->t->obj, cx->t->src);
	size_t i, k;

	units_listed(cx);
	for (k = 0; k < nr; k++) {
		needle[k] = xasprintf("%s/%s ", cx->t->src, pf[k].f.path);
		rel_needle[k] = xasprintf(" %s/%s ", rel, pf[k].f.path);
	}
	for (i = 0; i < cx->cmds_nr; i++) {
		char *cmd = kbuild_cmd_file(cx->t->obj, cx->cmds[i]), *buf = NULL;
		size_t len;

		if (util_read_file_beneath(cx->t->obj, cmd, &buf, &len, FILE_MAX)) {
			free(cmd);
			continue;
		}
		for (k = 0; k < nr; k++) {
			struct pfile *p = &pf[k];

			/* a .c file its own unit read is not looked for elsewhere */
			if ((p->is_c && p->f.entered) || all_compiled(p) ||
			    p->deps_nr >= DEPENDENTS_MAX ||
			    (!strstr(buf, needle[k]) && !strstr(buf, rel_needle[k])))
				continue;
			ALLOC_GROW(p->deps, p->deps_nr + 1, p->deps_alloc);
			p->deps[p->deps_nr++] = xstrdup(cx->cmds[i]);
		}
		free(buf);
		free(cmd);
	}
	for (k = 0; k < nr; k++) {
		free(needle[k]);
		free(rel_needle[k]);
	}
	free(needle);
	free(rel_needle);
	free(rel);
}

/* Of the units reading pf, those near it first: "mm/..." for mm/internal.h */
static int closeness(const char *unit, const char *path)
{
	size_t n = 0;

	while (unit[n] && unit[n] == path[n])
		n++;
	return (int)n;
}

static const char *g_path;

static int by_closeness(const void *a, const void *b)
{
	int x = closeness(*(char *const *)a, g_path);
	int y = closeness(*(char *const *)b, g_path);

	return x != y ? y - x : strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- reasons ---- */

static const char *srcarch(const struct cover_ctx *cx)
{
	return kconf_srcarch(cx->t->arch.kernel_arch);
}

static bool other_arch_path(const struct cover_ctx *cx, const char *path)
{
	const char *a;
	size_t n = strlen(srcarch(cx));

	return util_skip_prefix(path, "arch/", &a) &&
		(strncmp(a, srcarch(cx), n) || a[n] != '/');
}

/* Is sym another architecture's (not declared here, declared there: into arches)? */
static bool arch_symbol(struct cover_ctx *cx, const char *sym, struct strbuf *why,
			struct strbuf *dirs)
{
	const struct repair_fail *f = cx->repair ? repair_failed(cx->repair, sym) : NULL;
	struct strbuf where = STRBUF_INIT;
	bool arch = false;
	struct strbuf err = STRBUF_INIT;

	if (f) {
		const char *o;

		strbuf_addf(why, "; %s cannot be enabled on %s: %s", f->sym,
			    cx->t->arch.name, f->why);
		/* "declared for arm64, riscv only" */
		if (f->arch && util_skip_prefix(f->why, "declared for ", &o))
			strbuf_addf(dirs, "%s%.*s", dirs->len ? "," : "",
				    (int)(strstr(o, " only") ? strstr(o, " only") - o :
					  (ptrdiff_t)strlen(o)), o);
		return f->arch;
	}
	if (!cx->ix_done) {
		if (kconf_index_build(&cx->ix, cx->t->src, srcarch(cx), &err))
			log_warn("%s: %s", cx->t->arch.name, err.buf);
		cx->ix_done = true;
	}
	strbuf_release(&err);
	if (!cx->ix.nr || kconf_index_get(&cx->ix, sym))
		return false;
	kconf_declared_in_arches(cx->t->src, sym, &where);
	if (where.len) {
		strbuf_addf(why, "; %s is declared for %s only", sym, where.buf);
		strbuf_addf(dirs, "%s%s", dirs->len ? "," : "", where.buf);
		arch = true;
	}
	strbuf_release(&where);
	return arch;
}

/* Did the repair turn sym off for the other branch, leaving its lines to another arch? */
static bool left(const struct cover_ctx *cx, const char *sym)
{
	size_t i;

	for (i = 0; cx->branched && cx->left_to && i < cx->branched->off_nr; i++)
		if (!strcmp(cx->branched->off[i], sym))
			return true;
	return false;
}

static void needs_text(struct cover_ctx *cx, const struct cover_needs *n,
		       struct strbuf *why, struct cover_range *r)
{
	struct strbuf tail = STRBUF_INIT, dirs = STRBUF_INIT;
	size_t i, shown = 0;

	for (i = 0; i < n->on_nr; i++) {
		if (kconf_on(&cx->config, n->on[i], false))
			continue;
		strbuf_addf(why, "%s%s", shown++ ? ", " : ": needs ", n->on[i]);
		ALLOC_GROW(r->needs, r->needs_nr + 1, r->needs_alloc);
		r->needs[r->needs_nr++] = xstrdup(n->on[i]);
		if (left(cx, n->on[i])) {
			strbuf_addf(&tail, "; %s is off here for the other branch: its lines "
				    "are left to %s", n->on[i], cx->left_to);
			r->arch = true;
		} else if (arch_symbol(cx, n->on[i], &tail, &dirs)) {
			r->arch = true;
		}
	}
	if (r->arch && dirs.len) {
		/* ", " of the Kconfig list to ",": one list of directories */
		struct strbuf sb = STRBUF_INIT;
		const char *p;

		for (p = dirs.buf; *p; p++)
			if (*p != ' ')
				strbuf_addch(&sb, *p);
		free(r->arches);
		r->arches = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&dirs);
	for (i = 0; i < n->off_nr; i++) {
		const struct repair_fail *f;

		if (!kconf_on(&cx->config, n->off[i], true))
			continue;
		strbuf_addf(why, "%s!%s", shown++ ? ", " : ": needs ", n->off[i]);
		f = cx->repair ? repair_failed_off(cx->repair, n->off[i]) : NULL;
		if (!f)
			continue;
		strbuf_addf(&tail, "; %s cannot be disabled on %s: %s", f->sym,
			    cx->t->arch.name, f->why);
		if (f->arch)
			r->arch = true;
	}
	strbuf_addbuf(why, &tail);
	strbuf_release(&tail);
}

/* Why line of pf was not compiled: into r (reason, needs, arch) */
static void reason(struct cover_ctx *cx, const struct pfile *pf, int line,
		   struct cover_range *r)
{
	struct strbuf why = STRBUF_INIT, where = STRBUF_INIT;
	struct cover_needs n = { 0 };
	const char *path = pf->f.path;
	int g;

	if (other_arch_path(cx, path)) {
		int len = (int)strcspn(path + 5, "/");

		strbuf_addf(&why, "arch/%.*s code: not built for %s", len, path + 5,
			    cx->t->arch.name);
		r->arch = true;
		r->arches = xstrndup(path + 5, len);
	} else if (!pf->f.entered && pf->is_c) {
		if (needs_object(cx->t->src, path, srcarch(cx), &cx->config, &n, &where)) {
			strbuf_addf(&why, "not built: %s", n.fixed);
		} else {
			strbuf_addstr(&why, "not built");
			needs_text(cx, &n, &why, r);
			if (!r->needs_nr)
				strbuf_addstr(&why, " (its Makefile lines hold: is it #included?)");
			else
				strbuf_addf(&why, " (%s)", where.buf);
		}
	} else if (!pf->f.entered) {
		strbuf_addf(&why, "no unit built for %s includes it", cx->t->arch.name);
	} else if ((g = cover_file_blocker(&pf->f, line)) > 0) {
		strbuf_addf(&why, "inside %s", pf->f.src.g[g].directive);
		cover_expr_needs(pf->f.src.g[g].cond, &cx->config, &n);
		if (!n.fixed)
			needs_text(cx, &n, &why, r);
	} else {
		strbuf_addstr(&why, "not compiled");
	}
	r->reason = strbuf_detach(&why, NULL);
	cover_needs_release(&n);
	strbuf_release(&where);
}

/* "100-104,106-118": the counted lines of a range */
static void span_add(struct strbuf *sb, int *first, int *last, int line)
{
	if (line && *last && line == *last + 1) {
		*last = line;
		return;
	}
	if (*last) {
		strbuf_addf(sb, "%s%d", sb->len ? "," : "", *first);
		if (*last > *first)
			strbuf_addf(sb, "-%d", *last);
	}
	*first = *last = line;
}

static void close_range(struct cover_fresult *fr, struct cover_range *cur,
			struct strbuf *spans, int *first, int *last)
{
	if (!cur->reason)
		return;
	span_add(spans, first, last, 0);
	cur->spans = strbuf_detach(spans, NULL);
	ALLOC_GROW(fr->r, fr->nr + 1, fr->alloc);
	fr->r[fr->nr++] = *cur;
	memset(cur, 0, sizeof(*cur));
}

/* The file's figures, its lines not compiled as ranges of one reason */
static void file_result(struct cover_ctx *cx, const struct pfile *pf,
			struct cover_presult *out)
{
	struct cover_fresult *fr;
	struct cover_range cur = { 0 };
	struct strbuf spans = STRBUF_INIT;
	int first = 0, last = 0;
	size_t i;

	ALLOC_GROW(out->f, out->nr + 1, out->alloc);
	fr = &out->f[out->nr++];
	memset(fr, 0, sizeof(*fr));
	fr->file = xstrdup(pf->f.path);
	fr->changed = (int)pf->nr;
	for (i = 0; i < pf->nr; i++) {
		struct cover_range r = { 0 };
		int line = pf->lines[i];

		if (cover_file_compiled(&pf->f, line)) {
			fr->compiled++;
			close_range(fr, &cur, &spans, &first, &last);
			continue;
		}
		reason(cx, pf, line, &r);
		fr->arch += r.arch;
		if (cur.reason && !strcmp(cur.reason, r.reason)) {
			cur.to = line;
			cur.lines++;
			span_add(&spans, &first, &last, line);
			range_release(&r);
			continue;
		}
		close_range(fr, &cur, &spans, &first, &last);
		cur = r;
		cur.from = cur.to = line;
		cur.lines = 1;
		span_add(&spans, &first, &last, line);
	}
	close_range(fr, &cur, &spans, &first, &last);
	strbuf_release(&spans);
	out->changed += fr->changed;
	out->compiled += fr->compiled;
	out->arch += fr->arch;
}

static void add_lines(struct pfile *pf, const struct line_map_file *mf)
{
	size_t i;
	int l;

	for (i = 0; i < mf->nr; i++) {
		const struct line_map_hunk *h = &mf->h[i];

		for (l = h->new_start; l < h->new_start + h->new_lines; l++) {
			if (!cover_src_counted(&pf->f.src, l))
				continue;
			pf->lines = xrealloc(pf->lines, (pf->nr + 1) * sizeof(*pf->lines));
			pf->lines[pf->nr++] = l;
		}
	}
}

int cover_patch(struct cover_ctx *cx, const char *git_dir, const char *parent,
		const char *commit, struct cover_presult *out, struct strbuf *err)
{
	struct strbuf diff = STRBUF_INIT;
	struct line_map map = LINE_MAP_INIT;
	struct pfile *pf = NULL;
	size_t nr = 0, i, j;
	uint64_t start = util_now_ms();
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (srctree_diff(git_dir, parent, commit, &diff, err) ||
	    delta_map_parse(&map, diff.buf, diff.len, err))
		goto out;
	pf = xcalloc(map.nr + 1, sizeof(*pf));
	for (i = 0; i < map.nr; i++) {
		const struct line_map_file *mf = &map.f[i];
		char *path, *text = NULL;
		size_t len = 0;

		if (!mf->new_path || !cover_path_counted(mf->new_path))
			continue;
		path = xasprintf("%s/%s", cx->t->src, mf->new_path);
		if (util_read_file(path, &text, &len, FILE_MAX))
			text = NULL;
		cover_file_init(&pf[nr].f, mf->new_path, text, len);
		free(text);
		free(path);
		pf[nr].is_c = util_ends_with(mf->new_path, ".c");
		add_lines(&pf[nr], mf);
		if (!pf[nr].nr) {
			cover_file_release(&pf[nr].f);
			free(pf[nr].lines);
			memset(&pf[nr], 0, sizeof(pf[nr]));
			continue;
		}
		nr++;
	}
	/* the changed .c files' own units */
	for (i = 0; i < nr; i++) {
		char *unit;

		if (!pf[i].is_c || !kbuild_compiled(cx->t, pf[i].f.path))
			continue;
		unit = xasprintf("%.*s.o", (int)strlen(pf[i].f.path) - 2, pf[i].f.path);
		ret = preprocess(cx, unit, pf, nr, out, err);
		free(unit);
		if (ret)
			goto out;
	}
	/* what is not seen yet: the units that read it, nearest first */
	for (i = 0; i < nr && ((pf[i].is_c && pf[i].f.entered) || all_compiled(&pf[i])); i++)
		;
	if (i < nr)
		find_dependents(cx, pf, nr);
	for (i = 0; i < nr; i++) {
		size_t tried = 0;

		g_path = pf[i].f.path;
		if (pf[i].deps_nr)
			qsort(pf[i].deps, pf[i].deps_nr, sizeof(*pf[i].deps), by_closeness);
		for (j = 0; j < pf[i].deps_nr && tried < COVER_UNITS_PER_FILE &&
			    !all_compiled(&pf[i]); j++) {
			tried++;
			ret = preprocess(cx, pf[i].deps[j], pf, nr, out, err);
			if (ret)
				goto out;
		}
	}
	for (i = 0; i < nr; i++)
		file_result(cx, &pf[i], out);
	out->done = true;
	ret = 0;
out:
	out->ms = util_now_ms() - start;
	for (i = 0; i < nr; i++) {
		cover_file_release(&pf[i].f);
		free(pf[i].lines);
		for (j = 0; j < pf[i].deps_nr; j++)
			free(pf[i].deps[j]);
		free(pf[i].deps);
	}
	free(pf);
	delta_map_release(&map);
	strbuf_release(&diff);
	return ret;
}

/* ---- the cheap prediction ---- */

void cover_memo_release(struct cover_memo *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		struct readers *r = strmap_get(&m->map, m->keys[i]);

		readers_release(r);
		free(r);
		free(m->keys[i]);
	}
	free(m->keys);
	strmap_release(&m->map);
	memset(m, 0, sizeof(*m));
}

static const struct readers *readers_of(const struct cover_predict *p, const char *header)
{
	struct cover_memo *m = p->readers;
	struct readers *r = strmap_get(&m->map, header);

	if (r)
		return r;
	r = xcalloc(1, sizeof(*r));
	readers_find(p->srcdir, header, p->srcarch, READERS_MAX, READERS_MS, r);
	log_debug("%s: %zu reader%s of %s%s", p->srcarch, r->nr, r->nr == 1 ? "" : "s",
		  header, r->partial ? " (the search stopped at its bound)" : "");
	ALLOC_GROW(m->keys, m->nr + 1, m->alloc);
	m->keys[m->nr++] = xstrdup(header);
	strmap_put(&m->map, m->keys[m->nr - 1], r);
	return r;
}

/* How many of n's symbols config does not have as n wants */
static bool listed(char *const *v, size_t nr, const char *sym)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i], sym))
			return true;
	return false;
}

/*
 * How many of n's symbols config does not have as n wants (those off
 * weigh more), leaving out those asked already when want is given
 */
static size_t unmet(const struct cover_needs *n, const struct kconf *config,
		    const struct cover_needs *want)
{
	size_t i, c = 0;

	for (i = 0; i < n->on_nr; i++)
		c += !kconf_on(config, n->on[i], false) &&
			!(want && listed(want->on, want->on_nr, n->on[i]));
	for (i = 0; i < n->off_nr; i++)
		c += 3 * (kconf_on(config, n->off[i], true) &&
			  !(want && listed(want->off, want->off_nr, n->off[i])));
	return c;
}

/*
 * What builds reader with its #include of header taken: into out; -1
 * when no configuration does here (another arch's, no Makefile line,
 * the #include under a condition on no option)
 */
static int reader_needs(const struct cover_predict *p, const struct kconf *config,
			const char *reader, const char *header, struct cover_needs *out)
{
	char *path = xasprintf("%s/%s", p->srcdir, reader), *text = NULL, *l, *end;
	struct cover_src src = { 0 };
	int ret = -1, line = 1;
	bool found = false;
	size_t len;

	if (!(p->compiled && p->compiled(p->data, reader)) &&
	    needs_object(p->srcdir, reader, p->srcarch, config, out, NULL))
		goto out;
	if (util_read_file(path, &text, &len, FILE_MAX))
		goto out;
	cover_src_scan(&src, text, len);
	end = text + len;
	for (l = text; l < end && !found; line++) {
		char *eol = memchr(l, '\n', end - l);
		struct cover_needs ln = { 0 };

		if (!eol)
			eol = end;
		if (readers_includes(reader, l, eol - l, header) &&
		    (cover_src_predict(&src, line, config, &ln) || !ln.fixed)) {
			cover_needs_merge(out, &ln);
			found = true;
		}
		cover_needs_release(&ln);
		l = eol + 1;
	}
	ret = found ? 0 : -1;
out:
	cover_src_release(&src);
	free(text);
	free(path);
	return ret;
}

bool cover_predict_header(const struct cover_predict *p, const struct kconf *config,
			  const char *header, struct cover_needs *want)
{
	const struct readers *r = readers_of(p, header);
	struct cover_needs best = { 0 };
	size_t i, best_cost = SIZE_MAX;
	bool read = false;

	for (i = 0; i < r->nr && !read; i++) {
		struct cover_needs n = { 0 };
		size_t c;

		if (reader_needs(p, config, r->v[i], header, &n)) {
			cover_needs_release(&n);
			continue;
		}
		read = !unmet(&n, config, NULL);
		/* what the series asks already costs nothing more */
		c = unmet(&n, config, want);
		if (c < best_cost) {
			cover_needs_release(&best);
			best = n;
			best_cost = c;
		} else {
			cover_needs_release(&n);
		}
	}
	if (!read && best_cost != SIZE_MAX)
		cover_needs_merge(want, &best);
	cover_needs_release(&best);
	return read;
}

/* A changed file of the series, as predicted */
struct pred {
	struct pfile pf;
	bool *ok;		/* per line of pf: predicted compiled */
	bool c_file;
	bool later;		/* a header no unit of the base reads: after the others */
	size_t k;		/* of the commit changing it */
};

/* config without sym */
static void without(const struct kconf *c, const char *sym, struct kconf *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *bare = kconf_bare(sym);
	size_t i;

	for (i = 0; i + 1 < c->nr; i += 2)
		if (strcmp(c->v[i] + 7, bare))
			strbuf_addf(&sb, "%s=%s\n", c->v[i], c->v[i + 1]);
	kconf_parse(out, sb.buf, sb.len);
	strbuf_release(&sb);
}

/* Is path this arch's own code (arch/<srcarch>/), which no other arch builds? */
static bool own_arch(const struct cover_predict *p, const char *path)
{
	const char *a;
	size_t n = strlen(p->srcarch);

	return util_skip_prefix(path, "arch/", &a) && !strncmp(a, p->srcarch, n) &&
		a[n] == '/';
}

/* Would v's file lose a line predicted compiled with c (config without a symbol)? */
static bool file_loses(const struct cover_predict *p, const struct pred *v,
		       const struct kconf *config, const struct kconf *c)
{
	struct cover_needs fn = { 0 };
	bool any = false, lost = false;
	size_t l, j;

	for (l = 0; l < v->pf.nr && !any; l++)
		any = v->ok[l];
	if (!any)
		return false;
	/* its object's Makefile lines, where they need sym on */
	if (v->c_file &&
	    !needs_object(p->srcdir, v->pf.f.path, p->srcarch, c, &fn, NULL))
		for (j = 0; j < fn.on_nr; j++)
			lost |= kconf_on(config, fn.on[j], false) &&
				!kconf_on(c, fn.on[j], false);
	cover_needs_release(&fn);
	for (l = 0; l < v->pf.nr && !lost; l++)
		lost = v->ok[l] &&
			!cover_src_predict(&v->pf.f.src, v->pf.lines[l], c, NULL);
	return lost;
}

/*
 * Would a line predicted compiled not be with sym off?  With own, also
 * whether one of them is this arch's own arch/ code (into *own)
 */
static bool loses(const struct cover_predict *p, const struct pred *v, size_t nr,
		  const struct kconf *config, const char *sym, bool *own)
{
	struct kconf c = KCONF_INIT;
	bool lost = false;
	size_t i;

	without(config, sym, &c);
	for (i = 0; i < nr && (!lost || (own && !*own)); i++) {
		if (lost && !own_arch(p, v[i].pf.f.path))
			continue;
		if (!file_loses(p, &v[i], config, &c))
			continue;
		lost = true;
		if (own && own_arch(p, v[i].pf.f.path))
			*own = true;
	}
	kconf_release(&c);
	return lost;
}

/* sym out of v (its nr entries), freed */
static void unlist(char **v, size_t *nr, const char *sym)
{
	size_t i, k = 0;

	for (i = 0; i < *nr; i++) {
		if (!strcmp(v[i], sym))
			free(v[i]);
		else
			v[k++] = v[i];
	}
	*nr = k;
}

/*
 * Of the symbols want asks off, those a line wants on, or whose turning
 * off would lose a line predicted compiled, are not asked; on an arch
 * that takes the other branch they are, unless that loses this arch's
 * own code, and are not asked on then
 */
static void keep_compiled(const struct cover_predict *p, const struct pred *v, size_t nr,
			  const struct kconf *config, struct cover_needs *want)
{
	size_t i, k = 0;

	for (i = 0; i < want->off_nr; i++) {
		bool own = false;
		bool drop = loses(p, v, nr, config, want->off[i],
				  p->other_branch ? &own : NULL) ||
			listed(want->on, want->on_nr, want->off[i]);

		if (drop && p->other_branch && !own) {
			log_debug("%s: %s off: the other branch of it", p->srcarch,
				  want->off[i]);
			unlist(want->on, &want->on_nr, want->off[i]);
			if (p->branched)
				cover_needs_off(p->branched, want->off[i]);
		} else if (drop) {
			log_debug("%s: %s stays: lines need it%s", p->srcarch, want->off[i],
				  own ? " (this arch's own code)" : "");
			free(want->off[i]);
			continue;
		}
		want->off[k++] = want->off[i];
	}
	want->off_nr = k;
}

/* Is the file predicted built (its lines then judged by their #if)? */
static bool file_built(const struct cover_predict *p, const struct kconf *config,
		       const char *path, bool has_lines, struct cover_needs *want)
{
	struct cover_needs fn = { 0 };
	bool ok = true;
	size_t j;

	if (util_starts_with(path, "arch/") &&
	    strncmp(path + 5, p->srcarch, strlen(p->srcarch)))
		return false;
	if (util_ends_with(path, ".h"))
		return !p->included || p->included(p->data, path);
	if (p->compiled && p->compiled(p->data, path))
		return true;
	if (!has_lines ||
	    needs_object(p->srcdir, path, p->srcarch, config, &fn, NULL)) {
		cover_needs_release(&fn);
		return false;
	}
	for (j = 0; j < fn.on_nr; j++)
		if (!kconf_on(config, fn.on[j], false))
			ok = false;
	for (j = 0; j < fn.off_nr; j++)
		if (kconf_on(config, fn.off[j], true))
			ok = false;
	if (!ok)
		cover_needs_merge(want, &fn);
	cover_needs_release(&fn);
	return ok;
}

/* Each counted line of pr: compiled when file_ok and its #ifs hold */
static void predict_lines(const struct cover_predict *p, const struct kconf *config,
			  struct pred *pr, bool file_ok, struct cover_needs *want,
			  int *changed, int *compiled)
{
	size_t l;

	for (l = 0; l < pr->pf.nr; l++) {
		struct cover_needs ln = { 0 };
		bool ok = cover_src_predict(&pr->pf.f.src, pr->pf.lines[l], config, &ln);

		(*changed)++;
		pr->ok[l] = ok && file_ok;
		*compiled += pr->ok[l];
		if (p->line)
			p->line(p->data, pr->k, pr->pf.f.path, pr->pf.lines[l], pr->ok[l]);
		if (!ok && !ln.fixed)
			cover_needs_merge(want, &ln);
		cover_needs_release(&ln);
	}
}

int cover_predict_run(const struct cover_predict *p, const struct kconf *config,
		      struct cover_needs *want, int *changed, int *compiled,
		      struct strbuf *err)
{
	struct pred *v = NULL;
	size_t k, i, nr = 0, alloc = 0;
	int ret = 0;

	*changed = *compiled = 0;
	for (k = 0; k < p->nr && !ret; k++) {
		const char *parent = k ? p->commits[k - 1] : p->base;
		struct strbuf diff = STRBUF_INIT;
		struct line_map map = LINE_MAP_INIT;

		ret = srctree_diff(p->git_dir, parent, p->commits[k], &diff, err) ||
			delta_map_parse(&map, diff.buf, diff.len, err) ? -1 : 0;
		for (i = 0; i < map.nr && !ret; i++) {
			const struct line_map_file *mf = &map.f[i];
			struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
			struct pred *pr;
			bool file_ok;

			if (!mf->new_path || !cover_path_counted(mf->new_path) ||
			    srctree_show(p->git_dir, p->commits[k], mf->new_path, &text, &e)) {
				strbuf_release(&e);
				strbuf_release(&text);
				continue;
			}
			ALLOC_GROW(v, nr + 1, alloc);
			pr = &v[nr++];
			memset(pr, 0, sizeof(*pr));
			cover_file_init(&pr->pf.f, mf->new_path, text.buf, text.len);
			add_lines(&pr->pf, mf);
			pr->c_file = util_ends_with(mf->new_path, ".c");
			pr->ok = xcalloc(pr->pf.nr + 1, sizeof(*pr->ok));
			pr->k = k;
			file_ok = file_built(p, config, mf->new_path, pr->pf.nr, want);
			/*
			 * a header no unit reads: judged when the other files
			 * have said what they want, so that a reader built by
			 * those options is preferred
			 */
			pr->later = !file_ok && pr->pf.nr && p->readers &&
				util_ends_with(mf->new_path, ".h") &&
				!(util_starts_with(mf->new_path, "arch/") &&
				  strncmp(mf->new_path + 5, p->srcarch, strlen(p->srcarch)));
			if (!pr->later)
				predict_lines(p, config, pr, file_ok, want, changed, compiled);
			strbuf_release(&text);
			strbuf_release(&e);
		}
		delta_map_release(&map);
		strbuf_release(&diff);
	}
	for (i = 0; i < nr && !ret; i++)
		if (v[i].later)
			predict_lines(p, config, &v[i],
				      cover_predict_header(p, config, v[i].pf.f.path, want),
				      want, changed, compiled);
	if (!ret && want->off_nr)
		keep_compiled(p, v, nr, config, want);
	for (i = 0; i < nr; i++) {
		cover_file_release(&v[i].pf.f);
		free(v[i].pf.lines);
		free(v[i].ok);
	}
	free(v);
	return ret;
}
