/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placing hunks in a file the way "git apply" does, in memory.
 *
 * An image is a file split into lines.  A hunk is tried at the line its
 * header names (the new-side start, as git does), then at the nearest
 * other lines, forwards first at equal distance; lines an earlier hunk
 * produced are never matched again; a hunk starting at line 0 or 1 must
 * match at the beginning and one without trailing context at the end.
 * No fuzz unless asked: with min_context >= 0 the context is reduced
 * down to that many lines (git apply -C<n>).
 *
 * When a hunk does not fit, apply_hunk_near() finds where the file looks most
 * like what the hunk expects and lines up the two, for the report.
 */
#ifndef LOREBOT_APPLY_HUNK_H
#define LOREBOT_APPLY_HUNK_H

#include "bot/git/diff.h"
#include "lib/strbuf.h"

struct image_line {
	const char *p;		/* borrowed: the blob or a diff line */
	size_t len;		/* without the newline */
	bool nl;		/* ends with a newline */
	bool patched;		/* produced by a hunk: never matched again */
};

struct image {
	struct image_line *line;
	size_t nr, alloc;
};

#define IMAGE_INIT { 0 }

/* Split buf into lines; the image points into buf, which must outlive it */
void apply_image_init(struct image *img, const char *buf, size_t len);
void apply_image_release(struct image *img);
void apply_image_write(const struct image *img, struct strbuf *out);

struct hunk_fit {
	bool applied;
	int line;		/* 1-based line where it applied */
	int offset;		/* line - new start, as git apply -v reports */
	int leading, trailing;	/* context lines used */
	bool reduced;		/* context was reduced (fuzz) */
};

/*
 * Apply h to img.  On success the image holds the new lines and fit says
 * where; on failure img is unchanged.  Returns 0 or -1.
 */
int apply_image_hunk(struct image *img, const struct diff_hunk *h, int min_context,
		     struct hunk_fit *fit);

/* One line of the comparison between a hunk and the file */
struct near_line {
	char kind;		/* ' ' both, '~' both but whitespace differs,
				 * '-' the hunk expects it, the file lacks it,
				 * '+' the file has it, the hunk does not,
				 * '.' the file around the closest match */
	int file_no;		/* 1-based line in the file, 0 for '-' */
	const char *text;	/* borrowed (file line, or hunk line for '-') */
	size_t len;
};

struct hunk_near {
	bool found;		/* false: nothing alike; lines at the expected place */
	int start, end;		/* the file lines that match, 1-based, inclusive;
				 * not found: the lines shown (0, 0: none) */
	int gaps;		/* lines between those that do not match */
	int matched, total;	/* hunk lines found there / lines the hunk expects */
	int loose;		/* of those, found with other whitespace */
	bool at_end, at_start;	/* the hunk must match at the end / the start */
	struct near_line *lines;
	size_t nr, alloc;
};

#define HUNK_NEAR_INIT { 0 }

/* Where does img look most like what h expects? */
void apply_hunk_near(const struct image *img, const struct diff_hunk *h,
		     struct hunk_near *near);
void apply_hunk_near_release(struct hunk_near *near);

#endif
