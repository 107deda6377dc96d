// SPDX-License-Identifier: GPL-2.0
/*
 * Build directories: where they are, who owns them, creating the base
 * build once, locking, recovering from a step cut short, checking out a
 * commit with its .config, pruning old directories.  See ci/kbuild.h;
 * what a directory keeps between steps is kbuild-state.c, one make
 * step kbuild-make.c.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "bot/git/git.h"
#include "ci/kbuild-priv.h"
#include "ci/objguard.h"
#include "ci/kcheck.h"
#include "ci/w1.h"

#define BASE_DIAGS "base.diags"
#define CONFIG_BASE "config.base"
#define CONFIG_NOTES "config.notes"
#define REPAIR_MARK "repair.config"	/* a repaired configuration's fragment */

/* ---- environment ---- */

int kbuild_env_init(struct kbuild_env *env, const struct config *cfg,
		    struct strbuf *err)
{
	char *dir;
	struct stat st;

	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	env->cache = config_cachedir(cfg);
	env->jobs = config_v(cfg)->build_jobs;
	if (env->jobs < 1)
		env->jobs = 1;
	env->timeout_ms = config_v(cfg)->build_timeout;
	env->mem_bytes = config_v(cfg)->build_memory;
	env->nproc = (uint64_t)MAX(0, config_v(cfg)->build_processes);
	env->log_max = config_v(cfg)->build_logmax;
	env->ccache = config_v(cfg)->build_ccache;
	env->ccache_all = !strcmp(config_v(cfg)->build_ccachewrite, "all");
	env->sandbox = config_v(cfg)->build_sandbox;
	env->keep = config_v(cfg)->build_keep;
	env->cache_size = config_v(cfg)->build_cachesize;
	if (env->keep < 1)
		env->keep = 1;
	if (env->ccache && !run_have_program("ccache")) {
		log_warn("ccache not found (Debian package ccache): building without it");
		env->ccache = false;
	}
	if (geteuid() == 0) {
		const char *user = config_v(cfg)->build_user;
		struct passwd *pw = user ? getpwnam(user) : NULL;

		if (!pw || !pw->pw_uid) {
			strbuf_addf(err, "build.user '%s' is not an unprivileged user",
				    user ? user : "");
			goto fail;
		}
		env->uid = pw->pw_uid;
		env->gid = pw->pw_gid;
		if (!env->sandbox)
			log_warn("build.sandbox is off: builds run as root with network");
	}
	dir = xasprintf("%s/ccache", env->cache);
	if (util_mkdir_p(dir, 0755)) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		goto fail;
	}
	chmod(env->cache, 0755);
	if (env->uid && !stat(dir, &st) && st.st_uid != env->uid &&
	    kbuild_give_tree(env, dir))
		log_warn("cannot give '%s' to the build user: %s", dir,
			 strerror(errno));
	free(dir);
	return 0;
fail:
	kbuild_env_release(env);
	return -1;
}

void kbuild_env_release(struct kbuild_env *env)
{
	free(env->cache);
	memset(env, 0, sizeof(*env));
}

int kbuild_arch(const struct config *cfg, const char *name, struct arch *out,
		struct strbuf *err)
{
	const struct arch *a = arch_lookup(name);
	const char *v;

	if (!a) {
		strbuf_addf(err, "unknown architecture '%s' (known: x86_64, arm64, riscv)",
			    name);
		return -1;
	}
	*out = *a;
	v = config_sub(cfg, CFG_SUB_arch_kernelarch, a->name);
	if (v)
		out->kernel_arch = v;
	v = config_sub(cfg, CFG_SUB_arch_crosscompile, a->name);
	if (v)
		out->cross_compile = v;
	v = config_sub(cfg, CFG_SUB_arch_image, a->name);
	if (v && strcmp(v, a->image)) {
		/* one per table entry: the same override gives the same path */
		static char paths[8][256];
		char *path = paths[(a - arches) % ARRAY_SIZE(paths)];
		const char *slash = strrchr(a->image_path, '/');

		snprintf(path, sizeof(paths[0]), "%.*s/%s",
			 (int)(slash - a->image_path), a->image_path, v);
		out->image = v;
		out->image_path = path;
	}
	return 0;
}

/* ---- recovery: delete what a step cut short wrote ---- */

static uint64_t recover_since_ms;
static unsigned long recover_removed;

