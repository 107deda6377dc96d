// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/strmap.h"
#include "bot/git/git.h"
#include "ci/units.h"
#include "ci/bootkernel.h"
#include "ci/buildjob.h"
#include "ci/delta.h"
#include "ci/kcheck.h"
#include "lib/run.h"
#include "ci/w1.h"

static const char *const status_names[] = {
	[BUILD_OK] = "ok",
	[BUILD_WARNINGS] = "warnings",
	[BUILD_ERRORS] = "errors",
	[BUILD_INFRA] = "infra",
	[BUILD_SKIPPED] = "skipped",
	[BUILD_PARTIAL] = "partial",
};

const char *buildjob_status_name(enum build_status s)
{
	return status_names[s];
}

/* ---- findings ---- */

struct tracker {
	struct strmap open;	/* diag_key -> struct open_list */
	char **keys;
	size_t keys_nr, keys_alloc;
};

struct open_list {
	size_t *idx;		/* into the result's findings */
	size_t nr, alloc;
};

static void tracker_release(struct tracker *tr)
{
	size_t i;

	for (i = 0; i < tr->keys_nr; i++) {
		struct open_list *o = strmap_get(&tr->open, tr->keys[i]);

		if (o) {
			free(o->idx);
			free(o);
		}
		free(tr->keys[i]);
	}
	free(tr->keys);
	strmap_release(&tr->open);
}

static struct open_list *tracker_get(struct tracker *tr, const char *key)
{
	struct open_list *o = strmap_get(&tr->open, key);

	if (o)
		return o;
	o = xcalloc(1, sizeof(*o));
	ALLOC_GROW(tr->keys, tr->keys_nr + 1, tr->keys_alloc);
	tr->keys[tr->keys_nr] = xstrdup(key);
	strmap_put(&tr->open, tr->keys[tr->keys_nr++], o);
	return o;
}

static size_t add_finding(struct build_arch_result *r, const struct diag *d,
			  unsigned int patch, bool is_new, bool w1)
{
	struct build_finding *f;

	ALLOC_GROW(r->findings, r->nr + 1, r->alloc);
	f = &r->findings[r->nr];
	memset(f, 0, sizeof(*f));
	diag_copy(&f->d, d);
	f->patch = patch;
	f->is_new = is_new;
	f->w1 = w1 && !kcheck_any_unit(d->unit);
	return r->nr++;
}

/*
 * The new diagnostics of patch k: open a finding for each one more than
 * the previous patch had (per key), close those that went away.
 */
static void track(struct tracker *tr, struct build_arch_result *r,
		  const struct diag_list *cur, const bool *is_new,
		  size_t w1_from, unsigned int k)
{
	struct strmap count = STRMAP_INIT;
	char **keys = xcalloc(cur->nr + 1, sizeof(*keys));
	size_t i, j;

	for (i = 0; i < cur->nr; i++) {
		struct strbuf sb = STRBUF_INIT;
		struct open_list *o;
		uintptr_t c;

		if (!is_new[i])
			continue;
		diag_key(&cur->v[i], &sb);
		keys[i] = strbuf_detach(&sb, NULL);
		c = (uintptr_t)strmap_get(&count, keys[i]) + 1;
		strmap_put(&count, keys[i], (void *)c);
		o = tracker_get(tr, keys[i]);
		if (c > o->nr) {
			ALLOC_GROW(o->idx, o->nr + 1, o->alloc);
			o->idx[o->nr++] = add_finding(r, &cur->v[i], k, true,
						      i >= w1_from);
		}
	}
	for (j = 0; j < tr->keys_nr; j++) {
		struct open_list *o = strmap_get(&tr->open, tr->keys[j]);
		uintptr_t c = (uintptr_t)strmap_get(&count, tr->keys[j]);

		while (o->nr > c)
			r->findings[o->idx[--o->nr]].fixed_by = k;
	}
	strmap_release(&count);
	for (i = 0; i < cur->nr; i++)
		free(keys[i]);
	free(keys);
}

