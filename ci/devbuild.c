// SPDX-License-Identifier: GPL-2.0
/* INTERIM kernel builds for "lorebot boot"; see devbuild.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "bot/log.h"
#include "bot/run.h"
#include "ci/devbuild.h"

/* The fragments travel inside the binary (the Makefile lists them) */
#define EMBED(sym, file)						\
	__asm__(".section .rodata\n"					\
		".global " #sym "\n"					\
		#sym ":\n"						\
		".incbin \"" file "\"\n"				\
		".byte 0\n"						\
		".previous\n");						\
	extern const char sym[]

EMBED(frag_kselftest, "config/fragments/kselftest.config");
EMBED(frag_x86_64, "ci/devbuild/x86_64.config");
EMBED(frag_arm64, "ci/devbuild/arm64.config");
EMBED(frag_riscv, "ci/devbuild/riscv.config");

static const struct {
	const char *arch;
	const char *text;
} fragments[] = {
	{ "x86_64", frag_x86_64 },
	{ "arm64", frag_arm64 },
	{ "riscv", frag_riscv },
};

const char *devbuild_fragment(const struct arch *a)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fragments); i++)
		if (!strcmp(fragments[i].arch, a->name))
			return fragments[i].text;
	return "";
}

const char *devbuild_kselftest_fragment(void)
{
	return frag_kselftest;
}

