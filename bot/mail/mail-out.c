// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bot/mail/mail-out.h"
#include "bot/mail/mail.h"

#define FOLD_AT 78

static bool is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

bool mail_out_valid_email(const char *email)
{
	const char *at, *p;

	if (!email || !*email || strlen(email) > 254)
		return false;
	at = strchr(email, '@');
	if (!at || at == email || !at[1] || strchr(at + 1, '@'))
		return false;
	for (p = email; *p; p++) {
		unsigned char c = *p;

		if (c <= ' ' || c >= 0x7f || strchr("<>()[]\\,;:\"", c))
			return false;
	}
	return at[1] != '.' && email[strlen(email) - 1] != '.';
}

bool mail_out_valid_msgid(const char *id)
{
	const char *p;

	if (!id || !*id || strlen(id) > 900 || !strchr(id, '@'))
		return false;
	for (p = id; *p; p++) {
		unsigned char c = *p;

		if (c <= ' ' || c >= 0x7f || c == '<' || c == '>')
			return false;
	}
	return true;
}

int mail_addrs_add(struct mail_addrs *a, const char *name, const char *email)
{
	if (!mail_out_valid_email(email) || mail_addrs_has(a, email))
		return 0;
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr].name = name && *name ? mail_out_clean(name) : NULL;
	a->v[a->nr].email = xstrdup(email);
	a->nr++;
	return 1;
}

bool mail_addrs_has(const struct mail_addrs *a, const char *email)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (!strcasecmp(a->v[i].email, email))
			return true;
	return false;
}

void mail_addrs_truncate(struct mail_addrs *a, size_t nr)
{
	for (; a->nr > nr; a->nr--) {
		free(a->v[a->nr - 1].name);
		free(a->v[a->nr - 1].email);
	}
}

void mail_addrs_release(struct mail_addrs *a)
{
	mail_addrs_truncate(a, 0);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

char *mail_out_clean(const char *s)
{
	/* mail_decode_header() makes UTF-8 valid and drops CR, LF, controls */
	char *c = mail_decode_header(s ? s : ""), *p;

	for (p = c; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	return c;
}

/* RFC 2047 "B" encoded words of the whole of s, cut between characters */
static void encode_words(struct strbuf *sb, const char *s)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t len = strlen(s), i = 0;
	bool first = true;

	while (i < len) {
		/* 45 bytes -> 60 base64 chars: the word stays under 75 */
		size_t n = MIN((size_t)45, len - i), k;

		while (n < len - i && n > 1 && ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n--;
		if (!first)
			strbuf_addch(sb, ' ');
		first = false;
		strbuf_addstr(sb, "=?UTF-8?B?");
		for (k = 0; k < n; k += 3) {
			unsigned int v = (unsigned char)s[i + k] << 16;

			if (k + 1 < n)
				v |= (unsigned char)s[i + k + 1] << 8;
			if (k + 2 < n)
				v |= (unsigned char)s[i + k + 2];
			strbuf_addch(sb, b64[(v >> 18) & 63]);
			strbuf_addch(sb, b64[(v >> 12) & 63]);
			strbuf_addch(sb, k + 1 < n ? b64[(v >> 6) & 63] : '=');
			strbuf_addch(sb, k + 2 < n ? b64[v & 63] : '=');
		}
		strbuf_addstr(sb, "?=");
		i += n;
	}
}

/* atext and blanks only: no quoting needed in a phrase */
static bool plain_phrase(const char *s)
{
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr(" !#$%&'*+-/=?^_`{|}~", *s)))
			return false;
	return true;
}

/*
 * A display name of at most NAME_MAX_BYTES, cut between characters: a
 * name without blanks cannot be folded, and a header line stays within
 * RFC 5322's 998 however it is written (encoded, it grows by 4/3).
 */
#define NAME_MAX_BYTES 200

static void cap_name(char *n)
{
	size_t len = strlen(n);

	if (len <= NAME_MAX_BYTES)
		return;
	len = NAME_MAX_BYTES;
	while (len && ((unsigned char)n[len] & 0xc0) == 0x80)
		len--;
	n[len] = '\0';
}

void mail_out_format_addr(struct strbuf *sb, const char *name, const char *email)
{
	char *n = name && *name ? mail_out_clean(name) : NULL;
	const char *p;

	if (n)
		cap_name(n);
	if (n && *n) {
		if (!is_ascii(n)) {
			encode_words(sb, n);
		} else if (plain_phrase(n)) {
			strbuf_addstr(sb, n);
		} else {
			strbuf_addch(sb, '"');
			for (p = n; *p; p++) {
				if (*p == '"' || *p == '\\')
					strbuf_addch(sb, '\\');
				strbuf_addch(sb, *p);
			}
			strbuf_addch(sb, '"');
		}
		strbuf_addf(sb, " <%s>", email);
	} else {
		strbuf_addstr(sb, email);
	}
	free(n);
}

