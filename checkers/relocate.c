// SPDX-License-Identifier: GPL-2.0
/*
 * Hunks where apply put them.  A hunk's "@@ -a,b +c,d @@" numbers are
 * those of the tree the author diffed against; applied to another base
 * (mm-new instead of the series' base) most hunks land at an offset, and
 * a three-way merge may move them further.  Before the rules read a
 * post-image, the new-side line numbers of each hunk are moved to where
 * its new lines (context and added) really are in that post-image, so
 * that "added" marks the lines the patch changed and findings name them.
 *
 * The search starts where the hunk was expected (its header, shifted by
 * the offset of the hunk before it) and goes outwards, forwards first at
 * equal distance, as git apply places hunks; a hunk whose lines are not
 * found keeps its numbers.
 */
#include <stdlib.h>

#include "checkers/rules.h"

struct post_lines {
	const char **s;
	int *len;
	int nr;
};

static void split_lines(const char *text, size_t len, struct post_lines *pl)
{
	size_t pos = 0, alloc = 0;

	memset(pl, 0, sizeof(*pl));
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t e = nl ? (size_t)(nl - text) : len;

		if ((size_t)pl->nr >= alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			pl->s = xrealloc(pl->s, alloc * sizeof(*pl->s));
			pl->len = xrealloc(pl->len, alloc * sizeof(*pl->len));
		}
		pl->s[pl->nr] = text + pos;
		pl->len[pl->nr++] = (int)(e - pos);
		pos = e + 1;
	}
}

/* Do the new-side lines of h sit at 0-based line at? */
static bool fits_at(const struct post_lines *pl, const struct diff_hunk *h, int at)
{
	size_t i;
	int k = at;

	if (at < 0)
		return false;
	for (i = 0; i < h->nr; i++) {
		const struct diff_line *l = &h->lines[i];

		if (l->kind == '-')
			continue;
		if (k >= pl->nr || pl->len[k] != (int)l->len ||
		    memcmp(pl->s[k], l->text, l->len))
			return false;
		k++;
	}
	return true;
}

static int new_side_lines(const struct diff_hunk *h)
{
	size_t i;
	int n = 0;

	for (i = 0; i < h->nr; i++)
		n += h->lines[i].kind != '-';
	return n;
}

static void shift(struct diff_hunk *h, int by)
{
	size_t i;

	h->new_start += by;
	for (i = 0; i < h->nr; i++)
		if (h->lines[i].new_no > 0)
			h->lines[i].new_no += by;
}

int relocate_diff_file(struct diff_file *df, const char *text, size_t len)
{
	struct post_lines pl;
	int carry = 0, moved = 0;
	size_t j;

	split_lines(text, len, &pl);
	for (j = 0; j < df->nr; j++) {
		struct diff_hunk *h = &df->hunks[j];
		int want, d, n = new_side_lines(h);

		if (!n)
			continue;
		want = h->new_start - 1 + carry;
		for (d = 0; d <= pl.nr; d++) {
			if (fits_at(&pl, h, want + d)) {
				want += d;
				break;
			}
			if (d && fits_at(&pl, h, want - d)) {
				want -= d;
				break;
			}
		}
		if (d > pl.nr)
			continue;	/* not there: keep the mail's numbers */
		d = want - (h->new_start - 1);
		if (d) {
			shift(h, d);
			moved++;
		}
		carry = d;
	}
	free(pl.s);
	free(pl.len);
	return moved;
}
