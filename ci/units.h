/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The diagnostics of a build directory as it is: for every unit (a
 * kbuild target: "mm/rmap.o", "vmlinux", the W=1 "mm/rmap.s"), what its
 * last compile printed.  A make step replaces the units it rebuilt; what
 * it printed outside any target goes to a unit named after the kind of
 * step ("make", "config", "make W=1") and is replaced by the next step
 * of that kind.  Kept in a file next to the objects, so that the next
 * build of the directory starts from what is really there.
 */
#ifndef LOREBOT_CI_UNITS_H
#define LOREBOT_CI_UNITS_H

#include "lib/strmap.h"
#include "ci/diag.h"

struct unit_entry {
	char *name;
	struct diag_list diags;
};

struct units {
	struct strmap map;
	struct unit_entry **v;
	size_t nr, alloc;
};

#define UNITS_INIT { .map = STRMAP_INIT }

struct unit_entry *units_get(struct units *u, const char *name);
void units_release(struct units *u);
/* Add each diagnostic to its unit; a diagnostic of no unit goes to top */
void units_add(struct units *u, const struct diag_list *l, const char *top);
/* A step built these units: their diagnostics are the step's now */
void units_replace(struct units *u, const struct diag_parse *p,
		   const char *top);
/*
 * Every distinct diagnostic (delta_list_distinct()); those that only the
 * units for which is_extra() holds show come last, from *extra_from on.
 */
void units_collect(const struct units *u, bool (*is_extra)(const char *unit),
		   struct diag_list *out, size_t *extra_from);

/* Forget the units for which pred() holds */
void units_drop(struct units *u, bool (*pred)(const char *unit));

/* All diagnostics, unit after unit */
void units_flatten(const struct units *u, struct diag_list *out);

/* Storage (diag_list_write() lines); a missing file is an error */
int units_load(struct units *u, const char *path, const char *top);
int units_save(const struct units *u, const char *path);

#endif
