// SPDX-License-Identifier: GPL-2.0
/*
 * ci/repair.c and ci/readers.c on a cut-down kernel tree
 * (tests/fixtures/repair-tree): an option that needs another turned off
 * (SLUB_DEBUG, KASAN: !SLUB_TINY, on in the base as in tinyconfig),
 * options asked off (kept on when an option asked on needs them, or
 * when the arch selects them), and a header that no unit of the base
 * reads: its readers found, and the options that build one of them.
 * The prediction the repair starts from (cover_predict_run()) on a
 * change to both branches of an #ifdef: the first arch keeps the
 * option on, another takes the other branch unless that loses its own
 * arch/ code.
 *
 * Kconfig here is a model of olddefconfig, enough for this tree's
 * plain "depends on" lists: a symbol with a prompt is on when the
 * .config asks it and its dependencies hold, any symbol is on when an
 * enabled one selects it, a symbol without a prompt is what the base
 * has (its default) otherwise, whatever the .config asks.  The repair itself knows none of that: it
 * only reads what the model answers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "ci/cover-run.h"
#include "ci/readers.h"
#include "ci/repair.h"
#include "tests/unit/tap.h"
#include "tests/unit/tap-sh.h"

struct model {
	struct kconf_index ix;
	struct kconf base;	/* the defaults of symbols without a prompt */
	unsigned int runs;
};

static bool deps_hold(const struct kconf_sym *s, const struct strmap *on)
{
	size_t i;

	for (i = 0; i < s->deps_nr; i++) {
		bool neg = s->deps[i][0] == '!';

		if (!!strmap_get(on, s->deps[i] + neg) == neg)
			return false;
	}
	return true;
}

static int fake_olddefconfig(void *data, const char *config, size_t len,
			     struct kconf *result, struct strbuf *err)
{
	struct model *m = data;
	struct kconf in = KCONF_INIT;
	struct strmap on = STRMAP_INIT, next;
	struct strbuf out = STRBUF_INIT;
	size_t i, j, round;

	(void)err;
	m->runs++;
	kconf_parse(&in, config, len);
	for (i = 0; i < m->ix.nr; i++)
		if (kconf_on(&in, m->ix.v[i]->name, false))
			strmap_put(&on, m->ix.v[i]->name, (void *)1);
	for (round = 0; round < 8; round++) {
		next = (struct strmap)STRMAP_INIT;
		for (i = 0; i < m->ix.nr; i++) {
			const struct kconf_sym *s = m->ix.v[i];
			bool v = kconf_on(s->prompt ? &in : &m->base, s->name, false) &&
				deps_hold(s, &on);

			for (j = 0; j < s->sel_nr; j++)
				v |= !!strmap_get(&on, s->selected_by[j]);
			if (v)
				strmap_put(&next, s->name, (void *)1);
		}
		strmap_release(&on);
		on = next;
	}
	for (i = 0; i < m->ix.nr; i++)
		if (strmap_get(&on, m->ix.v[i]->name))
			strbuf_addf(&out, "CONFIG_%s=y\n", m->ix.v[i]->name);
	kconf_release(result);
	kconf_parse(result, out.buf, out.len);
	strbuf_release(&out);
	strmap_release(&on);
	kconf_release(&in);
	return 0;
}

/* tinyconfig's way: EXPERT and SLUB_TINY on */
static const char base[] =
	"CONFIG_X86=y\nCONFIG_ARCH_KEEPS_THING=y\nCONFIG_EXPERT=y\nCONFIG_SYSFS=y\n"
	"CONFIG_SLUB_TINY=y\nCONFIG_MEMCG=y\n# CONFIG_KFENCE is not set\n";

static char *joined(char *const *v, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", v[i]);
	return strbuf_detach(&sb, NULL);
}

/* Repair on (space separated) and off: "set=... unset=..." */
static char *repair(struct model *m, const char *tree, const char *on, const char *off,
		    struct repair *r)
{
	struct repair_kconfig k = {
		.srcdir = tree, .srcarch = "x86", .base = base, .len = strlen(base),
		.olddefconfig = fake_olddefconfig, .data = m,
	};
	struct cover_needs want = { 0 };
	struct strbuf err = STRBUF_INIT;
	char *list, *p, *set, *unset, *ret;

