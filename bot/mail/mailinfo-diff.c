// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot's reading of a mail against git's, and the documented list of
 * where lorebot differs on purpose: each class says which fields it may
 * change and recognises itself from the mail and the two readings.
 */
#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/mail/mail.h"
#include "bot/mail/mailinfo.h"
#include "bot/mail/patch.h"

struct diff_case {
	const char *raw;
	size_t len;
	const struct mailinfo_cmp *cmp;
};

struct class_def {
	struct mailinfo_class c;
	unsigned int fields;	/* 1 << enum mailinfo_field */
	bool (*applies)(const struct diff_case *dc, enum mailinfo_field f);
};

#define F(x) (1u << (x))
#define F_ALL ((1u << MI_NR) - 1)

static const char *text_of(const struct mailinfo *mi, enum mailinfo_field f,
			   size_t *len)
{
	const char *v = f == MI_AUTHOR ? mi->author : f == MI_EMAIL ? mi->email :
		f == MI_SUBJECT ? mi->subject : NULL;

	if (v) {
		*len = strlen(v);
		return v;
	}
	if (f == MI_MESSAGE) {
		*len = mi->message.len;
		return mi->message.buf;
	}
	*len = mi->patch.len;
	return mi->patch.buf;
}

static bool same_text(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !memcmp(a, b, alen);
}

/* lorebot converts the whole body to UTF-8; git only the message lines */
static bool other_charset(const struct diff_case *dc, enum mailinfo_field f)
{
	const struct mailinfo *ours = &dc->cmp->ours;
	size_t glen, olen, clen;
	const char *g = text_of(&dc->cmp->git, f, &glen), *o = text_of(ours, f, &olen);
	char *conv;
	bool same;

	if (!ours->charset)
		return false;
	conv = mail_from_charset(ours->charset, g, glen, &clen);
	same = conv && same_text(conv, clen, o, olen);
	free(conv);
	return same;
}

/*
 * A body its declared charset does not decode as a whole (UTF-7 takes
 * '+' for the start of base64, and a diff's "+\t" is invalid there):
 * lorebot keeps every byte, git converts the message lines iconv takes
 */
static bool charset_invalid(const struct diff_case *dc, enum mailinfo_field f)
{
	const struct mailinfo *ours = &dc->cmp->ours;
	const struct strbuf *part[] = { &ours->message, &ours->patch };
	size_t clen, i;
	char *conv;

	(void)f;
	if (!ours->charset)
		return false;
	/* what lorebot kept as bytes does not convert; what it converted does */
	for (i = 0; i < ARRAY_SIZE(part); i++) {
		conv = mail_from_charset(ours->charset, part[i]->buf, part[i]->len, &clen);
		if (!conv)
			return true;
		free(conv);
	}
	return false;
}

/* s without its empty lines */
static void drop_empty_lines(const struct strbuf *s, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < s->len; i++)
		if (s->buf[i] != '\n' || (out->len && out->buf[out->len - 1] != '\n'))
			strbuf_addch(out, s->buf[i]);
}

static void trim_line_ends(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->buf[--sb->len] = '\0';
}

/*
 * MIME says the line end before a boundary is the boundary's; git keeps
 * it and adds one more at each closing boundary
 */
