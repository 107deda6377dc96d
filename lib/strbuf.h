/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A growable byte string, NUL-terminated at all times (as git's strbuf).
 * buf is never NULL: an empty strbuf points at a static "".  The owner
 * calls strbuf_release(); strbuf_detach() hands the buffer over.
 */
#ifndef LOREBOT_STRBUF_H
#define LOREBOT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/util.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { .buf = strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Returns the buffer (caller frees) and resets sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_add_slow(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);

/* Inline: JSON output and mail parsing add many small pieces */
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->len + len < sb->alloc) {
		memcpy(sb->buf + sb->len, data, len);
		sb->len += len;
		sb->buf[sb->len] = '\0';
		return;
	}
	strbuf_add_slow(sb, data, len);
}

static inline void strbuf_addch(struct strbuf *sb, int c)
{
	if (sb->len + 1 < sb->alloc) {
		sb->buf[sb->len++] = c;
		sb->buf[sb->len] = '\0';
		return;
	}
	strbuf_add_slow(sb, &(char){ c }, 1);
}
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) PRINTF(2, 0);
void strbuf_addbuf(struct strbuf *sb, const struct strbuf *other);

void strbuf_rtrim(struct strbuf *sb);
void strbuf_ltrim(struct strbuf *sb);
void strbuf_trim(struct strbuf *sb);
/* Make sure the buffer ends with a newline unless it is empty. */
void strbuf_complete_line(struct strbuf *sb);
/*
 * As git stripspace: blanks at line ends removed, runs of empty lines
 * made one, none at the start or the end; every line ends in '\n'.
 */
void strbuf_stripspace(struct strbuf *sb);

/* Append s with every character outside [32,126] shown as \xNN. */
void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t len);

#endif
