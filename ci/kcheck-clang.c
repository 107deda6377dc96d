// SPDX-License-Identifier: GPL-2.0
/*
 * clang on the touched files (build.clang): "make LLVM=1 mm/rmap.o" in
 * obj/.lorebot-clang/, an O= directory of its own beside gcc's objects.
 * Its .config is obj/'s (the tree's at this commit) made again by
 * "make LLVM=1 olddefconfig": a clang build's options (CC_IS_CLANG, the
 * sanitizers clang has) differ from gcc's, and a clang build over gcc's
 * .config would stop at the first new question.  That is done when obj/'s
 * .config differs from the last one made again (<build dir>/clang.config).
 * The first make there builds clang's prepare (scripts, asm-offsets), a
 * minute; then each step compiles the touched files only.
 *
 * It lives under obj/ so that obj/'s guard (ci/objguard.h) covers it: an
 * untrusted series' objects there are removed like those of obj/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "ci/kbuild-priv.h"
#include "ci/kcheck.h"

#define CLANG_DIR ".lorebot-clang"
#define CLANG_RECORD "clang.config"	/* in the build directory */

/* obj/.lorebot-clang as a directory of the build user's: 0, or -1 with err */
static int clang_dir(struct kbuild_tree *t, const char *dir, struct strbuf *err)
{
	struct stat st;
	int ret;

	if (!lstat(dir, &st) && S_ISDIR(st.st_mode))
		return 0;
	/* a link or a file the build user left there goes */
	if (!lstat(dir, &st) && (ret = util_remove_tree(dir))) {
		strbuf_addf(err, "cannot remove '%s': %s", dir, strerror(-ret));
		return -1;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		strbuf_addf(err, "cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (kbuild_give_tree(t->env, dir)) {
		strbuf_addf(err, "cannot give '%s' to the build user: %s", dir,
			    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Bring obj/'s .config to dir and make it clang's, unless that was done
 * for this very .config and dir's is still there.  0 with *ran and the
 * step when olddefconfig ran, -1 with err.
 */
static int clang_config(struct kbuild_tree *t, const char *dir,
			const char *const *vars, const char *name, bool *ran,
			struct kbuild_step *step, struct strbuf *err)
{
	static const char *const targets[] = { "olddefconfig", NULL };
	char *gcc_path = xasprintf("%s/.config", t->obj);
	char *path = xasprintf("%s/.config", dir);
	char *record = kbuild_tree_file(t, CLANG_RECORD);
	char *cfg = NULL, *last = NULL, *stepname = xasprintf("%s-config", name);
	struct kbuild_make_opts o = {
		.name = stepname, .targets = targets, .vars = vars, .obj = dir,
	};
	size_t len, last_len;
	struct stat st;
	int ret = -1, r;

	*ran = false;
	r = util_read_file_beneath(t->obj, gcc_path, &cfg, &len, 64 << 20);
	if (r) {
		strbuf_addf(err, "cannot read '%s': %s", gcc_path, strerror(-r));
		goto out;
	}
	if (!util_read_file(record, &last, &last_len, 64 << 20) && last_len == len &&
	    !memcmp(cfg, last, len) && !lstat(path, &st) && S_ISREG(st.st_mode)) {
		ret = 0;
		goto out;
	}
	unlink(record);
	kbuild_obj_file_reset(path);
	r = util_write_file_beneath(t->obj, path, cfg, len);
	if (r) {
		strbuf_addf(err, "cannot write '%s': %s", path, strerror(-r));
		goto out;
	}
	/* its messages are no unit's: the filter keeps nothing of them */
	if (kcheck_make(&kchecks[KCHECK_CLANG], t, NULL, NULL, 0, &o, step, err))
		goto out;
	*ran = true;
	if (step->status == KBUILD_OK && util_write_file(record, cfg, len))
		log_warn("cannot write '%s': %s", record, strerror(errno));
	ret = 0;
out:
	free(stepname);
	free(last);
	free(cfg);
	free(record);
	free(path);
	free(gcc_path);
	return ret;
}

int kcheck_clang_run(struct kbuild_tree *t, char *const *files, size_t nr,
		     const char *name, struct kbuild_step *step, struct strbuf *err)
{
	const struct kcheck *c = &kchecks[KCHECK_CLANG];
	const char *vars[] = { "LLVM=1", t->env->ccache ? "CC=ccache clang" : NULL, NULL };
	const char **targets = xcalloc(nr + 1, sizeof(*targets));
	char *dir = xasprintf("%s/" CLANG_DIR, t->obj);
	struct kbuild_make_opts o = {
		.name = name, .targets = targets, .vars = vars, .obj = dir,
	};
	bool ran;
	size_t i;
	int ret = -1;

	if (clang_dir(t, dir, err) || clang_config(t, dir, vars, name, &ran, step, err))
		goto out;
	if (ran && step->status != KBUILD_OK) {
		ret = 0;	/* clang cannot configure this tree: the step says why */
		goto out;
	}
	if (ran)
		kbuild_step_release(step);
	for (i = 0; i < nr; i++) {
		char *o_path;
		int r;

		targets[i] = xasprintf("%.*s.o", (int)(strlen(files[i]) - 2), files[i]);
		/* each one is really compiled (a hit in the ccache is cheap) */
		o_path = xasprintf("%s/%s", dir, targets[i]);
		r = util_unlink_beneath(t->obj, o_path);
		if (r && r != -ENOENT)
			log_warn("cannot remove '%s': %s", o_path, strerror(-r));
		free(o_path);
	}
	ret = kcheck_make(c, t, files, targets, nr, &o, step, err);
out:
	for (i = 0; i < nr; i++)
		free((char *)targets[i]);
	free(targets);
	free(dir);
	return ret;
}
