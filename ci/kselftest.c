// SPDX-License-Identifier: GPL-2.0
/* The mm kselftest catalog, selection and static cross build */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run.h"
#include "ci/kselftest.h"

#define SELFTESTS "tools/testing/selftests"

/*
 * Every mm selftest of the 6.12 tree.  The default list is what builds
 * without target libraries, passes on a tinyconfig + kselftest.config
 * kernel under TCG, and runs in seconds; the notes say why the others
 * are not in it (measurements in bench/README.md).
 */
const struct kst_def kst_catalog[] = {
	{ .name = "map_fixed_noreplace", .dflt = true },
	{ .name = "mremap_dontunmap", .dflt = true },
	{ .name = "madv_populate", .dflt = true },
	{ .name = "mkdirty", .dflt = true },
	{ .name = "mlock2-tests", .dflt = true },
	{ .name = "on-fault-limit", .dflt = true },
	{ .name = "mrelease_test", .dflt = true },
	{ .name = "mseal_test", .dflt = true },
	{ .name = "seal_elf", .dflt = true, .skip_on = "arm64",
	  .skip_why = "linked statically it passes, then segfaults at "
			 "exit on arm64" },
	{ .name = "mdwe_test", .dflt = true },
	{ .name = "gup_longterm", .dflt = true },
	{ .name = "gup_test", .args = "-ct -F 0x1 0 19 0x1000", .dflt = true },
	{ .name = "droppable", .dflt = true },
	{ .name = "cow", .timeout_s = 180, .dflt = true, .skip_on = "riscv",
	  .skip_why = "about 60 s under TCG on riscv (12 s on x86_64, 24 s "
		      "on arm64): outside the default list's budget" },
	{ .name = "uffd-stress", .args = "anon 4 16", .dflt = true },
	{ .name = "hugepage-mremap", .dflt = true },
	{ .name = "hugepage-vmemmap", .dflt = true },
	{ .name = "hugetlb-madvise", .dflt = true },
	{ .name = "hugetlb_dio", .dflt = true },
	{ .name = "hugepage-mmap", .hugepages = 128,
	  .note = "writes and reads 256 MB of huge pages: 6 s under TCG" },
	{ .name = "hugepage-shm", .hugepages = 128,
	  .note = "writes and reads 256 MB of huge pages: 6 s under TCG" },
	{ .name = "map_hugetlb", .args = "16", .hugepages = 8, .dflt = true },
	{ .name = "hugetlb_fault_after_madv", .hugepages = 1,
	  .note = "10,000 rounds of faulting a huge page: over 60 s under TCG" },
	{ .name = "hugetlb_madv_vs_map", .hugepages = 1, .dflt = true },
	{ .name = "ksm_functional_tests",
	  .note = "about 25 s under TCG: outside the default list's budget" },
	{ .name = "split_huge_page_test",
	  .note = "its pagecache part runs over 60 s under TCG on tmpfs" },
	{ .name = "transhuge-stress", .args = "-d 2 64", .dflt = true },
	{ .name = "soft-dirty", .archs = "x86_64 riscv",
	  .note = "about 25 s under TCG: outside the default list's budget" },
	{ .name = "pagemap_ioctl",
	  .note = "about 15 s under TCG: outside the default list's budget" },
	{ .name = "map_populate",
	  .note = "needs CONFIG_NET and CONFIG_UNIX (socketpair)" },
	{ .name = "mremap_test",
	  .note = "its 2 GB PUD-aligned mremaps need more than 2 GB of "
		  "guest memory; 25 s under TCG" },
	{ .name = "uffd-unit-tests", .note = "about 2 minutes under TCG" },
	{ .name = "thuge-gen", .note = "needs 1 GB huge pages" },
	{ .name = "compaction_test",
	  .note = "locks 80% of guest memory: killed (SIGSEGV) in 1 GB "
		  "without swap" },
	{ .name = "virtual_address_range", .archs = "x86_64 arm64",
	  .note = "maps the whole address space: needs overcommit" },
	{ .name = "va_high_addr_switch", .archs = "x86_64 arm64",
	  .note = "needs 5-level page tables / 52-bit VA (run by "
		  "va_high_addr_switch.sh only then)" },
	{ .name = "protection_keys_64", .archs = "x86_64",
	  .note = "linked dynamically by its Makefile rule; needs PKU" },
	{ .name = "pkey_sighandler_tests_64", .archs = "x86_64",
	  .note = "linked dynamically by its Makefile rule; needs PKU" },
	{ .name = "write_to_hugetlbfs",
	  .note = "a helper of charge_reserved_hugetlb.sh, not a test" },
	{ .name = "khugepaged",
	  .note = "does not build in 6.12 (KSFT_SKIP undeclared)" },
	{ .name = "migration", .note = "needs libnuma for the target" },
	{ .name = "ksm_tests", .note = "needs libnuma for the target" },
	{ .name = "memfd_secret", .note = "needs libcap for the target" },
	{ .name = "mlock-random-test", .note = "needs libcap for the target" },
	{ .name = "hmm-tests", .note = "needs the test_hmm module" },
	{ .name = "hugetlb-soft-offline",
	  .note = "needs CONFIG_MEMORY_FAILURE" },
	{ .name = "hugetlb-read-hwpoison",
	  .note = "needs CONFIG_MEMORY_FAILURE" },
};

