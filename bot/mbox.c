// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/mbox.h"

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

/* Read the next line into r->cur (with its newline); false at EOF. */
static int next_line(struct mbox_reader *r)
{
	strbuf_reset(&r->cur);
	for (;;) {
		char *nl;
		ssize_t n;

		if (r->start < r->end) {
			nl = memchr(r->buf + r->start, '\n', r->end - r->start);
			if (nl) {
				size_t len = nl + 1 - (r->buf + r->start);

				strbuf_add(&r->cur, r->buf + r->start, len);
				r->start += len;
				return 1;
			}
			strbuf_add(&r->cur, r->buf + r->start, r->end - r->start);
			r->start = r->end;
			/*
			 * A line longer than any message we keep only needs
			 * to be counted, not held.
			 */
			if (r->cur.len > r->max_size + 1 && r->cur.len > 8192)
				strbuf_setlen(&r->cur, 8192);
		}
		if (r->eof)
			return r->cur.len ? 1 : 0;
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

static bool is_blank(const struct strbuf *l)
{
	return (l->len == 1 && l->buf[0] == '\n') ||
		(l->len == 2 && l->buf[0] == '\r' && l->buf[1] == '\n');
}

static void keep_line(struct mbox_reader *r, struct mbox_msg *m,
		      const char *p, size_t len)
{
	m->size += len;
	if (m->too_big)
		return;
	if (m->size > r->max_size) {
		m->too_big = true;
		strbuf_release(&m->raw);
		return;
	}
	strbuf_add(&m->raw, p, len);
}

/* Drop the blank line that separates this message from the next. */
static void drop_separator(struct mbox_msg *m)
{
	struct strbuf *s = &m->raw;

	if (s->len >= 2 && s->buf[s->len - 1] == '\n' && s->buf[s->len - 2] == '\n')
		strbuf_setlen(s, s->len - 1);
	else if (s->len >= 4 && !memcmp(s->buf + s->len - 4, "\r\n\r\n", 4))
		strbuf_setlen(s, s->len - 2);
	if (m->size)
		m->size--;
}

int mbox_next(struct mbox_reader *r, struct mbox_msg *m)
{
	bool have = false;
	int ret;

	strbuf_reset(&m->raw);
	m->too_big = false;
	m->size = 0;
	m->index = r->index;
	m->offset = r->offset;
	m->line = r->line + 1;

	for (;;) {
		if (r->pending_from) {
			r->pending_from = false;
			ret = 1;
		} else {
			ret = next_line(r);
			if (ret < 0)
				return ret;
			if (!ret)
				break;
			r->offset += r->cur.len;
			r->line++;
		}

		if (!r->started) {
			r->started = true;
			if (mbox_is_from_line(r->cur.buf, r->cur.len)) {
				r->mboxrd = starts_with(r->cur.buf, "From mboxrd@");
				m->offset = r->offset;
				m->line = r->line + 1;
				r->prev_blank = false;
				continue;
			}
			r->single = true;
		}
		/*
		 * A file without a separator at the start is one message,
		 * unless separators follow (an mbox after some junk).
		 */
		if (r->prev_blank && mbox_is_from_line(r->cur.buf, r->cur.len)) {
			r->single = false;
			r->mboxrd |= starts_with(r->cur.buf, "From mboxrd@");
			if (have) {
				r->pending_from = true;
				drop_separator(m);
				break;
			}
			/* an empty message between two separators */
			m->offset = r->offset;
			m->line = r->line + 1;
			r->prev_blank = false;
			continue;
		}
		r->prev_blank = is_blank(&r->cur);
		have = true;
		if (!r->single && r->cur.buf[0] == '>') {
			const char *p = r->cur.buf;

			while (*p == '>')
				p++;
			/*
			 * mboxrd: one '>' added to every ">*From " line;
			 * mboxo: only "From " was quoted.
			 */
			if (starts_with(p, "From ") &&
			    (r->mboxrd || p == r->cur.buf + 1)) {
				keep_line(r, m, r->cur.buf + 1, r->cur.len - 1);
				continue;
			}
		}
		keep_line(r, m, r->cur.buf, r->cur.len);
	}
	if (!have)
		return 0;
	if (!r->pending_from && !r->single)
		drop_separator(m);
	r->index++;
	return 1;
}
