/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a series made worse: diagnostics of a patched tree compared with
 * those of the base, following line shifts inside the patched files.
 *
 * A line map is read from "git diff -U0 BASE COMMIT": a line of the base
 * maps to its line in the patched tree, or to nothing when the patch
 * changed or removed it.  A diagnostic of the patched tree is pre-existing
 * when the base has the same one (diag_key(): file, severity, option,
 * function, message) at the mapped line; failing that, when the base has
 * one more of that key than the patched tree has already matched (the
 * line it was on was edited, the warning stayed).
 */
#ifndef LOREBOT_CI_DELTA_H
#define LOREBOT_CI_DELTA_H

#include "ci/diag.h"

struct line_map_hunk {
	int old_start, old_lines;	/* normalised: first line of the range */
	int new_start, new_lines;
};

struct line_map_file {
	char *old_path, *new_path;	/* NULL when added / deleted */
	struct line_map_hunk *h;
	size_t nr, alloc;
};

struct line_map {
	struct line_map_file *f;
	size_t nr, alloc;
};

#define LINE_MAP_INIT { 0 }

/* 0, or -1 with the reason in err */
int delta_map_parse(struct line_map *m, const char *diff, size_t len,
		    struct strbuf *err);
void delta_map_release(struct line_map *m);

/*
 * The line in the patched tree of line old_line of file path at the base
 * (path unchanged when the diff does not touch it): > 0, or -1 when the
 * line was changed or removed.  *new_path (may be NULL) gets the file's
 * name in the patched tree (renames), borrowed from m or path.
 */
int delta_map_line(const struct line_map *m, const char *path, int old_line,
		   const char **new_path);

/* Keep one of each distinct diagnostic (diag_key_pos()), notes dropped */
void delta_list_distinct(const struct diag_list *in, struct diag_list *out);

/*
 * Mark each diagnostic of cur (distinct) new or pre-existing relative to
 * base (distinct): is_new has cur->nr entries.
 */
void delta_diag(const struct diag_list *base, const struct diag_list *cur,
		const struct line_map *map, bool *is_new);

#endif