static int recover_cb(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	uint64_t mtime = (uint64_t)st->st_mtim.tv_sec * 1000 +
		st->st_mtim.tv_nsec / 1000000;

	(void)ftw;
	if (flag == FTW_F && mtime >= recover_since_ms && !unlink(path))
		recover_removed++;
	return 0;
}

/*
 * Every recovery is also kept in the directory's "recoveries" file: the
 * build that finds the mark is whichever opens the directory next, so the
 * one whose step was cut short may never see the message.
 */
static void note_recovery(const struct kbuild_tree *t, uint64_t busy_ms)
{
	char *path = xasprintf("%s/recoveries", t->dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		      0644);

	if (fd < 0 || dprintf(fd, "%llu %llu removed %lu files\n",
			      (unsigned long long)util_wall_ms(),
			      (unsigned long long)busy_ms, recover_removed) < 0)
		log_warn("cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
}

static unsigned long recover(struct kbuild_tree *t, uint64_t busy_ms)
{
	/* a second of slack for coarse file system timestamps */
	recover_since_ms = busy_ms > 1000 ? busy_ms - 1000 : 0;
	recover_removed = 0;
	nftw(t->obj, recover_cb, 32, FTW_PHYS);
	log_info("%s: a build step was interrupted: removed the %lu files it wrote",
		 t->dir, recover_removed);
	note_recovery(t, busy_ms);
	kbuild_mark_busy(t, false);
	return recover_removed;
}

/* ---- the base build ---- */

static int copy_file(const char *from, const char *to)
{
	char *buf = NULL;
	size_t len;
	int ret = util_read_file(from, &buf, &len, 64 << 20);

	if (!ret)
		ret = util_write_file(to, buf, len);
	free(buf);
	return ret;
}

/*
 * The saved configuration cfg (lorebot's) against dot, obj/.config: obj/
 * is the build user's, so dot is read and written beneath it, no link
 * planted there followed
 */
static bool same_config(const struct kbuild_tree *t, const char *cfg, const char *dot)
{
	char *x = NULL, *y = NULL;
	size_t xl = 0, yl = 0;
	bool same = !util_read_file(cfg, &x, &xl, 64 << 20) &&
		!util_read_file_beneath(t->obj, dot, &y, &yl, 64 << 20) && xl == yl &&
		!memcmp(x, y, xl);

	free(x);
	free(y);
	return same;
}

static int save_config(const struct kbuild_tree *t, const char *dot, const char *cfg)
{
	char *buf = NULL;
	size_t len;
	int ret = util_read_file_beneath(t->obj, dot, &buf, &len, 64 << 20);

	if (!ret)
		ret = util_write_file(cfg, buf, len);
	free(buf);
	return ret;
}

/* dot again from cfg, the build user's when it builds */
static int restore_config(const struct kbuild_tree *t, const char *cfg, const char *dot)
{
	char *buf = NULL;
	size_t len;
	int ret = util_read_file(cfg, &buf, &len, 64 << 20), fd;

	if (!ret)
		ret = kbuild_obj_file_reset(dot);
	if (!ret)
		ret = util_write_file_beneath(t->obj, dot, buf, len);
	free(buf);
	if (!ret && t->env->uid) {
		fd = util_open_beneath(t->obj, dot, O_RDONLY, 0);
		if (fd < 0 || fchown(fd, t->env->uid, t->env->gid))
			ret = -errno;
		if (fd >= 0)
			close(fd);
	}
	return ret;
}

/*
 * Does a fragment after the i-th set the option of line p ("CONFIG_X=y",
 * "# CONFIG_X is not set")?  The repair's may turn off what mm.config
 * turns on: the later one is what was asked.
 */
static bool set_later(const struct kbuild_tree *t, size_t i, const char *p)
{
	const char *sym = strstr(p, "CONFIG_");
	size_t n = strcspn(sym, "= "), j;
	bool found = false;

	for (j = i + 1; j < t->profile.nr && !found; j++) {
		char *buf = NULL, *q;

		if (util_read_file(t->profile.fragments[j], &buf, NULL, 1 << 20))
			continue;
		for (q = buf; !found && (q = strstr(q, "CONFIG_")); q += 7)
			found = !strncmp(q, sym, n) && (q[n] == '=' || q[n] == ' ') &&
				(q == buf || q[-1] == '\n' || q[-1] == ' ');
		free(buf);
	}
	return found;
}

/* Options of the fragments that did not make it into .config */
static void check_fragments(struct kbuild_tree *t)
{
	size_t i;

	strbuf_reset(&t->config_notes);
	for (i = 0; i < t->profile.nr; i++) {
		char *buf = NULL, *p, *nl;
		const char *name = strrchr(t->profile.fragments[i], '/') + 1;

		if (util_read_file(t->profile.fragments[i], &buf, NULL, 1 << 20))
			continue;
		for (nl = buf; (p = kbuild_next_line(&nl));) {
			if ((util_starts_with(p, "CONFIG_") || util_starts_with(p, "# CONFIG_")) &&
			    (strchr(p, '=') || strstr(p, " is not set")) &&
			    !kbuild_config_has(t, p) && !set_later(t, i, p))
				strbuf_addf(&t->config_notes,
					    "%s: '%s' is not in the final .config\n",
					    name, p);
		}
		free(buf);
	}
}

static int step_infra(struct kbuild_step *s, const char *what,
		      struct strbuf *err)
{
	const struct diag *first = NULL;
	size_t i;

	if (s->status == KBUILD_OK)
		return 0;
	if (s->status == KBUILD_INFRA) {
		strbuf_addf(err, "%s: %s", what, s->infra);
		return -1;
	}
	for (i = 0; i < s->parse.diags.nr && !first; i++)
		if (s->parse.diags.v[i].sev == DIAG_ERROR)
			first = &s->parse.diags.v[i];
	strbuf_addf(err, "%s failed", what);
	if (first) {
		strbuf_addstr(err, ": ");
		diag_format(first, err);
	} else if (s->parse.make_error) {
		strbuf_addf(err, ": %s", s->parse.make_error);
	}
	return -1;
}

/* tinyconfig, merge the fragments, olddefconfig: obj/.config */
static int make_config(struct kbuild_tree *t, struct strbuf *err)
{
	const char *base_t[] = { t->profile.base, NULL };
	const char *old_t[] = { "olddefconfig", NULL };
	struct kbuild_make_opts o = {
		.name = "config", .targets = base_t, .top = "config",
	};
	struct kbuild_step s;
	const char **argv;
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", t->src);
	char *dot = xasprintf("%s/.config", t->obj);
	char *fragdir = xasprintf("%s/fragments", t->dir);
	size_t i, n = 0;
	int ret = -1;

	argv = xcalloc(t->profile.nr + 8, sizeof(*argv));
	if (kbuild_make(t, &o, &s, err) || step_infra(&s, t->profile.base, err))
		goto out;
	kbuild_step_release(&s);
	/* merge_config.sh runs in obj/ (temporary files in its cwd) */
	util_mkdir_p(fragdir, 0755);
	argv[n++] = merge;
	argv[n++] = "-m";
	argv[n++] = "-O";
	argv[n++] = t->obj;
	argv[n++] = dot;
	for (i = 0; i < t->profile.nr; i++) {
		char *copy = xasprintf("%s/%s", fragdir,
				       strrchr(t->profile.fragments[i], '/') + 1);

		copy_file(t->profile.fragments[i], copy);
		argv[n++] = copy;
	}
	o.name = "merge-config";
	if (kbuild_run(t, argv, t->obj, &o, &s, err) ||
	    step_infra(&s, "merge_config.sh", err))
		goto out;
	kbuild_step_release(&s);
	o.name = "olddefconfig";
	o.targets = old_t;
	if (kbuild_make(t, &o, &s, err) || step_infra(&s, "olddefconfig", err))
		goto out;
	ret = 0;
out:
	kbuild_step_release(&s);
	for (i = 5; i < n; i++)
		free((char *)argv[i]);
	free(argv);
	free(merge);
	free(dot);
	free(fragdir);
	return ret;
}

static int save_base_diags(struct kbuild_tree *t)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s", t->dir, BASE_DIAGS);
	int ret;

	diag_list_write(&t->base_diags, &sb);
	ret = util_write_file(path, sb.buf, sb.len);
	strbuf_release(&sb);
	free(path);
	return ret;
}

