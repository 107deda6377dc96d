// SPDX-License-Identifier: GPL-2.0
/*
 * Hunk placement as git apply does it (apply.c: apply_one_fragment,
 * find_pos, match_fragment), without whitespace fixing, and the
 * closest-match analysis for reports.
 */
#include <ctype.h>
#include <stdlib.h>

#include "bot/apply/apply-hunk.h"

void apply_image_init(struct image *img, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	memset(img, 0, sizeof(*img));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		struct image_line *l;

		ALLOC_GROW(img->line, img->nr + 1, img->alloc);
		l = &img->line[img->nr++];
		l->p = p;
		l->len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		l->nl = nl != NULL;
		l->patched = false;
		p = nl ? nl + 1 : end;
	}
}

void apply_image_release(struct image *img)
{
	free(img->line);
	memset(img, 0, sizeof(*img));
}

void apply_image_write(const struct image *img, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < img->nr; i++) {
		strbuf_add(out, img->line[i].p, img->line[i].len);
		if (img->line[i].nl)
			strbuf_addch(out, '\n');
	}
}

static bool line_eq(const struct image_line *a, const struct image_line *b)
{
	return a->len == b->len && a->nl == b->nl && !memcmp(a->p, b->p, a->len);
}

/* The hunk as the lines it expects (pre) and the lines it leaves (post) */
struct hunk_images {
	struct image pre, post;
	int leading, trailing;
};

static void add_line(struct image *img, const struct diff_line *dl)
{
	struct image_line *l;

	ALLOC_GROW(img->line, img->nr + 1, img->alloc);
	l = &img->line[img->nr++];
	l->p = dl->text;
	l->len = dl->len;
	l->nl = !dl->no_eol;
	l->patched = true;
}

static void hunk_images(const struct diff_hunk *h, struct hunk_images *hi)
{
	size_t i, first = h->nr, last = 0;

	memset(hi, 0, sizeof(*hi));
	for (i = 0; i < h->nr; i++) {
		const struct diff_line *dl = &h->lines[i];

		if (dl->kind != '+')
			add_line(&hi->pre, dl);
		if (dl->kind != '-')
			add_line(&hi->post, dl);
		if (dl->kind != ' ') {
			if (first == h->nr)
				first = i;
			last = i;
		}
	}
	hi->leading = first == h->nr ? (int)h->nr : (int)first;
	hi->trailing = first == h->nr ? 0 : (int)(h->nr - 1 - last);
}

static void hunk_images_release(struct hunk_images *hi)
{
	apply_image_release(&hi->pre);
	apply_image_release(&hi->post);
}

static bool match_at(const struct image *img, const struct image *pre, size_t at,
		     bool match_beginning, bool match_end)
{
	size_t i;

	if (at + pre->nr > img->nr)
		return false;
	if (match_end && at + pre->nr != img->nr)
		return false;
	if (match_beginning && at)
		return false;
	for (i = 0; i < pre->nr; i++)
		if (img->line[at + i].patched || !line_eq(&img->line[at + i], &pre->line[i]))
			return false;
	return true;
}

/* find_pos(): from line outwards, forwards first at equal distance */
static long find_pos(const struct image *img, const struct image *pre, long line,
		     bool match_beginning, bool match_end)
{
	size_t back, fwd, cur;
	unsigned long i;

	if (match_beginning)
		line = 0;
	else if (match_end)
		line = (long)img->nr - (long)pre->nr;
	if (line < 0 || (size_t)line > img->nr)
		line = line < 0 ? 0 : (long)img->nr;
	back = fwd = cur = line;
	for (i = 0; ; i++) {
		if (match_at(img, pre, cur, match_beginning, match_end))
			return cur;
again:
		if (back == 0 && fwd == img->nr)
			break;
		if (i & 1) {
			if (back == 0) {
				i++;
				goto again;
			}
			cur = --back;
		} else {
			if (fwd == img->nr) {
				i++;
				goto again;
			}
			cur = ++fwd;
		}
	}
	return -1;
}

static void remove_first(struct image *img)
{
	memmove(img->line, img->line + 1, (img->nr - 1) * sizeof(*img->line));
	img->nr--;
}

static void replace_lines(struct image *img, size_t at, size_t old_nr,
			  const struct image *post)
{
	size_t new_nr = img->nr - old_nr + post->nr;

	ALLOC_GROW(img->line, new_nr, img->alloc);
	if (img->nr - at - old_nr)
		memmove(img->line + at + post->nr, img->line + at + old_nr,
			(img->nr - at - old_nr) * sizeof(*img->line));
	if (post->nr)
		memcpy(img->line + at, post->line, post->nr * sizeof(*img->line));
	img->nr = new_nr;
}

int apply_image_hunk(struct image *img, const struct diff_hunk *h, int min_context,
		     struct hunk_fit *fit)
{
	struct hunk_images hi;
	bool match_beginning, match_end;
	long pos, at;

