// SPDX-License-Identifier: GPL-2.0
/* Build profiles: built-in recipes, configuration, fragment lookup, hash */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util.h"
#include "ci/profile.h"
#include "tests/unit/tap.h"

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	util_write_file(p, text, strlen(text));
	free(p);
}

int main(void)
{
	char tmpl[] = "/tmp/lorebot-t-profile.XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct arch *riscv = arch_lookup("riscv");
	struct profile p, q;
	char hash[17];

	put(dir, "boot.config", "CONFIG_TTY=y\n");
	put(dir, "boot-riscv.config", "CONFIG_FPU=y\n");
	put(dir, "mm.config", "CONFIG_SMP=y\n");
	put(dir, "kselftest.config", "CONFIG_PROC_FS=y\n");
	put(dir, "extra.config", "CONFIG_KSM=y\n");
	config_set(&cfg, "build.fragments", dir);
	config_parse(&cfg, NULL);

	ok(!profile_load(&cfg, "small", riscv, &p, &err), "small loads");
	is_str(p.base, "tinyconfig", "small: tinyconfig");
	is_int(p.nr, 4, "small: four fragments");
	ok(p.nr == 4 && util_ends_with(p.fragments[1], "/boot-riscv.config"),
	   "{arch} is the arch's name");
	memcpy(hash, p.hash, sizeof(hash));
	profile_release(&p);

	ok(!profile_load(&cfg, "production", riscv, &p, &err), "production loads");
	is_str(p.base, "defconfig", "production: defconfig");
	ok(p.nr == 1 && util_ends_with(p.fragments[0], "/mm.config"), "production: mm.config");
	ok(strcmp(p.hash, hash), "another recipe, another hash");
	profile_release(&p);

	put(dir, "mm.config", "CONFIG_SMP=y\nCONFIG_SWAP=y\n");
	ok(!profile_load(&cfg, "small", riscv, &p, &err), "small loads again");
	ok(strcmp(p.hash, hash), "a fragment's content is part of the hash");
	profile_release(&p);

	ok(profile_load(&cfg, "huge", riscv, &p, &err) < 0, "unknown profile");
	ok(strstr(err.buf, "unknown build profile 'huge'") != NULL, "named: %s", err.buf);
	strbuf_reset(&err);

	config_set(&cfg, "profile.mine.base", "allnoconfig");
	config_set(&cfg, "profile.mine.fragment", "mm.config");
	config_set(&cfg, "arch.riscv.fragment", "extra.config");
	config_parse(&cfg, NULL);
	ok(!profile_load(&cfg, "mine", riscv, &p, &err), "a configured profile");
	is_str(p.base, "allnoconfig", "its base");
	ok(p.nr == 2 && util_ends_with(p.fragments[1], "/extra.config"),
	   "arch fragments come last");
	ok(!profile_load(&cfg, "mine", arch_lookup("arm64"), &q, &err),
	   "the same profile for arm64");
	is_int(q.nr, 1, "without riscv's fragment");
	profile_release(&p);
	profile_release(&q);

	config_set(&cfg, "profile.mine.fragment", "missing.config");
	config_parse(&cfg, NULL);
	ok(profile_load(&cfg, "mine", riscv, &p, &err) < 0, "missing fragment");
	ok(strstr(err.buf, "missing.config") != NULL, "named: %s", err.buf);

	strbuf_release(&err);
	config_release(&cfg);
	util_remove_tree(dir);
	return done_testing();
}