static int load_base_diags(struct kbuild_tree *t)
{
	char *path = xasprintf("%s/%s", t->dir, BASE_DIAGS), *buf = NULL;
	size_t len;
	int ret = util_read_file(path, &buf, &len, 512 << 20);

	if (!ret && diag_list_read(&t->base_diags, buf, len))
		ret = -EINVAL;
	free(buf);
	free(path);
	return ret;
}

/*
 * The units as the last build left them.  Without their file (a
 * directory of an older lorebot), as the base build left them: true
 * once the tree is back at the base (*rebuild).
 */
static void load_units(struct kbuild_tree *t, bool *rebuild)
{
	char *path = xasprintf("%s/units.diags", t->dir);

	*rebuild = false;
	if (units_load(&t->units, path, "make")) {
		units_release(&t->units);
		units_add(&t->units, &t->base_diags, "make");
		*rebuild = strcmp(t->cur, t->base);
	}
	free(path);
}

/*
 * The full build of the base, from nothing (cold), or over what obj/
 * holds: after a failed one, or a seed's copy (configure: make the
 * profile's .config first, as from nothing)
 */
static int build_base_how(struct kbuild_tree *t, struct kbuild_state *st, bool cold,
			  bool configure, struct strbuf *err)
{
	struct kbuild_make_opts o = { .name = "base", .keep_going = true };
	struct kbuild_step s;
	char *cfg = xasprintf("%s/%s", t->dir, CONFIG_BASE);
	char *dot = xasprintf("%s/.config", t->obj);
	int ret = -1;

	if (cold) {
		log_info("%s: building the base %.12s (once per base)",
			 t->arch.name, t->base);
		units_release(&t->units);
		if (util_remove_tree(t->obj) || util_mkdir_p(t->obj, 0755) ||
		    kbuild_give_tree(t->env, t->obj)) {
			strbuf_addf(err, "cannot create '%s': %s", t->obj,
				    strerror(errno));
			goto out;
		}
	}
	if (srctree_checkout(t->git_dir, t->src, t->index, t->base, err))
		goto out;
	memcpy(t->cur, t->base, OID_HEX);
	if (configure) {
		if (make_config(t, err))
			goto out;
		check_fragments(t);
		if (t->config_notes.len) {
			char *notes = xasprintf("%s/%s", t->dir, CONFIG_NOTES);

			util_write_file(notes, t->config_notes.buf, t->config_notes.len);
			free(notes);
			log_warn("%s: %s", t->arch.name, t->config_notes.buf);
		}
		if (save_config(t, dot, cfg)) {
			strbuf_addf(err, "cannot save '%s'", cfg);
			goto out;
		}
	} else if (!same_config(t, cfg, dot) && restore_config(t, cfg, dot)) {
		strbuf_addf(err, "cannot restore '%s'", dot);
		goto out;
	}
	if (kbuild_make(t, &o, &s, err))
		goto out;
	t->base_built_now = true;
	t->base_ms = s.elapsed_ms;
	t->base_cc_hits = s.cc_hits;
	t->base_cc_misses = s.cc_misses;
	if (s.status == KBUILD_INFRA) {
		step_infra(&s, "base build", err);
		kbuild_step_release(&s);
		goto out;
	}
	/* the base is what every unit printed, configuration included */
	units_drop(&t->units, w1_is_unit);
	units_drop(&t->units, kcheck_any_unit);
	diag_list_release(&t->base_diags);
	units_flatten(&t->units, &t->base_diags);
	if (save_base_diags(t)) {
		strbuf_addf(err, "cannot save the base diagnostics in '%s'", t->dir);
		kbuild_step_release(&s);
		goto out;
	}
	st->busy_ms = 0;
	st->base_built = true;
	st->base_ok = s.status == KBUILD_OK;
	st->base_ms = s.elapsed_ms;
	st->base_hits = s.cc_hits;
	st->base_misses = s.cc_misses;
	memcpy(st->cur, t->cur, OID_HEX);
	if (s.status == KBUILD_OK)
		memcpy(t->built, t->cur, OID_HEX);
	memcpy(st->built, t->built, OID_HEX);
	kbuild_state_write(t, st);
	/* whatever the base is, it is what this directory holds */
	kbuild_guard_save(t);
	ret = step_infra(&s, "the base does not build", err);
	kbuild_step_release(&s);
out:
	free(cfg);
	free(dot);
	return ret;
}