static enum build_status tree_status(const struct diag_list *cur,
				     const bool *is_new)
{
	enum build_status s = BUILD_OK;
	size_t i;

	for (i = 0; i < cur->nr; i++) {
		if (!is_new[i] || kcheck_style(&cur->v[i]))
			continue;
		if (cur->v[i].sev == DIAG_ERROR)
			return BUILD_ERRORS;
		if (cur->v[i].sev == DIAG_WARNING)
			s = BUILD_WARNINGS;
	}
	return s;
}

/* ---- one arch ---- */

struct arch_run {
	struct build_job *job;
	struct build_arch_result *r;
	struct kbuild_tree *t;
	struct units base;		/* the base's, W=1 of the touched files too */
	struct diag_list base_set;	/* distinct, with the W=1 ones */
	char **touched;			/* paths the series changes */
	size_t touched_nr;
	char **w1;			/* touched .c files built at the base */
	size_t w1_nr;
	bool check[KCHECK_NR];		/* the checkers that run on this arch */
	struct cover_ctx cx;		/* the coverage of each patch */
	bool cx_init;
};

static bool sparse_unit(const char *unit)
{
	return kcheck_is_unit(&kchecks[KCHECK_SPARSE], unit);
}

static bool cocci_unit(const char *unit)
{
	return kcheck_is_unit(&kchecks[KCHECK_COCCI], unit);
}

static bool clang_unit(const char *unit)
{
	return kcheck_is_unit(&kchecks[KCHECK_CLANG], unit);
}

static bool (*const kcheck_pred[KCHECK_NR])(const char *) = {
	[KCHECK_SPARSE] = sparse_unit, [KCHECK_COCCI] = cocci_unit,
	[KCHECK_CLANG] = clang_unit,
};

/*
 * A checker that failed (make C=2 exited with an error: the checker, not
 * the series) stops on this arch: it says why, and what it found so far
 * on this tree and the base is forgotten, as it may be partial.
 */
static void kcheck_stop(struct arch_run *ar, size_t i, const char *where,
			const struct kbuild_step *s)
{
	free(ar->r->check_skipped[i]);
	ar->r->check_skipped[i] = xasprintf("%s failed %s%s%s", kchecks[i].name,
					    where, s->log_path ? ": see " : "",
					    s->log_path ? s->log_path : "");
	log_warn("%s: %s", ar->r->arch, ar->r->check_skipped[i]);
	ar->check[i] = false;
	units_drop(&ar->t->units, kcheck_pred[i]);
	units_drop(&ar->base, kcheck_pred[i]);
}

/* The units of the passes over the touched files: W=1 and the checkers */
static bool extra_unit(const char *unit)
{
	return w1_is_unit(unit) || kcheck_any_unit(unit);
}

static void set_infra(struct arch_run *ar, unsigned int patch, const char *msg)
{
	ar->r->status = BUILD_INFRA;
	ar->r->infra_patch = patch;
	free(ar->r->infra);
	ar->r->infra = xstrdup(msg);
}

static int load_touched(struct arch_run *ar, struct strbuf *err)
{
	struct build_job *job = ar->job;
	const char *tip = job->commits.v[job->commits.nr - 1].id;
	struct strbuf paths = STRBUF_INIT;
	const char *p;

	if (srctree_changed(job->git_dir, job->base, tip, &paths, err)) {
		strbuf_release(&paths);
		return -1;
	}
	for (p = paths.buf; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (nl > p) {
			ar->touched = xrealloc(ar->touched, (ar->touched_nr + 1) *
					       sizeof(*ar->touched));
			ar->touched[ar->touched_nr++] = xstrndup(p, nl - p);
		}
		p = *nl ? nl + 1 : nl;
	}
	strbuf_release(&paths);
	return 0;
}

static bool is_touched(const struct arch_run *ar, const char *file)
{
	size_t i;

	for (i = 0; i < ar->touched_nr; i++)
		if (!strcmp(ar->touched[i], file))
			return true;
	return false;
}

