// SPDX-License-Identifier: GPL-2.0
/* Kernels for the boot stage from the build engine; see bootkernel.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/util.h"
#include "ci/boot-report.h"
#include "ci/bootkernel.h"

/* arch/x86/boot/bzImage -> "x86": the source directory of the arch */
static char *src_arch(const struct arch *a)
{
	const char *p = a->image_path + strlen("arch/");
	const char *e = strchr(p, '/');

	return e ? xstrndup(p, e - p) : xstrdup(a->kernel_arch);
}

/* from is in root (obj/, the build user's): no link there is followed */
static int copy_file(const char *root, const char *from, const char *to)
{
	char *buf, *tmp = xasprintf("%s.tmp", to);
	size_t len;
	int ret = util_read_file_beneath(root, from, &buf, &len, 512u << 20);

	if (!ret) {
		ret = util_write_file(tmp, buf, len);
		free(buf);
	}
	if (!ret && rename(tmp, to))
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

static int checkout(struct bootkernel *bk, struct strbuf *err)
{
	struct kbuild_step step = { 0 };
	int ret = kbuild_checkout(bk->t, bk->commit, NULL, &step, err);

	if (!ret && step.status != KBUILD_OK) {
		strbuf_addf(err, "the %s configuration of %.12s failed%s%s",
			    bk->t->arch.name, bk->commit, step.infra ? ": " : "",
			    step.infra ? step.infra : "");
		ret = -1;
	}
	kbuild_step_release(&step);
	return ret;
}

static int build_image(struct bootkernel *bk, struct strbuf *err)
{
	struct kbuild_step step = { 0 };
	char *built, *dir;
	int ret;

	log_progress("building the %s kernel at %.12s (%s)", bk->t->arch.name,
		     bk->commit, bk->label);
	ret = kbuild_build_commit(bk->t, bk->commit, bk->label, &step, err);
	if (!ret && step.status != KBUILD_OK) {
		if (step.status == KBUILD_INFRA)
			strbuf_addf(err, "the %s kernel at %.12s was not built: %s",
				    bk->t->arch.name, bk->commit,
				    step.infra ? step.infra : "infrastructure error");
		else
			strbuf_addf(err, "the %s kernel at %.12s does not build "
				    "(lorebot build says why)%s%s",
				    bk->t->arch.name, bk->commit,
				    step.log_path ? "; log " : "",
				    step.log_path ? step.log_path : "");
		ret = -1;
	}
	kbuild_step_release(&step);
	if (ret)
		return ret;
	built = kbuild_image(bk->t);
	dir = xstrdup(bk->image);
	*strrchr(dir, '/') = '\0';
	ret = util_mkdir_p(dir, 0755);
	if (!ret)
		ret = copy_file(bk->t->obj, built, bk->image);
	if (ret)
		strbuf_addf(err, "cannot copy '%s' to '%s': %s", built, bk->image,
			    strerror(-ret));
	free(built);
	free(dir);
	return ret;
}

static int prepare(void *data, enum boot_need need, struct strbuf *err)
{
	struct bootkernel *bk = data;

	if (need == BOOT_NEED_SOURCE)
		return checkout(bk, err);
	if (!access(bk->image, R_OK))
		return 0;
	return build_image(bk, err);
}

/*
 * What the selftest build reads: the selftests and the tools' headers
 * (tools/), mm/gup_test.h, and what headers_install reads: the top-level
 * Makefile and Kbuild, scripts/, the arch's directory (its Makefile, its
 * uapi, its syscall tables) and include/uapi.  A commit that changes none
 * of them boots the selftests a trusted tree built (boot.h).
 */
static int kst_trees(struct bootkernel *bk, struct strbuf *out,
		     struct strbuf *err)
{
	static const char *const paths[] = {
		"Makefile", "Kbuild", "scripts", "tools", "include/uapi",
		"mm/gup_test.h", NULL /* arch/<src> */,
	};
	const char *revs[ARRAY_SIZE(paths) + 1];
	char *sa = src_arch(&bk->t->arch), *spec[ARRAY_SIZE(paths)];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (paths[i])
			spec[i] = xasprintf("%s:%s", bk->commit, paths[i]);
		else
			spec[i] = xasprintf("%s:arch/%s", bk->commit, sa);
		revs[i] = spec[i];
	}
	revs[i] = NULL;
	ret = srctree_rev_parse(bk->t->git_dir, revs, out, err);
	for (i = 0; i < ARRAY_SIZE(paths); i++)
		free(spec[i]);
	free(sa);
	return ret;
}

