// SPDX-License-Identifier: GPL-2.0
/*
 * A build directory made from another one's base, and the size of the
 * build directories (ci/kbuild.h: kbuild_open_profile(),
 * kbuild_prune_size()).
 *
 * A repaired configuration differs from its profile's in a few options,
 * and kbuild rebuilds only what depends on the options that changed
 * (fixdep, include/config/): a copy of the profile's base, configured
 * again, costs the units those options touch, where a build from
 * nothing costs every unit (ccache cannot help: every unit reads
 * autoconf.h).  The copy: the source tree and its index (mtimes kept:
 * ci/srctree.c checks out by mtime and size, so nothing is written
 * again), obj/, then every file of obj/ that names the seed's directory
 * (the .cmd files, the Makefile kbuild wrote, the "source" link) made
 * to name the new one (a binary too: the two names have the same
 * length, so nothing in it moves).  Not hard links: a link changes the ctime of
 * the seed's files, which git (with the default core.trustctime) would
 * take for changes and write again.  A binary file that names it would need more than a text
 * substitution: then no copy, a build from nothing.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "ci/kbuild-priv.h"

#define COPY_TIMEOUT_MS (20 * 60 * 1000)
#define REWRITE_MAX (64 << 20)

static int run_cp(const char *const *argv, struct strbuf *err)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	int ret = 0;

	cmd.argv = argv;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = COPY_TIMEOUT_MS;
	if (run_cmd(&cmd) < 0 || cmd.status) {
		strbuf_addf(err, "%s %s failed: %.200s", argv[0], argv[1], cmd.out.buf);
		ret = -1;
	}
	run_cmd_release(&cmd);
	return ret;
}

/* ---- the seed's paths made the new directory's ---- */

static const char *rw_from, *rw_to;
static unsigned long rw_files;
static int rw_error;

static char *replace_all(const char *buf, size_t len, size_t *out_len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(rw_from);
	const char *p = buf, *end = buf + len, *hit;

	while ((hit = memmem(p, end - p, rw_from, n))) {
		strbuf_add(&sb, p, hit - p);
		strbuf_addstr(&sb, rw_to);
		p = hit + n;
	}
	strbuf_add(&sb, p, end - p);
	return strbuf_detach(&sb, out_len);
}

static int rewrite_cb(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	char *buf = NULL, *out;
	size_t len, olen;
	struct timespec times[2];
	int fd;

	(void)ftw;
	if (flag == FTW_SL) {
		char target[4096];
		ssize_t n = readlink(path, target, sizeof(target) - 1);

		if (n <= 0)
			return 0;
		target[n] = '\0';
		if (!memmem(target, n, rw_from, strlen(rw_from)))
			return 0;
		out = replace_all(target, n, &olen);
		if (unlink(path) || symlink(out, path) ||
		    lchown(path, st->st_uid, st->st_gid))
			rw_error = -errno;
		free(out);
		rw_files++;
		return rw_error;
	}
	if (flag != FTW_F || !st->st_size)
		return 0;
	/* all of it: a large file is a binary, which must not name the seed */
	if (util_read_file(path, &buf, &len, MAX((size_t)st->st_size + 1, REWRITE_MAX))) {
		rw_error = -EIO;
		return rw_error;
	}
	if (!memmem(buf, len, rw_from, strlen(rw_from))) {
		free(buf);
		return 0;
	}
	/* a binary (an object, a host tool) only with a name of the same length */
	if (memchr(buf, '\0', len) && strlen(rw_from) != strlen(rw_to)) {
		log_info("'%s' names the seed directory and is not text: no copy", path);
		free(buf);
		rw_error = -EINVAL;
		return rw_error;
	}
	out = replace_all(buf, len, &olen);
	free(buf);
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || write(fd, out, olen) != (ssize_t)olen) {
		rw_error = -errno ? -errno : -EIO;
	} else {
		/* make sees the file as it was */
		times[0] = st->st_atim;
		times[1] = st->st_mtim;
		futimens(fd, times);
	}
	if (fd >= 0)
		close(fd);
	free(out);
	rw_files++;
	return rw_error;
}

static int rewrite_paths(const char *obj, const char *from, const char *to)
{
	char *f = xasprintf("%s/", from), *t = xasprintf("%s/", to);

	rw_from = f;
	rw_to = t;
	rw_files = 0;
	rw_error = 0;
	nftw(obj, rewrite_cb, 32, FTW_PHYS);
	free(f);
	free(t);
	return rw_error;
}

int kbuild_seed(struct kbuild_tree *t, struct kbuild_tree *seed,
		struct kbuild_state *st)
{
	const char *cp_src[] = { "cp", "-a", seed->src, t->src, NULL };
	const char *cp_obj[] = { "cp", "-a", seed->obj, t->obj, NULL };
	struct strbuf err = STRBUF_INIT;
	struct kbuild_step s;
	char *buf = NULL;
	size_t len;
	uint64_t start = util_now_ms();