static bool same_but_line_ends(const struct strbuf *a, const struct strbuf *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	bool same;

	drop_empty_lines(a, &x);
	drop_empty_lines(b, &y);
	/* the last line end too, where a boundary took it */
	trim_line_ends(&x);
	trim_line_ends(&y);
	same = same_text(x.buf, x.len, y.buf, y.len);
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

static bool mime_line_ends(const struct diff_case *dc, enum mailinfo_field f)
{
	const struct mailinfo *ours = &dc->cmp->ours, *git = &dc->cmp->git;

	if (!ours->multipart)
		return false;
	return same_but_line_ends(f == MI_MESSAGE ? &ours->message : &ours->patch,
				  f == MI_MESSAGE ? &git->message : &git->patch);
}

/* The boundary= values of the mail, as git finds them (quoted or not) */
static size_t boundaries(const char *raw, size_t len, char **out, size_t max)
{
	const char *p = raw, *end = raw + len;
	size_t nr = 0;

	while (nr < max && (p = memmem(p, end - p, "boundary=", 9))) {
		const char *v = p + 9, *e;

		if (v < end && *v == '"') {
			v++;
			for (e = v; e < end && *e != '"' && *e != '\n'; e++)
				;
		} else {
			for (e = v; e < end && !strchr("; \t\r\n", *e); e++)
				;
		}
		if (e > v)
			out[nr++] = xstrndup(v, e - v);
		p = v;
	}
	return nr;
}

/*
 * A line that begins like a boundary and goes on ("--ALTx"): MIME reads
 * it as text, git (matching the start only) as a boundary
 */
static bool mime_boundary(const char *raw, size_t len)
{
	char *b[16];
	size_t nb = boundaries(raw, len, b, ARRAY_SIZE(b)), i;
	const char *p = raw, *end = raw + len;
	bool found = false;

	while (p < end && !found) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;

		for (i = 0; i < nb && !found; i++) {
			size_t n = strlen(b[i]);
			const char *after = p + 2 + n;

			if ((size_t)(le - p) < n + 3 || p[0] != '-' || p[1] != '-' ||
			    memcmp(p + 2, b[i], n))
				continue;
			found = !strchr("- \t\r", *after);
		}
		p = nl ? nl + 1 : end;
	}
	for (i = 0; i < nb; i++)
		free(b[i]);
	return found;
}

/* HTML and other parts: git reads every part, lorebot the text ones */
static bool mime_other_parts(const struct diff_case *dc, enum mailinfo_field f)
{
	(void)f;
	return dc->cmp->ours.skipped_parts;
}

/* NUL bytes: git reads some lines as C strings, cut at the NUL */
static bool has_nul(const struct strbuf *sb)
{
	return sb->len && memchr(sb->buf, '\0', sb->len);
}

/* In the mail, or in what git decoded of a base64 or quoted-printable body */
static bool nul_bytes(const struct diff_case *dc, enum mailinfo_field f)
{
	(void)f;
	return memchr(dc->raw, '\0', dc->len) != NULL ||
		has_nul(&dc->cmp->git.message) || has_nul(&dc->cmp->git.patch);
}

/* a and b hold the same bytes once every CR and LF is left out */
static bool same_but_eol(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < alen && (a[i] == '\r' || a[i] == '\n'))
			i++;
		while (j < blen && (b[j] == '\r' || b[j] == '\n'))
			j++;
		if (i == alen || j == blen)
			return i == alen && j == blen;
		if (a[i++] != b[j++])
			return false;
	}
}

/*
 * A mail that ends in its header block: git reads the last header line
 * once more, as the message (a folded one unfolded: its line ends gone)
 */
static bool no_body(const struct diff_case *dc, enum mailinfo_field f)
{
	const struct strbuf *msg = &dc->cmp->git.message;
	struct strbuf unfolded = STRBUF_INIT;
	size_t end = dc->len, start, i;
	bool same;

	(void)f;
	if (dc->cmp->ours.message.len)
		return false;
	while (end && (dc->raw[end - 1] == '\n' || dc->raw[end - 1] == '\r' ||
		       dc->raw[end - 1] == ' ' || dc->raw[end - 1] == '\t'))
		end--;
	for (start = end; start && dc->raw[start - 1] != '\n'; start--)
		;
	if (msg->len == end - start + 1 && !memcmp(msg->buf, dc->raw + start, end - start))
		return true;
	/* back to the first line of a folded header */
	while (start && (dc->raw[start] == ' ' || dc->raw[start] == '\t')) {
		for (start--; start && dc->raw[start - 1] != '\n'; start--)
			;
	}
	for (i = start; i < end; i++)
		if (dc->raw[i] != '\n' && dc->raw[i] != '\r')
			strbuf_addch(&unfolded, dc->raw[i]);
	/*
	 * git keeps a bare CR inside the line (and may then end the message
	 * without a newline): line ends and CRs aside, the same text
	 */
	same = same_but_eol(msg->buf, msg->len, unfolded.buf, unfolded.len);
	strbuf_release(&unfolded);
	return same;
}

