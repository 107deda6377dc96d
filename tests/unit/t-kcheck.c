// SPDX-License-Identifier: GPL-2.0
/*
 * The checkers' table: which arches ask for clang, units, missing programs,
 * Coccinelle's style rules, a base cache kept before rules were named
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "ci/kcheck.h"
#include "tests/unit/tap.h"

static const struct kcheck *clang = &kchecks[KCHECK_CLANG];

/* kcheck_wanted(clang) with build.clang set to each of values in turn */
static bool wanted(const char *arch, const char *const *values)
{
	struct config cfg = CONFIG_INIT;
	bool ret;

	for (; *values; values++)
		config_set(&cfg, "build.clang", *values);
	config_parse(&cfg, NULL);
	ret = kcheck_wanted(clang, &cfg, arch);
	config_release(&cfg);
	return ret;
}

static void test_wanted(void)
{
	struct config cfg = CONFIG_INIT;
	const char *const comma[] = { "x86_64, riscv", NULL };
	const char *const spaces[] = { "arm64\triscv  ", NULL };
	const char *const lines[] = { "", "arm64", NULL };
	const char *const empty[] = { "", NULL };
	const char *const prefix[] = { "x86", "riscv64", NULL };

	config_parse(&cfg, NULL);

	ok(kcheck_wanted(clang, &cfg, "x86_64"), "clang: x86_64 by default");
	ok(!kcheck_wanted(clang, &cfg, "arm64"), "not arm64");
	ok(kcheck_wanted(&kchecks[KCHECK_SPARSE], &cfg, "riscv"),
	   "sparse: a bool, on by default for every arch");
	ok(!kcheck_wanted(&kchecks[KCHECK_COCCI], &cfg, "x86_64"), "coccicheck: off");
	ok(wanted("riscv", comma) && wanted("x86_64", comma) && !wanted("arm64", comma),
	   "\"x86_64, riscv\": those two");
	ok(wanted("arm64", spaces) && wanted("riscv", spaces) && !wanted("x86_64", spaces),
	   "blanks separate too");
	ok(wanted("arm64", lines) && !wanted("x86_64", lines),
	   "a line each adds (an empty one first, as the tests write it)");
	ok(!wanted("x86_64", empty) && !wanted("arm64", empty), "empty: none");
	ok(!wanted("x86_64", prefix) && !wanted("riscv", prefix),
	   "a name matches whole, not as a prefix");
	config_release(&cfg);
}

static void test_units(void)
{
	char *u = kcheck_unit(clang, "mm/util.c");

	is_str(u, "mm/util.c.clang", "clang's unit of mm/util.c");
	ok(kcheck_is_unit(clang, u) && kcheck_any_unit(u), "is clang's");
	ok(!kcheck_is_unit(&kchecks[KCHECK_SPARSE], u), "not sparse's");
	ok(kcheck_is_unit(clang, "make LLVM=1"), "its top unit");
	ok(!kcheck_any_unit("mm/util.o"), "gcc's object is no checker's");
	free(u);
}

static void test_missing(void)
{
	char dir[] = "/tmp/lorebot-t-kcheck.XXXXXX";
	char *path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL, *p;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	setenv("PATH", dir, 1);
	is_str(kcheck_missing(clang), "clang", "no clang on PATH: clang is named");
	p = xasprintf("%s/clang", dir);
	util_write_file(p, "#!/bin/sh\n", 10);
	chmod(p, 0755);
	is_str(kcheck_missing(clang), "ld.lld", "clang alone: ld.lld is named");
	is_str(clang->package, "clang, lld and llvm", "with the Debian packages");
	unlink(p);
	free(p);
	rmdir(dir);
	if (path)
		setenv("PATH", path, 1);
	free(path);
}

static void test_style(void)
{
	struct diag d = { .tool = "coccinelle", .option = "api/memdup" };

	ok(kcheck_cocci_style("api/alloc/zalloc-simple"), "zalloc-simple: style");
	ok(kcheck_cocci_style("null/badzero"), "badzero: style");
	ok(!kcheck_cocci_style("null/deref_null"), "deref_null: a bug class");
	ok(!kcheck_cocci_style("tests/doubletest"), "doubletest: a bug class");
	ok(!kcheck_cocci_style("misc/ifcol"), "ifcol (misleading indentation): mailed");
	ok(!kcheck_cocci_style("api/memdup2"), "a rule the table does not know: mailed");
	ok(!kcheck_cocci_style(""), "no rule: mailed");
	ok(kcheck_style(&d), "a Coccinelle finding of api/memdup is style");
	d.tool = "gcc";
	ok(!kcheck_style(&d), "gcc's never");
}