/* Run git with argv after "git --git-dir=repo"; output in out */
static int git(const char *repo, const char *const *args, const char *index,
	       const char *worktree, struct strbuf *out, struct strbuf *err)
{
	const char *argv[16];
	char *gd = xstrdup(repo);
	char *wt = worktree ? xasprintf("--work-tree=%s", worktree) : NULL;
	char *ix = index ? xasprintf("GIT_INDEX_FILE=%s", index) : NULL;
	const char *env[] = { ix, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	size_t n = 0;
	int ret = 0;

	argv[n++] = "git";
	argv[n++] = "-C";	/* bare or not */
	argv[n++] = gd;
	if (wt)
		argv[n++] = wt;
	while (*args && n < ARRAY_SIZE(argv) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	cmd.argv = argv;
	cmd.env = env;
	cmd.limits.timeout_ms = 600000;
	if (run_cmd(&cmd) || cmd.status) {
		strbuf_addf(err, "git %s failed: ", argv[wt ? 4 : 3]);
		run_describe(&cmd, err);
		strbuf_rtrim(&cmd.err);
		if (cmd.err.len)
			strbuf_addf(err, ": %s", cmd.err.buf);
		ret = -EIO;
	} else if (out) {
		strbuf_addbuf(out, &cmd.out);
		strbuf_trim(out);
	}
	run_cmd_release(&cmd);
	free(gd);
	free(wt);
	free(ix);
	return ret;
}

static int one_id(const char *repo, const char *const *args, char out[41],
		  struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = git(repo, args, NULL, NULL, &sb, err);

	if (!ret && sb.len != 40) {
		strbuf_addf(err, "unexpected git output '%s'", sb.buf);
		ret = -EINVAL;
	}
	if (!ret)
		memcpy(out, sb.buf, 41);
	strbuf_release(&sb);
	return ret;
}

int devbuild_resolve(const char *repo, const char *rev, char out[41],
		     struct strbuf *err)
{
	char *spec = xasprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "--verify", "-q", spec, NULL };
	int ret = one_id(repo, args, out, err);

	if (ret) {
		strbuf_reset(err);
		strbuf_addf(err, "'%s' is not a commit in '%s'", rev, repo);
	}
	free(spec);
	return ret;
}

int devbuild_merge_base(const char *repo, const char *a, const char *b,
			char out[41], struct strbuf *err)
{
	const char *args[] = { "merge-base", a, b, NULL };

	return one_id(repo, args, out, err);
}

int devbuild_init(struct devbuild *b, struct strbuf *err)
{
	char *dir = xasprintf("%s/boot/dev", b->cachedir);
	char *lock = xasprintf("%s/lock", dir);
	int ret = mkdir_p(dir, 0755);

	if (!ret) {
		b->lock = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (b->lock < 0 || flock(b->lock, LOCK_EX))
			ret = -errno;
	}
	if (ret)
		strbuf_addf(err, "cannot lock '%s': %s", lock, strerror(-ret));
	free(dir);
	free(lock);
	return ret;
}

void devbuild_release(struct devbuild *b)
{
	if (b->lock >= 0)
		close(b->lock);
	b->lock = -1;
}

/* arch/x86/boot/bzImage -> "x86": the source directory of the arch */
static char *src_arch(const struct arch *a)
{
	const char *p = a->image_path + strlen("arch/");

	return xstrndup(p, strcspn(p, "/"));
}

static int checkout(struct devkernel *dk, struct strbuf *err)
{
	struct devbuild *b = dk->b;
	char *head = xasprintf("%s/HEAD-commit", dk->srcdir);
	char *index = xasprintf("%s.index", dk->srcdir);
	char *cur = NULL;
	size_t len;
	int ret;

	if (!read_file(head, &cur, &len, 64) && len >= 40 &&
	    !strncmp(cur, dk->commit, 40)) {
		ret = 0;
		goto out;
	}
	ret = mkdir_p(dk->srcdir, 0755);
	if (!ret) {
		const char *args[] = { "read-tree", "--reset", "-u", dk->commit, NULL };

		progress("checking out %.12s", dk->commit);
		unlink(head);
		ret = git(b->repo, args, index, dk->srcdir, NULL, err);
	}
	if (!ret)
		ret = write_file(head, dk->commit, 40);
out:
	free(cur);
	free(head);
	free(index);
	return ret;
}

static int make(struct devkernel *dk, const char *const *targets,
		const char *what, struct strbuf *err)
{
	struct devbuild *b = dk->b;
	const struct arch *a = dk->arch;
	char *odir = xasprintf("O=%s", dk->objdir);
	char *karch = xasprintf("ARCH=%s", a->kernel_arch);
	char *cross = xasprintf("CROSS_COMPILE=%s", a->cross_compile);
	char *jobs = xasprintf("-j%u", b->jobs ? b->jobs : 2);
	char *logp = xasprintf("%s/build.log", dk->objdir);
	const char *argv[16] = { "make", "-s", "-C", dk->srcdir, odir, karch,
				 cross, jobs };
	const char *rw[] = { dk->objdir, NULL };
	struct run_cmd cmd = RUN_CMD_INIT;
	size_t n = 8;
	int ret = 0;

	while (*targets && n < ARRAY_SIZE(argv) - 1)
		argv[n++] = *targets++;
	argv[n] = NULL;
	cmd.argv = argv;
	cmd.merge_stderr = true;
	cmd.log_path = logp;
	cmd.limits.timeout_ms = b->timeout_ms;
	cmd.limits.max_output = 8 << 20;
	cmd.sandbox.enabled = b->sandbox;
	cmd.sandbox.rw = rw;
	if (run_cmd(&cmd) || cmd.status) {
		strbuf_addf(err, "%s kernel build (%s) failed: ", a->name, what);
		run_describe(&cmd, err);
		strbuf_addf(err, "; see %s", logp);
		ret = -EIO;
	}
	run_cmd_release(&cmd);
	free(odir);
	free(karch);
	free(cross);
	free(jobs);
	free(logp);
	return ret;
}

static int configure(struct devkernel *dk, struct strbuf *err)
{
	char *frag = xasprintf("%s/lorebot.config", dk->objdir);
	char *cfg = xasprintf("%s/.config", dk->objdir);
	struct strbuf text = STRBUF_INIT, merged = STRBUF_INIT;
	const char *tiny[] = { "tinyconfig", NULL };
	const char *old[] = { "olddefconfig", NULL };
	char *conf = NULL;
	size_t len;
	int ret;

	ret = make(dk, tiny, "tinyconfig", err);
	if (ret)
		goto out;
	/* merge: the fragment's lines replace the same options */
	strbuf_addstr(&text, devbuild_fragment(dk->arch));
	strbuf_addstr(&text, devbuild_kselftest_fragment());
	ret = read_file(cfg, &conf, &len, 16 << 20);
	if (ret) {
		strbuf_addf(err, "cannot read '%s': %s", cfg, strerror(-ret));
		goto out;
	}
	{
		const char *p = conf;

		while (*p) {
			const char *eol = strchrnul(p, '\n');
			size_t l = eol - p, nl = strcspn(p, "= ");
			const char *opt = p;
			bool replaced = false;

			if (starts_with(p, "# CONFIG_")) {
				opt = p + 2;
				nl = strcspn(opt, " ");
			}
			if (starts_with(opt, "CONFIG_")) {
				char *key = xasprintf("\n%.*s=", (int)nl, opt);

				replaced = strstr(text.buf, key + 1) == text.buf ||
					strstr(text.buf, key);
				free(key);
			}
			if (!replaced) {
				strbuf_add(&merged, p, l);
				strbuf_addch(&merged, '\n');
			}
			p = *eol ? eol + 1 : eol;
		}
	}
	strbuf_addbuf(&merged, &text);
	ret = write_file(cfg, merged.buf, merged.len);
	if (!ret)
		ret = write_file(frag, text.buf, text.len);
	if (ret) {
		strbuf_addf(err, "cannot write '%s': %s", cfg, strerror(-ret));
		goto out;
	}
	ret = make(dk, old, "olddefconfig", err);
out:
	free(conf);
	free(frag);
	free(cfg);
	strbuf_release(&text);
	strbuf_release(&merged);
	return ret;
}

static int copy_file(const char *from, const char *to)
{
	char *buf, *tmp = xasprintf("%s.tmp", to);
	size_t len;
	int ret = read_file(from, &buf, &len, 512u << 20);

	if (!ret) {
		ret = write_file(tmp, buf, len);
		free(buf);
	}
	if (!ret && rename(tmp, to))
		ret = -errno;
	free(tmp);
	return ret;
}

static int prepare(void *data, enum boot_need need, struct strbuf *err)
{
	struct devkernel *dk = data;
	const char *image[] = { dk->arch->image, NULL };
	char *built, *dir;
	int ret;

	if (need == BOOT_NEED_SOURCE)
		return checkout(dk, err);
	if (!access(dk->image, R_OK))
		return 0;
	ret = checkout(dk, err);
	if (!ret)
		ret = mkdir_p(dk->objdir, 0755);
	if (!ret)
		ret = configure(dk, err);
	if (ret)
		return ret;
	progress("building the %s kernel at %.12s", dk->arch->name, dk->commit);
	ret = make(dk, image, dk->arch->image, err);
	if (ret)
		return ret;
	built = xasprintf("%s/%s", dk->objdir, dk->arch->image_path);
	dir = xstrdup(dk->image);
	*strrchr(dir, '/') = '\0';
	ret = mkdir_p(dir, 0755);
	if (!ret)
		ret = copy_file(built, dk->image);
	if (ret)
		strbuf_addf(err, "cannot copy '%s' to '%s': %s", built,
			    dk->image, strerror(-ret));
	free(built);
	free(dir);
	return ret;
}

int devkernel_init(struct devkernel *dk, struct devbuild *b,
		   const struct arch *a, const char *commit,
		   const char *label, struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT, trees = STRBUF_INIT;
	char *sa = src_arch(a), *t[5];
	const char *args[8] = { "rev-parse" };
	char hex[17];
	int ret, i;

	memset(dk, 0, sizeof(*dk));
	dk->b = b;
	dk->arch = a;
	memcpy(dk->commit, commit, 40);
	dk->commit[40] = '\0';
	dk->label = xstrdup(label);
	/* what the selftests are built from: their sources and the uapi */
	t[0] = xasprintf("%s:tools/testing/selftests", commit);
	t[1] = xasprintf("%s:tools/include", commit);
	t[2] = xasprintf("%s:include/uapi", commit);
	t[3] = xasprintf("%s:arch/%s/include/uapi", commit, sa);
	t[4] = xasprintf("%s:mm/gup_test.h", commit);
	for (i = 0; i < 5; i++)
		args[i + 1] = t[i];
	args[6] = NULL;
	ret = git(b->repo, args, NULL, NULL, &trees, err);
	strbuf_addf(&key, "%s\n%s\n%s", a->name, devbuild_fragment(a),
		    devbuild_kselftest_fragment());
	hash_hex(key.buf, key.len, hex);
	dk->id = xasprintf("%s-%s-%s", a->name, commit, hex);
	strbuf_addf(&trees, "\n%s", a->name);
	hash_hex(trees.buf, trees.len, hex);
	dk->kst_id = xasprintf("%s-%s", a->name, hex);
	hash_hex(dk->id, strlen(dk->id), hex);
	dk->image = xasprintf("%s/boot/dev/kernels/%s/%s/%s", b->cachedir,
			      a->name, hex, a->image);
	dk->srcdir = xasprintf("%s/boot/dev/src", b->cachedir);
	dk->objdir = xasprintf("%s/boot/dev/o/%s", b->cachedir, a->name);
	dk->k.label = dk->label;
	dk->k.image = dk->image;
	dk->k.srcdir = dk->srcdir;
	dk->k.objdir = dk->objdir;
	dk->k.id = dk->id;
	dk->k.kst_id = dk->kst_id;
	dk->k.prepare = prepare;
	dk->k.data = dk;
	for (i = 0; i < 5; i++)
		free(t[i]);
	free(sa);
	strbuf_release(&key);
	strbuf_release(&trees);
	return ret;
}

void devkernel_release(struct devkernel *dk)
{
	free(dk->label);
	free(dk->id);
	free(dk->kst_id);
	free(dk->image);
	free(dk->srcdir);
	free(dk->objdir);
	memset(dk, 0, sizeof(*dk));
}
