// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/mail/mbox.h"

#define READ_CHUNK (256 * 1024)

int mbox_open(struct mbox_reader *r, const char *path, size_t max_size)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->cur, 0);
	r->max_size = max_size;
	if (!strcmp(path, "-")) {
		r->fd = 0;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0)
			return -errno;
		r->own_fd = true;
	}
	return 0;
}

void mbox_open_mem(struct mbox_reader *r, const char *buf, size_t len,
		   size_t max_size)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->cur, 0);
	r->fd = -1;
	r->mem = buf;
	r->mem_len = len;
	r->max_size = max_size;
}

void mbox_close(struct mbox_reader *r)
{
	if (r->own_fd)
		close(r->fd);
	if (r->alloc)
		free(r->buf);
	strbuf_release(&r->cur);
	memset(r, 0, sizeof(*r));
}

void mbox_msg_release(struct mbox_msg *m)
{
	strbuf_release(&m->raw);
	m->data = NULL;
	m->len = 0;
}

void mbox_set_view(struct mbox_reader *r, bool view)
{
	r->view = view;
}

/* The run of lines kept in place so far goes to the copy */
static void flush_run(struct mbox_reader *r)
{
	if (r->run && r->run_dst)
		strbuf_add(r->run_dst, r->run, r->run_len);
	r->run = NULL;
	r->run_len = 0;
}

/*
 * "From " then a word, then something with a time (hh:mm) in it: what
 * git format-patch ("From <sha> Mon Sep 17 00:00:00 2001"), lore
 * ("From mboxrd@z Thu Jan  1 00:00:00 1970") and mail programs write.
 */
bool mbox_is_from_line(const char *line, size_t len)
{
	size_t i;

	if (len < 10 || memcmp(line, "From ", 5) || line[5] == ' ')
		return false;
	for (i = 6; i + 4 < len; i++)
		if (isdigit((unsigned char)line[i]) && line[i + 2] == ':' &&
		    isdigit((unsigned char)line[i + 1]) &&
		    isdigit((unsigned char)line[i + 3]) &&
		    isdigit((unsigned char)line[i + 4]))
			return true;
	return false;
}

/*
 * The next line (with its newline) in r->lp/r->ll: a view into the read
 * buffer when the line is whole in it, else assembled in r->cur.  r->lt
 * is its real length (a line longer than any message kept is only
 * counted, not held).  1, 0 at EOF, or -errno.
 */
static int next_line(struct mbox_reader *r)
{
	if (r->cur.len)
		strbuf_reset(&r->cur);
	r->lt = 0;
	for (;;) {
		char *nl;
		ssize_t n;

		if (r->start < r->end) {
			size_t avail = r->end - r->start;

			nl = memchr(r->buf + r->start, '\n', avail);
			if (nl) {
				size_t len = nl + 1 - (r->buf + r->start);

				r->lt += len;
				if (!r->cur.len) {
					r->lp = r->buf + r->start;
					r->ll = len;
				} else {
					strbuf_add(&r->cur, r->buf + r->start, len);
					r->lp = r->cur.buf;
					r->ll = r->cur.len;
				}
				r->start += len;
				return 1;
			}
			r->lt += avail;
			if (r->cur.len < r->max_size + 8192)
				strbuf_add(&r->cur, r->buf + r->start, avail);
			r->start = r->end;
		}
		if (r->eof) {
			r->lp = r->cur.buf;
			r->ll = r->cur.len;
			return r->lt ? 1 : 0;
		}
		if (r->mem) {
			/* memory input is served in place */
			r->buf = (char *)r->mem;
			r->start = 0;
			r->end = r->mem_len;
			r->eof = true;
			r->mem = NULL;
			continue;
		}
		if (!r->alloc) {
			r->alloc = READ_CHUNK;
			r->buf = xmalloc(r->alloc);
		}
		flush_run(r);	/* buf is about to be overwritten */
		do {
			n = read(r->fd, r->buf, r->alloc);
		} while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		r->start = 0;
		r->end = n;
		if (!n)
			r->eof = true;
	}
}

static bool is_blank(const char *p, size_t len)
{
	return (len == 1 && p[0] == '\n') ||
		(len == 2 && p[0] == '\r' && p[1] == '\n');
}

/* "Name:" with the characters RFC 5322 allows a field name */
static bool is_header_line(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len && p[i] > ' ' && p[i] < 127 && p[i] != ':'; i++)
		;
	return i > 0 && i < len && p[i] == ':';
}

static bool is_space_line(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)p[i]))
			return false;
	return true;
}

static void keep_line(struct mbox_reader *r, struct mbox_msg *m,
		      const char *p, size_t len, size_t real_len)
{
	m->size += real_len;
	if (m->too_big)
		return;
	if (m->size > r->max_size) {
		m->too_big = true;
		r->run = NULL;
		r->run_len = 0;
		strbuf_release(&m->raw);
		return;
	}
	if (r->view && !m->raw.len && p != r->cur.buf) {
		/* still one run in buf: extend it */
		if (!r->run) {
			r->run = p;
			r->run_len = len;
			return;
		}
		if (p == r->run + r->run_len) {
			r->run_len += len;
			return;
		}
	}
	flush_run(r);
	strbuf_add(&m->raw, p, len);
}