/*
 * The base's diagnostics of the touched files with W=1 and the checkers,
 * computed once per base and file (w1/, sparse/, coccicheck/ in the
 * build directory): the tree goes back to the base for that when one is
 * missing.
 */
static int extra_base(struct arch_run *ar, struct strbuf *err)
{
	struct kbuild_tree *t = ar->t;
	char **missing[1 + KCHECK_NR];	/* W=1's, then each checker's */
	size_t i, c, nr[1 + KCHECK_NR] = { 0 }, all = 0;
	struct kbuild_step s;
	int ret = 0;

	ar->w1 = w1_files(t, ar->touched, ar->touched_nr, &ar->w1_nr);
	for (c = 0; c <= KCHECK_NR; c++)
		missing[c] = xcalloc(ar->w1_nr + 1, sizeof(*missing[c]));
	for (i = 0; i < ar->w1_nr; i++) {
		struct diag_list l = DIAG_LIST_INIT;

		if (ar->job->w1 && !w1_base_load(t, ar->w1[i], &l))
			units_add(&ar->base, &l, W1_TOP);
		else if (ar->job->w1)
			missing[0][nr[0]++] = ar->w1[i];
		diag_list_release(&l);
		for (c = 0; c < KCHECK_NR; c++) {
			const struct kcheck *k = &kchecks[c];

			if (!ar->check[c])
				continue;
			if (!kcheck_base_load(k, t, ar->w1[i], &l))
				units_add(&ar->base, &l, k->top);
			else
				missing[c + 1][nr[c + 1]++] = ar->w1[i];
			diag_list_release(&l);
		}
	}
	for (c = 0; c <= KCHECK_NR; c++)
		all += nr[c];
	if (!all)
		goto out;
	log_info("%s: W=1, sparse, coccicheck, clang diagnostics of %zu, %zu, %zu, "
		 "%zu file(s) at the base", t->arch.name, nr[0], nr[1 + KCHECK_SPARSE],
		 nr[1 + KCHECK_COCCI], nr[1 + KCHECK_CLANG]);
	/* back to the base: its objects, then the passes */
	if (kbuild_build_commit(t, t->base, "base-again", &s, err)) {
		ret = -1;
		goto out;
	}
	if (s.status != KBUILD_OK) {
		set_infra(ar, 0, s.infra ? s.infra : "the base does not build any more");
		kbuild_step_release(&s);
		ret = 1;
		goto out;
	}
	kbuild_step_release(&s);
	for (c = 0; c <= KCHECK_NR; c++) {
		const struct kcheck *k = c ? &kchecks[c - 1] : NULL;
		char name[32];
		int r;

		if (!nr[c])
			continue;
		snprintf(name, sizeof(name), "base-%s", k ? k->name : "w1");
		r = k ? kcheck_run(k, t, missing[c], nr[c], name, &s, err) :
			w1_run(t, missing[c], nr[c], name, &s, err);
		if (r) {
			ret = -1;
			goto out;
		}
		if (s.status == KBUILD_INFRA) {
			set_infra(ar, 0, s.infra);
			kbuild_step_release(&s);
			ret = 1;
			goto out;
		}
		if (k && s.status != KBUILD_OK) {
			kcheck_stop(ar, c - 1, "at the base", &s);
			kbuild_step_release(&s);
			continue;
		}
		units_add(&ar->base, &s.parse.diags, k ? k->top : W1_TOP);
		for (i = 0; i < nr[c]; i++)
			if (k ? kcheck_base_save(k, t, missing[c][i], &s.parse.diags) :
			    w1_base_save(t, missing[c][i], &s.parse.diags))
				log_warn("cannot keep the %s diagnostics of '%s'",
					 k ? k->name : "W=1", missing[c][i]);
		kbuild_step_release(&s);
	}
out:
	for (c = 0; c <= KCHECK_NR; c++)
		free(missing[c]);	/* the strings are ar->w1's */
	return ret;
}

