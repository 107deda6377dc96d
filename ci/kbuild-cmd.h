/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The units of a kbuild build directory, by their .cmd files: kbuild
 * writes obj/dir/.foo.o.cmd for every object it compiled, with the
 * command and the files it read (deps_).  The coverage (ci/cover-run.c:
 * which units read a changed file), the repair (ci/readers.c: which
 * headers the base's units read) and the preprocessing of a unit
 * (ci/kbuild-make.c) all start here.
 */
#ifndef LOREBOT_CI_KBUILD_CMD_H
#define LOREBOT_CI_KBUILD_CMD_H

#include <stddef.h>

/* obj/dir/.foo.o.cmd of unit "dir/foo.o" */
char *kbuild_cmd_file(const char *obj, const char *unit);

/* The unit of a .c file ("mm/rmap.c" -> "mm/rmap.o"); NULL if not a .c */
char *kbuild_c_unit(const char *c_path);

/*
 * Every unit of obj with a .o.cmd ("mm/rmap.o", "init/main.o"), sorted;
 * links (obj/source, the sources) are not followed.  Returns the number;
 * *units is an array the caller frees with kbuild_units_free().
 */
size_t kbuild_list_units(const char *obj, char ***units);
void kbuild_units_free(char **units, size_t nr);

#endif