	list = xstrdup(on);
	for (p = strtok_r(list, " ", &set); p; p = strtok_r(NULL, " ", &set))
		cover_needs_on(&want, p);
	free(list);
	list = xstrdup(off);
	for (p = strtok_r(list, " ", &set); p; p = strtok_r(NULL, " ", &set))
		cover_needs_off(&want, p);
	free(list);
	m->runs = 0;
	if (repair_resolve(&k, &want, r, &err)) {
		ret = xasprintf("error: %s", err.buf);
	} else {
		set = joined(r->set, r->set_nr);
		unset = joined(r->unset, r->unset_nr);
		ret = xasprintf("set=%s unset=%s", set, unset);
		free(set);
		free(unset);
	}
	cover_needs_release(&want);
	strbuf_release(&err);
	return ret;
}

static void test_off(const char *tree)
{
	struct model m = { .ix = KCONF_INDEX_INIT, .base = KCONF_INIT };
	struct strbuf err = STRBUF_INIT, frag = STRBUF_INIT;
	const struct repair_fail *f;
	struct repair r;
	char *got;

	is_int(kconf_index_build(&m.ix, tree, "x86", &err), 0, "the tree's Kconfig");
	kconf_parse(&m.base, base, strlen(base));

	got = repair(&m, tree, "CONFIG_SLUB_DEBUG", "", &r);
	is_str(got, "set=CONFIG_SLUB_DEBUG unset=CONFIG_SLUB_TINY",
	       "SLUB_DEBUG depends on !SLUB_TINY: SLUB_TINY turned off");
	ok(kconf_on(&r.result, "SLUB_DEBUG", false) && !kconf_on(&r.result, "SLUB_TINY", true),
	   "and Kconfig's answer has it so");
	is_int(r.fail_nr, 0, "nothing failed");
	is_int(m.runs, 1, "in one olddefconfig run: the base's .config says SLUB_TINY is on");
	repair_fragment(&r, &frag);
	is_str(frag.buf, "CONFIG_SLUB_DEBUG=y\n# CONFIG_SLUB_TINY is not set\n",
	       "the fragment turns it off");
	strbuf_release(&frag);
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "CONFIG_KASAN", "", &r);
	is_str(got, "set=CONFIG_KASAN unset=CONFIG_SLUB_TINY", "KASAN: depends on SLUB_TINY = n");
	ok(kconf_on(&r.result, "STACKDEPOT", false), "what it selects follows");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "CONFIG_SLUB_DEBUG CONFIG_TINY_STATS", "", &r);
	is_str(got, "set=CONFIG_TINY_STATS unset=",
	       "an option asked on needs SLUB_TINY: it stays on");
	f = repair_failed(&r, "CONFIG_SLUB_DEBUG");
	is_str(f ? f->why : NULL, "depends on !SLUB_TINY", "SLUB_DEBUG reported, with why");
	ok(f && !f->arch && !f->off, "not the arch's doing");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "CONFIG_KASAN_HW_TAGS", "", &r);
	is_str(got, "set= unset=",
	       "KASAN_HW_TAGS: what was tried for it (KASAN, SLUB_TINY off) is not kept");
	f = repair_failed(&r, "CONFIG_KASAN_HW_TAGS");
	is_str(f ? f->why : NULL,
	       "depends on KASAN, HAVE_ARCH_KASAN_HW_TAGS (selected by arm64 only)",
	       "a hidden capability only arm64 selects");
	ok(f && f->arch, "the arch's doing");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "CONFIG_SLUB_DEBUG CONFIG_OLD_SLAB_USER", "", &r);
	is_str(got, "set=CONFIG_OLD_SLAB_USER unset=",
	       "an option asked on selects SLUB_TINY: it stays on");
	ok(repair_failed(&r, "CONFIG_SLUB_DEBUG") && !repair_failed(&r, "CONFIG_OLD_SLAB_USER"),
	   "SLUB_DEBUG is the one reported");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "", "CONFIG_MEMCG", &r);
	is_str(got, "set= unset=CONFIG_MEMCG", "a line under #ifndef CONFIG_MEMCG: MEMCG off");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "CONFIG_MEMCG_V1", "CONFIG_MEMCG", &r);
	is_str(got, "set=CONFIG_MEMCG_V1 unset=", "MEMCG_V1 asked on needs MEMCG: kept on");
	f = repair_failed_off(&r, "CONFIG_MEMCG");
	is_str(f ? f->why : NULL, "kept on: CONFIG_MEMCG_V1 needs it", "reported, with why");
	ok(f && f->off && !repair_failed(&r, "CONFIG_MEMCG"), "as an option asked off");
	repair_release(&r);
	free(got);

	got = repair(&m, tree, "", "CONFIG_ARCH_KEEPS_THING", &r);
	is_str(got, "set= unset=", "an option the arch selects cannot be turned off");
	f = repair_failed_off(&r, "CONFIG_ARCH_KEEPS_THING");
	is_str(f ? f->why : NULL, "selected by X86", "reported: who selects it");
	ok(f && f->arch, "the arch's doing");
	repair_release(&r);
	free(got);

	kconf_index_release(&m.ix);
	kconf_release(&m.base);
	strbuf_release(&err);
}

