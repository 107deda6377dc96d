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
	int *from;		/* the wanted symbol each was tried for (its index) */
	size_t nr, alloc, falloc;
};

static bool names_has(const struct names *n, const char *s)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		if (!strcmp(n->v[i], s))
			return true;
	return false;
}

static bool names_add_for(struct names *n, const char *s, int from)
{
	if (names_has(n, s))
		return false;
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	ALLOC_GROW(n->from, n->nr + 1, n->falloc);
	n->from[n->nr] = from < 0 ? (int)n->nr : from;
	n->v[n->nr++] = xstrdup(s);
	return true;
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

static const char *bare(const char *sym)
{
	return util_starts_with(sym, "CONFIG_") ? sym + 7 : sym;
}

/* config.base with "CONFIG_X=y" for every name of set (as scripts/config --enable) */
static void with_set(const char *base, size_t len, const struct names *set,
		     struct strbuf *out)
{
	const char *p = base, *end = base + len;
	bool *done = xcalloc(set->nr + 1, sizeof(*done));
	size_t i;

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
		for (i = 0; name && i < set->nr; i++) {
			if (strlen(set->v[i]) == n && !memcmp(set->v[i], name, n)) {
				strbuf_addf(out, "CONFIG_%s=y\n", set->v[i]);
				done[i] = true;
				break;
			}
		}
		if (!name || i == set->nr)
			strbuf_add(out, p, nl - p + (nl < end));
		p = nl + 1;
	}
	for (i = 0; i < set->nr; i++)
		if (!done[i])
			strbuf_addf(out, "CONFIG_%s=y\n", set->v[i]);
	free(done);
}

static int olddefconfig(struct kbuild_tree *t, const char *base, size_t len,
			const struct names *set, struct kconf *result,
			struct strbuf *err)
{
	struct strbuf cfg = STRBUF_INIT, out = STRBUF_INIT;
	struct kbuild_step s;
	int ret;

