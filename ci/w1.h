/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The extra warnings (W=1) of the files a series touches, the way kbuild
 * gives them: the compiler with W=1 and scripts/kernel-doc -none on each
 * touched .c file that the configuration compiles.  The compile makes
 * the .s target ("mm/rmap.s"), so the objects and the image stay as the
 * normal build left them.  Diagnostics come in units "<file>.s" and
 * "<file>.kdoc" (<file> being the .c path).
 *
 * At the base they are computed once per build directory and file and
 * kept in <build dir>/w1/.
 */
#ifndef LOREBOT_CI_W1_H
#define LOREBOT_CI_W1_H

#include "ci/kbuild.h"

/* The unit of what the W=1 pass prints outside any target */
#define W1_TOP "make W=1"

/* Is unit one of the W=1 pass's? */
bool w1_is_unit(const char *unit);

/*
 * Of paths, the .c files the W=1 pass covers in t as it is now (exist,
 * compiled in this configuration).  Allocated, NULL-terminated.
 */
char **w1_files(const struct kbuild_tree *t, char *const *paths, size_t nr,
		size_t *out_nr);
void w1_files_free(char **files);

/*
 * Run the pass on files; the step holds both tools' diagnostics and
 * every unit covered (also the clean ones).  0 when it ran (see
 * step->status), -1 with err if not.
 */
int w1_run(struct kbuild_tree *t, char *const *files, size_t nr,
	   const char *name, struct kbuild_step *step, struct strbuf *err);

/*
 * The base's diagnostics of a pass over the touched files (W=1, and the
 * checkers of ci/kcheck.h), kept per file in <build dir>/<pass>/: 0 and
 * out filled, -1 when not kept; and kept from a step run at the base, of
 * the file's units given
 */
int w1_cache_load(const struct kbuild_tree *t, const char *pass, const char *file,
		  struct diag_list *out);
int w1_cache_save(const struct kbuild_tree *t, const char *pass, const char *file,
		  const char *const *units, size_t nr, const struct diag_list *step_diags);

/* The base's W=1 diagnostics of file: 0 and out filled, -1 when not kept */
int w1_base_load(const struct kbuild_tree *t, const char *file,
		 struct diag_list *out);
/* Keep the diagnostics of file's units from a step run at the base */
int w1_base_save(const struct kbuild_tree *t, const char *file,
		 const struct diag_list *step_diags);
/* The two unit names of file (caller frees) */
char *w1_unit_s(const char *file);
char *w1_unit_kdoc(const char *file);

#endif