/*
 * A MIME structure GMime reports broken, or a line that only begins like
 * a boundary: each reads it its own way
 */
static bool mime_broken(const struct diff_case *dc, enum mailinfo_field f)
{
	(void)f;
	return dc->cmp->ours.mime_broken ||
		(dc->cmp->ours.multipart && mime_boundary(dc->raw, dc->len));
}

/*
 * The top-level header block as each reads it: git mailinfo ends it at
 * the first line that is not a header and takes the last From:, Subject:
 * and Date:; lorebot skips such lines and takes the first (as b4 and
 * public-inbox do).
 */
enum { HB_FROM, HB_SUBJECT, HB_DATE, HB_NR };
static const char *const hb_names[HB_NR] = { "From", "Subject", "Date" };

struct header_block {
	char *value[HB_NR];
	size_t end;		/* offset of the body */
};

static bool hb_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void hb_set(struct header_block *hb, int i, const char *v, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t k;

	/* blanks collapsed: both collapse them later */
	for (k = 0; k < len; k++) {
		if (hb_space(v[k])) {
			if (sb.len && sb.buf[sb.len - 1] != ' ')
				strbuf_addch(&sb, ' ');
			continue;
		}
		strbuf_addch(&sb, v[k]);
	}
	strbuf_rtrim(&sb);
	free(hb->value[i]);
	hb->value[i] = strbuf_detach(&sb, NULL);
}

/* git's read_one_header_line() and skip_header() */
static void git_headers(const char *raw, size_t len, struct header_block *hb)
{
	size_t p = 0;

	while (p < len && hb_space(raw[p]))
		p++;
	while (p < len) {
		struct strbuf line = STRBUF_INIT;
		size_t e = p, i;
		bool header = false;
		int k;

		while (e < len && raw[e] != '\n')
			e++;
		strbuf_add(&line, raw + p, e - p);
		while (line.len && hb_space(line.buf[line.len - 1]))
			line.len--;
		if (util_starts_with(line.buf, "From ") || util_starts_with(line.buf, ">From "))
			header = true;
		for (i = 0; !header && i < line.len; i++) {
			unsigned char c = line.buf[i];

			if (c == ':')
				header = true;
			else if (c < 33 || c > 126)
				break;
		}
		if (!line.len || !header) {
			/* a blank line is the block's; any other, the body's */
			if (!line.len)
				p = e + (e < len);
			strbuf_release(&line);
			break;
		}
		p = e + (e < len);
		while (p < len && (raw[p] == ' ' || raw[p] == '\t')) {
			e = p;
			while (e < len && raw[e] != '\n')
				e++;
			strbuf_addch(&line, ' ');
			strbuf_add(&line, raw + p + 1, e - p - 1);
			p = e + (e < len);
		}
		for (k = 0; k < HB_NR; k++) {
			size_t n = strlen(hb_names[k]);

			if (line.len > n && !strncasecmp(line.buf, hb_names[k], n) &&
			    line.buf[n] == ':') {
				hb_set(hb, k, line.buf + n + 1, line.len - n - 1);
				break;
			}
		}
		strbuf_release(&line);
	}
	hb->end = p;
}

/* bot/mail/mail-headers.c's mail_split_headers(), for these three */
static void lorebot_headers(const char *raw, size_t len, struct header_block *hb)
{
	size_t p = 0;
	int cur = -1;

	while (p < len) {
		size_t e = p, le, colon, n;
		int k;

		while (e < len && raw[e] != '\n')
			e++;
		le = e > p && raw[e - 1] == '\r' ? e - 1 : e;
		if (le == p) {
			p = e + (e < len);
			break;
		}
		if (raw[p] == ' ' || raw[p] == '\t') {
			if (cur >= 0) {
				struct strbuf sb = STRBUF_INIT;

				strbuf_addstr(&sb, hb->value[cur]);
				strbuf_addch(&sb, ' ');
				strbuf_add(&sb, raw + p, le - p);
				hb_set(hb, cur, sb.buf, sb.len);
				strbuf_release(&sb);
			}
			p = e + (e < len);
			continue;
		}
		for (colon = p; colon < le && raw[colon] != ':'; colon++)
			if ((unsigned char)raw[colon] < ' ')
				colon = le;
		cur = -1;
		for (n = colon; n > p && raw[n - 1] == ' '; n--)
			;
		for (k = 0; colon < le && k < HB_NR; k++) {
			if (n - p == strlen(hb_names[k]) &&
			    !strncasecmp(raw + p, hb_names[k], n - p) && !hb->value[k]) {
				hb_set(hb, k, raw + colon + 1, le - colon - 1);
				cur = k;
			}
		}
		p = e + (e < len);
	}
	hb->end = p;
}

