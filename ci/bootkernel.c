// SPDX-License-Identifier: GPL-2.0
/* Kernels for the boot stage from the build engine; see bootkernel.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/text.h"
#include "lib/util.h"
#include "ci/boot-report.h"
#include "bot/git/git.h"
#include "ci/bootkernel.h"

/* arch/x86/boot/bzImage -> "x86": the source directory of the arch */
static char *src_arch(const struct arch *a)
{
	const char *p = a->image_path + strlen("arch/");
	const char *e = strchr(p, '/');

	return e ? xstrndup(p, e - p) : xstrdup(a->kernel_arch);
}

/* The directory of a kernel image was used now: pruned last */
static void touch_dir_of(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash) {
		*slash = '\0';
		utimes(dir, NULL);
	}
	free(dir);
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
	bk->k.built = true;
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
	if (!access(bk->image, R_OK)) {
		/* used: the last to be pruned (bootkernel_keep()) */
		touch_dir_of(bk->image);
		return 0;
	}
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

/* arch, commit, profile recipe: what makes the kernel */
static char *kernel_id(const struct kbuild_tree *t, const char *commit)
{
	return xasprintf("%s-%s-%s-%s", t->arch.name, commit, t->profile.name,
			 t->profile.hash);
}

/* <cache>/boot/kernels/<arch>/<hash of its id>/<image> */
static char *image_path(const struct kbuild_tree *t, const char *commit,
			const char *cachedir)
{
	char *id = kernel_id(t, commit), hex[17], *path;

	util_hash_hex(id, strlen(id), hex);
	path = xasprintf("%s/boot/kernels/%s/%s/%s", cachedir, t->arch.name, hex,
			 t->arch.image);
	free(id);
	return path;
}

int bootkernel_keep(struct kbuild_tree *t, const char *commit, const char *cachedir)
{
	char *to = image_path(t, commit, cachedir), *built = kbuild_image(t);
	char *dir = xstrdup(to);
	int ret;

	*strrchr(dir, '/') = '\0';
	ret = util_mkdir_p(dir, 0755);
	if (!ret)
		ret = copy_file(t->obj, built, to);
	if (ret)
		log_warn("cannot keep the %s kernel of %.12s in '%s': %s", t->arch.name,
			 commit, to, strerror(-ret));
	free(to);
	free(built);
	free(dir);
	return ret;
}

struct used_dir {
	char *path;
	time_t used;
};

static int by_use(const void *a, const void *b)
{
	const struct used_dir *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

int bootkernel_prune(const char *cachedir, const char *arch, unsigned int keep)
{
	char *root = xasprintf("%s/boot/kernels/%s", cachedir, arch);
	struct used_dir *v = NULL;
	size_t nr = 0, alloc = 0, i;
	time_t now = time(NULL);
	DIR *d = opendir(root);
	struct dirent *de;
	int removed = 0;

	while (keep && d && (de = readdir(d))) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", root, de->d_name);
		if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		ALLOC_GROW(v, nr + 1, alloc);
		v[nr].path = path;
		v[nr++].used = st.st_mtime;
	}
	if (d)
		closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), by_use);
	for (i = 0; i < nr; i++) {
		/* an hour's grace: another job may be about to boot it */
		if (i >= keep && v[i].used < now - 3600 && !util_remove_tree(v[i].path))
			removed++;
		free(v[i].path);
	}
	free(v);
	free(root);
	return removed;
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
	bk->id = kernel_id(t, bk->commit);
	bk->image = image_path(t, bk->commit, cachedir);
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

/* The series between base and tip, for bisection (boot.h) */
struct series {
	struct boot_series s;
	struct kbuild_tree *t;
	const char *cachedir, *base;
	struct srctree_commits commits;
	const char **ids, **subjects;
	struct bootkernel probe;
	int *cosmetic;		/* per patch: 1, 0, -1; -2 not known yet */
};

static int series_get(void *data, size_t m, struct boot_kernel **k, struct strbuf *err)
{
	struct series *se = data;
	char *label = m == se->s.n ? xstrdup("tip-again") : xasprintf("patch-%zu", m);
	int ret = bootkernel_init(&se->probe, se->t, se->ids[m - 1], label, se->cachedir, err);

	free(label);
	*k = ret ? NULL : &se->probe.k;
	if (ret)
		bootkernel_release(&se->probe);
	return ret;
}

static void series_put(void *data, struct boot_kernel *k)
{
	struct series *se = data;

	if (k == &se->probe.k)
		bootkernel_release(&se->probe);
}

static bool doc_path(const char *p)
{
	return util_starts_with(p, "Documentation/") || util_ends_with(p, ".rst") ||
		util_ends_with(p, ".txt") || util_ends_with(p, ".md") ||
		!strcmp(p, "MAINTAINERS") || !strcmp(p, "CREDITS");
}

