// SPDX-License-Identifier: GPL-2.0
/*
 * Config repair: ci/repair.h.  Kconfig decides what a set of "=y" lines
 * becomes; this file only chooses which lines to try.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/log.h"
#include "lib/util.h"
#include "ci/repair.h"

#define ROUNDS 5		/* olddefconfig runs at most */
#define SELECTORS 3		/* of a symbol without a prompt, tried */

struct names {
	char **v;
	/*
	 * tried on: the wanted symbol each was tried for (its index in
	 * tried); tried off: the symbol of tried on it is turned off for,
	 * -1 when it was asked off itself
	 */
	int *from;
	size_t nr, alloc, falloc;
};

static ssize_t names_find(const struct names *n, const char *s)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->v[i], s))
			return (ssize_t)i;
	return -1;
}

static bool names_has(const struct names *n, const char *s)
{
	return names_find(n, s) >= 0;
}

static bool names_add_raw(struct names *n, const char *s, int from)
{
	if (names_has(n, s))
		return false;
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	ALLOC_GROW(n->from, n->nr + 1, n->falloc);
	n->from[n->nr] = from;
	n->v[n->nr++] = xstrdup(s);
	return true;
}

static bool names_add_for(struct names *n, const char *s, int from)
{
	return names_add_raw(n, s, from < 0 ? (int)n->nr : from);
}

static bool names_add(struct names *n, const char *s)
{
	return names_add_for(n, s, -1);
}

static void names_release(struct names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	free(n->from);
	memset(n, 0, sizeof(*n));
}

/* The symbols tried on and off, and the index that says why */
struct attempt {
	const struct kconf_index *ix;
	struct names on, off;
};

/*
 * The symbol of on that needs name on: it is one of them, selects it,
 * or depends on it, plainly, through symbols declared here; NULL when
 * none does
 */
static const char *needed_by(const struct attempt *a, const char *name)
{
	const struct kconf_sym *x = kconf_index_get(a->ix, name);
	struct strmap seen = STRMAP_INIT;
	const char **stack = NULL, *by = NULL;
	size_t nr = 0, alloc = 0, i, j;

	/* selected by one of them: it cannot be off */
	for (i = 0; x && i < x->sel_nr; i++) {
		ssize_t k = names_find(&a->on, x->selected_by[i]);

		if (k >= 0)
			return a->on.v[k];
	}

	for (i = 0; i < a->on.nr && !by; i++) {
		nr = 0;
		ALLOC_GROW(stack, nr + 1, alloc);
		stack[nr++] = a->on.v[i];
		while (nr && !by) {
			const char *cur = stack[--nr];
			const struct kconf_sym *s;

			if (!strcmp(cur, name)) {
				by = a->on.v[i];
				break;
			}
			if (strmap_get(&seen, cur))
				continue;
			strmap_put(&seen, cur, (void *)1);
			s = kconf_index_get(a->ix, cur);
			for (j = 0; s && j < s->deps_nr; j++) {
				if (s->deps[j][0] == '!')
					continue;
				ALLOC_GROW(stack, nr + 1, alloc);
				stack[nr++] = s->deps[j];
			}
		}
	}
	free(stack);
	strmap_release(&seen);
	return by;
}

/* Is the i-th symbol tried off turned off: no symbol tried on needs it? */
static bool off_active(const struct attempt *a, size_t i)
{
	return !needed_by(a, a->off.v[i]);
}

/*
 * base with "CONFIG_X=y" for every name tried on, "# CONFIG_X is not
 * set" for every one tried off (as scripts/config --enable, --disable)
 */
static void with_set(const char *base, size_t len, const struct attempt *a,
		     struct strbuf *out)
{
	const char *p = base, *end = base + len;
	size_t nr = a->on.nr + a->off.nr, i;
	bool *done = xcalloc(nr + 1, sizeof(*done)), *skip = xcalloc(nr + 1, sizeof(*skip));

	for (i = 0; i < a->off.nr; i++)
		skip[a->on.nr + i] = !off_active(a, i);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *name = NULL;
		size_t n = 0;

