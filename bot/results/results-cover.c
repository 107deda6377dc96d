// SPDX-License-Identifier: GPL-2.0
/*
 * The changed lines a series' builds compiled on at least one arch:
 * the arch objects' "coverage" (ci/cover-run.h) put together.  A line
 * is not compiled when every arch that measured left it out; its
 * reasons are each arch's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bot/base/arch.h"
#include "bot/results/contract.h"
#include "bot/results/results.h"

/* A line of a file of a patch that an arch did not compile */
struct miss {
	int patch;
	const char *file;	/* borrowed from the docs */
	int line;
	int arch;		/* index of the arch */
	json_object *range;	/* that arch's range */
};

static int by_line(const struct miss *x, const struct miss *y)
{
	int c = x->patch - y->patch;

	if (!c)
		c = strcmp(x->file, y->file);
	return c ? c : x->line - y->line;
}

static int by_place(const void *a, const void *b)
{
	const struct miss *x = a, *y = b;
	int c = by_line(x, y);

	return c ? c : x->arch - y->arch;
}

struct add_ctx {
	struct miss **v;
	size_t *nr, *alloc;
	int patch, arch;
	const char *file;
	json_object *range;
};

static void add_line(struct add_ctx *a, int line)
{
	struct miss *m;

	ALLOC_GROW(*a->v, *a->nr + 1, *a->alloc);
	m = &(*a->v)[(*a->nr)++];
	m->patch = a->patch;
	m->file = a->file;
	m->line = line;
	m->arch = a->arch;
	m->range = a->range;
}

/* Each line of "3-5,9" */
static void spans_each(const char *s, struct add_ctx *a)
{
	while (s && *s) {
		char *e;
		long from = strtol(s, &e, 10), to = from, l;

		if (e == s || from < 1)
			break;
		if (*e == '-')
			to = strtol(e + 1, &e, 10);
		for (l = from; l <= to && to - from < 1000000; l++)
			add_line(a, (int)l);
		if (*e != ',')
			break;
		s = e + 1;
	}
}

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

/* A range of out->uncompiled, being made */
struct open_range {
	json_object *o, *reasons;
	const struct miss *at;		/* its first line */
	struct strbuf spans;
	int first, last, lines, to;
};

static void range_close(struct results_cover *out, struct open_range *r)
{
	if (!r->o)
		return;
	span_add(&r->spans, &r->first, &r->last, 0);
	json_object_object_add(r->o, RK_(range, to), json_object_new_int(r->to));
	json_object_object_add(r->o, RK_(range, lines), json_object_new_int(r->lines));
	json_object_object_add(r->o, RK_(range, spans), jx_new_str(r->spans.buf));
	json_object_object_add(r->o, "reasons", r->reasons);
	json_object_array_add(out->uncompiled, r->o);
	out->missed += r->lines;
	strbuf_release(&r->spans);
	memset(r, 0, sizeof(*r));
}

/* Is dir (under arch/) the directory of an arch lorebot builds but that was not built? */
static bool not_built(const char *dir, const char *const *built, int nbuilt)
{
	bool known = false;
	size_t i;
	int j;

	for (i = 0; i < arches_nr; i++)
		known |= !strcmp(arches[i].src_arch, dir);
	for (j = 0; known && j < nbuilt; j++) {
		const struct arch *a = arch_lookup(built[j]);

		if (a && !strcmp(a->src_arch, dir))
			return false;
	}
	return known;
}

/*
 * The ranges whose lines are code of arches lorebot builds, none of
 * which this build did: their lines are excused from the verdict
 */
static void excuse(struct results_cover *out, const char *const *built)
{
	struct strbuf dirs = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < json_object_array_length(out->uncompiled); i++) {
		json_object *r = rd_at(out->uncompiled, i), *a = jx_array(r, "arches");
		bool all = a && json_object_array_length(a);

		for (j = 0; all && j < json_object_array_length(a); j++)
			all = not_built(json_object_get_string(rd_at(a, j)), built, out->archs);
		if (!all)
			continue;
		json_object_object_add(r, "excused", json_object_new_boolean(true));
		out->excused += (int)rd_range_lines(r, 0);
		for (j = 0; j < json_object_array_length(a); j++) {
			const char *d = json_object_get_string(rd_at(a, j));
			char *k = xasprintf(",%s,", d);
			char *have = xasprintf(",%s,", dirs.buf);

			if (!strstr(have, k))
				strbuf_addf(&dirs, "%s%s", dirs.len ? "," : "", d);
			free(k);
			free(have);
		}
	}
	out->excused_arches = strbuf_detach(&dirs, NULL);
}

bool results_cover_below(const struct results_cover *c, int64_t min)
{
	long long own = c->changed - c->excused;

	return own > 0 && 100LL * c->compiled < min * own;
}

