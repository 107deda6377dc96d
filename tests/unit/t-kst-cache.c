// SPDX-License-Identifier: GPL-2.0
/*
 * The selftests' build cache cannot be poisoned by a series (issue 18).
 * A fake kernel tree stands in for the kernel: its top-level Makefile
 * installs one header, its selftests' Makefile "builds" mkdirty by
 * copying its source.  The hostile tree's top-level Makefile, which
 * headers_install runs, also plants a mkdirty dated in the future
 * (make then leaves it alone) and a file in the O= directory.
 *
 * boot_selftests(): an untrusted kernel builds in a private directory of
 * its run, never in the cache; a trusted kernel with the same selftest
 * inputs then builds (and boots) its own binaries; an untrusted kernel
 * uses the trusted build's binaries, and none of its make runs.
 * bootkernel_init(): the cache key changes with everything the build
 * reads (the top-level Makefile, the arch's directory), not with the
 * rest of the tree; only commits on a git.base branch are trusted.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run.h"
#include "ci/boot.h"
#include "ci/bootkernel.h"
#include "tests/unit/tap.h"
#include "tests/unit/tap-sh.h"

/* what the trusted tree's build makes of mkdirty */
#define GOOD "good mkdirty\n/* fake */\n"

static char root[] = "/var/tmp/lorebot-t-kst-cache-XXXXXX";

static void put(const char *dir, const char *path, const char *text)
{
	char *p = xasprintf("%s/%s", dir, path), *slash = strrchr(p, '/');

	*slash = '\0';
	util_mkdir_p(p, 0755);
	*slash = '/';
	if (util_write_file(p, text, strlen(text)))
		printf("Bail out! cannot write %s\n", p);
	free(p);
}

#define HEADERS_INSTALL							\
	"headers_install:\n"						\
	"\tmkdir -p $(INSTALL_HDR_PATH)/include/linux\n"		\
	"\techo '/* fake */' >$(INSTALL_HDR_PATH)/include/linux/mman.h\n"

/*
 * A fake kernel tree.  The selftests' "build" of mkdirty is its source
 * and the installed headers; a hostile tree's headers_install also plants
 * a header and a mkdirty dated in the future (make leaves it alone), and
 * a file in O=, wherever it may write.
 */