static bool inc(const char *path, const char *line, const char *header)
{
	return readers_includes(path, line, strlen(line), header);
}

static void test_includes(void)
{
	ok(inc("mm/kasan/common.c", "#include \"kasan.h\"", "mm/kasan/kasan.h"),
	   "a quoted name beside the file");
	ok(inc("mm/kasan/report.c", "#include \"../kasan/kasan.h\"", "mm/kasan/kasan.h"), "a quoted name through ..");
	ok(!inc("mm/slub.c", "#include \"kasan.h\"", "mm/kasan/kasan.h"),
	   "the same name elsewhere is another file");
	ok(inc("mm/slub.c", " #  include <linux/kfence.h> /* x */", "include/linux/kfence.h"), "<linux/...>, spaces around #");
	ok(inc("mm/memory.c", "#include <linux/uapi_thing.h>", "include/uapi/linux/uapi_thing.h"), "a uapi header by its <linux/> name");
	ok(inc("mm/memory.c", "#include <asm/x.h>", "arch/x86/include/asm/x.h"),
	   "an arch header by its <asm/> name");
	ok(!inc("mm/memory.c", "/* #include <linux/kfence.h> */", "include/linux/kfence.h"), "a comment is not an #include");
}

static bool compiled_here(void *data, const char *path)
{
	(void)data;
	return !strcmp(path, "mm/slub.c") || !strcmp(path, "mm/memory.c");
}

