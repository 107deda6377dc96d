/* SPDX-License-Identifier: GPL-2.0 */
/* Between the files of ci/kbuild*: not for other callers */
#ifndef LOREBOT_CI_KBUILD_PRIV_H
#define LOREBOT_CI_KBUILD_PRIV_H

#include "ci/kbuild.h"

#define OBJ_MANIFEST "obj.manifest"	/* obj/ as the last trusted build left it */
#define OBJ_UNTRUSTED "obj.untrusted"	/* an untrusted build wrote there since */
#define OBJ_REFRESH "obj.refresh"	/* what it left was removed, the base not made again */

/* Run argv (make, merge_config.sh) in the sandbox of t, cwd in it */
int kbuild_run(struct kbuild_tree *t, const char *const *argv,
	       const char *cwd, const struct kbuild_make_opts *o,
	       struct kbuild_step *s, struct strbuf *err);

/* The state of a build directory (kbuild-state.c) */

/* The build user owns what builds write: obj/ and the ccache */
int kbuild_give_tree(const struct kbuild_env *env, const char *path);
/* The next line of a buffer, terminated in place; NULL at the end */
char *kbuild_next_line(char **pos);

/*
 * obj/ is not as the base left it (what an untrusted build left was
 * removed): the base is made again before the next untrusted step, not
 * at the open, so that a job that builds nothing (a boot of kernels
 * already built) leaves it to the next that builds, and a trusted make
 * of the image (the base's again) does it on the way.  The mark
 * OBJ_REFRESH keeps it due across jobs.
 */
void kbuild_refresh_later(struct kbuild_tree *t);
/* Did an earlier open leave it due? */
bool kbuild_refresh_marked(const struct kbuild_tree *t);
/* A trusted make of the image ran to its end: obj/ is whole and recorded */
void kbuild_refresh_done(struct kbuild_tree *t);

/* The directory's state file */
struct kbuild_state {
	char cur[OID_HEX];
	char built[OID_HEX];	/* the last commit whose image make succeeded */
	bool base_built, base_ok;
	uint64_t busy_ms, base_ms;
	unsigned int base_hits, base_misses;
};
void kbuild_state_read(const struct kbuild_tree *t, struct kbuild_state *s);
/* 0, or -errno */
int kbuild_state_write(const struct kbuild_tree *t, const struct kbuild_state *s);
/* Mark (or clear) "a step is running": see the recovery in kbuild_open() */
void kbuild_mark_busy(struct kbuild_tree *t, bool busy);
/*
 * Around every make step (ci/objguard.h): an untrusted step marks obj/;
 * a trusted one first removes what an untrusted one left, and records
 * obj/ after it
 */
void kbuild_guard_before(struct kbuild_tree *t, bool trusted);
void kbuild_guard_after(struct kbuild_tree *t, bool trusted);
/* Record t->cur and t->built (a busy mark stays) */
void kbuild_save_state(struct kbuild_tree *t);
/* Does obj/.config have this exact line? */
bool kbuild_config_has(const struct kbuild_tree *t, const char *line);

/*
 * path, one of lorebot's own files in obj/ (.config, the ccache log), as
 * the build user left it: anything there but a regular file (a link, a
 * FIFO, a directory) is removed, so that lorebot can write it again.
 * 0 or -errno.
 */
int kbuild_obj_file_reset(const char *path);
/* t->dir/name; caller frees */
char *kbuild_tree_file(const struct kbuild_tree *t, const char *name);
/* Record obj/ as a trusted build (or the base's) left it */
void kbuild_guard_save(struct kbuild_tree *t);
/*
 * After an untrusted build: remove from obj/ what it left that the record
 * does not have.  True when obj/ was not as recorded.
 */
bool kbuild_guard_clean(struct kbuild_tree *t);

/*
 * Make t (no base yet) a copy of seed's base (kbuild-seed.c): 0, or
 * -1 when it could not, t's src/ and obj/ removed again
 */
int kbuild_seed(struct kbuild_tree *t, struct kbuild_tree *seed,
		struct kbuild_state *st);
/* The size of a build directory on disk, hard links shared out */
uint64_t kbuild_dir_size(const char *dir);

#endif
