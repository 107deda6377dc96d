/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside bot/mail/mail.c: the header block of a message split and unfolded
 * without GMime (bot/mail/mail-headers.c), for the fast path of mail.c, and
 * header values rewritten for GMime (bot/mail/mail-words.c).
 */
#ifndef LOREBOT_MAIL_INT_H
#define LOREBOT_MAIL_INT_H

#include "lib/strbuf.h"

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
int mail_split_headers(const char *raw, size_t len, unsigned int flags,
		       struct headers *h);
void mail_headers_release(struct headers *h);
/* A header's value, "" when absent (valid until h is released) */
const char *mail_hv(const struct headers *h, int i);
/* Is this a single text/plain part in UTF-8 or ASCII, not encoded? */
bool mail_headers_simple(const struct headers *h);

/*
 * GMime 3.2.13 (Debian 12's) decodes adjacent B-encoded words of one
 * charset as one base64 text, which ends at the first padding: of
 * "=?utf-8?b?YWI=?= =?utf-8?b?Y2Q=?=" it keeps "ab" (a known upstream
 * bug).  Before GMime sees a header value, every B word is rewritten as
 * the Q word of the same bytes: Q words join safely, also when a
 * character is split over a B word and a Q word.  The caller frees the
 * result; NULL when there is nothing to rewrite.
 */
char *mail_unpad_b_words(const char *v);

#endif
