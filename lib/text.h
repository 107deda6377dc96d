/* SPDX-License-Identifier: GPL-2.0 */
/* Text for people: wrapping prose, escaping for HTML, short forms */
#ifndef LOREBOT_TEXT_H
#define LOREBOT_TEXT_H

#include <stdint.h>

#include "lib/strbuf.h"

/*
 * Append text wrapped at width columns (tabs count as 8): words are
 * filled into lines, paragraphs (blank lines) and lines starting with a
 * blank, "> " or "| " are kept as they are.  Each output line but the
 * first starts with indent (may be NULL); words longer than a line
 * (URLs) stay whole.
 */
void text_wrap(struct strbuf *out, const char *text, size_t width, const char *indent);

/* Append s with & < > " ' as HTML entities */
void text_html_escape(struct strbuf *out, const char *s);
void text_html_escape_n(struct strbuf *out, const char *s, size_t len);

/* Append s percent-encoded for a URL path segment or query value (@ kept) */
void text_url_escape(struct strbuf *out, const char *s);

/* "3 minutes", "2 hours", "5 days": how long ago t was, from now */
void text_age(struct strbuf *out, int64_t t, int64_t now);

/* Append s as one shell word: as it is when it is safe, else in '' quotes */
void text_shell_quote(struct strbuf *out, const char *s);

/*
 * C source without its comments, each run of white space one space (in
 * string and character literals nothing changes): two texts that differ
 * only in comments and layout give the same code
 */
void text_c_code(const char *s, size_t len, struct strbuf *out);

/* Display width of a line (tabs to the next multiple of 8, UTF-8 aware) */
size_t text_width(const char *s, size_t len);

#endif