static void build_base_set(struct arch_run *ar)
{
	size_t w1_from;

	units_collect(&ar->base, extra_unit, &ar->base_set, &w1_from);
}

static void copy_image(struct arch_run *ar)
{
	char *img = kbuild_image(ar->t), *buf = NULL, *dst;
	size_t len;

	/* obj/ is the build user's: a link planted there is not followed */
	if (!ar->r->log_dir || util_read_file_beneath(ar->t->obj, img, &buf, &len, 1ULL << 30)) {
		free(img);
		return;
	}
	dst = xasprintf("%s/%s", ar->r->log_dir, strrchr(img, '/') + 1);
	if (!util_write_file(dst, buf, len))
		ar->r->image = dst;
	else
		free(dst);
	free(buf);
	free(img);
}

/*
 * The .c file whose W=1 compile (kind KCHECK_NR) or check by kchecks[kind]
 * gave d ("mm/util.s", "mm/util.c.kdoc", "mm/util.c.sparse"), or NULL
 */
static char *unit_file(const struct diag *d, size_t kind)
{
	const char *u = d->unit;
	size_t n = strlen(u);

	if (kind < KCHECK_NR)
		return kcheck_is_unit(&kchecks[kind], u) && strcmp(u, kchecks[kind].top) ?
			xstrndup(u, n - strlen(kchecks[kind].suffix)) : NULL;
	if (util_ends_with(u, ".s"))
		return xasprintf("%.*s.c", (int)(n - 2), u);
	if (w1_is_unit(u) && strcmp(u, W1_TOP))	/* kernel-doc's: "<file>.kdoc" */
		return xstrndup(u, n - 5);
	return NULL;
}

/*
 * The make lines that show the new findings of W=1 and the checkers:
 * "make ... W=1 mm/util.o", "make ... C=2 mm/util.o", each on the files
 * that had them
 */
static void extra_recipe(struct arch_run *ar, struct strbuf *make)
{
	size_t kind, i, j;

	for (kind = 0; kind <= KCHECK_NR; kind++) {
		char **files = xcalloc(ar->r->nr + 1, sizeof(*files));
		size_t nr = 0;

		for (i = 0; i < ar->r->nr; i++) {
			const struct build_finding *f = &ar->r->findings[i];
			char *file;

			if (!f->is_new || (kind == KCHECK_NR && !f->w1) ||
			    !(file = unit_file(&f->d, kind)))
				continue;
			for (j = 0; j < nr && strcmp(files[j], file); j++)
				;
			if (j < nr)
				free(file);
			else
				files[nr++] = file;
		}
		if (nr && kind < KCHECK_NR) {
			kcheck_recipe(&kchecks[kind], ar->t, "build", files, nr, make);
		} else if (nr) {
			kbuild_recipe_head(ar->t, "build", make);
			strbuf_addstr(make, " W=1");
			for (j = 0; j < nr; j++)
				strbuf_addf(make, " %.*s.o", (int)(strlen(files[j]) - 2), files[j]);
			strbuf_addch(make, '\n');
		}
		for (j = 0; j < nr; j++)
			free(files[j]);
		free(files);
	}
}

/* The .config built with, and the make lines, for a recipe without lorebot */
static void keep_config(struct arch_run *ar)
{
	struct strbuf make = STRBUF_INIT;
	char *buf = NULL, *dst, *config;
	size_t len;
	int r;

	kbuild_recipe(ar->t, "build", &make);
	ar->r->make = strbuf_detach(&make, NULL);
	extra_recipe(ar, &make);
	ar->r->make_checks = make.len ? strbuf_detach(&make, NULL) : NULL;
	if (!ar->r->log_dir)
		return;
	/* util_read_file_beneath() takes the path with its root, as copy_image() gives it */
	config = xasprintf("%s/.config", ar->t->obj);
	r = util_read_file_beneath(ar->t->obj, config, &buf, &len, 64 << 20);
	free(config);
	if (r)
		return;
	dst = xasprintf("%s/config", ar->r->log_dir);
	if (!util_write_file(dst, buf, len))
		ar->r->config = dst;
	else
		free(dst);
	free(buf);
}