static int build_base(struct kbuild_tree *t, struct kbuild_state *st, bool cold,
		      struct strbuf *err)
{
	return build_base_how(t, st, cold, cold, err);
}

static bool base_trusted(const struct kbuild_tree *t)
{
	return kbuild_commit_trusted(t, t->base);
}

/*
 * obj/ is not as the base left it: an untrusted build's files were
 * removed (kbuild_guard_clean()), or a stopped step's (recover()).  Make the
 * base again, as the trusted build it is, so that the directory is
 * recorded whole once more.  Without it, what make rebuilds in the next
 * series' first step is that series' (untrusted) and is removed again at
 * the next open: after one series that changes the configuration, every
 * object of every later series' first step, for good.  With it, each
 * job pays for what the last one changed (ccache hits and a link).  The
 * base build's own figures stay those of the first build.  A refresh
 * that fails leaves obj/ to the next open, as an untrusted step would.
 * It runs before the first untrusted step after the open
 * (kbuild_refresh()), not at the open: see kbuild_refresh_later().
 */
static void refresh_base(struct kbuild_tree *t, struct kbuild_state *st)
{
	struct kbuild_state first = *st;
	struct strbuf err = STRBUF_INIT;
	char *u;
	int fd;

	log_info("%s: obj/ is not as the base left it: making the base again",
		 t->arch.name);
	if (!build_base(t, st, false, &err)) {
		t->base_refreshed = true;
		t->refresh_ms = t->base_ms;
	} else {
		log_warn("%s: the base could not be made again: %s", t->arch.name,
			 err.buf);
		kbuild_state_read(t, st);
		if (st->busy_ms)
			recover(t, st->busy_ms);
		u = kbuild_tree_file(t, OBJ_UNTRUSTED);
		fd = open(u, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		free(u);
		kbuild_state_read(t, st);
	}
	t->base_built_now = false;
	t->base_ms = st->base_ms = first.base_ms;
	t->base_cc_hits = st->base_hits = first.base_hits;
	t->base_cc_misses = st->base_misses = first.base_misses;
	kbuild_state_write(t, st);
	strbuf_release(&err);
}

int kbuild_refresh(struct kbuild_tree *t, struct strbuf *err)
{
	struct kbuild_state st;
	struct kbuild_step s;
	char cur[OID_HEX];
	bool cur_ours = t->cur_ours;
	int ret;

	if (!t->refresh_due)
		return 0;
	t->refresh_due = false;		/* once per open, whatever comes of it */
	memcpy(cur, t->cur, OID_HEX);
	kbuild_state_read(t, &st);
	refresh_base(t, &st);
	if (!cur_ours || !strcmp(cur, t->cur))
		return 0;
	/* the step it comes before says what the commit's olddefconfig does */
	ret = kbuild_checkout(t, cur, NULL, &s, err);
	kbuild_step_release(&s);
	return ret;
}

/* ---- open, prune, close ---- */

static int lock_dir(struct kbuild_tree *t, const char *lock_path,
		    struct strbuf *err)
{
	t->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (t->lock_fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", lock_path, strerror(errno));
		return -1;
	}
	if (!flock(t->lock_fd, LOCK_EX | LOCK_NB))
		return 0;
	log_info("waiting for '%s' (another build uses it)", t->dir);
	if (flock(t->lock_fd, LOCK_EX)) {
		strbuf_addf(err, "cannot lock '%s': %s", lock_path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A build killed while it checked out leaves libgit2's index lock, and
 * every later checkout would fail on it.  With the tree's own lock held
 * no one else writes that index: the lock is stale.
 */
static void drop_stale_index_lock(const struct kbuild_tree *t)
{
	char *stale = xasprintf("%s.lock", t->index);

	if (!unlink(stale))
		log_info("removed '%s', left by a build that was stopped", stale);
	free(stale);
}

struct old_dir {
	char *path;
	time_t used;
};

static int by_use(const void *a, const void *b)
{
	const struct old_dir *x = a, *y = b;

	return x->used < y->used ? 1 : x->used > y->used ? -1 : 0;
}

int kbuild_prune(const char *arch_dir, const char *current, unsigned int keep)
{
	struct old_dir *v = NULL;
	size_t nr = 0, alloc = 0, i;
	DIR *d = opendir(arch_dir);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *path, *state;
		struct stat st;

		if (de->d_name[0] == '.' || util_ends_with(de->d_name, ".lock"))
			continue;
		path = xasprintf("%s/%s", arch_dir, de->d_name);
		state = xasprintf("%s/%s", path, REPAIR_MARK);
		/* a repaired configuration's go by size (kbuild_prune_size()) */
		if (!access(state, F_OK)) {
			free(path);
			free(state);
			continue;
		}
		free(state);
		state = xasprintf("%s/state", path);
		if (strcmp(path, current) && !stat(path, &st) && S_ISDIR(st.st_mode)) {
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr].path = path;
			v[nr++].used = stat(state, &st) ? 0 : st.st_mtime;
			path = NULL;
		}
		free(path);
		free(state);
	}
	closedir(d);
	if (nr)		/* qsort() must not see NULL: the first build of an arch */
		qsort(v, nr, sizeof(*v), by_use);
	for (i = 0; i < nr; i++) {
		char *lock = xasprintf("%s.lock", v[i].path);
		int fd = open(lock, O_RDWR | O_CLOEXEC);

		/* current counts as one of keep; a directory in use stays */
		if (i + 1 >= keep && fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
			log_info("removing the old build directory '%s'", v[i].path);
			if (!util_remove_tree(v[i].path))
				removed++;
		}
		if (fd >= 0)
			close(fd);
		free(lock);
		free(v[i].path);
	}
	free(v);
	return removed;
}

static int check_tools(const struct arch *arch, const struct kbuild_env *env,
		       struct strbuf *err)
{
	static const struct {
		const char *prog, *package;
	} host[] = {
		{ "make", "make" }, { "flex", "flex" }, { "bison", "bison" },
		{ "bc", "bc" }, { "perl", "perl" }, { "git", "git" },
	};
	char *gcc = xasprintf("%sgcc", arch->cross_compile);
	size_t i;
	int ret = 0;

	if (!run_have_program(gcc)) {
		strbuf_addf(err, "toolchain missing: '%s' not found (Debian package %s)",
			    gcc, arch->gcc_package);
		ret = -1;
	}
	for (i = 0; i < ARRAY_SIZE(host) && !ret; i++) {
		if (!run_have_program(host[i].prog)) {
			strbuf_addf(err, "toolchain missing: '%s' not found (Debian package %s)",
				    host[i].prog, host[i].package);
			ret = -1;
		}
	}
	if (!ret && env->sandbox && !run_have_program("bwrap")) {
		strbuf_addstr(err, "sandbox missing: 'bwrap' not found (Debian package "
			      "bubblewrap); or set build.sandbox to false");
		ret = -1;
	}
	free(gcc);
	return ret;
}

int kbuild_open(struct kbuild_tree **out, const struct kbuild_env *env,
		const struct arch *arch, const char *profile,
		const char *git_dir, const char *base, const char *log_dir,
		struct strbuf *err)
{
	struct profile p;

	*out = NULL;
	if (check_tools(arch, env, err) ||
	    profile_load(env->cfg, profile, arch, &p, err))
		return -1;
	return kbuild_open_profile(out, env, arch, &p, git_dir, base, log_dir,
				   NULL, err);
}

int kbuild_open_profile(struct kbuild_tree **out, const struct kbuild_env *env,
			const struct arch *arch, struct profile *profile,
			const char *git_dir, const char *base, const char *log_dir,
			struct kbuild_tree *seed, struct strbuf *err)
{
	struct kbuild_tree *t = xcalloc(1, sizeof(*t));
	char *arch_dir = NULL, *lock = NULL, *real;
	struct kbuild_state st;
	mode_t old_umask = umask(022);
	bool rebuild = false, dirty = false, seeded = false;
	int ret = -1;

	t->env = env;
	t->arch = *arch;
	t->lock_fd = -1;
	strbuf_init(&t->config_notes, 0);
	t->git_dir = xstrdup(git_dir);
	t->log_dir = xstrdup_or_null(log_dir);
	t->profile = *profile;
	memset(profile, 0, sizeof(*profile));
	if (check_tools(arch, env, err))
		goto out;
	if (git_rev_resolve(git_dir, base, t->base, err))
		goto out;
	arch_dir = xasprintf("%s/builds/%s", env->cache, arch->name);
	if (util_mkdir_p(arch_dir, 0755)) {
		strbuf_addf(err, "cannot create '%s': %s", arch_dir, strerror(errno));
		goto out;
	}
	real = realpath(arch_dir, NULL);
	if (real) {
		free(arch_dir);
		arch_dir = real;
	}
	/*
	 * A repaired configuration's directory is named like its profile's
	 * ("small-<base>-<hash>"): a copy of that one's obj/ names it with a
	 * path of the same length (ci/kbuild-seed.c)
	 */
	t->dir = xasprintf("%s/%.*s-%.12s-%.8s", arch_dir,
			   (int)(strlen(t->profile.name) -
				 (util_ends_with(t->profile.name, "+r") ? 2 : 0)),
			   t->profile.name, t->base, t->profile.hash);
	t->src = xasprintf("%s/src", t->dir);
	t->obj = xasprintf("%s/obj", t->dir);
	t->index = xasprintf("%s/src.index", t->dir);
	lock = xasprintf("%s.lock", t->dir);
	if (lock_dir(t, lock, err))
		goto out;
	drop_stale_index_lock(t);
	if (util_mkdir_p(t->dir, 0755)) {
		strbuf_addf(err, "cannot create '%s': %s", t->dir, strerror(errno));
		goto out;
	}
	/* what makes it a repaired configuration's (kbuild_prune() leaves it out) */
	if (t->profile.repair) {
		char *mark = xasprintf("%s/%s", t->dir, REPAIR_MARK);

		if (access(mark, F_OK) && copy_file(t->profile.repair, mark))
			log_warn("cannot write '%s'", mark);
		free(mark);
	}
	kbuild_state_read(t, &st);
	memcpy(t->cur, st.cur, OID_HEX);
	memcpy(t->built, st.built, OID_HEX);
	if (st.busy_ms && st.base_built)
		dirty = recover(t, st.busy_ms) > 0;
	/* every job starts from obj/ as the last trusted build left it */
	if (kbuild_guard_clean(t))
		dirty = true;
	/* ... or an earlier open left the base to be made again */
	if (kbuild_refresh_marked(t))
		dirty = true;
	/* one numbering of the logs of a job */
	if (seed)
		t->steps = seed->steps;
	if (!st.base_built && seed)
		seeded = !kbuild_seed(t, seed, &st);
	if (seeded) {
		if (build_base_how(t, &st, false, true, err))
			goto out;
		t->base_seeded = true;
	} else if (!st.base_built || load_base_diags(t)) {
		if (build_base(t, &st, true, err))
			goto out;
	} else {
		load_units(t, &rebuild);
	}
	if (!t->base_built_now) {
		char *notes = xasprintf("%s/%s", t->dir, CONFIG_NOTES), *buf;

		if (!util_read_file(notes, &buf, NULL, 1 << 20)) {
			strbuf_addstr(&t->config_notes, buf);
			free(buf);
		}
		free(notes);
	}
	if (!t->base_built_now && (!st.base_ok || rebuild)) {
		/*
		 * A base that failed (maybe the toolchain was fixed) or a tree
		 * whose state is unknown: build the base again, cheap when
		 * little changed.
		 */
		if (build_base(t, &st, false, err))
			goto out;
	} else if (!t->base_built_now) {
		t->base_ms = st.base_ms;
		t->base_cc_hits = st.base_hits;
		t->base_cc_misses = st.base_misses;
		st.busy_ms = 0;
		kbuild_state_write(t, &st);	/* marks it used, for kbuild_prune() */
		if (dirty && st.base_ok && base_trusted(t))
			kbuild_refresh_later(t);
	}
	if (st.base_built) {
		char *m = kbuild_tree_file(t, OBJ_MANIFEST);

		/* a directory built before obj/ was recorded: as it is */
		if (access(m, F_OK)) {
			log_info("%s: recording obj/ of the base", t->arch.name);
			kbuild_guard_save(t);
		}
		free(m);
	}
	kbuild_prune(arch_dir, t->dir, t->env->keep);
	kbuild_prune_size(t->env, t->dir, seed ? seed->dir : NULL);
	ret = 0;
out:
	umask(old_umask);
	free(arch_dir);
	free(lock);
	if (ret) {
		kbuild_close(t);
		t = NULL;
	}
	*out = t;
	return ret;
}

void kbuild_close(struct kbuild_tree *t)
{
	if (!t)
		return;
	/* what it takes now, for kbuild_prune_size() (under the lock) */
	if (t->lock_fd >= 0 && t->dir) {
		char *path = xasprintf("%s/size", t->dir);
		char *text = xasprintf("%llu\n", (unsigned long long)kbuild_dir_size(t->dir));

		util_write_file(path, text, strlen(text));
		free(text);
		free(path);
	}
	if (t->lock_fd >= 0)
		close(t->lock_fd);	/* releases the flock */
	profile_release(&t->profile);
	diag_list_release(&t->base_diags);
	units_release(&t->units);
	strbuf_release(&t->config_notes);
	free(t->git_dir);
	free(t->dir);
	free(t->src);
	free(t->obj);
	free(t->index);
	free(t->log_dir);
	free(t);
}

/* ---- per commit ---- */

/* The base's .config again: what its configuration printed too */
static void base_config_unit(struct kbuild_tree *t)
{
	struct diag_parse p = { 0 };
	size_t i;

	for (i = 0; i < t->base_diags.nr; i++)
		if (!strcmp(t->base_diags.v[i].unit, "config"))
			diag_list_add(&p.diags, &t->base_diags.v[i]);
	kbuild_units_update(t, &p, "config");
	diag_parse_release(&p);
}

/* The repair fragment's lines at the end of dot, the last word for olddefconfig */
static int append_fragment(const struct kbuild_tree *t, const char *dot)
{
	char *frag = NULL, *cur = NULL;
	size_t flen, clen;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	ret = util_read_file(t->profile.repair, &frag, &flen, 1 << 20);
	if (!ret)
		ret = util_read_file_beneath(t->obj, dot, &cur, &clen, 64 << 20);
	if (!ret) {
		strbuf_add(&sb, cur, clen);
		strbuf_complete_line(&sb);
		strbuf_add(&sb, frag, flen);
		ret = util_write_file_beneath(t->obj, dot, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	free(frag);
	free(cur);
	return ret;
}

static bool is_kconfig(const char *path, size_t len)
{
	const char *base = path, *p;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	return path + len - base >= 7 && !strncmp(base, "Kconfig", 7);
}

int kbuild_checkout(struct kbuild_tree *t, const char *commit,
		    bool *kconfig_changed, struct kbuild_step *step,
		    struct strbuf *err)
{
	const char *old_t[] = { "olddefconfig", NULL };
	struct kbuild_make_opts o = {
		.name = "olddefconfig", .targets = old_t, .top = "config",
	};
	struct strbuf paths = STRBUF_INIT;
	char *cfg = xasprintf("%s/%s", t->dir, CONFIG_BASE);
	char *dot = xasprintf("%s/.config", t->obj);
	char oid[OID_HEX];
	bool kconfig = false;
	mode_t old_umask = umask(022);
	const char *p;
	int ret = -1;

	memset(step, 0, sizeof(*step));
	step->status = KBUILD_OK;
	if (git_rev_resolve(t->git_dir, commit, oid, err) ||
	    srctree_changed(t->git_dir, t->base, oid, &paths, err))
		goto out;
	for (p = paths.buf; *p;) {
		const char *nl = strchrnul(p, '\n');

		if (is_kconfig(p, nl - p))
			kconfig = true;
		p = *nl ? nl + 1 : nl;
	}
	if (srctree_checkout(t->git_dir, t->src, t->index, oid, err))
		goto out;
	memcpy(t->cur, oid, OID_HEX);
	t->cur_ours = true;
	kbuild_save_state(t);
	if (!same_config(t, cfg, dot) && restore_config(t, cfg, dot)) {
		strbuf_addf(err, "cannot restore '%s'", dot);
		goto out;
	}
	/*
	 * A repaired configuration's options that the base's Kconfig did
	 * not have (the series adds them): set again for olddefconfig
	 */
	if (kconfig && t->profile.repair && append_fragment(t, dot)) {
		strbuf_addf(err, "cannot add the repair fragment to '%s'", dot);
		goto out;
	}
	if (kconfig && kbuild_make(t, &o, step, err))
		goto out;
	if (!kconfig)
		base_config_unit(t);
	if (kconfig_changed)
		*kconfig_changed = kconfig;
	ret = 0;
out:
	umask(old_umask);
	strbuf_release(&paths);
	free(cfg);
	free(dot);
	return ret;
}

int kbuild_build_commit(struct kbuild_tree *t, const char *commit,
			const char *name, struct kbuild_step *step,
			struct strbuf *err)
{
	struct kbuild_make_opts o = { .name = name, .keep_going = true };
	bool kconfig;

	if (kbuild_checkout(t, commit, &kconfig, step, err))
		return -1;
	if (step->status != KBUILD_OK)
		return 0;
	/* built already, nothing changed since: a make would do nothing */
	if (!kconfig && !strcmp(t->built, t->cur))
		return 0;
	kbuild_step_release(step);
	return kbuild_make(t, &o, step, err);
}

char *kbuild_base_config(const struct kbuild_tree *t)
{
	return xasprintf("%s/%s", t->dir, CONFIG_BASE);
}

char *kbuild_image(const struct kbuild_tree *t)
{
	return xasprintf("%s/%s", t->obj, t->arch.image_path);
}