/* A cache whose Coccinelle findings name no rule is made again */
static void test_stale_cache(void)
{
	static const struct kcheck *cocci = &kchecks[KCHECK_COCCI];
	char dir[] = "/tmp/lorebot-t-kcheck.XXXXXX";
	struct kbuild_tree t = { .dir = dir };
	struct diag d = {
		.unit = "mm/util.c.cocci", .file = "mm/util.c", .line = 3, .col = 1,
		.sev = DIAG_WARNING, .option = "", .function = "", .message = "x",
		.tool = "coccinelle",
	};
	struct diag_list l = DIAG_LIST_INIT, out = DIAG_LIST_INIT;
	char *cmd;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	ok(kcheck_base_load(cocci, &t, "mm/util.c", &out), "nothing kept: -1");
	diag_list_add(&l, &d);
	kcheck_base_save(cocci, &t, "mm/util.c", &l);
	ok(kcheck_base_load(cocci, &t, "mm/util.c", &out) && !out.nr,
	   "kept before rules were named: -1, nothing loaded");
	diag_list_release(&l);
	d.option = "api/memdup";
	diag_list_add(&l, &d);
	kcheck_base_save(cocci, &t, "mm/util.c", &l);
	ok(!kcheck_base_load(cocci, &t, "mm/util.c", &out) && out.nr == 1,
	   "named by their rule: loaded");
	is_str(out.nr ? out.v[0].option : "", "api/memdup", "with the rule");
	diag_list_release(&out);
	d.option = "";
	d.tool = "sparse";
	d.unit = "mm/util.c.sparse";
	diag_list_release(&l);
	diag_list_add(&l, &d);
	kcheck_base_save(&kchecks[KCHECK_SPARSE], &t, "mm/util.c", &l);
	ok(!kcheck_base_load(&kchecks[KCHECK_SPARSE], &t, "mm/util.c", &out) && out.nr == 1,
	   "sparse's findings have no rule: loaded");
	diag_list_release(&out);
	diag_list_release(&l);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd))
		ok(0, "rm -rf");
	free(cmd);
}

/* The make lines a developer runs to see a checker's findings */
static void test_recipe(void)
{
	struct kbuild_tree t = { .arch = *arch_lookup("riscv") };
	char *files[] = { "mm/util.c", "mm/rmap.c" };
	struct strbuf sb = STRBUF_INIT;

	kcheck_recipe(&kchecks[KCHECK_SPARSE], &t, "build", files, 2, &sb);
	is_str(sb.buf, "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build C=2 "
	       "mm/util.o mm/rmap.o\n", "sparse: C=2 on the files' objects");
	strbuf_reset(&sb);
	kcheck_recipe(&kchecks[KCHECK_COCCI], &t, "build", files, 1, &sb);
	is_str(sb.buf, "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build C=2 "
	       "CHECK=$PWD/scripts/coccicheck MODE=report mm/util.o\n",
	       "Coccinelle: the tree's coccicheck, by a path make finds from O=");
	strbuf_reset(&sb);
	kcheck_recipe(&kchecks[KCHECK_CLANG], &t, "build", files, 1, &sb);
	is_str(sb.buf, "mkdir -p build-clang && cp build/.config build-clang/\n"
	       "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build-clang LLVM=1 olddefconfig\n"
	       "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build-clang LLVM=1 mm/util.o\n",
	       "clang: its own O= directory, the .config made again for clang");
	strbuf_reset(&sb);
	kcheck_recipe(&kchecks[KCHECK_SPARSE], &t, "build", files, 0, &sb);
	is_str(sb.buf, "", "no file: no line");
	strbuf_release(&sb);
}

int main(void)
{
	test_recipe();
	test_wanted();
	test_units();
	test_missing();
	test_style();
	test_stale_cache();
	return done_testing();
}