/*
 * A step of patch p: its ccache counts are added.  -1 with err for an
 * infrastructure failure.  The step is released.  (Its diagnostics are
 * the tree's units' already: kbuild_make().)
 */
static int take_step(struct build_patch_result *p, struct kbuild_step *s,
		     struct strbuf *err)
{
	int ret = 0;

	p->cc_hits += s->cc_hits;
	p->cc_misses += s->cc_misses;
	p->cc_writes += s->cc_writes;
	if (s->status == KBUILD_INFRA) {
		strbuf_addstr(err, s->infra);
		ret = -1;
	}
	kbuild_step_release(s);
	return ret;
}

/*
 * The lines patch k added that its build compiled (ci/cover-run.h).  A
 * measure that fails leaves the arch unmeasured: its verdict cannot
 * be ok (final_status()).
 */
static void measure(struct arch_run *ar, unsigned int k)
{
	struct build_job *job = ar->job;
	struct build_patch_result *p = &ar->r->patches[k - 1];
	const char *parent = k > 1 ? job->commits.v[k - 2].id : job->base;
	struct strbuf err = STRBUF_INIT;

	if (!ar->cx_init) {
		cover_ctx_init(&ar->cx, ar->t, ar->r->repair.ran ? &ar->r->repair.r : NULL);
		/* what the other branch left to the first arch is not this one's */
		if (ar->r->repair.used && ar->r->repair.branched.off_nr) {
			ar->cx.branched = &ar->r->repair.branched;
			ar->cx.left_to = job->first_arch;
		}
		ar->cx_init = true;
	}
	if (cover_patch(&ar->cx, job->git_dir, parent, p->commit, &p->cover, &err)) {
		log_warn("%s: patch %u: changed lines not measured: %s", ar->r->arch, k,
			 err.buf);
		if (!ar->r->cover_error)
			ar->r->cover_error = xasprintf("patch %u: %s", k, err.buf);
	}
	strbuf_release(&err);
}

/* Build patch k (1-based); returns -1 on infra (set in the result) */
static int build_patch(struct arch_run *ar, unsigned int k,
		       struct tracker *tr)
{
	struct build_job *job = ar->job;
	struct build_patch_result *p = &ar->r->patches[k - 1];
	struct kbuild_make_opts o = { .keep_going = true };
	struct kbuild_step s;
	struct strbuf err = STRBUF_INIT, diff = STRBUF_INIT;
	struct diag_list cur = DIAG_LIST_INIT;
	struct line_map map = LINE_MAP_INIT;
	char name[32];
	uint64_t start = util_now_ms();
	char **w1 = NULL;
	size_t i, w1_nr = 0, w1_from;
	bool *is_new = NULL, any_check = false;
	int ret = -1;

	memcpy(p->commit, job->commits.v[k - 1].id, OID_HEX);
	log_info("%s: patch %u/%zu %.12s", ar->r->arch, k, job->commits.nr, p->commit);
	/* olddefconfig's messages, if it ran, are the first step's */
	if (kbuild_checkout(ar->t, p->commit, &p->kconfig, &s, &err) ||
	    take_step(p, &s, &err))
		goto infra;

	snprintf(name, sizeof(name), "patch-%u", k);
	o.name = name;
	if (kbuild_make(ar->t, &o, &s, &err))
		goto infra;
	p->log = xstrdup_or_null(s.log_path);
	for (i = 0; i < s.parse.units_nr; i++)
		p->rebuilt += util_ends_with(s.parse.units[i], ".o");
	if (s.status == KBUILD_OK && job->keep_images)
		bootkernel_keep(ar->t, p->commit, job->env->cache);
	if (take_step(p, &s, &err))
		goto infra;

