// SPDX-License-Identifier: GPL-2.0
/*
 * diff_parse(): libgit2's diff parser into struct diff (bot/git/diff.h),
 * and what the model's readers ask of a hunk (diff_hunk_block())
 */
#include <errno.h>

#include "bot/git/diff.h"
#include "bot/git/git-int.h"

/* line_cb()'s return: a line with a NUL byte (d->nul_line) */
#define DIFF_STOP_NUL 1

static int file_cb(const git_diff_delta *delta, float progress, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f;

	(void)progress;
	ALLOC_GROW(d->files, d->nr + 1, d->alloc);
	f = &d->files[d->nr++];
	memset(f, 0, sizeof(*f));
	switch (delta->status) {
	case GIT_DELTA_ADDED:
		f->status = DIFF_ADDED;
		break;
	case GIT_DELTA_DELETED:
		f->status = DIFF_DELETED;
		break;
	case GIT_DELTA_RENAMED:
		f->status = DIFF_RENAMED;
		break;
	case GIT_DELTA_COPIED:
		f->status = DIFF_COPIED;
		break;
	default:
		f->status = DIFF_MODIFIED;
		break;
	}
	if (delta->status != GIT_DELTA_ADDED && delta->old_file.path)
		f->old_path = xstrdup(delta->old_file.path);
	if (delta->status != GIT_DELTA_DELETED && delta->new_file.path)
		f->new_path = xstrdup(delta->new_file.path);
	f->old_mode = delta->old_file.mode;
	f->new_mode = delta->new_file.mode;
	git_oid_tostr(f->old_id, sizeof(f->old_id), &delta->old_file.id);
	git_oid_tostr(f->new_id, sizeof(f->new_id), &delta->new_file.id);
	if (delta->old_file.id_abbrev && delta->old_file.id_abbrev < 40)
		f->old_id[delta->old_file.id_abbrev] = '\0';
	if (delta->new_file.id_abbrev && delta->new_file.id_abbrev < 40)
		f->new_id[delta->new_file.id_abbrev] = '\0';
	f->binary = delta->flags & GIT_DIFF_FLAG_BINARY;
	return 0;
}

static int binary_cb(const git_diff_delta *delta, const git_diff_binary *b,
		     void *payload)
{
	struct diff *d = payload;

	(void)delta;
	(void)b;
	if (d->nr)
		d->files[d->nr - 1].binary = true;
	return 0;
}

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	size_t hl = hunk->header_len;

	(void)delta;
	ALLOC_GROW(f->hunks, f->nr + 1, f->alloc);
	h = &f->hunks[f->nr++];
	memset(h, 0, sizeof(*h));
	h->old_start = hunk->old_start;
	h->old_lines = hunk->old_lines;
	h->new_start = hunk->new_start;
	h->new_lines = hunk->new_lines;
	while (hl && (hunk->header[hl - 1] == '\n' || hunk->header[hl - 1] == '\r'))
		hl--;
	h->header = xstrndup(hunk->header, hl);
	return 0;
}

static int line_cb(const git_diff_delta *delta, const git_diff_hunk *hunk,
		   const git_diff_line *line, void *payload)
{
	struct diff *d = payload;
	struct diff_file *f = &d->files[d->nr - 1];
	struct diff_hunk *h;
	struct diff_line *l;
	size_t len = line->content_len;

	(void)delta;
	if (!hunk || !f->nr)
		return 0;
	/*
	 * libgit2 copies a line up to its first NUL byte and still says
	 * content_len: what lies beyond is not the line's (nor ours to
	 * read).  A text diff carries no NUL; refuse it.
	 */
	if (strnlen(line->content, len) < len) {
		d->nul_line = line->new_lineno > 0 ? line->new_lineno :
			line->old_lineno > 0 ? line->old_lineno : 1;
		return DIFF_STOP_NUL;
	}
	h = &f->hunks[f->nr - 1];
	switch (line->origin) {
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		break;
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		if (h->nr)
			h->lines[h->nr - 1].no_eol = true;
		return 0;
	default:
		return 0;
	}
	ALLOC_GROW(h->lines, h->nr + 1, h->alloc);
	l = &h->lines[h->nr++];
	l->kind = line->origin;
	l->old_no = line->old_lineno;
	l->new_no = line->new_lineno;
	if (len && line->content[len - 1] == '\n')
		len--;
	l->text = xstrndup(line->content, len);
	l->len = len;
	l->no_eol = false;
	return 0;
}

int diff_parse(const char *patch, size_t len, struct diff *d, struct strbuf *err)
{
	git_diff *gd;
	git_oid id;
	int r;

	git_lib_init();
	memset(d, 0, sizeof(*d));
	if (git_diff_from_buffer(&gd, patch, len)) {
		git_error_to(err, "cannot parse diff");
		return -1;
	}
	r = git_diff_foreach(gd, file_cb, binary_cb, hunk_cb, line_cb, d);
	if (r == DIFF_STOP_NUL) {
		const struct diff_file *f = &d->files[d->nr - 1];

		strbuf_addf(err, "a NUL byte in line %d of '%s': not a text diff",
			    d->nul_line, f->new_path ? f->new_path : f->old_path);
		git_diff_free(gd);
		diff_release(d);
		return -1;
	}
	if (r) {
		git_error_to(err, "cannot read diff");
		git_diff_free(gd);
		diff_release(d);
		return -1;
	}
	if (!git_diff_patchid(&id, gd, NULL))
		git_oid_tostr(d->patch_id, sizeof(d->patch_id), &id);
	git_diff_free(gd);
	return 0;
}

void diff_release(struct diff *d)
{
	size_t i, j, k;

	for (i = 0; i < d->nr; i++) {
		struct diff_file *f = &d->files[i];

		for (j = 0; j < f->nr; j++) {
			for (k = 0; k < f->hunks[j].nr; k++)
				free(f->hunks[j].lines[k].text);
			free(f->hunks[j].lines);
			free(f->hunks[j].header);
		}
		free(f->hunks);
		free(f->old_path);
		free(f->new_path);
	}
	free(d->files);
	memset(d, 0, sizeof(*d));
}

bool diff_hunk_block(const struct diff_hunk *h, size_t k, size_t *first, size_t *end)
{
	size_t a = k, b = k;

	if (k < h->nr && h->lines[k].kind != ' ') {
		while (a > 0 && h->lines[a - 1].kind != ' ')
			a--;
		while (b < h->nr && h->lines[b].kind != ' ')
			b++;
	}
	*first = a;
	*end = b;
	return a < b;
}