	if (strcmp(seed->base, t->base) || strcmp(seed->arch.name, t->arch.name))
		return -1;
	/* the seed's obj/ as its base left it, src at the base */
	if (strcmp(seed->built, seed->base) || strcmp(seed->cur, seed->base)) {
		if (kbuild_build_commit(seed, seed->base, "seed-base", &s, &err) ||
		    s.status != KBUILD_OK) {
			log_warn("%s: the seed's base could not be made again: %s",
				 t->arch.name, err.len ? err.buf : s.infra ? s.infra :
				 "it does not build");
			kbuild_step_release(&s);
			goto fail;
		}
		kbuild_step_release(&s);
	}
	log_info("%s: the base of %s as a copy of %s's", t->arch.name,
		 t->profile.name, seed->profile.name);
	util_remove_tree(t->src);
	util_remove_tree(t->obj);
	if (run_cp(cp_src, &err) || run_cp(cp_obj, &err))
		goto fail;
	if (util_read_file(seed->index, &buf, &len, 1 << 30) ||
	    util_write_file(t->index, buf, len)) {
		strbuf_addf(&err, "cannot copy '%s'", seed->index);
		goto fail;
	}
	if (rewrite_paths(t->obj, seed->dir, t->dir)) {
		strbuf_addstr(&err, "obj/ names the seed's directory where it cannot be rewritten");
		goto fail;
	}
	/* what each unit printed: the seed's base's, until it is rebuilt */
	units_release(&t->units);
	units_add(&t->units, &seed->base_diags, "make");
	memcpy(t->cur, t->base, OID_HEX);
	t->built[0] = '\0';
	memcpy(st->cur, t->base, OID_HEX);
	st->built[0] = '\0';
	st->base_built = false;
	kbuild_state_write(t, st);
	log_info("%s: copied in %.1f s (%lu files named the seed)", t->arch.name,
		 (double)(util_now_ms() - start) / 1000, rw_files);
	free(buf);
	strbuf_release(&err);
	return 0;
fail:
	log_warn("%s: no copy of the seed: %s; building from nothing", t->arch.name,
		 err.buf);
	util_remove_tree(t->src);
	util_remove_tree(t->obj);
	unlink(t->index);
	free(buf);
	strbuf_release(&err);
	return -1;
}

/* ---- size ---- */

static uint64_t size_sum;

static int size_cb(const char *path, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)path;
	(void)flag;
	(void)ftw;
	size_sum += (uint64_t)st->st_blocks * 512 / (st->st_nlink ? st->st_nlink : 1);
	return 0;
}

uint64_t kbuild_dir_size(const char *dir)
{
	size_sum = 0;
	nftw(dir, size_cb, 32, FTW_PHYS);
	return size_sum;
}

struct sized {
	char *path;
	time_t used;
	uint64_t size;
};

static int by_age(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

static uint64_t dir_size(const char *path)
{
	char *f = xasprintf("%s/size", path), *buf = NULL;
	uint64_t n;

	if (!util_read_file(f, &buf, NULL, 64)) {
		n = strtoull(buf, NULL, 10);
	} else {
		/* once: the next close of the directory writes it again */
		char *text;

		n = kbuild_dir_size(path);
		text = xasprintf("%llu\n", (unsigned long long)n);
		util_write_file(f, text, strlen(text));
		free(text);
	}
	free(buf);
	free(f);
	return n;
}

int kbuild_prune_size(const struct kbuild_env *env, const char *keep,
		      const char *keep2)
{
	char *builds = xasprintf("%s/builds", env->cache);
	struct sized *v = NULL;
	size_t nr = 0, alloc = 0, i;
	uint64_t total = 0;
	DIR *d = opendir(builds), *a;
	struct dirent *de, *ae;
	int removed = 0;

	if (!env->cache_size || !d)
		goto out;
	while ((de = readdir(d))) {
		char *arch = xasprintf("%s/%s", builds, de->d_name);

		if (de->d_name[0] == '.' || !(a = opendir(arch))) {
			free(arch);
			continue;
		}
		while ((ae = readdir(a))) {
			char *p, *state;
			struct stat sb;

			if (ae->d_name[0] == '.' || util_ends_with(ae->d_name, ".lock"))
				continue;
			p = xasprintf("%s/%s", arch, ae->d_name);
			if (lstat(p, &sb) || !S_ISDIR(sb.st_mode)) {
				free(p);
				continue;
			}
			state = xasprintf("%s/state", p);
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr].path = p;
			v[nr].used = stat(state, &sb) ? 0 : sb.st_mtime;
			v[nr].size = dir_size(p);
			total += v[nr++].size;
			free(state);
		}
		closedir(a);
		free(arch);
	}
	if (nr)
		qsort(v, nr, sizeof(*v), by_age);
	for (i = 0; i < nr && total > env->cache_size; i++) {
		char *lock;
		int fd;

		if (!strcmp(v[i].path, keep) || (keep2 && !strcmp(v[i].path, keep2)))
			continue;
		lock = xasprintf("%s.lock", v[i].path);
		fd = open(lock, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
			log_info("removing the build directory '%s' (build.cachesize)",
				 v[i].path);
			if (!util_remove_tree(v[i].path)) {
				total -= MIN(total, v[i].size);
				removed++;
			}
		}
		if (fd >= 0)
			close(fd);
		free(lock);
	}
out:
	for (i = 0; i < nr; i++)
		free(v[i].path);
	free(v);
	if (d)
		closedir(d);
	free(builds);
	return removed;
}
