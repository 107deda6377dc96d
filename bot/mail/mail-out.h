/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing mail headers that cannot be abused: every name and subject
 * taken from a received mail is made valid UTF-8, loses its CR, LF and
 * other control characters, and is RFC 2047-encoded when not ASCII;
 * addresses and Message-IDs that are not plain addr-spec / msg-id
 * syntax are refused instead of written; long headers are folded at
 * blanks.  So no value can end a header line and start another.
 */
#ifndef LOREBOT_MAIL_OUT_H
#define LOREBOT_MAIL_OUT_H

#include <stdint.h>

#include "lib/strbuf.h"

struct mail_addr {
	char *name;		/* display name (UTF-8), may be NULL */
	char *email;		/* addr-spec */
};

struct mail_addrs {
	struct mail_addr *v;
	size_t nr, alloc;
};

#define MAIL_ADDRS_INIT { 0 }

/* Is this a plain addr-spec (local@domain, printable ASCII, no specials)? */
bool mail_out_valid_email(const char *email);
/* Is this a msg-id body (without <>) safe to write in a header? */
bool mail_out_valid_msgid(const char *id);

/*
 * Add an address unless its email is invalid or already in the list
 * (case-insensitive); 1 added, 0 not.
 */
int mail_addrs_add(struct mail_addrs *a, const char *name, const char *email);
bool mail_addrs_has(const struct mail_addrs *a, const char *email);
void mail_addrs_release(struct mail_addrs *a);
/* Keep the first nr addresses */
void mail_addrs_truncate(struct mail_addrs *a, size_t nr);

/* A display name or subject made safe for a header (no CR/LF/controls); caller frees */
char *mail_out_clean(const char *s);

/* Append one address: "Name <a@b>", the name quoted or encoded as needed */
void mail_out_format_addr(struct strbuf *sb, const char *name, const char *email);

/*
 * Append "Name: value" and a newline, value folded at blanks so lines
 * stay within 78 columns where possible.  value must already be safe
 * (it is cleaned again: a CR or LF never gets through).
 */
void mail_out_header(struct strbuf *sb, const char *name, const char *value);
/* Subject-like unstructured text from anyone: cleaned, RFC 2047 when needed */
void mail_out_text_header(struct strbuf *sb, const char *name, const char *text);
/* An address list header, one address per line ("To: a,\n\tb") */
void mail_out_addrs_header(struct strbuf *sb, const char *name, const struct mail_addrs *a);
/* "<id1>\n\t<id2>..." of the valid ids (References), oldest first */
void mail_out_ids_header(struct strbuf *sb, const char *name, const char *const *ids,
			 size_t nr);

/* A new unique Message-ID (without <>) at domain */
char *mail_out_new_msgid(const char *domain, int64_t now);

#endif