const size_t kst_catalog_nr = ARRAY_SIZE(kst_catalog);

static const char *def_bin(const struct kst_def *d)
{
	return d->bin ? d->bin : d->name;
}

const struct kst_def *kselftest_lookup(const char *name)
{
	size_t i;

	util_skip_prefix(name, "mm/", &name);
	for (i = 0; i < kst_catalog_nr; i++)
		if (!strcmp(kst_catalog[i].name, name))
			return &kst_catalog[i];
	return NULL;
}

/* Is arch a's name a word of list? */
static bool in_list(const char *list, const struct arch *a)
{
	const char *p;
	size_t n = strlen(a->name);

	for (p = list; (p = strstr(p, a->name)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static bool applies(const struct kst_def *d, const struct arch *a)
{
	return !d->archs || in_list(d->archs, a);
}

static bool left_out(const struct kst_def *d, const struct arch *a)
{
	return d->skip_on && in_list(d->skip_on, a);
}

void kselftest_plan_skip(struct kst_plan *plan, const char *name, const char *why)
{
	ALLOC_GROW(plan->skipped, plan->skipped_nr + 1, plan->skipped_alloc);
	plan->skipped[plan->skipped_nr].name = xstrdup(name);
	plan->skipped[plan->skipped_nr].reason = xstrdup(why);
	plan->skipped_nr++;
}

void kselftest_plan_drop(struct kst_plan *plan, size_t i, const char *why)
{
	kselftest_plan_skip(plan, plan->tests[i]->name, why);
	memmove(plan->tests + i, plan->tests + i + 1,
		(plan->nr - i - 1) * sizeof(*plan->tests));
	plan->nr--;
}

static bool in_plan(const struct kst_plan *plan, const struct kst_def *d)
{
	size_t i;

	for (i = 0; i < plan->nr; i++)
		if (plan->tests[i] == d)
			return true;
	for (i = 0; i < plan->skipped_nr; i++)
		if (!strcmp(plan->skipped[i].name, d->name))
			return true;
	return false;
}

static void add(struct kst_plan *plan, const struct arch *a,
		const struct kst_def *d)
{
	if (in_plan(plan, d))
		return;
	if (!applies(d, a)) {
		char *why = xasprintf("not built for %s (only %s)", a->name,
				      d->archs);

		kselftest_plan_skip(plan, d->name, why);
		free(why);
		return;
	}
	ALLOC_GROW(plan->tests, plan->nr + 1, plan->alloc);
	plan->tests[plan->nr++] = d;
}

int kselftest_select(const struct arch *a, const char *const *names, size_t nr,
		     struct kst_plan *plan, struct strbuf *err)
{
	size_t i, j;

	for (i = 0; i < (names ? nr : 1); i++) {
		const char *n = names ? names[i] : "default";
		const struct kst_def *d;

		if (!strcmp(n, "default")) {
			for (j = 0; j < kst_catalog_nr; j++) {
				const struct kst_def *c = &kst_catalog[j];

				if (!c->dflt || in_plan(plan, c))
					continue;
				if (left_out(c, a))
					kselftest_plan_skip(plan, c->name, c->skip_why);
				else
					add(plan, a, c);
			}
			continue;
		}
		d = kselftest_lookup(n);
		if (!d) {
			strbuf_addf(err, "unknown mm kselftest '%s'", n);
			return -EINVAL;
		}
		add(plan, a, d);
	}
	for (j = 0; j < kst_catalog_nr; j++) {
		const struct kst_def *d = &kst_catalog[j];

		if (in_plan(plan, d))
			continue;
		if (!applies(d, a))
			add(plan, a, d);	/* skipped: not for this arch */
		else
			kselftest_plan_skip(plan, d->name, d->note ? d->note :
					    "not in the selected list");
	}
	return 0;
}

void kselftest_plan_release(struct kst_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->skipped_nr; i++) {
		free(plan->skipped[i].name);
		free(plan->skipped[i].reason);
	}
	free(plan->skipped);
	free(plan->tests);
	memset(plan, 0, sizeof(*plan));
}

void kselftest_plan_key(const struct kst_plan *plan, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < plan->nr; i++) {
		const struct kst_def *d = plan->tests[i];

		strbuf_addf(sb, "%s %s %s %u %u\n", d->name, def_bin(d),
			    d->args ? d->args : "", d->timeout_s, d->hugepages);
	}
}

/*
 * The selftests' Makefile writes local_config.{h,mk} next to its
 * sources.  To leave the kernel tree untouched, build from a shadow
 * tree: symbolic links to everything but the path down to the mm
 * directory, which is copied.
 */
static int shadow_level(const char *src, const char *dst, const char *keep,
			struct strbuf *err)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int ret = 0;

	if (!d) {
		strbuf_addf(err, "cannot read '%s': %s", src, strerror(errno));
		return -errno;
	}
	while ((e = readdir(d)) != NULL) {
		char *from, *to;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (keep && !strcmp(e->d_name, keep)))
			continue;
		from = xasprintf("%s/%s", src, e->d_name);
		to = xasprintf("%s/%s", dst, e->d_name);
		if (!keep) {
			/* the copied directory: regular files only */
			char *buf;
			size_t len;

			if (e->d_type == DT_REG &&
			    !util_read_file(from, &buf, &len, 16 << 20)) {
				ret = util_write_file(to, buf, len);
				free(buf);
			}
		} else if (symlink(from, to) && errno != EEXIST) {
			ret = -errno;
		}
		if (ret)
			strbuf_addf(err, "cannot create '%s': %s", to,
				    strerror(-ret));
		free(from);
		free(to);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

static int make_shadow(const char *srcdir, const char *shadow,
		       struct strbuf *err)
{
	static const char *const path[] = {
		"tools", "testing", "selftests", "mm", NULL,
	};
	struct strbuf s = STRBUF_INIT, d = STRBUF_INIT;
	int ret = 0, i;

	util_remove_tree(shadow);
	strbuf_addstr(&s, srcdir);
	strbuf_addstr(&d, shadow);
	for (i = 0; ; i++) {
		ret = util_mkdir_p(d.buf, 0755);
		if (ret) {
			strbuf_addf(err, "cannot create '%s': %s", d.buf,
				    strerror(-ret));
			break;
		}
		ret = shadow_level(s.buf, d.buf, path[i], err);
		if (ret || !path[i])
			break;
		strbuf_addf(&s, "/%s", path[i]);
		strbuf_addf(&d, "/%s", path[i]);
	}
	strbuf_release(&s);
	strbuf_release(&d);
	return ret;
}

static void cmd_setup(struct run_cmd *cmd, const struct kst_build *b,
		      const char *const *rw, const char *const *ro)
{
	cmd->log_path = NULL;
	cmd->merge_stderr = true;
	cmd->clean_env = true;
	cmd->limits.timeout_ms = b->timeout_ms ? b->timeout_ms : 600000;
	cmd->limits.max_output = 4 << 20;
	cmd->limits.nproc = b->nproc;
	cmd->sandbox.enabled = b->sandbox;
	cmd->sandbox.rw = rw;
	cmd->sandbox.ro = ro;
	cmd->sandbox.uid = b->uid;
	cmd->sandbox.gid = b->gid;
}

static void append_log(const struct kst_build *b, const struct strbuf *out)
{
	FILE *f;

	if (!b->log)
		return;
	f = fopen(b->log, "ae");
	if (!f)
		return;
	fwrite(out->buf, 1, out->len, f);
	fclose(f);
}

static int run_make(const struct kst_build *b, const char *const *argv,
		    const char *what, struct strbuf *out, struct strbuf *err)
{
	const char *rw[] = { b->outdir, b->hdrdir, b->objdir, NULL };
	/* the kernel tree: make -C, and the shadow tree's links point there */
	const char *ro[] = { b->srcdir, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	int ret = 0;

	cmd_setup(&cmd, b, rw, ro);
	cmd.argv = argv;
	if (run_cmd(&cmd)) {
		strbuf_addf(err, "cannot run make for %s", what);
		ret = -ENOEXEC;
	} else if (cmd.timed_out || cmd.status == 127) {
		strbuf_addf(err, "%s: ", what);
		run_describe(&cmd, err);
		ret = -ETIMEDOUT;
	}
	append_log(b, &cmd.out);
	strbuf_addbuf(out, &cmd.out);
	run_cmd_release(&cmd);
	return ret;
}

/* The first error the compiler reported for bin, for the skip reason */
static char *build_error(const char *log, const char *bin)
{
	char *pat = xasprintf("%s.c:", bin);
	const char *p = log;
	char *why = NULL;

	while ((p = strstr(p, pat)) != NULL) {
		const char *bol = p, *eol = strchrnul(p, '\n');

		while (bol > log && bol[-1] != '\n')
			bol--;
		if (memmem(bol, eol - bol, "error", 5)) {
			why = xasprintf("did not build: %.*s", (int)(eol - bol), bol);
			break;
		}
		p = eol;
	}
	free(pat);
	return why ? why : xstrdup("did not build (see the build log)");
}

int kselftest_build(const struct kst_build *b, struct kst_plan *plan,
		    struct strbuf *err)
{
	const struct arch *a = b->arch;
	char *karch = xasprintf("ARCH=%s", a->kernel_arch);
	char *cross = xasprintf("CROSS_COMPILE=%s", a->cross_compile);
	char *hdr = xasprintf("INSTALL_HDR_PATH=%s", b->hdrdir);
	char *odir = xasprintf("O=%s", b->objdir);
	char *khdr = xasprintf("KHDR_INCLUDES=-isystem %s/include", b->hdrdir);
	char *output = xasprintf("OUTPUT=%s", b->outdir);
	char *jobs = xasprintf("-j%u", b->jobs ? b->jobs : 2);
	char *shadow = xasprintf("%s/.tree", b->outdir);
	char *mmdir = xasprintf("%s/" SELFTESTS "/mm", shadow);
	char **targets = xcalloc(plan->nr + 16, sizeof(*targets));
	struct strbuf out = STRBUF_INIT;
	size_t i, n = 0;
	int ret;

	ret = util_mkdir_p(b->outdir, 0755);
	if (!ret)
		ret = util_mkdir_p(b->hdrdir, 0755);
	if (!ret)
		ret = util_mkdir_p(b->objdir, 0755);
	/* the tree's Makefiles run as the build user, never as lorebot */
	if (!ret && b->uid && (util_chown_tree(b->hdrdir, b->uid, b->gid) ||
			       util_chown_tree(b->objdir, b->uid, b->gid)))
		ret = -errno;
	if (ret) {
		strbuf_addf(err, "cannot create the kselftest directories: %s",
			    strerror(-ret));
		goto out;
	}
	{
		const char *argv[] = { "make", "-s", "-C", b->srcdir, odir,
				       karch, cross, hdr, "headers_install",
				       NULL };

		ret = run_make(b, argv, "headers_install", &out, err);
		if (!ret) {
			char *probe = xasprintf("%s/include/linux/mman.h",
						b->hdrdir);

			if (access(probe, R_OK)) {
				strbuf_addf(err, "headers_install for %s failed: %s",
					    a->name, out.buf);
				ret = -ENOENT;
			}
			free(probe);
		}
		if (ret)
			goto out;
	}
	ret = make_shadow(b->srcdir, shadow, err);
	if (ret)
		goto out;
	/* the shadow tree too: the selftests' Makefile writes in its cwd */
	if (b->uid && util_chown_tree(b->outdir, b->uid, b->gid)) {
		ret = -errno;
		strbuf_addf(err, "cannot give '%s' to the build user: %s",
			    b->outdir, strerror(errno));
		goto out;
	}
	targets[n++] = "make";
	targets[n++] = "-k";
	targets[n++] = jobs;
	targets[n++] = "-C";
	targets[n++] = mmdir;
	targets[n++] = karch;
	targets[n++] = cross;
	targets[n++] = khdr;
	targets[n++] = "LDFLAGS=-static";
	targets[n++] = output;
	for (i = 0; i < plan->nr; i++)
		targets[n++] = xasprintf("%s/%s", b->outdir, def_bin(plan->tests[i]));
	targets[n] = NULL;
	strbuf_reset(&out);
	ret = run_make(b, (const char *const *)targets, "the mm kselftests",
		       &out, err);
	if (ret)
		goto out;
	for (i = 0; i < plan->nr; ) {
		char *bin = xasprintf("%s/%s", b->outdir, def_bin(plan->tests[i]));

		if (access(bin, X_OK)) {
			char *why = build_error(out.buf, def_bin(plan->tests[i]));

			kselftest_plan_drop(plan, i, why);
			free(why);
		} else {
			i++;
		}
		free(bin);
	}
	if (!plan->nr && plan->skipped_nr) {
		/* nothing to run is not a pass: the build itself is broken */
		strbuf_addf(err, "none of the mm kselftests built for %s (see %s)",
			    a->name, b->log ? b->log : "the build log");
		ret = -ENOEXEC;
	}
out:
	for (i = 10; i < n; i++)
		free(targets[i]);
	free(targets);
	strbuf_release(&out);
	free(karch);
	free(cross);
	free(hdr);
	free(odir);
	free(khdr);
	free(output);
	free(jobs);
	free(shadow);
	free(mmdir);
	return ret;
}