	with_set(base, len, set, &cfg);
	ret = kbuild_probe_config(t, cfg.buf, cfg.len, &out, &s, err);
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
	strbuf_release(&cfg);
	strbuf_release(&out);
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
 * Names worth trying for sym that did not stick: its dependencies that
 * are off in r, and with selectors, those that select it if it has no
 * prompt
 */
static bool more(const struct kconf_index *ix, const struct kconf *r,
		 size_t k, struct names *tried, bool selectors)
{
	const struct kconf_sym *s = kconf_index_get(ix, tried->v[k]);
	int from = tried->from[k];
	bool added = false;
	size_t i, n = 0;

	if (!s)
		return false;
	for (i = 0; i < s->deps_nr; i++) {
		const char *d = s->deps[i];

		/* a negated one is not turned off; COMPILE_TEST is not a feature */
		if (*d == '!' || !strcmp(d, "COMPILE_TEST") || kconf_on(r, d, true))
			continue;
		added |= names_add_for(tried, d, from);
	}
	if (s->prompt || !selectors)
		return added;
	for (i = 0; i < s->sel_nr && n < SELECTORS; i++) {
		const struct kconf_sym *by = kconf_index_get(ix, s->selected_by[i]);

		if (!by || !by->prompt || kconf_on(r, by->name, true) || driver(by))
			continue;
		n++;
		added |= names_add_for(tried, by->name, from);
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
static void explain(struct kbuild_tree *t, const struct kconf_index *ix,
		    const struct kconf *r, const char *sym, struct repair_fail *f)
{
	const struct kconf_sym *s = kconf_index_get(ix, sym);
	struct strbuf sb = STRBUF_INIT, elsewhere = STRBUF_INIT;
	bool arch = false;
	size_t i, unmet = 0;

	if (!s) {
		kconf_declared_in_arches(t->src, sym, &elsewhere);
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
		if (!neg && (!ds || arch_decides(ds, ix)))
			arch = true;
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

/* Has sym the same value (or none) in a and b? */
static bool same(const struct kconf *a, const struct kconf *b, const char *sym)
{
	const char *va = kconf_get(a, sym), *vb = kconf_get(b, sym);

	return va == vb || (va && vb && !strcmp(va, vb));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int repair_run(struct kbuild_tree *t, char *const *want, size_t nr,
	       struct repair *out, struct strbuf *err)
{
	struct kconf_index ix = KCONF_INDEX_INIT;
	struct names tried = { 0 }, set = { 0 };
	char *path = kbuild_base_config(t), *base = NULL;
	struct kconf basec = KCONF_INIT;
	uint64_t start = util_now_ms();
	bool again = false;
	size_t len, i, k;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->result = (struct kconf)KCONF_INIT;
	if (util_read_file(path, &base, &len, 64 << 20)) {
		strbuf_addf(err, "cannot read '%s'", path);
		goto out;
	}
	if (kconf_index_build(&ix, t->src, kconf_srcarch(t->arch.kernel_arch), err))
		goto out;
	for (i = 0; i < nr; i++)
		names_add(&tried, bare(want[i]));
	/*
	 * Each olddefconfig parses the whole Kconfig, compiler probes and
	 * all (seconds): the dependencies the base's .config lacks are
	 * tried in the first run already, not a run later each.  Selectors
	 * wait until a symbol did not stick: a symbol without a prompt
	 * may well follow from what is asked.
	 */
	kconf_parse(&basec, base, len);
	for (k = 0; k < ROUNDS; k++) {
		size_t nr_before = tried.nr;

		for (i = 0; i < nr_before; i++)
			if (!kconf_on(&basec, tried.v[i], false))
				more(&ix, &basec, i, &tried, false);
		if (tried.nr == nr_before)
			break;
	}
	while (out->rounds < ROUNDS) {
		bool added = false;

		if (olddefconfig(t, base, len, &tried, &out->result, err))
			goto out;
		out->rounds++;
		for (i = 0; i < tried.nr; i++)
			if (!kconf_on(&out->result, tried.v[i], false))
				added |= more(&ix, &out->result, i, &tried, true);
		if (!added)
			break;
	}
	/*
	 * The fragment: what stuck of what was asked, and what stuck of
	 * what was tried for those; once more with it alone, to be sure
	 */
	for (i = 0; i < tried.nr; i++) {
		if (kconf_on(&out->result, tried.v[i], false) &&
		    kconf_on(&out->result, tried.v[tried.from[i]], false))
			names_add(&set, tried.v[i]);
		else if (!same(&basec, &out->result, tried.v[i]))
			again = true;
	}
	/*
	 * What was tried in vain and came out as the base has it changed
	 * nothing: the run with the fragment alone would give the same
	 */
	if (again) {
		if (olddefconfig(t, base, len, &set, &out->result, err))
			goto out;
		out->rounds++;
	}
	for (i = 0; i < set.nr; i++) {
		if (!kconf_on(&out->result, set.v[i], false))
			continue;
		ALLOC_GROW(out->set, out->set_nr + 1, out->set_alloc);
		out->set[out->set_nr++] = xasprintf("CONFIG_%s", set.v[i]);
	}
	if (out->set_nr)
		qsort(out->set, out->set_nr, sizeof(*out->set), by_name);
	for (i = 0; i < nr; i++) {
		struct repair_fail *f;

		if (kconf_on(&out->result, bare(want[i]), false) ||
		    repair_failed(out, want[i]))
			continue;
		ALLOC_GROW(out->fail, out->fail_nr + 1, out->fail_alloc);
		f = &out->fail[out->fail_nr++];
		f->sym = xasprintf("CONFIG_%s", bare(want[i]));
		explain(t, &ix, &out->result, bare(want[i]), f);
	}
	ret = 0;
out:
	out->ms = util_now_ms() - start;
	names_release(&tried);
	names_release(&set);
	kconf_release(&basec);
	kconf_index_release(&ix);
	free(base);
	free(path);
	return ret;
}

const struct repair_fail *repair_failed(const struct repair *r, const char *sym)
{
	size_t i;

	for (i = 0; i < r->fail_nr; i++)
		if (!strcmp(bare(r->fail[i].sym), bare(sym)))
			return &r->fail[i];
	return NULL;
}

void repair_fragment(const struct repair *r, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < r->set_nr; i++)
		strbuf_addf(out, "%s=y\n", r->set[i]);
}

void repair_release(struct repair *r)
{
	size_t i;

	for (i = 0; i < r->set_nr; i++)
		free(r->set[i]);
	free(r->set);
	for (i = 0; i < r->fail_nr; i++) {
		free(r->fail[i].sym);
		free(r->fail[i].why);
	}
	free(r->fail);
	kconf_release(&r->result);
	memset(r, 0, sizeof(*r));
}
