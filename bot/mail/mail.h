/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One mail message, parsed with GMime (the only file that uses it):
 * RFC 5322 headers (folded, RFC 2047 encoded words), MIME structure
 * (multipart/mixed and /alternative: the text/plain part; attached
 * text/x-patch parts), transfer encodings and charsets.  The body is
 * UTF-8; a UTF-8 or ASCII body is kept byte for byte (tabs, trailing
 * blanks), which keeps diffs exact.
 */
#ifndef LOREBOT_MAIL_H
#define LOREBOT_MAIL_H

#include <stdint.h>

#include "lib/strbuf.h"

#define MAIL_MAX_REFS 256

struct address {
	char *name;		/* decoded display name, or NULL */
	char *email;		/* lowercased domain; NULL if none */
};

struct mail {
	char *msgid;		/* without <>, NULL when missing */
	char *in_reply_to;	/* first id of In-Reply-To, without <> */
	char **refs;		/* References, oldest first, at most MAIL_MAX_REFS */
	size_t nr_refs;
	char *subject;		/* decoded and unfolded; "" when missing */
	struct address from;
	char *from_text;	/* the From: header as text, RFC 2047 decoded
				 * (git mailinfo reads the author from it) */
	struct address *to, *cc;
	size_t nr_to, nr_cc;
	char *list_id;		/* without <> */
	int64_t date;		/* seconds since the epoch; 0 when unknown */
	int tz;			/* minutes east of UTC */
	char *body;		/* UTF-8 */
	size_t body_len;
	char *text_sent;	/* MAIL_TEXT_SENT: the first text part as sent,
				 * where undoing format=flowed changed it
				 * (b4 reads replies so); else NULL */
	char *charset;		/* the body's, converted from; NULL: UTF-8/ASCII */
	bool multipart;
	unsigned int skipped_parts;	/* MIME parts not read (HTML...) */
	bool mime_broken;	/* GMime found the MIME structure broken */
	bool body_nul;		/* the body had NUL bytes, read as U+FFFD */
	struct strbuf warnings;	/* what was wrong but not fatal, one per line */
};

#define MAIL_INIT { .warnings = STRBUF_INIT }

/*
 * Parse raw (a whole message).  0, or -1 with what was wrong in err
 * (the message cannot be used at all).
 */
int mail_parse(const char *raw, size_t len, struct mail *m, struct strbuf *err);

/* Leave To: and Cc: out (series assembly does not need them) */
#define MAIL_NO_RECIPIENTS 0x1
/* Keep text_sent too */
#define MAIL_TEXT_SENT 0x2
int mail_parse_flags(const char *raw, size_t len, unsigned int flags,
		     struct mail *m, struct strbuf *err);
void mail_release(struct mail *m);

/*
 * m as JSON (caller frees) and back (bot/mail/mail-json.c): how a parser in a
 * jail hands a mail over.  mail_from_json() takes the text as untrusted:
 * 0, or -1 with err (m is then empty, to be released all the same).
 */
char *mail_to_json(const struct mail *m);
int mail_from_json(const char *text, size_t len, struct mail *m, struct strbuf *err);

/* The MIME library that parses, and its version: "GMime 3.2.13" */
const char *mail_library(void);

/* The parent: In-Reply-To, else the last of References, else NULL */
const char *mail_parent(const struct mail *m);

/*
 * Decode an RFC 2047 header value and strip CR/LF (for names typed by
 * anyone).  Caller frees.
 */
char *mail_decode_header(const char *value);
/* The same without decoding: valid UTF-8, controls and blank runs to one space */
char *mail_clean_header(const char *value);
/* s converted from charset to UTF-8, or NULL (out_len: its length) */
char *mail_from_charset(const char *charset, const char *s, size_t len,
			size_t *out_len);
/* Encode a header value for output (RFC 2047 when not ASCII). */
char *mail_encode_header(const char *name, const char *value);

/* Format t (with tz in minutes) as an RFC 5322 date (bot/mail/mail-date.c) */
void mail_format_date(int64_t t, int tz, struct strbuf *sb);
/*
 * "Mon, 6 May 2024 10:00:00 +0000", the form git send-email and most
 * mailers write (optional weekday, a comment after the zone); false for
 * anything else (bot/mail/mail-date.c, without GMime).
 */
bool mail_strict_date(const char *s, int64_t *t, int *tz);

/* Parse a date as in a Date: header (lenient); 0 or -1 */
int mail_parse_date(const char *s, int64_t *t, int *tz);
#endif