	memset(fit, 0, sizeof(*fit));
	hunk_images(h, &hi);
	match_beginning = h->old_start <= 1;
	match_end = hi.trailing == 0;
	pos = h->new_start ? h->new_start - 1 : 0;
	fit->leading = hi.leading;
	fit->trailing = hi.trailing;
	for (;;) {
		at = find_pos(img, &hi.pre, pos, match_beginning, match_end);
		if (at >= 0)
			break;
		if (min_context < 0 ||
		    (hi.leading <= min_context && hi.trailing <= min_context))
			break;
		if (match_beginning || match_end) {
			match_beginning = match_end = false;
			continue;
		}
		if (hi.leading >= hi.trailing) {
			remove_first(&hi.pre);
			remove_first(&hi.post);
			pos--;
			hi.leading--;
		}
		if (hi.trailing > hi.leading) {
			hi.pre.nr--;
			hi.post.nr--;
			hi.trailing--;
		}
	}
	if (at >= 0) {
		replace_lines(img, at, hi.pre.nr, &hi.post);
		fit->applied = true;
		fit->line = at + 1;
		fit->offset = at - (h->new_start ? h->new_start - 1 : 0);
		fit->reduced = hi.leading != fit->leading || hi.trailing != fit->trailing;
		fit->leading = hi.leading;
		fit->trailing = hi.trailing;
	} else {
		fit->line = pos + 1;
	}
	hunk_images_release(&hi);
	return at >= 0 ? 0 : -1;
}

/* closest match */

/* Equal but for whitespace: ends trimmed, inner blank runs count as one */
static bool loose_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;

	while (alen && isspace((unsigned char)a[alen - 1]))
		alen--;
	while (blen && isspace((unsigned char)b[blen - 1]))
		blen--;
	while (i < alen && isspace((unsigned char)a[i]))
		i++;
	while (j < blen && isspace((unsigned char)b[j]))
		j++;
	while (i < alen && j < blen) {
		bool sa = isspace((unsigned char)a[i]), sb = isspace((unsigned char)b[j]);

		if (sa != sb)
			return false;
		if (sa) {
			while (i < alen && isspace((unsigned char)a[i]))
				i++;
			while (j < blen && isspace((unsigned char)b[j]))
				j++;
			continue;
		}
		if (a[i] != b[j])
			return false;
		i++;
		j++;
	}
	return i == alen && j == blen;
}

static bool blank(const struct image_line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (!isspace((unsigned char)l->p[i]))
			return false;
	return true;
}

/* How far a line may have moved inside the hunk and still count */
#define NEAR_SLACK 3
/* Hunk lines considered for the search (longer hunks: the first ones) */
#define NEAR_MAX_LINES 200
/* File lines shown around the match */
#define NEAR_CONTEXT 2

/*
 * Score each candidate start: a hunk line found within NEAR_SLACK lines
 * of its place counts 1/(its number of occurrences in the file), so
 * that "}" and blank lines, found everywhere, decide nothing.
 */
static long best_start(const struct image *img, const struct image *pre,
		       long expected, double *best_score)
{
	size_t m = MIN(pre->nr, NEAR_MAX_LINES), n = img->nr, i, j;
	double *w = xcalloc(m, sizeof(*w)), best = 0;
	unsigned char *seen = xcalloc(n + m + 1, 1);
	long p, found = -1;

	for (i = 0; i < m; i++) {
		size_t occ = 0;

		if (blank(&pre->line[i]))
			continue;
		for (j = 0; j < n; j++)
			if (loose_eq(pre->line[i].p, pre->line[i].len,
				     img->line[j].p, img->line[j].len)) {
				occ++;
				/* candidate start j - i, offset by m */
				seen[j + m - i] = 1;
			}
		w[i] = occ ? 1.0 / occ : 0;
	}
	for (p = -(long)m + 1; p < (long)n; p++) {
		double score = 0;

		if (!seen[p + m])
			continue;
		for (i = 0; i < m; i++) {
			long lo = p + (long)i - NEAR_SLACK, hi = p + (long)i + NEAR_SLACK, k;

			if (!w[i])
				continue;
			for (k = MAX(lo, 0); k <= hi && k < (long)n; k++)
				if (loose_eq(pre->line[i].p, pre->line[i].len,
					     img->line[k].p, img->line[k].len)) {
					score += w[i];
					break;
				}
		}
		if (score > best + 1e-9 ||
		    (score > best - 1e-9 && found >= 0 &&
		     labs(p - expected) < labs(found - expected))) {
			best = score;
			found = p;
		}
	}
	free(w);
	free(seen);
	*best_score = best;
	return found;
}

static void near_add(struct hunk_near *near, char kind, int file_no,
		     const struct image_line *l)
{
	struct near_line *nl;

	ALLOC_GROW(near->lines, near->nr + 1, near->alloc);
	nl = &near->lines[near->nr++];
	nl->kind = kind;
	nl->file_no = file_no;
	nl->text = l->p;
	nl->len = l->len;
}