/* How much of the blank line that separates messages ends buf[0..len) */
static size_t separator_len(const char *buf, size_t len)
{
	if (len >= 2 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
		return 1;
	if (len >= 4 && !memcmp(buf + len - 4, "\r\n\r\n", 4))
		return 2;
	return 0;
}

/* Drop the blank line that separates this message from the next. */
static void drop_separator(struct mbox_reader *r, struct mbox_msg *m)
{
	struct strbuf *s = &m->raw;

	if (r->run)
		r->run_len -= separator_len(r->run, r->run_len);
	else
		strbuf_setlen(s, s->len - separator_len(s->buf, s->len));
	if (m->size)
		m->size--;
}

/*
 * The common case, without a call per line: whole lines in the buffer,
 * added to the run kept in place.  Stops before any line the general
 * loop must look at (one that may be a separator or >From-escaped), at
 * a line not whole in the buffer, and before the size limit.  Returns
 * whether it took any line.
 */
static bool scan_run(struct mbox_reader *r, struct mbox_msg *m)
{
	const char *start = r->buf + r->start, *p = start;
	const char *end = r->buf + r->end;
	bool blank = r->prev_blank;

	if (r->run ? r->run + r->run_len != start : m->raw.len != 0)
		return false;
	while (p < end && !(blank && *p == 'F') && (*p != '>' || r->single)) {
		const char *nl = memchr(p, '\n', end - p);
		size_t len;

		if (!nl)
			break;
		len = nl + 1 - p;
		if (m->size + len > r->max_size)
			break;
		blank = len == 1 || (len == 2 && *p == '\r');
		m->size += len;
		r->line++;
		p = nl + 1;
	}
	if (p == start)
		return false;
	r->prev_blank = blank;
	r->offset += p - start;
	if (!r->run)
		r->run = start;
	r->run_len += p - start;
	r->start = p - r->buf;
	return true;
}

int mbox_next(struct mbox_reader *r, struct mbox_msg *m)
{
	bool have = false;
	int ret;

	strbuf_reset(&m->raw);
	r->run = NULL;
	r->run_len = 0;
	r->run_dst = &m->raw;
	m->too_big = false;
	m->size = 0;
	m->index = r->index;
	m->offset = r->offset;
	m->line = r->line + 1;

	for (;;) {
		if (r->view && r->started && !r->pending_from && !m->too_big &&
		    !r->cur.len && r->start < r->end && scan_run(r, m))
			have = true;
		if (r->pending_from) {
			r->pending_from = false;
			ret = 1;
		} else {
			ret = next_line(r);
			if (ret < 0)
				return ret;
			if (!ret)
				break;
			r->offset += r->lt;
			r->line++;
		}

		if (!r->started) {
			/* blank lines before the first are skipped (git mailsplit) */
			if (is_space_line(r->lp, r->ll)) {
				m->offset = r->offset;
				m->line = r->line + 1;
				continue;
			}
			r->started = true;
			if (mbox_is_from_line(r->lp, r->ll)) {
				r->mboxrd = r->ll > 12 && !memcmp(r->lp, "From mboxrd@", 12);
				m->offset = r->offset;
				m->line = r->line + 1;
				r->prev_blank = false;
				continue;
			}
			r->single = true;
			/* junk, not a header: an mbox may follow it */
			r->junk = !is_header_line(r->lp, r->ll);
		}
		/*
		 * A file that begins with a header and no separator is one
		 * message (a saved .eml), whatever "From " lines its body
		 * holds: git am reads it so (git mailsplit splits no bare
		 * mail).  After junk, separators start an mbox.
		 */
		if ((!r->single || r->junk) && r->prev_blank &&
		    mbox_is_from_line(r->lp, r->ll)) {
			r->single = false;
			r->mboxrd |= r->ll > 12 && !memcmp(r->lp, "From mboxrd@", 12);
			if (have) {
				r->pending_from = true;
				drop_separator(r, m);
				break;
			}
			/* an empty message between two separators */
			m->offset = r->offset;
			m->line = r->line + 1;
			r->prev_blank = false;
			continue;
		}
		r->prev_blank = is_blank(r->lp, r->ll);
		have = true;
		if (!r->single && r->ll && r->lp[0] == '>') {
			const char *p = r->lp, *e = r->lp + r->ll;

			while (p < e && *p == '>')
				p++;
			/*
			 * mboxrd: one '>' added to every ">*From " line;
			 * mboxo: only "From " was quoted.
			 */
			if (e - p >= 5 && !memcmp(p, "From ", 5) &&
			    (r->mboxrd || p == r->lp + 1)) {
				keep_line(r, m, r->lp + 1, r->ll - 1, r->lt - 1);
				continue;
			}
		}
		keep_line(r, m, r->lp, r->ll, r->lt);
	}
	if (!have) {
		r->run_dst = NULL;
		return 0;
	}
	if (!r->pending_from && !r->single)
		drop_separator(r, m);
	if (r->run) {
		m->data = r->run;
		m->len = r->run_len;
	} else {
		m->data = m->raw.buf;
		m->len = m->raw.len;
	}
	r->run = NULL;
	r->run_dst = NULL;
	r->index++;
	return 1;
}

void mbox_write_rd(struct strbuf *sb, const char *from, const char *msg,
		   size_t len)
{
	const char *p = msg, *end = msg + len;

	strbuf_addf(sb, "From %s Thu Jan  1 00:00:00 1970\n", from);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *q = p;
		const char *eol = nl ? nl + 1 : end;

		while (q < eol && *q == '>')
			q++;
		if (eol - q >= 5 && !memcmp(q, "From ", 5))
			strbuf_addch(sb, '>');
		strbuf_add(sb, p, eol - p);
		p = eol;
	}
	if (len && msg[len - 1] != '\n')
		strbuf_addch(sb, '\n');
	strbuf_addch(sb, '\n');
}