		if (!nl)
			nl = end;
		if (util_starts_with(p, "CONFIG_")) {
			name = p + 7;
			n = strcspn(name, "=\n");
		} else if (util_starts_with(p, "# CONFIG_")) {
			name = p + 9;
			n = strcspn(name, " \n");
		}
		for (i = 0; name && i < nr; i++) {
			bool on = i < a->on.nr;
			const char *s = on ? a->on.v[i] : a->off.v[i - a->on.nr];

			if (skip[i] || strlen(s) != n || memcmp(s, name, n))
				continue;
			if (on)
				strbuf_addf(out, "CONFIG_%s=y\n", s);
			else
				strbuf_addf(out, "# CONFIG_%s is not set\n", s);
			done[i] = true;
			break;
		}
		if (!name || i == nr)
			strbuf_add(out, p, nl - p + (nl < end));
		p = nl + 1;
	}
	for (i = 0; i < nr; i++) {
		if (done[i] || skip[i])
			continue;
		if (i < a->on.nr)
			strbuf_addf(out, "CONFIG_%s=y\n", a->on.v[i]);
		else
			strbuf_addf(out, "# CONFIG_%s is not set\n", a->off.v[i - a->on.nr]);
	}
	free(done);
	free(skip);
}

static int olddefconfig(const struct repair_kconfig *k, const struct attempt *a,
			struct kconf *result, struct strbuf *err)
{
	struct strbuf cfg = STRBUF_INIT;
	int ret;

	with_set(k->base, k->len, a, &cfg);
	ret = k->olddefconfig(k->data, cfg.buf, cfg.len, result, err);
	strbuf_release(&cfg);
	return ret;
}

/*
 * A driver that selects a hidden option is not a way to it: the repair
 * would build the driver (DRM_AMDGPU_USERPTR selects HMM_MIRROR, and
 * amdgpu is hundreds of units) to compile a few lines of mm/.  The
 * option is then reported not compiled, its selectors named.
 */