	for (i = 0; i < KCHECK_NR; i++)
		any_check |= ar->check[i];
	if (job->w1 || any_check)
		w1 = w1_files(ar->t, ar->touched, ar->touched_nr, &w1_nr);
	if (w1_nr && job->w1) {
		snprintf(name, sizeof(name), "patch-%u-w1", k);
		if (w1_run(ar->t, w1, w1_nr, name, &s, &err))
			goto infra;
		p->w1_log = xstrdup_or_null(s.log_path);
		p->w1_units = w1_nr;
		if (take_step(p, &s, &err))
			goto infra;
	}
	for (i = 0; w1_nr && i < KCHECK_NR; i++) {
		if (!ar->check[i])
			continue;
		snprintf(name, sizeof(name), "patch-%u-%s", k, kchecks[i].name);
		if (kcheck_run(&kchecks[i], ar->t, w1, w1_nr, name, &s, &err))
			goto infra;
		p->check[i].log = xstrdup_or_null(s.log_path);
		/*
		 * The files it went over: make runs sparse and Coccinelle on
		 * a file only once gcc compiled it, so a file that does not
		 * compile is not counted (its errors are the build's)
		 */
		p->check[i].files = (unsigned int)s.parse.units_nr;
		if (s.parse.units_nr < w1_nr)
			log_info("%s: patch %u: %s went over %zu of %zu touched file(s): "
				 "the others did not compile", ar->r->arch, k,
				 kchecks[i].name, s.parse.units_nr, w1_nr);
		p->check[i].ms = s.elapsed_ms;
		if (s.status == KBUILD_FAILED) {
			char where[32];

			snprintf(where, sizeof(where), "at patch %u", k);
			kcheck_stop(ar, i, where, &s);
			diag_list_release(&ar->base_set);
			build_base_set(ar);
		}
		if (take_step(p, &s, &err))
			goto infra;
	}

	if (srctree_diff(job->git_dir, job->base, p->commit, &diff, &err) ||
	    delta_map_parse(&map, diff.buf, diff.len, &err))
		goto infra;
	measure(ar, k);
	units_collect(&ar->t->units, extra_unit, &cur, &w1_from);
	is_new = xcalloc(cur.nr + 1, sizeof(*is_new));
	delta_diag(&ar->base_set, &cur, &map, is_new);
	track(tr, ar->r, &cur, is_new, w1_from, k);
	p->status = tree_status(&cur, is_new);
	if (k == job->commits.nr) {
		/* context: what the touched files had already */
		for (i = 0; i < cur.nr; i++)
			if (!is_new[i] && is_touched(ar, cur.v[i].file))
				add_finding(ar->r, &cur.v[i], 0, false, i >= w1_from);
	}
	ret = 0;
	goto out;
infra:
	p->status = BUILD_INFRA;
	set_infra(ar, k, err.buf);
out:
	p->ms = util_now_ms() - start;
	w1_files_free(w1);
	free(is_new);
	diag_list_release(&cur);
	delta_map_release(&map);
	strbuf_release(&err);
	strbuf_release(&diff);
	return ret;
}

static void bisect_notes(struct build_arch_result *r, size_t n)
{
	size_t i, j;

	for (i = 0; i < r->nr; i++) {
		const struct build_finding *f = &r->findings[i];
		bool seen = false;

		if (!f->is_new || !f->fixed_by || f->d.sev != DIAG_ERROR)
			continue;
		for (j = 0; j < i; j++)
			if (r->findings[j].is_new && r->findings[j].fixed_by &&
			    r->findings[j].d.sev == DIAG_ERROR &&
			    r->findings[j].patch == f->patch &&
			    r->findings[j].fixed_by == f->fixed_by)
				seen = true;
		if (seen)
			continue;
		r->bisect = xrealloc(r->bisect, (r->bisect_nr + 1) * sizeof(*r->bisect));
		r->bisect[r->bisect_nr++] =
			xasprintf("patch %u/%zu breaks bisection on %s: the build "
				  "fails until patch %u/%zu", f->patch, n, r->arch,
				  f->fixed_by, n);
	}
}