/* Controls (CR, LF, tabs...) become blanks; runs of blanks become one */
static char *one_line(const char *s)
{
	char *v = xmalloc(strlen(s) + 1), *w = v;
	bool blank = false;

	for (; *s; s++) {
		if ((unsigned char)*s <= ' ' || *s == 0x7f) {
			blank = true;
			continue;
		}
		if (blank && w != v)
			*w++ = ' ';
		blank = false;
		*w++ = *s;
	}
	*w = 0;
	return v;
}

void mail_out_header(struct strbuf *sb, const char *name, const char *value)
{
	char *v = one_line(value ? value : "");
	size_t col = strlen(name) + 2;
	const char *p = v;

	strbuf_addf(sb, "%s:", name);
	while (*p) {
		const char *sp = strchr(p + 1, ' ');
		size_t wlen = sp ? (size_t)(sp - p) : strlen(p);

		/* each word is " word"; fold before it when the line would be too long */
		if (p != v && col + wlen > FOLD_AT) {
			strbuf_addstr(sb, "\n");
			col = 0;
		}
		if (p == v)
			strbuf_addch(sb, ' ');
		strbuf_add(sb, p, wlen);
		col += wlen;
		p += wlen;
	}
	strbuf_addch(sb, '\n');
	free(v);
}

/* A word longer than a header line may be (RFC 5322: 998) less the name? */
static bool long_word(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n > 900)
			return true;
		s += n;
		s += strspn(s, " ");
	}
	return false;
}

void mail_out_text_header(struct strbuf *sb, const char *name, const char *text)
{
	char *c = mail_out_clean(text), *enc;

	if (is_ascii(c) && !long_word(c)) {
		mail_out_header(sb, name, c);
	} else if (is_ascii(c)) {
		struct strbuf words = STRBUF_INIT;

		/* a word no fold can cut: encoded words of 45 bytes each */
		encode_words(&words, c);
		mail_out_header(sb, name, words.buf);
		strbuf_release(&words);
	} else {
		enc = mail_encode_header(name, c);
		mail_out_header(sb, name, enc);
		free(enc);
	}
	free(c);
}

/*
 * Append s, at column col, folded before a blank where the line would
 * pass FOLD_AT (RFC 5322 allows it between words, in a quoted string
 * too): the new column.
 */
static size_t add_folded(struct strbuf *sb, size_t col, const char *s)
{
	const char *p = s;

	while (*p) {
		const char *sp = strchr(p + 1, ' ');
		size_t wlen = sp ? (size_t)(sp - p) : strlen(p);

		if (p != s && *p == ' ' && col + wlen > FOLD_AT) {
			strbuf_addch(sb, '\n');
			col = 0;
		}
		strbuf_add(sb, p, wlen);
		col += wlen;
		p += wlen;
	}
	return col;
}

void mail_out_addrs_header(struct strbuf *sb, const char *name, const struct mail_addrs *a)
{
	struct strbuf addr = STRBUF_INIT;
	size_t i, col;

	if (!a->nr)
		return;
	strbuf_addf(sb, "%s: ", name);
	col = strlen(name) + 2;
	for (i = 0; i < a->nr; i++) {
		if (i) {
			strbuf_addstr(sb, ",\n\t");
			col = 8;
		}
		strbuf_reset(&addr);
		mail_out_format_addr(&addr, a->v[i].name, a->v[i].email);
		col = add_folded(sb, col, addr.buf);
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&addr);
}

void mail_out_ids_header(struct strbuf *sb, const char *name, const char *const *ids,
			 size_t nr)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!mail_out_valid_msgid(ids[i]))
			continue;
		strbuf_addstr(sb, n++ ? "\n\t<" : "");
		if (n == 1)
			strbuf_addf(sb, "%s: <", name);
		strbuf_addf(sb, "%s>", ids[i]);
	}
	if (n)
		strbuf_addch(sb, '\n');
}

char *mail_out_new_msgid(const char *domain, int64_t now)
{
	static const char chars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	unsigned char rnd[12];
	char tag[13];
	time_t t = (time_t)now;
	struct tm tm;
	size_t i;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		uint64_t x = util_wall_ms() ^ ((uint64_t)getpid() << 32);

		for (i = 0; i < sizeof(rnd); i++, x = x * 6364136223846793005ULL + 1)
			rnd[i] = (unsigned char)(x >> 56);
	}
	for (i = 0; i < sizeof(rnd); i++)
		tag[i] = chars[rnd[i] % 36];
	tag[12] = 0;
	gmtime_r(&t, &tm);
	return xasprintf("%04d%02d%02d%02d%02d%02d.%s-lorebot@%s", tm.tm_year + 1900,
			 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			 tag, domain && *domain ? domain : "localhost");
}