static void header_block_release(struct header_block *hb)
{
	int k;

	for (k = 0; k < HB_NR; k++)
		free(hb->value[k]);
}

/*
 * A From: line (of the header or in the body) that opens a comment '('
 * it does not close: git reads the comment on past the line, into the
 * lines after it, GMime ends it with the line
 */
static bool address_comment(const struct diff_case *dc, enum mailinfo_field f)
{
	const char *p = dc->raw, *end = dc->raw + dc->len;

	(void)f;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;

		if (le - p > 5 && !strncasecmp(p, "from:", 5)) {
			int depth = 0;
			const char *q;

			for (q = p + 5; q < le; q++)
				depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
			if (depth > 0)
				return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

static bool header_lines(const struct diff_case *dc, enum mailinfo_field f)
{
	struct header_block g = { .end = 0 }, o = { .end = 0 };
	struct strbuf in = STRBUF_INIT;
	int k = f == MI_SUBJECT ? HB_SUBJECT : f == MI_DATE ? HB_DATE : HB_FROM;
	size_t i;
	bool differs;

	for (i = 0; i < dc->len; i++)	/* as git sees it: CRLF made LF */
		if (dc->raw[i] != '\r' || i + 1 >= dc->len || dc->raw[i + 1] != '\n')
			strbuf_addch(&in, dc->raw[i]);
	git_headers(in.buf, in.len, &g);
	lorebot_headers(in.buf, in.len, &o);
	differs = g.end != o.end ||
		(f != MI_MESSAGE && f != MI_PATCH &&
		 strcmp(g.value[k] ? g.value[k] : "", o.value[k] ? o.value[k] : ""));
	header_block_release(&g);
	header_block_release(&o);
	strbuf_release(&in);
	return differs;
}

/*
 * Each byte that is not part of valid UTF-8 as '?' (GMime's decoder of
 * encoded words), or as ISO-8859-1 (lorebot's raw header bytes, where an
 * encoded word beside them is UTF-8 already)
 */
static char *invalid_as(const char *s, size_t len, bool latin1)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

		if (i + n <= len && util_utf8_valid(s + i, n)) {
			strbuf_add(&sb, s + i, n);
			i += n;
		} else if (latin1) {
			strbuf_addch(&sb, (char)(0xc0 | (c >> 6)));
			strbuf_addch(&sb, (char)(0x80 | (c & 0x3f)));
			i++;
		} else {
			strbuf_addch(&sb, '?');
			i++;
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Does git's header text g, converted as lorebot converts it, read as
 * ours?  Also when the conversion made git's author name longer than the
 * 60 bytes git allows a name (get_sane_name()), and lorebot so fell back
 * to the address: git counts the bytes before conversion.
 */
static bool converted_same(const struct diff_case *dc, enum mailinfo_field f,
			   char *converted, const char *o)
{
	char *clean = converted ? mail_clean_header(converted) : NULL;
	bool same = clean && !strcmp(clean, o);

	if (!same && clean && f == MI_AUTHOR && strlen(clean) > 60 &&
	    dc->cmp->ours.email && !strcmp(o, dc->cmp->ours.email))
		same = true;
	free(clean);
	free(converted);
	return same;
}

/*
 * Header text is valid UTF-8 without control characters in lorebot
 * (8-bit bytes that are not UTF-8 read as ISO-8859-1, or as '?' inside
 * encoded words: GMime's fallbacks)
 */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 && *s != '\t')
			return true;
	return false;
}

static bool header_text(const struct diff_case *dc, enum mailinfo_field f)
{
	size_t glen, olen, clen;
	const char *g = text_of(&dc->cmp->git, f, &glen), *o = text_of(&dc->cmp->ours, f, &olen);
	char *clean;
	bool same;

	/* a control character moves where lorebot's name and address part */
	if ((f == MI_AUTHOR || f == MI_EMAIL) &&
	    (has_control(dc->cmp->git.author) || has_control(dc->cmp->git.email)))
		return true;
	clean = mail_clean_header(g);
	same = !strcmp(clean, o);
	free(clean);
	if (same || util_utf8_valid(g, glen))
		return same;
	return converted_same(dc, f, mail_from_charset("iso-8859-1", g, glen, &clen), o) ||
	       converted_same(dc, f, invalid_as(g, glen, false), o) ||
	       converted_same(dc, f, invalid_as(g, glen, true), o);
}

/* CRLF inside base64 or quoted-printable: lorebot drops the CR */
static bool quoted_cr(const struct diff_case *dc, enum mailinfo_field f)
{
	size_t glen, olen, i;
	const char *g = text_of(&dc->cmp->git, f, &glen), *o = text_of(&dc->cmp->ours, f, &olen);
	struct strbuf sb = STRBUF_INIT;
	bool same;

	for (i = 0; i < glen; i++)
		if (g[i] != '\r' || i + 1 >= glen || g[i + 1] != '\n')
			strbuf_addch(&sb, g[i]);
	same = sb.len != glen && same_text(sb.buf, sb.len, o, olen);
	if (!same && sb.len != glen && dc->cmp->ours.multipart &&
	    (f == MI_MESSAGE || f == MI_PATCH)) {
		/* in an attachment: the boundaries' line ends too */
		struct strbuf ob = STRBUF_INIT;

		strbuf_add(&ob, o, olen);
		same = same_but_line_ends(&ob, &sb);
		strbuf_release(&ob);
	}
	strbuf_release(&sb);
	return same;
}

static bool b64_char(unsigned char c)
{
	return isalnum(c) || c == '+' || c == '/';
}

/* How many characters of the base64 alphabet p..le holds */
static size_t b64_count(const char *p, const char *le)
{
	size_t n = 0;

	for (; p < le; p++)
		n += b64_char(*p);
	return n;
}

/* Does p..le hold word, in any case? */
static bool line_has(const char *p, const char *le, const char *word)
{
	size_t n = strlen(word);

	for (; p + n <= le; p++)
		if (!strncasecmp(p, word, n))
			return true;
	return false;
}

/*
 * In the body of a part whose Content-Transfer-Encoding: is base64 (up
 * to a boundary), a line that does not hold whole groups of four
 * characters of the alphabet, and more of the alphabet on a later line:
 * GMime decodes the body as one stream (RFC 2045), skipping what is not
 * of the alphabet, git each line alone, so the bits after that line are
 * read differently; or more of the alphabet after a '=' pad on a line,
 * where GMime's stream ends and git reads on; or a body that ends in an
 * incomplete group, whose bytes git decodes and GMime drops
 */
static bool base64_lines(const struct diff_case *dc, enum mailinfo_field f)
{
	static const char cte[] = "content-transfer-encoding:";
	enum { OUTSIDE, HEADERS, BODY } state = OUTSIDE;
	const char *p, *end = dc->raw + dc->len;
	size_t alpha, carry = 0;

	(void)f;
	for (p = dc->raw; p < end; ) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;

		if (le > p && le[-1] == '\r')
			le--;
		if (le - p >= 2 && p[0] == '-' && p[1] == '-') {
			if (state == BODY && carry)
				return true;
			state = OUTSIDE;
			carry = 0;
		} else if (state != BODY && (size_t)(le - p) > sizeof(cte) &&
			   !strncasecmp(p, cte, sizeof(cte) - 1)) {
			state = line_has(p, le, "base64") ? HEADERS : OUTSIDE;
		} else if (state == HEADERS && le == p) {
			state = BODY;
		} else if (state == BODY && (alpha = b64_count(p, le))) {
			const char *pad = memchr(p, '=', le - p);

			if (carry || (pad && b64_count(pad, le)))
				return true;
			carry = alpha % 4;
		}
		p = nl ? nl + 1 : end;
	}
	return state == BODY && carry;
}