/* Line up the hunk's lines with file lines [lo, hi) (an LCS, loosely equal) */
static void align(const struct image *img, size_t lo, size_t hi,
		  const struct image *pre, size_t m, struct hunk_near *near)
{
	size_t w = hi - lo, i, j;
	unsigned short *t = xcalloc((m + 1) * (w + 1), sizeof(*t));
	size_t first_match = SIZE_MAX, last_match = 0, k;
	struct hunk_near out = HUNK_NEAR_INIT;

#define T(a, b) t[(a) * (w + 1) + (b)]
	for (i = m; i-- > 0;)
		for (j = w; j-- > 0;) {
			const struct image_line *a = &pre->line[i], *b = &img->line[lo + j];

			if (loose_eq(a->p, a->len, b->p, b->len))
				T(i, j) = T(i + 1, j + 1) + 1;
			else
				T(i, j) = MAX(T(i + 1, j), T(i, j + 1));
		}
	i = j = 0;
	while (i < m || j < w) {
		const struct image_line *a = i < m ? &pre->line[i] : NULL;
		const struct image_line *b = j < w ? &img->line[lo + j] : NULL;

		if (a && b && loose_eq(a->p, a->len, b->p, b->len)) {
			bool same = a->len == b->len && !memcmp(a->p, b->p, a->len);

			near_add(&out, same ? ' ' : '~', (int)(lo + j + 1), b);
			near->loose += !same;
			first_match = MIN(first_match, out.nr - 1);
			last_match = out.nr - 1;
			near->matched++;
			i++;
			j++;
		} else if (a && (!b || T(i + 1, j) >= T(i, j + 1))) {
			near_add(&out, '-', 0, a);
			i++;
		} else {
			near_add(&out, '+', (int)(lo + j + 1), b);
			j++;
		}
	}
#undef T
	free(t);
	/* keep NEAR_CONTEXT file lines beyond the first and last match */
	if (first_match == SIZE_MAX) {
		first_match = 0;
		last_match = out.nr ? out.nr - 1 : 0;
	}
	for (k = 0; k < out.nr; k++) {
		const struct near_line *l = &out.lines[k];
		size_t before = 0, after = 0, x;
		bool missing = false;

		if (k < first_match) {
			for (x = k; x < first_match; x++)
				before += out.lines[x].kind == '+';
			for (x = 0; x < first_match; x++)
				missing |= out.lines[x].kind == '-';
			if (l->kind == '+' && before > NEAR_CONTEXT)
				continue;
		}
		if (k > last_match) {
			for (x = last_match + 1; x <= k; x++)
				after += out.lines[x].kind == '+';
			for (x = last_match + 1; x < out.nr; x++)
				missing |= out.lines[x].kind == '-';
			if (l->kind == '+' && after > NEAR_CONTEXT)
				continue;
		}
		ALLOC_GROW(near->lines, near->nr + 1, near->alloc);
		near->lines[near->nr++] = *l;
		/* the tree around the match, unless the hunk misses lines there */
		if ((k < first_match || k > last_match) && l->kind == '+' && !missing)
			near->lines[near->nr - 1].kind = '.';
		if (k >= first_match && k <= last_match) {
			if (l->kind == '+' || l->kind == '-')
				near->gaps++;
			if (l->file_no && !near->start)
				near->start = l->file_no;
			if (l->file_no)
				near->end = l->file_no;
		}
	}
	free(out.lines);
}

void apply_hunk_near(const struct image *img, const struct diff_hunk *h,
		     struct hunk_near *near)
{
	struct hunk_images hi;
	long expected = h->new_start ? h->new_start - 1 : 0, p;
	double score;
	size_t m, lo, hi_line;

	memset(near, 0, sizeof(*near));
	hunk_images(h, &hi);
	m = MIN(hi.pre.nr, NEAR_MAX_LINES);
	near->total = (int)hi.pre.nr;
	near->at_start = h->old_start <= 1;
	near->at_end = hi.trailing == 0;
	p = best_start(img, &hi.pre, expected, &score);
	near->found = p >= 0 && score > 0;
	if (!near->found)
		p = MIN(expected, (long)img->nr - (long)m);
	if (p < 0)
		p = 0;
	lo = p > NEAR_SLACK ? (size_t)p - NEAR_SLACK : 0;
	hi_line = MIN(img->nr, (size_t)p + m + NEAR_SLACK + NEAR_CONTEXT);
	if (near->found) {
		align(img, lo, hi_line, &hi.pre, m, near);
	} else {
		size_t k;

		/* nothing alike: show the file where the hunk should be */
		lo = MIN((size_t)p, img->nr);
		hi_line = MIN(img->nr, lo + MAX(m, 3));
		for (k = lo; k < hi_line; k++)
			near_add(near, '+', (int)(k + 1), &img->line[k]);
		if (hi_line > lo) {
			near->start = (int)lo + 1;
			near->end = (int)hi_line;
		}
	}
	hunk_images_release(&hi);
}

void apply_hunk_near_release(struct hunk_near *near)
{
	free(near->lines);
	memset(near, 0, sizeof(*near));
}
