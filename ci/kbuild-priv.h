/* SPDX-License-Identifier: GPL-2.0 */
/* Between the files of ci/kbuild*: not for other callers */
#ifndef LOREBOT_CI_KBUILD_PRIV_H
#define LOREBOT_CI_KBUILD_PRIV_H

#include "ci/kbuild.h"

/* Run argv (make, merge_config.sh) in the sandbox of t, cwd in it */
int kbuild_run(struct kbuild_tree *t, const char *const *argv,
	       const char *cwd, const struct kbuild_make_opts *o,
	       struct kbuild_step *s, struct strbuf *err);
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

#endif