/*
 * A Content-Transfer-Encoding: that only holds "base64" or
 * "quoted-printable" ("quoted-printablez"): git decodes by the word in
 * the line, lorebot (GMime, RFC 2045) keeps the bytes of an encoding it
 * does not know
 */
static bool cte_unknown(const struct diff_case *dc, enum mailinfo_field f)
{
	static const char cte[] = "content-transfer-encoding:";
	static const char *const words[] = { "base64", "quoted-printable" };
	const char *p, *end = dc->raw + dc->len;
	size_t i;

	(void)f;
	for (p = dc->raw; p < end; ) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		const char *v = p + sizeof(cte) - 1, *ve = le;

		if ((size_t)(le - p) >= sizeof(cte) - 1 &&
		    !strncasecmp(p, cte, sizeof(cte) - 1)) {
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
				ve--;
			for (i = 0; i < ARRAY_SIZE(words); i++)
				if (line_has(v, ve, words[i]) &&
				    ((size_t)(ve - v) != strlen(words[i])))
					return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* A Date: that is not in RFC 5322 form: each parser reads it its way */
static bool date_form(const struct diff_case *dc, enum mailinfo_field f)
{
	int64_t t;
	int tz;

	(void)f;
	return !mail_strict_date(dc->cmp->git.date_text, &t, &tz);
}

/*
 * The unquoted line format-patch starts a patch with: lorebot skips it
 * as git does the ">From" form git am hands over from an mbox
 */
static bool pasted_from(const struct diff_case *dc, enum mailinfo_field f)
{
	const char *m = dc->cmp->git.message.buf;

	(void)f;
	return !strncmp(m, "From ", 5) && strlen(m) > 70 &&
		!strncmp(m + 45, " Mon Sep 17 00:00:00 2001\n", 26);
}

/*
 * More than one Content-Type: or Content-Transfer-Encoding: with different
 * values in the top-level header block: GMime (and so lorebot) takes the
 * first, git mailinfo the last
 */
static bool content_type_twice(const struct diff_case *dc, enum mailinfo_field f)
{
	static const char *const names[] = { "content-type", "content-transfer-encoding" };
	char *first[2] = { NULL, NULL };
	size_t p = 0, len = dc->len;
	bool twice = false;
	int k;

	(void)f;
	while (p < len && !twice) {
		size_t e = p, n;

		while (e < len && dc->raw[e] != '\n')
			e++;
		n = e - p;
		if (n && dc->raw[p + n - 1] == '\r')
			n--;
		if (!n)
			break;		/* the end of the header block */
		for (k = 0; k < 2 && n; k++) {
			size_t l = strlen(names[k]);
			struct strbuf v = STRBUF_INIT;

			if (n <= l || strncasecmp(dc->raw + p, names[k], l) ||
			    dc->raw[p + l] != ':')
				continue;
			strbuf_add(&v, dc->raw + p + l + 1, n - l - 1);
			strbuf_trim(&v);
			if (!first[k])
				first[k] = strbuf_detach(&v, NULL);
			else if (strcasecmp(first[k], v.buf))
				twice = true;
			strbuf_release(&v);
		}
		p = e + (e < len);
	}
	free(first[0]);
	free(first[1]);
	return twice;
}

/*
 * A line of the body that starts an in-body header (From:, Subject:,
 * Date:, "[PATCH]") and is, with the folded lines after it, longer than
 * lorebot keeps (PATCH_INBODY_MAX)
 */
static bool inbody_long(const struct diff_case *dc, enum mailinfo_field f)
{
	static const char *const names[] = { "from:", "subject:", "date:", "[patch]" };
	const char *raw = dc->raw, *end = dc->raw + dc->len, *p = raw, *body;
	size_t k;

	(void)f;
	body = memmem(raw, dc->len, "\n\n", 2);
	if (!body)
		body = memmem(raw, dc->len, "\n\r\n", 3);
	for (p = body; p && p < end; ) {
		const char *e = memchr(p, '\n', end - p);
		const char *h = p;

		e = e ? e : end;
		for (k = 0; k < ARRAY_SIZE(names); k++)
			if ((size_t)(e - p) > strlen(names[k]) &&
			    !strncasecmp(p, names[k], strlen(names[k])))
				break;
		while (k < ARRAY_SIZE(names) && e < end && (e[1] == ' ' || e[1] == '\t')) {
			const char *n = memchr(e + 1, '\n', end - e - 1);

			e = n ? n : end;
		}
		if (k < ARRAY_SIZE(names) && (size_t)(e - h) > PATCH_INBODY_MAX)
			return true;
		p = e + 1;
	}
	return false;
}

static const struct class_def classes[] = {
	{ { "charset-invalid",
	    "a body its declared charset does not decode as a whole (UTF-7, "
	    "where '+' starts base64): lorebot keeps the bytes, git converts "
	    "the message lines iconv takes" },
	  F_ALL, charset_invalid },
	{ { "content-type-twice",
	    "two Content-Type: (or Content-Transfer-Encoding:) lines with "
	    "different values in the header block: lorebot (GMime) takes the "
	    "first, git the last" },
	  F_ALL, content_type_twice },
	{ { "charset",
	    "a body in another charset than UTF-8: lorebot converts all of it, git "
	    "only the message lines (in-body headers and the patch keep the bytes)" },
	  F(MI_AUTHOR) | F(MI_EMAIL) | F(MI_SUBJECT) | F(MI_PATCH), other_charset },
	{ { "mime-other-parts",
	    "parts that are not text/plain or text/x-patch (HTML, a broken type): "
	    "lorebot reads every text/plain part, text/x-patch attachments and "
	    "attachments named *.patch or *.diff, git mailinfo every part, and "
	    "the in-body headers in it" },
	  F_ALL, mime_other_parts },
	{ { "header-lines",
	    "the header block read differently: lorebot takes the first From:, "
	    "Subject: or Date: (as b4 and public-inbox) and skips lines that are "
	    "not headers; git takes the last and ends the block at such a line" },
	  F_ALL, header_lines },
	{ { "nul-bytes",
	    "NUL bytes in the mail, or in its base64 or quoted-printable body "
	    "decoded: lorebot reads each as U+FFFD; git keeps some and reads "
	    "other lines as C strings, cut at the NUL" },
	  F_ALL, nul_bytes },
	{ { "no-body",
	    "a mail that ends inside its header block: git reads the last header "
	    "line once more (unfolded, a bare CR in it kept), as the message; "
	    "lorebot has no message" },
	  F(MI_MESSAGE), no_body },
	{ { "mime-broken",
	    "a MIME structure GMime reports broken (part headers, boundaries), "
	    "or a line that only begins like a boundary: lorebot reads what GMime "
	    "recovers, git its lines (a boundary is a line's start to it)" },
	  F_ALL, mime_broken },
	/* after the two above: a broken or mixed structure is named as such */
	{ { "mime-line-ends",
	    "multipart: the line end before a boundary is the boundary's (MIME); "
	    "git keeps it and adds one at each closing boundary" },
	  F(MI_MESSAGE) | F(MI_PATCH), mime_line_ends },
	{ { "address-comment",
	    "a From: line that opens a comment '(' and does not close it: git "
	    "reads the comment on into the lines after it, lorebot (GMime) ends "
	    "it with the line" },
	  F(MI_AUTHOR) | F(MI_EMAIL), address_comment },
	{ { "header-text",
	    "author and subject are valid UTF-8 without control characters in "
	    "lorebot (bytes that are not UTF-8 read as ISO-8859-1, or as '?' "
	    "inside encoded words; a control character can move where the name "
	    "ends and the address begins); git keeps the bytes" },
	  F(MI_AUTHOR) | F(MI_EMAIL) | F(MI_SUBJECT), header_text },
	{ { "quoted-cr",
	    "CRLF inside a base64 or quoted-printable body: lorebot drops the CR "
	    "(git am --quoted-cr=strip), git keeps it" },
	  F(MI_MESSAGE) | F(MI_PATCH), quoted_cr },
	{ { "base64-lines",
	    "a base64 line that does not hold whole groups of four, more base64 "
	    "after it (or after a '=' pad on its line), or a body that ends in an "
	    "incomplete group: lorebot decodes the body as one stream that a pad "
	    "ends and drops an incomplete last group (RFC 2045, GMime), git "
	    "decodes each line alone" },
	  F_ALL, base64_lines },
	{ { "cte-unknown",
	    "a Content-Transfer-Encoding: that only contains base64 or "
	    "quoted-printable: git decodes by the word, lorebot keeps the bytes "
	    "of an encoding it does not know (RFC 2045)" },
	  F_ALL, cte_unknown },
	{ { "date-form",
	    "a Date: not in RFC 5322 form: lorebot reads it with GMime, git with "
	    "its own parser" },
	  F(MI_DATE), date_form },
	{ { "inbody-long",
	    "an in-body From:, Subject: or Date: longer than 64 KiB (its folded "
	    "lines included): lorebot reads it as one and does not use it (the "
	    "mail's own header stands), git takes it" },
	  F(MI_AUTHOR) | F(MI_EMAIL) | F(MI_SUBJECT) | F(MI_DATE), inbody_long },
	{ { "pasted-from",
	    "an unquoted 'From <sha> Mon Sep 17 00:00:00 2001' line before in-body "
	    "headers: lorebot skips it, git only the '>From' form (as git am "
	    "hands it over from an mbox)" },
	  F(MI_AUTHOR) | F(MI_EMAIL) | F(MI_SUBJECT) | F(MI_DATE) | F(MI_MESSAGE),
	  pasted_from },
};

const struct mailinfo_class *mailinfo_classes(size_t *nr)
{
	static struct mailinfo_class list[ARRAY_SIZE(classes)];
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(classes); i++)
		list[n++] = classes[i].c;
	*nr = n;
	return list;
}

static bool same_field(const struct mailinfo *a, const struct mailinfo *b,
		       enum mailinfo_field f)
{
	switch (f) {
	case MI_AUTHOR:
		return !strcmp(a->author, b->author);
	case MI_EMAIL:
		return !strcmp(a->email, b->email);
	case MI_SUBJECT:
		return !strcmp(a->subject, b->subject);
	case MI_DATE:
		if (a->date_refused || b->date_refused)
			return true;	/* git am would stop there */
		return a->has_date == b->has_date &&
			(!a->has_date || (a->date == b->date && a->tz == b->tz));
	case MI_MESSAGE:
		return a->message.len == b->message.len &&
			!memcmp(a->message.buf, b->message.buf, a->message.len);
	case MI_PATCH:
		return a->patch.len == b->patch.len &&
			!memcmp(a->patch.buf, b->patch.buf, a->patch.len);
	default:
		return true;
	}
}

static const struct mailinfo_class *classify(const struct diff_case *dc,
					     enum mailinfo_field f)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(classes); i++)
		if (classes[i].applies && (classes[i].fields & F(f)) &&
		    classes[i].applies(dc, f))
			return &classes[i].c;
	return NULL;
}

