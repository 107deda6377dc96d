// SPDX-License-Identifier: GPL-2.0
/*
 * ci/kconf.c and ci/needs.c on a cut-down kernel tree
 * (tests/fixtures/kbuild-tree): a .config's values, the Kconfig index
 * of one arch (sources followed, help skipped, if/menu dependencies,
 * selects), and the Makefile lines that build an object.
 */
#include <stdlib.h>

#include "lib/util.h"
#include "ci/kconf.h"
#include "ci/needs.h"
#include "tests/unit/tap.h"

static bool has(char *const *v, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static void test_index(const char *tree)
{
	struct kconf_index ix = KCONF_INDEX_INIT;
	struct strbuf err = STRBUF_INIT, where = STRBUF_INIT;
	const struct kconf_sym *s;

	is_int(kconf_index_build(&ix, tree, "x86", &err), 0, "index of x86");
	is_int(ix.files, 4, "Kconfig, arch/x86, mm, mm/damon: a missing osource skipped");
	ok(kconf_index_get(&ix, "X86_ONLY") && !kconf_index_get(&ix, "ARM64_ONLY"),
	   "x86's symbols, not arm64's");
	ok(!kconf_index_get(&ix, "NOT_A_SYMBOL") && !kconf_index_get(&ix, "NOTHING"),
	   "help text is not read");
	s = kconf_index_get(&ix, "CONFIG_DAMON_VADDR");
	ok(s && s->prompt, "DAMON_VADDR has a prompt (CONFIG_ prefix accepted)");
	ok(s && has(s->deps, s->deps_nr, "DAMON") && has(s->deps, s->deps_nr, "MMU"),
	   "its dependencies");
	is_str(s ? s->file : NULL, "mm/Kconfig", "declared in mm/Kconfig");
	s = kconf_index_get(&ix, "ZSWAP");
	ok(s && has(s->deps, s->deps_nr, "SWAP"), "an if block is a dependency");
	s = kconf_index_get(&ix, "NR_CPUS");
	ok(s && has(s->deps, s->deps_nr, "SMP"), "a menu's depends on is a dependency");
	s = kconf_index_get(&ix, "OLD_THING");
	ok(s && has(s->deps, s->deps_nr, "BROKEN") && has(s->deps, s->deps_nr, "!MMU"),
	   "a continued depends on, a negation");
	s = kconf_index_get(&ix, "PAGE_IDLE_FLAG");
	ok(s && !s->prompt && has(s->selected_by, s->sel_nr, "DAMON_VADDR"),
	   "no prompt, selected by DAMON_VADDR");
	s = kconf_index_get(&ix, "ARCH_HAS_THING");
	ok(s && !s->prompt && has(s->selected_by, s->sel_nr, "X86"), "selected by the arch");
	ok(!kconf_index_get(&ix, "PPC_THING"), "selected, not declared: not x86's");
	s = kconf_index_get(&ix, "DAMON_SYSFS");
	is_str(s ? s->file : NULL, "mm/damon/Kconfig", "rsource: relative to mm/");
	kconf_declared_in_arches(tree, "CONFIG_ARM64_ONLY", &where);
	is_str(where.buf, "arm64", "ARM64_ONLY is declared for arm64 (menuconfig)");
	strbuf_reset(&where);
	kconf_declared_in_arches(tree, "DAMON", &where);
	is_str(where.buf, "", "DAMON: no arch's");
	is_str(kconf_srcarch("x86_64"), "x86", "x86_64 -> x86");
	kconf_index_release(&ix);
	kconf_index_build(&ix, tree, "arm64", &err);
	ok(kconf_index_get(&ix, "ARM64_ONLY") && !kconf_index_get(&ix, "X86"), "index of arm64");
	kconf_index_release(&ix);
	strbuf_release(&where);
	strbuf_release(&err);
}

/* needs of path: "ret on:A,B off:C fixed:..." */
static char *needs(const char *tree, const char *path, const char *arch, const char *cfg)
{
	struct kconf c = KCONF_INIT;
	struct cover_needs n = { 0 };
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	size_t i;
	int r;

	kconf_parse(&c, cfg, strlen(cfg));
	r = needs_object(tree, path, arch, &c, &n, &why);
	strbuf_addf(&sb, "%d on:", r);
	for (i = 0; i < n.on_nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", n.on[i]);
	strbuf_addstr(&sb, " off:");
	for (i = 0; i < n.off_nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "," : "", n.off[i]);
	if (n.fixed)
		strbuf_addf(&sb, " fixed:%s", n.fixed);
	cover_needs_release(&n);
	kconf_release(&c);
	strbuf_release(&why);
	return strbuf_detach(&sb, NULL);
}

static void check(const char *tree, const char *path, const char *arch, const char *cfg,
		  const char *want, const char *what)
{
	char *got = needs(tree, path, arch, cfg);

	is_str(got, want, "%s: %s", path, what);
	free(got);
}

static void test_needs(const char *tree)
{
	const char *mmu = "CONFIG_MMU=y\n";
	struct kconf c = KCONF_INIT;
	struct strbuf why = STRBUF_INIT;
	struct cover_needs n = { 0 };

	check(tree, "mm/filemap.c", "x86", mmu, "0 on: off:", "always built");
	check(tree, "mm/rmap.c", "x86", mmu, "0 on:CONFIG_MMU off:", "a list variable");
	check(tree, "mm/nommu.c", "x86", mmu, "0 on: off:CONFIG_MMU",
	      "replaced by mmu-$(CONFIG_MMU) := ...");
	check(tree, "mm/swapfile.c", "x86", mmu, "0 on:CONFIG_MMU,CONFIG_SWAP off:",
	      "ifdef around it");
	check(tree, "mm/swap_state.c", "x86", mmu, "0 on:CONFIG_SWAP off:", "ifneq (..,)");
	check(tree, "mm/shuffle.c", "x86", mmu, "0 on:CONFIG_SHUFFLE off:",
	      "a composite object's part");
	check(tree, "mm/page_alloc.c", "x86", mmu, "0 on: off:", "a composite object");
	check(tree, "mm/damon/vaddr.c", "x86", mmu, "0 on:CONFIG_DAMON_VADDR,CONFIG_DAMON off:",
	      "the directory's option too");
	check(tree, "mm/mod_only.c", "x86", mmu,
	      "0 on: off: fixed:built as a module only (obj-m)", "obj-m");
	check(tree, "mm/none.c", "x86", mmu, "-1 on: off: fixed:no Makefile line builds mm/none.o",
	      "no line");
	check(tree, "arch/x86/mm/only.c", "x86", mmu, "0 on:CONFIG_X86_ONLY off:", "the arch's dir");
	check(tree, "arch/x86/mm/only.c", "arm64", mmu,
	      "-1 on: off: fixed:arch/x86 is built for that architecture only", "another arch's");
	check(tree, "lib/string.c", "x86", mmu, "0 on: off:", "libs-y of the root Makefile");
	check(tree, "mm/rmap.h", "x86", mmu, "-1 on: off: fixed:not a .c file", "a header");

	kconf_parse(&c, mmu, strlen(mmu));
	needs_object(tree, "mm/damon/vaddr.c", "x86", &c, &n, &why);
	is_str(why.buf, "mm/damon/Makefile:3: obj-$(CONFIG_DAMON_VADDR), "
	       "mm/Makefile:15: obj-$(CONFIG_DAMON), Kbuild:4: obj-y", "the lines that decide");
	cover_needs_release(&n);
	kconf_release(&c);
	strbuf_release(&why);
}

static void test_kconf(void)
{
	struct kconf c = KCONF_INIT;
	static const char cfg[] = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_M=m\n"
		"CONFIG_S=\"x=y\"\nCONFIG_A=n\nnot a line\n";

	kconf_parse(&c, cfg, strlen(cfg));
	is_str(kconf_get(&c, "CONFIG_A"), "n", "the last assignment wins");
	is_str(kconf_get(&c, "S"), "\"x=y\"", "a string, by its bare name");
	ok(!kconf_get(&c, "B"), "not set: no value");
	ok(kconf_on(&c, "M", true) && !kconf_on(&c, "M", false), "m: on only as a module");
	kconf_release(&c);
}

int main(void)
{
	char *tree = xasprintf("%s/tests/fixtures/kbuild-tree", tap_src());

	test_kconf();
	test_index(tree);
	test_needs(tree);
	free(tree);
	return done_testing();
}
