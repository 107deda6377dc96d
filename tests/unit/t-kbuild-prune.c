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
#include "bot/arch.h"
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

static bool there(const char *name)
{
	char *dir = xasprintf("%s/arch/%s", root, name);
	struct stat st;
	bool r = !stat(dir, &st);

	free(dir);
	return r;
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

	test_recipe();
	util_remove_tree(root);
	free(arch);
	free(cur);
	free(busy_lock);
	return done_testing();
}