void results_cover_union(json_object *const *archs, size_t n, struct results_cover *out)
{
	const char **names = xcalloc(n + 1, sizeof(*names));
	struct open_range cur = { 0 };
	struct miss *v = NULL;
	size_t nr = 0, alloc = 0, i, j, k;

	memset(out, 0, sizeof(*out));
	out->uncompiled = json_object_new_array();
	for (i = 0; i < n; i++) {
		json_object *c = rd_doc_coverage(archs[i]);
		json_object *u = rd_cover_uncompiled(c);

		if (!c || !rd_cover_measured(c, false))
			continue;
		if (!out->archs)
			out->changed = (int)rd_cover_changed(c, 0);
		names[out->archs] = rd_doc_arch_z(archs[i]);
		for (j = 0; u && j < json_object_array_length(u); j++) {
			json_object *r = rd_at(u, j);
			struct add_ctx a = {
				.v = &v, .nr = &nr, .alloc = &alloc,
				.patch = (int)rd_range_patch(r, 0), .arch = out->archs,
				.file = rd_range_file_z(r), .range = r,
			};

			spans_each(rd_range_spans(r), &a);
		}
		out->archs++;
	}
	if (nr)
		qsort(v, nr, sizeof(*v), by_place);
	for (i = 0; i < nr; i = j) {
		json_object *reasons;
		int seen = 0, prev = -1;

		for (j = i; j < nr && !by_line(&v[i], &v[j]); j++)
			if (v[j].arch != prev) {
				seen++;
				prev = v[j].arch;
			}
		if (seen < out->archs) {
			/* compiled somewhere: no range goes across it */
			range_close(out, &cur);
			continue;
		}
		reasons = json_object_new_object();
		for (k = i; k < j; k++)
			if (!json_object_object_get_ex(reasons, names[v[k].arch], NULL))
				json_object_object_add(reasons, names[v[k].arch],
						       jx_new_str(rd_range_reason_z(v[k].range)));
		if (cur.o && (cur.at->patch != v[i].patch || strcmp(cur.at->file, v[i].file) ||
			      strcmp(json_object_to_json_string(cur.reasons),
				     json_object_to_json_string(reasons))))
			range_close(out, &cur);
		if (!cur.o) {
			cur.o = json_object_new_object();
			cur.reasons = reasons;
			cur.at = &v[i];
			strbuf_init(&cur.spans, 0);
			json_object_object_add(cur.o, RK_(range, patch),
					       json_object_new_int(v[i].patch));
			json_object_object_add(cur.o, RK_(range, file), jx_new_str(v[i].file));
			json_object_object_add(cur.o, RK_(range, from),
					       json_object_new_int(v[i].line));
			if (jx_array(v[i].range, RK_(range, arches)))
				json_object_object_add(cur.o, RK_(range, arches),
						       json_object_get(jx_array(v[i].range,
										RK_(range, arches))));
		} else {
			json_object_put(reasons);
		}
		span_add(&cur.spans, &cur.first, &cur.last, v[i].line);
		cur.to = v[i].line;
		cur.lines++;
	}
	range_close(out, &cur);
	out->compiled = out->changed - out->missed;
	excuse(out, names);
	free(v);
	free(names);
}

void results_cover_release(struct results_cover *c)
{
	json_object_put(c->uncompiled);
	free(c->excused_arches);
	memset(c, 0, sizeof(*c));
}

/* "needs CONFIG_DAMON", or per arch when they differ */
static void reasons_text(json_object *reasons, struct strbuf *sb)
{
	const char *one = NULL;
	bool same = true;

	json_object_object_foreach(reasons, arch, val) {
		const char *r = json_object_get_string(val);

		(void)arch;
		if (one && strcmp(one, r))
			same = false;
		one = r;
	}
	if (same && one) {
		strbuf_addstr(sb, one);
		return;
	}
	same = true;	/* the first one without a separator */
	json_object_object_foreach(reasons, a, v) {
		strbuf_addf(sb, "%s%s: %s", same ? "" : "; ", a, json_object_get_string(v));
		same = false;
	}
}

void results_cover_line(const struct results_cover *c, struct strbuf *sb, size_t max)
{
	size_t i, n = c->uncompiled ? json_object_array_length(c->uncompiled) : 0;

	if (!c->archs) {
		strbuf_addstr(sb, "the changed lines compiled were not measured");
		return;
	}
	if (!c->changed) {
		strbuf_addstr(sb, "no changed line of kernel code to compile");
		return;
	}
	/* rounded down: 99.6% is not "100%" */
	strbuf_addf(sb, "compiled %d of %d changed line%s (%d%%) on at least one arch",
		    c->compiled, c->changed, c->changed == 1 ? "" : "s",
		    (int)(100LL * c->compiled / c->changed));
	if (c->excused)
		strbuf_addf(sb, "; %d not compiled %s %s code, an arch not built here",
			    c->excused, c->excused == 1 ? "is" : "are", c->excused_arches);
	for (i = 0; i < n && i < max; i++) {
		json_object *r = rd_at(c->uncompiled, i);
		int from = (int)rd_range_from(r, 0), to = (int)rd_range_to(r, 0);

		strbuf_addf(sb, "%s%s:%d", i ? "; " : "; not compiled: ",
			    rd_range_file_z(r), from);
		if (to > from)
			strbuf_addf(sb, "-%d", to);
		strbuf_addstr(sb, " (");
		reasons_text(jx_object(r, "reasons"), sb);
		strbuf_addch(sb, ')');
	}
	if (n > max && max)
		strbuf_addf(sb, "; and %zu more range%s", n - max, n - max == 1 ? "" : "s");
}