double buildjob_coverage(const struct build_arch_result *r)
{
	int own = r->cover_changed - r->cover_arch;

	return own > 0 ? 100.0 * r->cover_compiled / own : -1;
}

static void cover_totals(struct build_arch_result *r)
{
	size_t i;

	r->cover_measured = r->patches_nr > 0;
	for (i = 0; i < r->patches_nr; i++) {
		const struct cover_presult *c = &r->patches[i].cover;

		if (!c->done)
			r->cover_measured = false;
		r->cover_changed += c->changed;
		r->cover_compiled += c->compiled;
		r->cover_arch += c->arch;
	}
}

static enum build_status final_status(const struct build_arch_result *r,
				      int mincoverage)
{
	enum build_status s = BUILD_OK;
	double pct = buildjob_coverage(r);
	size_t i;

	if (r->status == BUILD_INFRA)
		return BUILD_INFRA;
	for (i = 0; i < r->nr; i++) {
		if (!r->findings[i].is_new || kcheck_style(&r->findings[i].d))
			continue;
		if (r->findings[i].d.sev == DIAG_ERROR)
			return BUILD_ERRORS;
		if (r->findings[i].d.sev == DIAG_WARNING)
			s = BUILD_WARNINGS;
	}
	/* no green for what was not compiled, or not measured */
	if (s == BUILD_OK && r->patches_nr &&
	    (!r->cover_measured || (pct >= 0 && pct < mincoverage)))
		s = BUILD_PARTIAL;
	return s;
}

enum build_status buildjob_arch(struct build_job *job, const struct arch *arch)
{
	struct arch_run ar = { .job = job };
	struct build_arch_result *r;
	struct tracker tr = { .open = STRMAP_INIT };
	struct strbuf err = STRBUF_INIT;
	uint64_t start = util_now_ms();
	bool any_check = false;
	size_t i;

