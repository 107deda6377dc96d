// SPDX-License-Identifier: GPL-2.0
/*
 * Old build directories: the first build of an arch (nothing to prune),
 * keeping the most recently used, never one that is in use; the make
 * lines of a recipe without lorebot.
 */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <utime.h>
#include <unistd.h>

#include "lib/util.h"
#include "bot/base/arch.h"
#include "ci/kbuild.h"
#include "tests/unit/tap.h"

static char *root;

/* arch/name with a state file last used at used, and its lock file */
static void old_dir(const char *name, time_t used, bool lock)
{
	char *dir = xasprintf("%s/arch/%s", root, name);
	char *state = xasprintf("%s/state", dir);
	char *lockf = xasprintf("%s.lock", dir);
	struct utimbuf t = { used, used };

	util_mkdir_p(dir, 0755);
	close(open(state, O_WRONLY | O_CREAT, 0644));
	utime(state, &t);
	if (lock)
		close(open(lockf, O_WRONLY | O_CREAT, 0644));
	free(dir);
	free(state);
	free(lockf);
}

static void put_file(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);

	util_write_file(p, text, strlen(text));
	free(p);
}

/* rel (under root) used at used, with a lock file and a recorded size */
static void old_dir_in(const char *rel, time_t used, unsigned int size)
{
	char *dir = xasprintf("%s/%s", root, rel), *state = xasprintf("%s/state", dir);
	char *lockf = xasprintf("%s.lock", dir), *sz = xasprintf("%s/size", rel);
	char *text = xasprintf("%u\n", size);
	struct utimbuf t = { used, used };

	util_mkdir_p(dir, 0755);
	close(open(state, O_WRONLY | O_CREAT, 0644));
	utime(state, &t);
	close(open(lockf, O_WRONLY | O_CREAT, 0644));
	put_file(sz, text);
	free(dir);
	free(state);
	free(lockf);
	free(sz);
	free(text);
}

static bool there_in(const char *rel)
{
	char *dir = xasprintf("%s/%s", root, rel);
	struct stat st;
	bool r = !stat(dir, &st);

	free(dir);
	return r;
}

static bool there(const char *name)
{
	char *dir = xasprintf("%s/arch/%s", root, name);
	struct stat st;
	bool r = !stat(dir, &st);

	free(dir);
	return r;
}

/*
 * kbuild_prune_size(): the recorded sizes of every arch's directories,
 * the oldest removed until under build.cachesize; the current and the
 * seed stay
 */
static void test_prune_size(void)
{
	struct kbuild_env env = { .cache = root, .cache_size = 250 };
	char *b = xasprintf("%s/builds", root), *keep, *seed;
	char *from = xasprintf("%s/arch", root), *to = xasprintf("%s/builds/x86_64", root);

	util_mkdir_p(b, 0755);
	ok(!rename(from, to), "the arch directory under builds/");
	free(from);
	free(to);
	keep = xasprintf("%s/builds/x86_64/cur", root);
	seed = xasprintf("%s/builds/x86_64/repaired", root);
	put_file("builds/x86_64/cur/size", "100\n");
	put_file("builds/x86_64/repaired/size", "100\n");
	old_dir_in("builds/arm64/old", 1, 100);
	old_dir_in("builds/arm64/newer", 50, 100);
	is_int(kbuild_prune_size(&env, keep, seed), 2, "400 > 250: the two others go, oldest first");
	ok(!there_in("builds/arm64/old") && !there_in("builds/arm64/newer"), "... both of arm64");
	ok(there_in("builds/x86_64/cur") && there_in("builds/x86_64/repaired"),
	   "the current and the seed stay, although older");
	env.cache_size = 0;
	old_dir_in("builds/arm64/old", 1, 1000);
	is_int(kbuild_prune_size(&env, keep, NULL), 0, "no build.cachesize: nothing goes");
	free(b);
	free(keep);
	free(seed);
}

/* The make lines of a recipe without lorebot (kbuild_recipe()) */
static void test_recipe(void)
{
	struct kbuild_tree t = { .arch = *arch_lookup("riscv") };
	struct strbuf sb = STRBUF_INIT;
	char *dot;

	t.obj = xasprintf("%s/obj", root);
	mkdir(t.obj, 0755);
	dot = xasprintf("%s/.config", t.obj);
	util_write_file(dot, "CONFIG_MMU=y\n", 13);
	kbuild_recipe(&t, "build", &sb);
	is_str(sb.buf, "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build olddefconfig\n"
	       "make ARCH=riscv CROSS_COMPILE=riscv64-linux-gnu- O=build -j$(nproc) Image\n",
	       "recipe: olddefconfig, then the image");
	util_write_file(dot, "CONFIG_MODULES=y\n", 17);
	t.arch = *arch_lookup("x86_64");
	strbuf_reset(&sb);
	kbuild_recipe(&t, "build", &sb);
	is_str(sb.buf, "make ARCH=x86_64 O=build olddefconfig\n"
	       "make ARCH=x86_64 O=build -j$(nproc) bzImage modules\n",
	       "recipe: native (no CROSS_COMPILE), modules when configured");
	strbuf_release(&sb);
	unlink(dot);
	rmdir(t.obj);
	free(dot);
	free(t.obj);
}

int main(void)
{
	char tmpl[] = "/tmp/t-kbuild-prune.XXXXXX";
	char *arch, *cur, *busy_lock;
	int busy;

	root = mkdtemp(tmpl);
	if (!root) {
		printf("Bail out! mkdtemp\n");
		return 1;
	}
	arch = xasprintf("%s/arch", root);
	cur = xasprintf("%s/cur", arch);

	is_int(kbuild_prune(arch, cur, 2), 0, "no arch directory: nothing to do");
	util_mkdir_p(cur, 0755);
	is_int(kbuild_prune(arch, cur, 2), 0,
	       "the first build of an arch: only the current directory");

	old_dir("a", 100, true);
	old_dir("b", 300, true);
	old_dir("c", 200, true);
	old_dir("nolock", 50, false);
	old_dir("busy", 10, true);
	busy_lock = xasprintf("%s/busy.lock", arch);
	busy = open(busy_lock, O_RDWR);
	ok(busy >= 0 && !flock(busy, LOCK_EX), "another build holds busy.lock");

	is_int(kbuild_prune(arch, cur, 3), 1, "keep 3: two old ones stay besides the current");
	ok(there("b") && there("c") && !there("a"),
	   "the two most recently used stay, the oldest goes");
	ok(there("cur"), "the current directory stays");
	ok(there("busy"), "a directory in use stays");
	ok(there("nolock"), "a directory without a lock file is not ours: it stays");

	is_int(kbuild_prune(arch, cur, 1), 2, "keep 1: every old directory not in use goes");
	ok(!there("b") && !there("c") && there("cur") && there("busy"),
	   "only the current and the busy one are left");

	close(busy);
	is_int(kbuild_prune(arch, cur, 1), 1, "once free, busy goes too");

	/* a repaired configuration's directory goes by size, not by count */
	old_dir("repaired", 5, true);
	put_file("arch/repaired/repair.config", "CONFIG_DAMON=y\n");
	is_int(kbuild_prune(arch, cur, 1), 0, "keep 1: a repaired configuration's stays");
	test_prune_size();

	test_recipe();
	util_remove_tree(root);
	free(arch);
	free(cur);
	free(busy_lock);
	return done_testing();
}
