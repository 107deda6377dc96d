/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside bot/mail.c: the header block of a message split and unfolded
 * without GMime (bot/mail-headers.c), for the fast path of mail.c.
 */
#ifndef LOREBOT_MAIL_INT_H
#define LOREBOT_MAIL_INT_H

#include "bot/strbuf.h"

enum {
	H_MSGID, H_IRT, H_REFS, H_SUBJECT, H_FROM, H_TO, H_CC, H_DATE,
	H_LISTID, H_CTYPE, H_CTE, H_NR
};

struct headers {
	struct strbuf store;	/* the values kept, unfolded, NUL after each */
	size_t off[H_NR];
	bool seen[H_NR];
	size_t body;		/* offset of the body */
};

/*
 * The headers parsing needs, into one buffer (the first of each counts);
 * flags are mail_parse_flags()'s.  0, or -1 when the first line is not a
 * header at all.  Release h either way.
 */
int split_headers(const char *raw, size_t len, unsigned int flags,
		  struct headers *h);
void headers_release(struct headers *h);
/* A header's value, "" when absent (valid until h is released) */
const char *hv(const struct headers *h, int i);
/* Is this a single text/plain part in UTF-8 or ASCII, not encoded? */
bool headers_simple(const struct headers *h);

#endif
