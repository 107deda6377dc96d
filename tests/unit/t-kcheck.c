// SPDX-License-Identifier: GPL-2.0
/* The checkers' table: which arches ask for clang, units, missing programs */
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

int main(void)
{
	test_wanted();
	test_units();
	test_missing();
	return done_testing();
}