static char *fake_tree(const char *name, bool hostile)
{
	char *dir = xasprintf("%s/%s", root, name);

	put(dir, "Makefile", hostile ? HEADERS_INSTALL
	    "\t-touch $(O)/planted\n"
	    "\t-echo poisoned >$(INSTALL_HDR_PATH)/include/linux/poison.h\n"
	    "\t-echo poisoned >$(INSTALL_HDR_PATH)/../bin/mkdirty\n"
	    "\t-chmod 755 $(INSTALL_HDR_PATH)/../bin/mkdirty\n"
	    "\t-touch -t 210001010000 $(INSTALL_HDR_PATH)/../bin/mkdirty\n" :
	    HEADERS_INSTALL);
	put(dir, "tools/testing/selftests/mm/Makefile",
	    "$(OUTPUT)/%: %.c\n"
	    "\tcat $< $(lastword $(KHDR_INCLUDES))/linux/*.h >$@\n"
	    "\tchmod 755 $@\n");
	put(dir, "tools/testing/selftests/mm/mkdirty.c", "good mkdirty\n");
	return dir;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len;

	if (util_read_file(path, &buf, &len, 1 << 20))
		return xstrdup("(none)");
	return buf;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

struct run {
	struct boot_result r;
	char *bindir, *scratch;
	int ret;
};

static void selftests(struct run *run, const struct boot_opts *o,
		      const struct boot_kernel *k)
{
	static const char *const names[] = { "mkdirty" };
	const struct arch *a = arch_lookup("x86_64");

	boot_result_init(&run->r);
	kselftest_select(a, names, 1, &run->r.plan, &run->r.infra);
	run->ret = boot_selftests(o, a, k, &run->r, &run->bindir, &run->scratch);
	if (run->ret)
		printf("# %s\n", run->r.infra.buf);
}

static void run_release(struct run *run)
{
	if (run->scratch)
		util_remove_tree(run->scratch);
	boot_result_release(&run->r);
	free(run->bindir);
	free(run->scratch);
}

static char *mkdirty(const struct run *run)
{
	char *p = xasprintf("%s/mkdirty", run->bindir ? run->bindir : "/none");
	char *s = slurp(p);

	free(p);
	return s;
}

static void cache_tests(void)
{
	char *good = fake_tree("good", false), *evil = fake_tree("evil", true);
	char *cache = xasprintf("%s/cache", root);
	char *shared_obj = xasprintf("%s/hdr-obj", cache);
	char *runs = xasprintf("%s/runs", root);
	struct boot_opts o = BOOT_OPTS_INIT;
	struct boot_kernel kevil = {
		.label = "tip", .srcdir = evil, .objdir = shared_obj,
		.id = "evil", .kst_id = "same selftest inputs",
	};
	struct boot_kernel kgood = kevil, kother = kevil, kown = kevil;
	struct run e = { 0 }, g = { 0 }, g2 = { 0 }, e2 = { 0 }, own = { 0 };
	char *s, *log, *planted = xasprintf("%s/planted", shared_obj);
	struct passwd *pw;

	o.cachedir = cache;
	o.workdir = runs;
	o.sandbox = run_have_program("bwrap");
	o.build_timeout_ms = 60000;
	if (geteuid() == 0 && (pw = getpwnam("nobody"))) {
		o.uid = pw->pw_uid;
		o.gid = pw->pw_gid;
	}
	printf("# sandbox %s, build uid %d\n", o.sandbox ? "on" : "off", (int)o.uid);

	/* 1. a series' tree, hostile, first */
	selftests(&e, &o, &kevil);
	is_int(e.ret, 0, "an untrusted kernel's selftests build");
	ok(e.scratch && !strncmp(e.bindir, runs, strlen(runs)),
	   "in a private directory of its run (%s)", e.bindir);
	s = xasprintf("%s/hdr/include/linux/poison.h", e.scratch ? e.scratch : "/none");
	ok(exists(s), "where its Makefile planted a header (the attack ran)");
	free(s);
	ok(!exists(planted), "its make wrote nothing in the shared O= directory");
	s = xasprintf("%s/boot/kst", cache);
	ok(exists(s), "the cache's directory exists (the lock is taken there)");
	free(s);

	/* 2. the trusted base, same selftest inputs */
	kgood.srcdir = good;
	kgood.id = "good";
	kgood.label = "base";
	kgood.trusted = true;
	selftests(&g, &o, &kgood);
	is_int(g.ret, 0, "the trusted kernel's selftests build");
	ok(!g.scratch && !strncmp(g.bindir, cache, strlen(cache)),
	   "in the cache (%s)", g.bindir);
	s = mkdirty(&g);
	is_str(s, GOOD,
	       "the trusted kernel boots its own tree's binary, not the series'");
	free(s);
	ok(g.r.plan.nr == 1, "its plan still holds mkdirty");

	/* 3. another series, clean, same inputs: the trusted build's */
	kother.srcdir = good;
	kother.id = "other";
	log = xasprintf("%s/../build.log", g.bindir);
	s = slurp(log);
	selftests(&g2, &o, &kother);
	is_int(g2.ret, 0, "an untrusted kernel with the trusted inputs");
	ok(!g2.scratch && !strcmp(g2.bindir, g.bindir),
	   "uses the trusted build's binaries");
	{
		char *after = slurp(log);

		is_str(after, s, "and builds nothing");
		free(after);
	}
	free(s);
	run_release(&g2);

	/* 4. the hostile tree again, now that the cache holds the inputs */
	selftests(&e2, &o, &kevil);
	is_int(e2.ret, 0, "the hostile tree with the trusted inputs");
	s = mkdirty(&e2);
	is_str(s, GOOD, "boots the trusted build's binary: its make never ran");
	free(s);
	s = mkdirty(&g);
	is_str(s, GOOD, "the cache still holds the trusted binary");
	free(s);
	ok(!exists(planted), "nothing planted in the shared O= directory");
	run_release(&e2);

	/* 5. a series that changes the selftests: a private build again */
	kown.srcdir = good;
	kown.id = "own";
	kown.kst_id = "changed selftest inputs";
	selftests(&own, &o, &kown);
	is_int(own.ret, 0, "a series with selftest inputs of its own");
	ok(own.scratch != NULL, "builds in a private directory");
	{
		char key[17], *p;

		util_hash_hex(kown.kst_id, strlen(kown.kst_id), key);
		p = xasprintf("%s/boot/kst/x86_64/%s/bin/mkdirty", cache, key);
		ok(!exists(p), "and leaves nothing under its key in the cache");
		free(p);
	}
	run_release(&own);
	run_release(&e);
	run_release(&g);
	free(log);
	free(planted);
	free(good);
	free(evil);
	free(cache);
	free(shared_obj);
	free(runs);
}

/* The kselftest key and trust of a commit (rev) of the repository */
static void key_of(struct kbuild_tree *t, const char *rev, char **key,
		   bool *trusted)
{
	struct bootkernel bk;
	struct strbuf err = STRBUF_INIT, oid = STRBUF_INIT;
	const char *argv[] = { "git", "--git-dir", t->git_dir, "rev-parse", rev, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	char *cache = xasprintf("%s/cache", root);

	cmd.argv = argv;
	if (run_cmd(&cmd) || cmd.status)
		printf("# cannot resolve %s\n", rev);
	strbuf_addbuf(&oid, &cmd.out);
	strbuf_trim(&oid);
	run_cmd_release(&cmd);
	if (bootkernel_init(&bk, t, oid.buf, "tip", cache, &err))
		printf("# %s: %s\n", rev, err.buf);
	*key = xstrdup(bk.kst_id);
	*trusted = bk.k.trusted;
	bootkernel_release(&bk);
	strbuf_release(&err);
	strbuf_release(&oid);
	free(cache);
}

static void key_tests(void)
{
	char *repo = xasprintf("%s/repo", root), *git_dir;
	struct config cfg = CONFIG_INIT;
	struct kbuild_env env = { .cfg = &cfg };
	struct kbuild_tree t = { .env = &env };
	char *kbase, *kother, *kmake, *karch, *kuapi;
	bool tbase, tother, tmake, tarch, tuapi;

	util_mkdir_p(repo, 0755);
	put(repo, "Makefile", HEADERS_INSTALL);
	put(repo, "Kbuild", "obj-y += mm/\n");
	put(repo, "scripts/headers_install.sh", "#!/bin/sh\n");
	put(repo, "tools/testing/selftests/mm/mkdirty.c", "good mkdirty\n");
	put(repo, "include/uapi/linux/mman.h", "/* uapi */\n");
	put(repo, "arch/x86/include/uapi/asm/mman.h", "/* uapi */\n");
	put(repo, "arch/x86/entry/syscalls/syscall_64.tbl", "0 common read\n");
	put(repo, "mm/gup_test.h", "/* gup */\n");
	put(repo, "mm/rmap.c", "/* rmap */\n");
	if (sh(repo, "git init -q -b mm-new . && git add -A && git commit -qm base && "
		     "git checkout -qb series && echo '/* fix */' >>mm/rmap.c && "
		     "git commit -qam other && git checkout -qb make mm-new && "
		     "echo 'all: ; @true' >>Makefile && git commit -qam make && "
		     "git checkout -qb arch mm-new && "
		     "echo '1 common write' >>arch/x86/entry/syscalls/syscall_64.tbl && "
		     "git commit -qam arch && git checkout -qb uapi mm-new && "
		     "echo '/* more */' >>include/uapi/linux/mman.h && git commit -qam uapi")) {
		printf("Bail out! cannot make the repository\n");
		exit(1);
	}
	git_dir = xasprintf("%s/.git", repo);
	config_set(&cfg, "git.base", "mm-new");
	config_parse(&cfg, NULL);
	t.arch = *arch_lookup("x86_64");
	t.git_dir = git_dir;
	t.src = repo;
	t.profile.name = "small";
	memcpy(t.profile.hash, "0123456789abcdef", 17);
	key_of(&t, "mm-new", &kbase, &tbase);
	key_of(&t, "series", &kother, &tother);
	key_of(&t, "make", &kmake, &tmake);
	key_of(&t, "arch", &karch, &tarch);
	key_of(&t, "uapi", &kuapi, &tuapi);
	ok(tbase, "a commit on git.base is trusted");
	ok(!tother && !tmake && !tarch && !tuapi, "a series' commits are not");
	is_str(kother, kbase, "a change to mm/rmap.c keeps the selftests' key");
	ok(strcmp(kmake, kbase), "a change to the top-level Makefile changes it");
	ok(strcmp(karch, kbase), "so does one to the arch's syscall table");
	ok(strcmp(kuapi, kbase), "and one to include/uapi");
	free(kbase);
	free(kother);
	free(kmake);
	free(karch);
	free(kuapi);
	free(git_dir);
	free(repo);
	config_release(&cfg);
}

int main(void)
{
	if (!mkdtemp(root) || chmod(root, 0755)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	cache_tests();
	key_tests();
	util_remove_tree(root);
	return done_testing();
}
