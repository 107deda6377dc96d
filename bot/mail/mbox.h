/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming mbox reader: mboxo and mboxrd (">From " unescaping, detected
 * from lore's "From mboxrd@z" separator), a single message without any
 * separator (a header first: never split, as git am reads it), CRLF
 * input.  Memory use is bounded by the largest message kept (max_size);
 * larger messages are skipped and reported, never held.
 * And the one mboxrd writer, mbox_write_rd().
 */
#ifndef LOREBOT_MBOX_H
#define LOREBOT_MBOX_H

#include <stdint.h>

#include "lib/strbuf.h"

struct mbox_reader {
	int fd;
	bool own_fd;
	const char *mem;	/* reading from memory instead of fd */
	size_t mem_len;
	char *buf;		/* read buffer */
	size_t start, end, alloc;
	bool eof;
	bool started;		/* first line seen */
	bool single;		/* no separator at the start: one message */
	bool junk;		/* ...and no header either: separators may follow */
	bool mboxrd;
	bool pending_from;	/* a separator line was read ahead */
	bool prev_blank;
	size_t max_size;
	size_t index;		/* messages returned so far */
	uint64_t offset;	/* bytes consumed */
	uint64_t line;		/* lines consumed */
	struct strbuf cur;	/* a line that spans two reads */
	const char *lp;		/* the current line: in buf or cur */
	size_t ll;		/* its length as held */
	size_t lt;		/* its real length */
	/* mbox_set_view(): the message so far, whole in buf, not copied */
	bool view;
	const char *run;
	size_t run_len;
	struct strbuf *run_dst;	/* where it goes when buf is refilled */
};

struct mbox_msg {
	/*
	 * The message, separator removed, unescaped: in raw, or with
	 * mbox_set_view() maybe in the reader's buffer (then not
	 * NUL-terminated); valid until the next mbox_next().
	 */
	const char *data;
	size_t len;
	struct strbuf raw;	/* the copy, when data is not a view */
	size_t index;		/* 0-based position in the mbox */
	uint64_t offset;	/* byte offset of its first line */
	uint64_t line;		/* line number of its first line (1-based) */
	uint64_t size;		/* full size, also when too_big */
	bool too_big;		/* raw is empty: size > max_size */
};

#define MBOX_MSG_INIT { .raw = STRBUF_INIT }

/* path "-" reads stdin.  0 or -errno. */
int mbox_open(struct mbox_reader *r, const char *path, size_t max_size);
void mbox_open_mem(struct mbox_reader *r, const char *buf, size_t len,
		   size_t max_size);
void mbox_close(struct mbox_reader *r);

/*
 * Let mbox_next() point m->data into its read buffer (or the memory
 * read) instead of copying, when the message lies there whole and needs
 * no unescaping: the common case, and a copy less per message.  Without
 * it, m->data is m->raw.buf, as callers that keep m->raw expect.
 */
void mbox_set_view(struct mbox_reader *r, bool view);

/* 1: a message in m; 0: end of input; -errno: read error */
int mbox_next(struct mbox_reader *r, struct mbox_msg *m);
void mbox_msg_release(struct mbox_msg *m);

/* Does this line look like an mbox "From " separator? */
bool mbox_is_from_line(const char *line, size_t len);

/*
 * Append one message to the mboxrd in sb: the separator line "From <from>
 * Thu Jan  1 00:00:00 1970" (lore writes "mboxrd@z"), msg[0..len) with one
 * more '>' on every line matching ^>*From , a newline if its last line has
 * none, and the blank line that ends it.  msg may hold NUL bytes.
 * mbox_next() gives the message back byte for byte (with that newline).
 */
void mbox_write_rd(struct strbuf *sb, const char *from, const char *msg,
		   size_t len);

#endif
