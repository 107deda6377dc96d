// SPDX-License-Identifier: GPL-2.0
/*
 * Code a patch moves is not code it writes.  "mm: memcg: move charge
 * migration code to memcontrol-v1.c" adds hundreds of lines that it
 * removes elsewhere; a review rule that reported their layout or their
 * comments would ask the author to rewrite what they only moved (false
 * alarms on merged patches of the corpus, bench/corpus/).  A run of at
 * least MIN_RUN consecutive added lines of a hunk whose every line is
 * also removed somewhere in the same patch (blanks aside) is moved: its
 * lines stop counting as added in the views, so findings on them become
 * pre-existing notes (shown with --preexisting).  Lines a move changes
 * on the way are not in the removed set and stay added.  The rules of
 * paths still see them (cline.moved): a return moved past a lock is the
 * patch's own bug.
 */
#include <ctype.h>
#include <stdlib.h>

#include "lib/strmap.h"
#include "checkers/rules.h"

#define MIN_RUN 3

static char *trimmed(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

/* Mark the view lines of new-side line numbers no in [from, to) moved */
static void unmark(struct cview *v, int from, int to)
{
	int i;

	for (i = 0; i < v->nr_lines; i++)
		if (v->lines[i].no >= from && v->lines[i].no < to && v->lines[i].added) {
			v->lines[i].added = false;
			v->lines[i].moved = true;
		}
}

void moved_mark_patch(struct check_patch *p)
{
	struct strmap removed = STRMAP_INIT;
	size_t i, j, k, fi;

	for (i = 0; i < p->diff.nr; i++)
		for (j = 0; j < p->diff.files[i].nr; j++) {
			const struct diff_hunk *h = &p->diff.files[i].hunks[j];

			for (k = 0; k < h->nr; k++) {
				char *t;

				if (h->lines[k].kind != '-')
					continue;
				t = trimmed(h->lines[k].text, h->lines[k].len);
				if (*t && !strmap_get(&removed, t))
					strmap_put(&removed, t, (void *)1);
				else
					free(t);
			}
		}
	if (!removed.nr)
		goto out;
	for (fi = 0; fi < p->nr_files; fi++) {
		struct check_file *f = p->files[fi];

		if (!f->is_c)
			continue;
		for (j = 0; j < f->df->nr; j++) {
			const struct diff_hunk *h = &f->df->hunks[j];
			int run = 0, first = 0, real = 0;

			for (k = 0; k <= h->nr; k++) {
				bool in = false, blank = false;

				if (k < h->nr && h->lines[k].kind == '+') {
					char *t = trimmed(h->lines[k].text, h->lines[k].len);

					blank = !*t;
					in = blank || strmap_get(&removed, t);
					free(t);
				}
				if (in) {
					if (!run)
						first = h->lines[k].new_no;
					run++;
					real += !blank;
					continue;
				}
				if (real >= MIN_RUN)
					unmark(&f->view, first, first + run);
				run = real = 0;
			}
		}
	}
out:
	for (i = 0; i < removed.size; i++)
		if (removed.e[i].hash)
			free((char *)removed.e[i].key);
	strmap_release(&removed);
}