int mailinfo_compare(const char *raw, size_t len, unsigned int flags,
		     struct mailinfo_cmp *cmp, struct strbuf *err)
{
	struct diff_case dc = { raw, len, cmp };
	int r, f;

	if (mailinfo_lorebot(raw, len, flags, &cmp->ours, err))
		return -1;
	r = mailinfo_git(raw, len, flags, &cmp->git, &cmp->git_error);
	if (r < 0) {
		strbuf_addbuf(err, &cmp->git_error);
		return -1;
	}
	if (r > 0) {
		cmp->git_refused = true;
		return 0;
	}
	for (f = 0; f < MI_NR; f++) {
		cmp->differs[f] = !same_field(&cmp->ours, &cmp->git, f);
		if (cmp->differs[f])
			cmp->cls[f] = classify(&dc, f);
	}
	return 0;
}

int mailinfo_undocumented(const struct mailinfo_cmp *cmp)
{
	int f, n = 0;

	for (f = 0; f < MI_NR; f++)
		n += cmp->differs[f] && !cmp->cls[f];
	return n;
}

void mailinfo_cmp_release(struct mailinfo_cmp *cmp)
{
	mailinfo_release(&cmp->ours);
	mailinfo_release(&cmp->git);
	strbuf_release(&cmp->git_error);
}