static bool driver(const struct kconf_sym *s)
{
	static const char *const dirs[] = { "drivers/", "sound/", "net/", "samples/" };
	size_t i;

	for (i = 0; s->file && i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(s->file, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/*
 * Names worth trying for the k-th symbol tried on, which did not stick:
 * its dependencies that are off in r (on), those negated that are on
 * (off), and with selectors, those that select it if it has no prompt
 */
static bool more(struct attempt *a, const struct kconf *r, size_t k, bool selectors)
{
	const struct kconf_sym *s = kconf_index_get(a->ix, a->on.v[k]);
	int from = a->on.from[k];
	bool added = false;
	size_t i, n = 0;

	if (!s)
		return false;
	for (i = 0; i < s->deps_nr; i++) {
		const char *d = s->deps[i];

		/* COMPILE_TEST is not a feature */
		if (*d == '!') {
			if (kconf_on(r, d + 1, true))
				added |= names_add_raw(&a->off, d + 1, from);
			continue;
		}
		if (!strcmp(d, "COMPILE_TEST") || kconf_on(r, d, true))
			continue;
		added |= names_add_for(&a->on, d, from);
	}
	if (s->prompt || !selectors)
		return added;
	for (i = 0; i < s->sel_nr && n < SELECTORS; i++) {
		const struct kconf_sym *by = kconf_index_get(a->ix, s->selected_by[i]);

		if (!by || !by->prompt || kconf_on(r, by->name, true) || driver(by))
			continue;
		n++;
		added |= names_add_for(&a->on, by->name, from);
	}
	return added;
}

/*
 * The k-th symbol tried off is still on in r: the symbols selecting it
 * that are on, have a prompt and are not the architecture's, off too
 */
static bool less(struct attempt *a, const struct kconf *r, size_t k)
{
	const struct kconf_sym *s = kconf_index_get(a->ix, a->off.v[k]);
	int from = a->off.from[k];
	bool added = false;
	size_t i, n = 0;

	for (i = 0; s && i < s->sel_nr && n < SELECTORS; i++) {
		const struct kconf_sym *by = kconf_index_get(a->ix, s->selected_by[i]);

		if (!by || !by->prompt || !kconf_on(r, by->name, true) ||
		    (by->file && util_starts_with(by->file, "arch/")))
			continue;
		n++;
		added |= names_add_raw(&a->off, by->name, from);
	}
	return added;
}

/* Declared or selected only under arch/: the architecture decides */
static bool arch_decides(const struct kconf_sym *s, const struct kconf_index *ix)
{
	size_t i;

	if (s->file && util_starts_with(s->file, "arch/"))
		return true;
	if (s->prompt || !s->sel_nr)
		return false;
	for (i = 0; i < s->sel_nr; i++) {
		const struct kconf_sym *by = kconf_index_get(ix, s->selected_by[i]);

		if (!by || !by->file || !util_starts_with(by->file, "arch/"))
			return false;
	}
	return true;
}

/* Why sym is not y in r, and whether the architecture is why */
static void explain(const char *srcdir, const struct kconf_index *ix,
		    const struct kconf *r, const char *sym, struct repair_fail *f)
{
	const struct kconf_sym *s = kconf_index_get(ix, sym);
	struct strbuf sb = STRBUF_INIT, elsewhere = STRBUF_INIT;
	bool arch = false;
	size_t i, unmet = 0;

	if (!s) {
		kconf_declared_in_arches(srcdir, sym, &elsewhere);
		if (elsewhere.len) {
			strbuf_addf(&sb, "declared for %s only", elsewhere.buf);
			arch = true;
		} else {
			strbuf_addstr(&sb, "not a Kconfig symbol of this tree");
		}
		goto out;
	}
	for (i = 0; i < s->deps_nr; i++) {
		const char *d = s->deps[i];
		bool neg = *d == '!';
		const struct kconf_sym *ds = kconf_index_get(ix, d + neg);

		if (kconf_on(r, d + neg, true) != neg)
			continue;
		strbuf_addf(&sb, "%s%s%s", unmet++ ? ", " : "depends on ", neg ? "!" : "",
			    d + neg);
		/* "!ARCH_HAS_X" that the arch selects is the arch's doing too */
		if ((!neg && (!ds || arch_decides(ds, ix))) ||
		    (neg && ds && !ds->prompt && arch_decides(ds, ix)))
			arch = true;
		/*
		 * hidden, nothing here selects it, other arches do
		 * (HAVE_ARCH_KASAN_HW_TAGS on x86): theirs
		 */
		if (!neg && ds && !ds->prompt && !ds->sel_nr) {
			strbuf_reset(&elsewhere);
			kconf_selected_in_arches(srcdir, ds->name, &elsewhere);
			if (elsewhere.len) {
				strbuf_addf(&sb, " (selected by %s only)", elsewhere.buf);
				arch = true;
			}
		}
	}
	if (!unmet && !s->prompt) {
		strbuf_addstr(&sb, "has no prompt");
		for (i = 0; i < s->sel_nr && i < SELECTORS; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : ": selected by ", s->selected_by[i]);
		arch = arch_decides(s, ix);
	} else if (!unmet) {
		strbuf_addstr(&sb, "olddefconfig did not keep it");
	}
	if (arch_decides(s, ix))
		arch = true;
out:
	f->why = strbuf_detach(&sb, NULL);
	f->arch = arch;
	strbuf_release(&elsewhere);
}

/* Why sym, asked off, is on in r, and whether the architecture is why */
static void explain_off(const char *srcdir, const struct attempt *a,
			const struct kconf *r, const char *sym, struct repair_fail *f)
{
	const struct kconf_sym *s = kconf_index_get(a->ix, sym);
	const char *by = needed_by(a, sym);
	struct strbuf sb = STRBUF_INIT;
	bool arch = false;
	size_t i, n = 0;

	f->off = true;
	if (by) {
		strbuf_addf(&sb, "kept on: CONFIG_%s needs it", by);
		goto out;
	}
	if (!s) {
		struct strbuf where = STRBUF_INIT;

		kconf_declared_in_arches(srcdir, sym, &where);
		arch = where.len;
		if (arch)
			strbuf_addf(&sb, "declared for %s only", where.buf);
		else
			strbuf_addstr(&sb, "not a Kconfig symbol of this tree");
		strbuf_release(&where);
		goto out;
	}
	arch = s->file && util_starts_with(s->file, "arch/");
	for (i = 0; i < s->sel_nr; i++) {
		const struct kconf_sym *b = kconf_index_get(a->ix, s->selected_by[i]);

		if (!b || !kconf_on(r, b->name, true))
			continue;
		strbuf_addf(&sb, "%s%s", n++ ? ", " : "selected by ", b->name);
		if (b->file && util_starts_with(b->file, "arch/"))
			arch = true;
	}
	if (!n && !s->prompt)
		strbuf_addstr(&sb, "has no prompt");
	else if (!n)
		strbuf_addstr(&sb, "olddefconfig did not keep it off");
out:
	f->why = strbuf_detach(&sb, NULL);
	f->arch = arch;
}

/* Has sym the same value (or none) in a and b? */
static bool same(const struct kconf *a, const struct kconf *b, const char *sym)
{
	const char *va = kconf_get(a, sym), *vb = kconf_get(b, sym);

	return va == vb || (va && vb && !strcmp(va, vb));
}

static void add_sorted(char ***v, size_t *nr, size_t *alloc, const struct names *n,
		       const struct kconf *r, bool on)
{
	size_t i;

	for (i = 0; i < n->nr; i++) {
		if (kconf_on(r, n->v[i], !on) != on)
			continue;
		ALLOC_GROW(*v, *nr + 1, *alloc);
		(*v)[(*nr)++] = xasprintf("CONFIG_%s", n->v[i]);
	}
	if (*nr)
		qsort(*v, *nr, sizeof(**v), util_strcmp_ptr);
}

static void fail(struct repair *out, const char *srcdir, const struct attempt *a,
		 const char *sym, bool off)
{
	struct repair_fail *f;

	if (off ? repair_failed_off(out, sym) : repair_failed(out, sym))
		return;
	ALLOC_GROW(out->fail, out->fail_nr + 1, out->fail_alloc);
	f = &out->fail[out->fail_nr++];
	memset(f, 0, sizeof(*f));
	f->sym = xasprintf("CONFIG_%s", kconf_bare(sym));
	if (off)
		explain_off(srcdir, a, &out->result, kconf_bare(sym), f);
	else
		explain(srcdir, a->ix, &out->result, kconf_bare(sym), f);
}

int repair_resolve(const struct repair_kconfig *k, const struct cover_needs *want,
		   struct repair *out, struct strbuf *err)
{
	struct kconf_index ix = KCONF_INDEX_INIT;
	struct attempt a = { .ix = &ix }, keep = { .ix = &ix };
	struct kconf basec = KCONF_INIT;
	uint64_t start = util_now_ms();
	bool again = false;
	size_t i, j;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->result = (struct kconf)KCONF_INIT;
	if (kconf_index_build(&ix, k->srcdir, k->srcarch, err))
		goto out;
	for (i = 0; i < want->on_nr; i++)
		names_add(&a.on, kconf_bare(want->on[i]));
	for (i = 0; i < want->off_nr; i++)
		names_add_raw(&a.off, kconf_bare(want->off[i]), -1);
	/*
	 * Each olddefconfig parses the whole Kconfig, compiler probes and
	 * all (seconds): the dependencies the base's .config lacks (or has
	 * and must not) are tried in the first run already, not a run later
	 * each.  Selectors wait until a symbol did not stick: a symbol
	 * without a prompt may well follow from what is asked.
	 */
	kconf_parse(&basec, k->base, k->len);
	for (j = 0; j < ROUNDS; j++) {
		size_t on_before = a.on.nr, off_before = a.off.nr;

		for (i = 0; i < on_before; i++)
			if (!kconf_on(&basec, a.on.v[i], false))
				more(&a, &basec, i, false);
		if (a.on.nr == on_before && a.off.nr == off_before)
			break;
	}
	while (out->rounds < ROUNDS) {
		bool added = false;

		if (olddefconfig(k, &a, &out->result, err))
			goto out;
		out->rounds++;
		for (i = 0; i < a.on.nr; i++)
			if (!kconf_on(&out->result, a.on.v[i], false))
				added |= more(&a, &out->result, i, true);
		for (i = 0; i < a.off.nr; i++)
			if (off_active(&a, i) && kconf_on(&out->result, a.off.v[i], true))
				added |= less(&a, &out->result, i);
		if (!added)
			break;
	}
	/*
	 * The fragment: what stuck of what was asked, and what stuck of
	 * what was tried for those (on and off); once more with it alone,
	 * to be sure
	 */
	for (i = 0; i < a.on.nr; i++) {
		if (kconf_on(&out->result, a.on.v[i], false) &&
		    kconf_on(&out->result, a.on.v[a.on.from[i]], false))
			names_add(&keep.on, a.on.v[i]);
		else if (!same(&basec, &out->result, a.on.v[i]))
			again = true;
	}
	for (i = 0; i < a.off.nr; i++) {
		int from = a.off.from[i];

		if (off_active(&a, i) && !kconf_on(&out->result, a.off.v[i], true) &&
		    (from < 0 || kconf_on(&out->result, a.on.v[from], false)))
			names_add_raw(&keep.off, a.off.v[i], -1);
		else if (!same(&basec, &out->result, a.off.v[i]))
			again = true;
	}
	/*
	 * What was tried in vain and came out as the base has it changed
	 * nothing: the run with the fragment alone would give the same
	 */
	if (again) {
		if (olddefconfig(k, &keep, &out->result, err))
			goto out;
		out->rounds++;
	}
	add_sorted(&out->set, &out->set_nr, &out->set_alloc, &keep.on, &out->result, true);
	add_sorted(&out->unset, &out->unset_nr, &out->unset_alloc, &keep.off,
		   &out->result, false);
	for (i = 0; i < want->on_nr; i++)
		if (!kconf_on(&out->result, kconf_bare(want->on[i]), false))
			fail(out, k->srcdir, &a, want->on[i], false);
	for (i = 0; i < want->off_nr; i++)
		if (kconf_on(&out->result, kconf_bare(want->off[i]), true))
			fail(out, k->srcdir, &a, want->off[i], true);
	ret = 0;
out:
	out->ms = util_now_ms() - start;
	names_release(&a.on);
	names_release(&a.off);
	names_release(&keep.on);
	names_release(&keep.off);
	kconf_release(&basec);
	kconf_index_release(&ix);
	return ret;
}

/* Kconfig's answer in t's kconfig/ directory (kbuild_probe_config()) */
static int probe(void *data, const char *config, size_t len, struct kconf *result,
		 struct strbuf *err)
{
	struct kbuild_tree *t = data;
	struct strbuf out = STRBUF_INIT;
	struct kbuild_step s;
	int ret;

	ret = kbuild_probe_config(t, config, len, &out, &s, err);
	if (!ret && s.status != KBUILD_OK) {
		strbuf_addf(err, "olddefconfig failed: %s", s.infra ? s.infra :
			    s.parse.make_error ? s.parse.make_error : "see its log");
		ret = -1;
	}
	if (!ret) {
		kconf_release(result);
		kconf_parse(result, out.buf, out.len);
	}
	kbuild_step_release(&s);
	strbuf_release(&out);
	return ret;
}

int repair_run(struct kbuild_tree *t, const struct cover_needs *want,
	       struct repair *out, struct strbuf *err)
{
	char *path = kbuild_base_config(t), *base = NULL;
	struct repair_kconfig k = {
		.srcdir = t->src, .srcarch = kconf_srcarch(t->arch.kernel_arch),
		.olddefconfig = probe, .data = t,
	};
	size_t len;
	int ret;

	if (util_read_file(path, &base, &len, 64 << 20)) {
		memset(out, 0, sizeof(*out));
		out->result = (struct kconf)KCONF_INIT;
		strbuf_addf(err, "cannot read '%s'", path);
		free(path);
		return -1;
	}
	k.base = base;
	k.len = len;
	ret = repair_resolve(&k, want, out, err);
	free(base);
	free(path);
	return ret;
}

static const struct repair_fail *find_fail(const struct repair *r, const char *sym,
					   bool off)
{
	size_t i;

	for (i = 0; i < r->fail_nr; i++)
		if (r->fail[i].off == off && !strcmp(kconf_bare(r->fail[i].sym), kconf_bare(sym)))
			return &r->fail[i];
	return NULL;
}

const struct repair_fail *repair_failed(const struct repair *r, const char *sym)
{
	return find_fail(r, sym, false);
}

const struct repair_fail *repair_failed_off(const struct repair *r, const char *sym)
{
	return find_fail(r, sym, true);
}

void repair_fragment(const struct repair *r, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < r->set_nr; i++)
		strbuf_addf(out, "%s=y\n", r->set[i]);
	for (i = 0; i < r->unset_nr; i++)
		strbuf_addf(out, "# %s is not set\n", r->unset[i]);
}

void repair_release(struct repair *r)
{
	size_t i;

	for (i = 0; i < r->set_nr; i++)
		free(r->set[i]);
	free(r->set);
	for (i = 0; i < r->unset_nr; i++)
		free(r->unset[i]);
	free(r->unset);
	for (i = 0; i < r->fail_nr; i++) {
		free(r->fail[i].sym);
		free(r->fail[i].why);
	}
	free(r->fail);
	kconf_release(&r->result);
	memset(r, 0, sizeof(*r));
}