/* Does patch m change only comments or documentation?  1, 0, -1 */
static int patch_cosmetic(struct series *se, size_t m)
{
	const char *from = m > 1 ? se->ids[m - 2] : se->base, *to = se->ids[m - 1];
	struct strbuf paths = STRBUF_INIT, err = STRBUF_INIT;
	char *p, *save = NULL;
	int ret = 1;

	if (srctree_changed(se->t->git_dir, from, to, &paths, &err)) {
		ret = -1;
		goto out;
	}
	for (p = strtok_r(paths.buf, "\n", &save); p && ret == 1;
	     p = strtok_r(NULL, "\n", &save)) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, sa = STRBUF_INIT, sb = STRBUF_INIT;

		if (doc_path(p))
			continue;
		if (!util_ends_with(p, ".c") && !util_ends_with(p, ".h")) {
			ret = 0;
			continue;
		}
		/* a file added or removed is more than comments */
		if (git_read_file_at(se->t->git_dir, from, p, &a) ||
		    git_read_file_at(se->t->git_dir, to, p, &b))
			ret = 0;
		text_c_code(a.buf, a.len, &sa);
		text_c_code(b.buf, b.len, &sb);
		if (strcmp(sa.buf, sb.buf))
			ret = 0;
		strbuf_release(&a);
		strbuf_release(&b);
		strbuf_release(&sa);
		strbuf_release(&sb);
	}
out:
	strbuf_release(&paths);
	strbuf_release(&err);
	return ret;
}

static int series_cosmetic(void *data, size_t m)
{
	struct series *se = data;

	if (se->cosmetic[m - 1] == -2)
		se->cosmetic[m - 1] = patch_cosmetic(se, m);
	return se->cosmetic[m - 1];
}

static int series_init(struct series *se, struct kbuild_tree *t, const char *cachedir,
		       const char *base, const char *tip, struct strbuf *err)
{
	size_t i;

	memset(se, 0, sizeof(*se));
	if (srctree_series(t->git_dir, base, tip, &se->commits, err))
		return -1;
	se->t = t;
	se->cachedir = cachedir;
	se->base = base;
	se->ids = xcalloc(se->commits.nr + 1, sizeof(*se->ids));
	se->subjects = xcalloc(se->commits.nr + 1, sizeof(*se->subjects));
	se->cosmetic = xcalloc(se->commits.nr + 1, sizeof(*se->cosmetic));
	for (i = 0; i < se->commits.nr; i++) {
		se->ids[i] = se->commits.v[i].id;
		se->subjects[i] = se->commits.v[i].subject;
		se->cosmetic[i] = -2;
	}
	se->s.n = se->commits.nr;
	se->s.commits = se->ids;
	se->s.subjects = se->subjects;
	se->s.get = series_get;
	se->s.put = series_put;
	se->s.cosmetic = series_cosmetic;
	se->s.data = se;
	return 0;
}

static void series_release(struct series *se)
{
	srctree_commits_release(&se->commits);
	free(se->ids);
	free(se->subjects);
	free(se->cosmetic);
	memset(se, 0, sizeof(*se));
}

json_object *bootkernel_series_arch(const struct config *cfg,
				    const struct boot_opts *o,
				    const struct kbuild_env *env, const char *arch,
				    const char *git_dir, const char *tip,
				    const char *base)
{
	const char *profile = config_v(cfg)->build_profile;
	struct strbuf err = STRBUF_INIT;
	struct kbuild_tree *t = NULL;
	struct bootkernel kt, kb;
	json_object *aj = NULL;
	struct series se;
	/* with runs (lorebot boot --runs) the tip boots alone, built over the base */
	bool bisect, cmp = *base && !o->runs;
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
	/* a series of its own commits on the base: its patches can be bisected */
	bisect = cmp && strcmp(base, tip) && srctree_is_ancestor(git_dir, base, tip) &&
		!series_init(&se, t, o->cachedir, base, tip, &err);
	strbuf_reset(&err);
	if (bootkernel_init(&kt, t, tip, "tip", o->cachedir, &err) ||
	    (cmp && bootkernel_init(&kb, t, base, "base", o->cachedir, &err)))
		aj = arch_infra(&a, err.buf);
	else
		baseline_boot_arch(o, &a, &kt.k, cmp ? &kb.k : NULL,
				   bisect && se.s.n ? &se.s : NULL, &aj, &err);
	bootkernel_release(&kt);
	bootkernel_release(&kb);
	if (bisect)
		series_release(&se);
	bootkernel_prune(o->cachedir, a.name, o->keep_kernels);
	kbuild_close(t);
out:
	strbuf_release(&err);
	free(log_dir);
	return aj;
}