int bootkernel_init(struct bootkernel *bk, struct kbuild_tree *t,
		    const char *commit, const char *label,
		    const char *cachedir, struct strbuf *err)
{
	const struct arch *a = &t->arch;
	struct strbuf trees = STRBUF_INIT;
	char hex[17];
	int ret;

	memset(bk, 0, sizeof(*bk));
	bk->t = t;
	snprintf(bk->commit, sizeof(bk->commit), "%s", commit);
	bk->label = xstrdup(label);
	ret = kst_trees(bk, &trees, err);
	strbuf_addf(&trees, "\n%s", a->name);
	util_hash_hex(trees.buf, trees.len, hex);
	bk->kst_id = xasprintf("%s-%s", a->name, hex);
	bk->id = xasprintf("%s-%s-%s-%s", a->name, bk->commit, t->profile.name,
			   t->profile.hash);
	util_hash_hex(bk->id, strlen(bk->id), hex);
	bk->image = xasprintf("%s/boot/kernels/%s/%s/%s", cachedir, a->name,
			      hex, a->image);
	bk->objdir = xasprintf("%s/boot/hdr-obj/%s", cachedir, bk->kst_id);
	bk->k.label = bk->label;
	bk->k.image = bk->image;
	bk->k.srcdir = t->src;
	bk->k.objdir = bk->objdir;
	bk->k.id = bk->id;
	bk->k.kst_id = bk->kst_id;
	bk->k.trusted = kbuild_commit_trusted(t, bk->commit);
	bk->k.prepare = prepare;
	bk->k.data = bk;
	strbuf_release(&trees);
	return ret;
}

void bootkernel_release(struct bootkernel *bk)
{
	free(bk->label);
	free(bk->id);
	free(bk->kst_id);
	free(bk->image);
	free(bk->objdir);
	memset(bk, 0, sizeof(*bk));
}

/* An arch whose kernels could not be had: an infra entry that says why */
static json_object *arch_infra(const struct arch *a, const char *why)
{
	struct boot_result r;
	json_object *j;

	boot_result_init(&r);
	r.end = BOOT_INFRA;
	strbuf_addstr(&r.infra, why);
	j = boot_report_json(a, &r, NULL);
	boot_result_release(&r);
	return j;
}

json_object *bootkernel_series_arch(const struct config *cfg,
				    const struct boot_opts *o,
				    const struct kbuild_env *env, const char *arch,
				    const char *git_dir, const char *tip,
				    const char *base)
{
	const char *profile = config_get(cfg, "build.profile");
	struct strbuf err = STRBUF_INIT;
	struct kbuild_tree *t = NULL;
	struct bootkernel kt, kb;
	json_object *aj = NULL;
	char *log_dir;
	struct arch a;

	/* the make output of the kernel builds, next to the console logs */
	log_dir = xasprintf("%s/build-%s", o->workdir, arch);
	if (util_mkdir_p(log_dir, 0755)) {
		free(log_dir);
		log_dir = NULL;
	}
	if (kbuild_arch(cfg, arch, &a, &err) ||
	    kbuild_open(&t, env, &a, profile, git_dir, *base ? base : tip,
			log_dir, &err)) {
		aj = arch_infra(arch_lookup(arch), err.buf);
		goto out;
	}
	memset(&kb, 0, sizeof(kb));
	if (bootkernel_init(&kt, t, tip, "tip", o->cachedir, &err) ||
	    (*base && bootkernel_init(&kb, t, base, "base", o->cachedir, &err)))
		aj = arch_infra(&a, err.buf);
	else
		baseline_boot_arch(o, &a, &kt.k, *base ? &kb.k : NULL, &aj, &err);
	bootkernel_release(&kt);
	bootkernel_release(&kb);
	kbuild_close(t);
out:
	strbuf_release(&err);
	free(log_dir);
	return aj;
}
