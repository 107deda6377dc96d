// SPDX-License-Identifier: GPL-2.0
/*
 * Encoded words rewritten before GMime reads them (bot/mail/mail-int.h):
 * the workaround of GMime 3.2.13's padded base64 words.
 */
#include <ctype.h>
#include <string.h>

#include "bot/mail/mail-int.h"

static int b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	return c == '/' ? 63 : -1;
}

/* An encoded word at p: lengths of charset and payload, or false */
static bool encoded_word(const char *p, size_t *cs, size_t *payload, char *enc)
{
	const char *q = p + 2, *e;

	if (p[0] != '=' || p[1] != '?')
		return false;
	*cs = strcspn(q, "? \t\r\n");
	if (!*cs || q[*cs] != '?' || !q[*cs + 1] || q[*cs + 2] != '?')
		return false;
	*enc = q[*cs + 1];
	q += *cs + 3;
	e = strstr(q, "?=");
	if (!e || strcspn(q, " \t\r\n") < (size_t)(e - q))
		return false;
	*payload = e - q;
	return true;
}

static void b_to_q(const char *b, size_t len, struct strbuf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned int acc = 0;
	int bits = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		int v = b64_value((unsigned char)b[i]);
		unsigned char c;

		if (v < 0)
			continue;	/* padding and garbage, as git reads it */
		acc = (acc << 6) | v;
		bits += 6;
		if (bits < 8)
			continue;
		bits -= 8;
		c = (acc >> bits) & 0xff;
		if (isalnum(c)) {
			strbuf_addch(out, c);
		} else {
			strbuf_addch(out, '=');
			strbuf_addch(out, hex[c >> 4]);
			strbuf_addch(out, hex[c & 15]);
		}
	}
}

char *mail_unpad_b_words(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = v, *w, *done = v;

	while ((w = strstr(p, "=?"))) {
		size_t cs, len;
		char enc;

		if (!encoded_word(w, &cs, &len, &enc)) {
			p = w + 2;
			continue;
		}
		p = w + 2 + cs + 3 + len + 2;
		if (enc != 'b' && enc != 'B')
			continue;
		strbuf_add(&sb, done, w - done);
		strbuf_add(&sb, w, 2 + cs);
		strbuf_addstr(&sb, "?Q?");
		b_to_q(w + 2 + cs + 3, len, &sb);
		strbuf_addstr(&sb, "?=");
		done = p;
	}
	if (done == v)
		return NULL;
	strbuf_addstr(&sb, done);
	return strbuf_detach(&sb, NULL);
}