static void test_readers(const char *tree)
{
	struct cover_memo memo = COVER_MEMO_INIT;
	struct cover_predict p = {
		.srcdir = tree, .srcarch = "x86", .compiled = compiled_here,
		.readers = &memo,
	};
	struct cover_needs want = { 0 };
	struct readers r;
	struct kconf c = KCONF_INIT, rep = KCONF_INIT;
	char *got;

	readers_find(tree, "mm/kasan/kasan.h", "x86", READERS_MAX, READERS_MS, &r);
	got = joined(r.v, r.nr);
	is_str(got, "mm/kasan/common.c mm/kasan/report.c", "the readers of mm/kasan/kasan.h");
	ok(!r.partial, "all of them");
	free(got);
	readers_release(&r);
	readers_find(tree, "include/linux/kasan.h", "x86", READERS_MAX, READERS_MS, &r);
	got = joined(r.v, r.nr);
	is_str(got, "mm/kasan/common.c", "include/linux/kasan.h: mm/ first, not arm64's, "
	       "not tools/, not a header");
	free(got);
	readers_release(&r);
	readers_find(tree, "include/linux/kasan.h", "arm64", 1, READERS_MS, &r);
	ok(r.nr == 1 && r.partial, "at most max: the search stops there");
	readers_release(&r);
	readers_find(tree, "include/linux/never.h", "x86", READERS_MAX, READERS_MS, &r);
	is_int((int)r.nr, 1, "an #include under #if 0 is still a reader (its #if is judged later)");
	readers_release(&r);

	/* the small profile: KASAN and KFENCE off */
	kconf_parse(&c, base, strlen(base));
	ok(!cover_predict_header(&p, &c, "mm/kasan/kasan.h", &want),
	   "mm/kasan/kasan.h: no unit the base builds reads it");
	got = joined(want.on, want.on_nr);
	is_str(got, "CONFIG_KASAN", "what builds its reader is wanted");
	free(got);
	cover_needs_release(&want);
	ok(!cover_predict_header(&p, &c, "include/linux/kfence.h", &want),
	   "include/linux/kfence.h: mm/slub.c is built, its #include is not taken");
	got = joined(want.on, want.on_nr);
	is_str(got, "CONFIG_KFENCE", "the #ifdef around the #include is what is wanted");
	free(got);
	cover_needs_release(&want);
	ok(!cover_predict_header(&p, &c, "mm/damon/tests/core-kunit.h", &want),
	   "a kunit header of mm/damon/tests");
	got = joined(want.on, want.on_nr);
	is_str(got, "CONFIG_MEMCG_V1", "read by mm/a_reader.c (found first) and mm/damon/core.c");
	free(got);
	cover_needs_release(&want);
	cover_needs_on(&want, "CONFIG_DAMON");
	cover_predict_header(&p, &c, "mm/damon/tests/core-kunit.h", &want);
	got = joined(want.on, want.on_nr);
	is_str(got, "CONFIG_DAMON", "the series asks DAMON already: mm/damon/core.c, nothing more");
	free(got);
	cover_needs_release(&want);
	ok(!cover_predict_header(&p, &c, "include/linux/never.h", &want) && !want.on_nr &&
	   !want.off_nr, "read only under #if 0: nothing to want");
	cover_needs_release(&want);

	/* repaired: KASAN on */
	kconf_parse(&rep, "CONFIG_KASAN=y\nCONFIG_KFENCE=y\n", 31);
	ok(cover_predict_header(&p, &rep, "mm/kasan/kasan.h", &want) && !want.on_nr,
	   "with KASAN on, mm/kasan/kasan.h is read");
	ok(cover_predict_header(&p, &rep, "include/linux/kfence.h", &want) && !want.on_nr,
	   "with KFENCE on, include/linux/kfence.h is read");
	is_int((int)memo.nr, 4, "each header's readers looked for once");
	cover_needs_release(&want);
	kconf_release(&c);
	kconf_release(&rep);
	cover_memo_release(&memo);
}

/*
 * A header's two branches of #ifdef CONFIG_MEMCG, the stubs of the
 * #else for !MEMCG, and an x86 header with a line under MEMCG; the
 * commits change: "both" both branches; "v1" those and a file the
 * Makefile builds under ifdef CONFIG_MEMCG with MEMCG_V1 (which wants
 * MEMCG on); "x86" both branches and the x86 header's line
 */
static const char repo_script[] =
	"mkdir -p include/linux arch/x86/include/asm mm\n"
	"printf '#ifndef _LINUX_MEMCONTROL_H\\n#define _LINUX_MEMCONTROL_H\\n"
	"#ifdef CONFIG_MEMCG\\nint mem_cgroup_charge(int x);\\n#else\\n"
	"static inline int mem_cgroup_charge(int x)\\n{\\n\\treturn 0;\\n}\\n"
	"#endif\\n#endif\\n' >include/linux/memcontrol.h\n"
	"printf '#ifdef CONFIG_MEMCG\\n#define ARCH_MEMCG 1\\n#endif\\n' "
	">arch/x86/include/asm/memcg.h\n"
	"printf 'int v1;\\n' >mm/memcontrol-v1.c\n"
	"git init -q -b main . && git add -A && git commit -qm base && git tag base\n"
	"sed -i 's/int x)/int x, int y)/' include/linux/memcontrol.h\n"
	"git commit -qam both && git branch both\n"
	"printf 'int v1(void);\\n' >mm/memcontrol-v1.c && git commit -qam v1 && git branch v1\n"
	"git checkout -q both && git checkout -qb x86\n"
	"sed -i 's/ARCH_MEMCG 1/ARCH_MEMCG 2/' arch/x86/include/asm/memcg.h\n"
	"git commit -qam x86\n";

