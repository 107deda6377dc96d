/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The diff model shared by the apply step and the checkers: files,
 * hunks and lines with old/new line numbers.  It is filled by
 * diff_parse(), which uses libgit2's parser (git_diff_from_buffer) in
 * bot/git/diff.c, so there is exactly one diff parser in lorebot.
 */
#ifndef LOREBOT_DIFF_H
#define LOREBOT_DIFF_H

#include "lib/strbuf.h"

enum diff_status {
	DIFF_MODIFIED,
	DIFF_ADDED,
	DIFF_DELETED,
	DIFF_RENAMED,
	DIFF_COPIED,
};

struct diff_line {
	char kind;		/* ' ' context, '+' added, '-' removed */
	bool no_eol;		/* "\ No newline at end of file" follows */
	int old_no;		/* -1 for added lines */
	int new_no;		/* -1 for removed lines */
	char *text;		/* without the newline */
	size_t len;
};

struct diff_hunk {
	int old_start, old_lines;
	int new_start, new_lines;
	char *header;		/* "@@ -322,13 +322,6 @@ context" without newline */
	struct diff_line *lines;
	size_t nr, alloc;
};

struct diff_file {
	char *old_path;		/* NULL for a new file */
	char *new_path;		/* NULL for a deleted file */
	unsigned int old_mode, new_mode;	/* 0 when absent */
	char old_id[41], new_id[41];	/* abbreviated as in "index" */
	enum diff_status status;
	bool binary;
	struct diff_hunk *hunks;
	size_t nr, alloc;
};

struct diff {
	struct diff_file *files;
	size_t nr, alloc;
	char patch_id[41];	/* git patch-id --stable, "" if unknown */
	int nul_line;		/* diff_parse(): where a NUL byte was refused */
};

#define DIFF_INIT { 0 }

/*
 * Parse a git-format patch (from the first "diff --git" line to the end
 * of the diff; no mail around it).  0, or -1 with the reason in err.
 */
int diff_parse(const char *patch, size_t len, struct diff *d, struct strbuf *err);
void diff_release(struct diff *d);

/*
 * The block of changed lines around line k of hunk h: the run of
 * consecutive '-' and '+' lines that holds it, h->lines[*first] up to,
 * not including, h->lines[*end].  false, and the empty block *first =
 * *end = k, when line k is context or past the hunk's end.
 */
bool diff_hunk_block(const struct diff_hunk *h, size_t k, size_t *first, size_t *end);

/* The path a checker or report names: new path, or old one if deleted */
static inline const char *diff_file_path(const struct diff_file *f)
{
	return f->new_path ? f->new_path : f->old_path;
}

#endif