	ALLOC_GROW(job->archs, job->archs_nr + 1, job->archs_alloc);
	r = &job->archs[job->archs_nr++];
	memset(r, 0, sizeof(*r));
	ar.r = r;
	r->arch = xstrdup(arch->name);
	r->patches_nr = job->commits.nr;
	r->patches = xcalloc(job->commits.nr + 1, sizeof(*r->patches));
	for (i = 0; i < job->commits.nr; i++) {
		r->patches[i].n = i + 1;
		r->patches[i].status = BUILD_SKIPPED;
		r->patches[i].subject = job->commits.v[i].subject;
		memcpy(r->patches[i].commit, job->commits.v[i].id, OID_HEX);
	}
	if (job->log_dir) {
		r->log_dir = xasprintf("%s/%s", job->log_dir, arch->name);
		if (util_mkdir_p(r->log_dir, 0755)) {
			strbuf_addf(&err, "cannot create '%s': %s", r->log_dir,
				    strerror(errno));
			set_infra(&ar, 0, err.buf);
			goto out;
		}
	}
	if (kbuild_open(&ar.t, job->env, arch, job->profile, job->git_dir,
			job->base, r->log_dir, &err)) {
		set_infra(&ar, 0, err.buf);
		goto out;
	}
	if (job->commits.nr && load_touched(&ar, &err)) {
		set_infra(&ar, 0, err.buf);
		goto out;
	}
	if (job->repair && job->commits.nr && buildjob_repair(job, &ar.t, ar.touched,
							     ar.touched_nr, &r->repair, &err)) {
		set_infra(&ar, 0, err.buf);
		goto out;
	}
	r->build_dir = xstrdup(ar.t->dir);
	r->src_dir = xstrdup(ar.t->src);
	r->obj_dir = xstrdup(ar.t->obj);
	r->base_reused = !ar.t->base_built_now;
	r->base_ms = ar.t->base_ms;
	r->base_cc_hits = ar.t->base_cc_hits;
	r->base_cc_misses = ar.t->base_cc_misses;
	if (ar.t->config_notes.len)
		r->config_notes = xstrdup(ar.t->config_notes.buf);
	units_add(&ar.base, &ar.t->base_diags, "make");
	/* the W=1 pass of an earlier series is not this one's */
	units_drop(&ar.t->units, extra_unit);
	for (i = 0; i < KCHECK_NR; i++) {
		const struct kcheck *c = &kchecks[i];
		const char *missing;

		if (!job->check[i] || !kcheck_wanted(c, job->env->cfg, arch->name))
			continue;
		missing = kcheck_missing(c);
		if (missing) {
			r->check_skipped[i] = xasprintf("'%s' not found (Debian package %s)",
							missing, c->package);
			log_warn("%s: %s not run: %s", arch->name, c->name,
				 r->check_skipped[i]);
			continue;
		}
		ar.check[i] = true;
		any_check = true;
	}
	if (job->w1 || any_check) {
		int w = extra_base(&ar, &err);

		if (w < 0)
			set_infra(&ar, 0, err.buf);
		if (w)
			goto out;
	}
	build_base_set(&ar);
	/*
	 * What the last job left, made again before the patches (unless the
	 * base's make above did it, or the first patch's make is trusted and
	 * does it): its time is not patch 1's
	 */
	if (job->commits.nr && !kbuild_commit_trusted(ar.t, job->commits.v[0].id) &&
	    kbuild_refresh(ar.t, &err)) {
		set_infra(&ar, 0, err.buf);
		goto out;
	}
	r->base_refreshed = ar.t->base_refreshed;
	r->refresh_ms = ar.t->refresh_ms;
	for (i = 0; i < job->commits.nr; i++)
		if (build_patch(&ar, i + 1, &tr))
			break;
	if (r->status != BUILD_INFRA && job->commits.nr)
		copy_image(&ar);
	keep_config(&ar);
	bisect_notes(r, job->commits.nr);
out:
	cover_totals(r);
	r->status = final_status(r, job->mincoverage);
	r->ms = util_now_ms() - start;
	if (ar.cx_init)
		cover_ctx_release(&ar.cx);
	kbuild_close(ar.t);
	units_release(&ar.base);
	diag_list_release(&ar.base_set);
	tracker_release(&tr);
	for (i = 0; i < ar.touched_nr; i++)
		free(ar.touched[i]);
	free(ar.touched);
	w1_files_free(ar.w1);
	strbuf_release(&err);
	return r->status;
}

void buildjob_release(struct build_job *job)
{
	size_t i, j, k;

	for (i = 0; i < job->archs_nr; i++) {
		struct build_arch_result *r = &job->archs[i];

		for (j = 0; j < r->nr; j++)
			diag_release(&r->findings[j].d);
		free(r->findings);
		for (j = 0; j < r->patches_nr; j++) {
			free(r->patches[j].log);
			free(r->patches[j].w1_log);
			for (k = 0; k < KCHECK_NR; k++)
				free(r->patches[j].check[k].log);
			cover_presult_release(&r->patches[j].cover);
		}
		repair_release(&r->repair.r);
		cover_needs_release(&r->repair.branched);
		free(r->repair.profile);
		free(r->repair.note);
		free(r->cover_error);
		free(r->patches);
		for (j = 0; j < r->bisect_nr; j++)
			free(r->bisect[j]);
		free(r->bisect);
		free(r->arch);
		free(r->infra);
		free(r->build_dir);
		free(r->src_dir);
		free(r->obj_dir);
		free(r->log_dir);
		free(r->image);
		free(r->config);
		free(r->make);
		free(r->make_checks);
		free(r->config_notes);
		for (k = 0; k < KCHECK_NR; k++)
			free(r->check_skipped[k]);
	}
	free(job->archs);
	srctree_commits_release(&job->commits);
	memset(job, 0, sizeof(*job));
}