/* want of the prediction of commit on base, as "on=... off=... branched=..." */
static char *predict(const char *tree, const char *git_dir, const char *commit,
		     const char *srcarch, bool other, int *changed, int *compiled)
{
	char *const commits[] = { (char *)commit, NULL };
	struct cover_needs want = { 0 }, branched = { 0 };
	struct cover_predict p = {
		.git_dir = git_dir, .base = "base", .commits = commits, .nr = 1,
		.srcdir = tree, .srcarch = srcarch, .other_branch = other,
		.branched = &branched,
	};
	struct kconf c = KCONF_INIT;
	struct strbuf err = STRBUF_INIT;
	char *on, *off, *br, *ret;

	kconf_parse(&c, base, strlen(base));
	if (cover_predict_run(&p, &c, &want, changed, compiled, &err)) {
		ret = xasprintf("error: %s", err.buf);
	} else {
		on = joined(want.on, want.on_nr);
		off = joined(want.off, want.off_nr);
		br = joined(branched.off, branched.off_nr);
		ret = xasprintf("on=%s off=%s branched=%s", on, off, br);
		free(on);
		free(off);
		free(br);
	}
	cover_needs_release(&want);
	cover_needs_release(&branched);
	kconf_release(&c);
	strbuf_release(&err);
	return ret;
}

static const struct {
	const char *commit, *srcarch;
	bool other;		/* an arch after the first */
	const char *want, *name;
} branch_cases[] = {
	{ "both", "x86", false, "on= off= branched=",
	  "both branches of #ifdef CONFIG_MEMCG changed, the first arch: MEMCG stays "
	  "on, its #ifdef's line would be lost" },
	{ "both", "x86", true, "on= off=CONFIG_MEMCG branched=CONFIG_MEMCG",
	  "an arch after the first takes the other branch: MEMCG asked off" },
	{ "v1", "x86", false, "on=CONFIG_MEMCG_V1 CONFIG_MEMCG off= branched=",
	  "a file built under ifdef CONFIG_MEMCG wants it on: not asked off" },
	{ "v1", "x86", true, "on=CONFIG_MEMCG_V1 off=CONFIG_MEMCG branched=CONFIG_MEMCG",
	  "the other branch: MEMCG asked off, and not on" },
	{ "x86", "x86", true, "on= off= branched=",
	  "x86's own header would lose its line under MEMCG: no other branch on x86" },
	{ "x86", "arm64", true, "on= off=CONFIG_MEMCG branched=CONFIG_MEMCG",
	  "x86's header is not arm64's to compile: the other branch there" },
};

static void test_branch(const char *tree)
{
	char tmpl[] = "/tmp/lorebot-t-repair.XXXXXX";
	char *dir = mkdtemp(tmpl), *git_dir, *got;
	int changed = 0, compiled = 0;
	size_t i;

	if (!dir || sh(dir, repo_script)) {
		ok(0, "the repository of the branch tests");
		return;
	}
	git_dir = xasprintf("%s/.git", dir);
	for (i = 0; i < ARRAY_SIZE(branch_cases); i++) {
		got = predict(tree, git_dir, branch_cases[i].commit, branch_cases[i].srcarch,
			      branch_cases[i].other, &changed, &compiled);
		is_str(got, branch_cases[i].want, "%s", branch_cases[i].name);
		free(got);
		if (!i)
			ok(changed == 2 && compiled == 1,
			   "2 changed lines, the #ifdef's compiled (%d of %d)", compiled,
			   changed);
	}
	free(git_dir);
	util_remove_tree(dir);
}

int main(void)
{
	char *tree = xasprintf("%s/tests/fixtures/repair-tree", tap_src());

	test_off(tree);
	test_includes();
	test_readers(tree);
	test_branch(tree);
	free(tree);
	return done_testing();
}
