// SPDX-License-Identifier: GPL-2.0
/*
 * The part of a patch mail before the patch, read line by line as git
 * mailinfo reads it (its handle_commit_msg() and check_inbody_header()):
 * blank lines skipped, in-body From:/Subject:/Date: headers (folded ones
 * too), a pasted "From <sha> Mon Sep 17 00:00:00 2001" line and a
 * "[PATCH] subject" line, scissors when asked, and the patch breaking
 * at "---", "--- file", "diff -" or "Index: ".  The author is read from
 * a From: text and the title cleaned as mailinfo does it.
 */
#include <stdlib.h>
#include <strings.h>

#include "bot/mail/patch.h"

/* git's isspace(): no \v or \f */
static bool git_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A line of the body, and whether a newline ended it */
struct bline {
	const char *p;
	size_t len;
	bool nl;
};

/* Character i of the line as git sees it: the newline included */
static char at(const struct bline *l, size_t i)
{
	if (i < l->len)
		return l->p[i];
	return i == l->len && l->nl ? '\n' : '\0';
}

static bool bline_starts(const struct bline *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && !memcmp(l->p, s, n);
}

/*
 * "Name:" in any case, then the value after any blanks (git's
 * skip_header()); the value's offset in *val
 */
static bool is_header(const struct bline *l, const char *name, size_t *val)
{
	size_t n = strlen(name), i;

	if (l->len < n + 1 || strncasecmp(l->p, name, n) || l->p[n] != ':')
		return false;
	for (i = n + 1; i < l->len && git_space(l->p[i]); i++)
		;
	*val = i;
	return true;
}

static bool is_format_patch_line(const char *p, size_t len)
{
	static const char tail[] = " Mon Sep 17 00:00:00 2001";
	size_t i;

	if (len != 5 + 40 + sizeof(tail) - 1 || memcmp(p, "From ", 5))
		return false;
	for (i = 5; i < 45; i++)
		if (!strchr("0123456789abcdef", p[i]) || !p[i])
			return false;
	return !memcmp(p + 45, tail, sizeof(tail) - 1);
}

bool patch_break(const char *p, size_t len, bool nl)
{
	struct bline l = { p, len, nl };
	size_t i;

	if (bline_starts(&l, "diff -") || bline_starts(&l, "Index: "))
		return true;
	if (len + nl < 4 || !bline_starts(&l, "---"))
		return false;
	if (at(&l, 3) == ' ' && !git_space(at(&l, 4)))
		return true;	/* "--- file" */
	for (i = 3; i < len + nl; i++) {
		char c = at(&l, i);

		if (c == '\n')
			return true;
		if (!git_space(c))
			break;
	}
	return false;
}

/* "-- >8 --", "8<------": git's is_scissors_line() */
static bool is_scissors(const struct bline *l)
{
	int scissors = 0, gap = 0, perforation = 0, visible;
	bool in_perforation = false;
	size_t i, first = SIZE_MAX, last = 0, n = l->len + l->nl;

	for (i = 0; i < n; i++) {
		char c = at(l, i), d = at(l, i + 1);

		if (git_space(c)) {
			if (in_perforation) {
				perforation++;
				gap++;
			}
			continue;
		}
		last = i;
		if (first == SIZE_MAX)
			first = i;
		if (c == '-') {
			in_perforation = true;
			perforation++;
			continue;
		}
		if ((c == '>' && d == '8') || (c == '8' && d == '<') ||
		    (c == '>' && d == '%') || (c == '%' && d == '<')) {
			in_perforation = true;
			perforation += 2;
			scissors += 2;
			i++;
			continue;
		}
		in_perforation = false;
	}
	visible = first == SIZE_MAX ? 0 : (int)(last - first + 1);
	return scissors && visible >= 8 && visible < perforation * 3 &&
		gap * 2 < perforation;
}

enum { IB_FROM, IB_SUBJECT, IB_DATE, IB_NR };
static const char *const inbody_names[IB_NR] = { "From", "Subject", "Date" };

struct reader {
	struct patch_head *h;
	unsigned int flags;
	bool stage;		/* still where in-body headers may be */
	struct strbuf accum;	/* the in-body header being read */
	bool too_long;		/* ... past PATCH_INBODY_MAX: not used */
};

/* A value of an in-body header, RFC 2047 decoded unless raw */
static void set_inbody(struct patch_head *h, int i, const char *v, size_t len,
		       bool raw)
{
	char *copy = xstrndup(v, len);
	char **slot = i == IB_FROM ? &h->from : i == IB_SUBJECT ? &h->subject :
		&h->date;

	free(*slot);
	*slot = raw ? copy : mail_decode_header(copy);
	if (!raw)
		free(copy);
}

static const char *inbody_value(const struct patch_head *h, int i)
{
	return i == IB_FROM ? h->from : i == IB_SUBJECT ? h->subject : h->date;
}

/*
 * An in-body header line, into accum; one longer than PATCH_INBODY_MAX
 * (its folded lines included) is read as one and not used (issue 38: a
 * few MB of one, and every later step over it, was how one mail stopped
 * a list's fetch)
 */
static void accum_add(struct reader *r, const struct bline *l)
{
	if (r->too_long || r->accum.len + l->len > PATCH_INBODY_MAX) {
		r->too_long = true;
		strbuf_reset(&r->accum);
		strbuf_addch(&r->accum, ' ');	/* still a header being read */
		return;
	}
	strbuf_add(&r->accum, l->p, l->len);
}

/* The header held in accum is complete */
static void flush(struct reader *r)
{
	struct bline l = { r->accum.buf, r->accum.len, true };
	int i;

	if (!r->accum.len)
		return;
	for (i = 0; i < IB_NR && !r->too_long; i++) {
		size_t v;

		if (!inbody_value(r->h, i) && is_header(&l, inbody_names[i], &v)) {
			set_inbody(r->h, i, l.p + v, l.len - v, false);
			break;
		}
	}
	strbuf_reset(&r->accum);
	r->too_long = false;
}

/* Is the line part of the in-body header block? */
static bool inbody_line(struct reader *r, const struct bline *l)
{
	int i;

	if (r->accum.len && (at(l, 0) == ' ' || at(l, 0) == '\t')) {
		if ((r->flags & PATCH_SCISSORS) && is_scissors(l)) {
			flush(r);
			return false;
		}
		accum_add(r, l);
		return true;
	}
	flush(r);
	/* the line format-patch starts a patch with, quoted or not */
	if (bline_starts(l, ">From") && git_space(at(l, 5)))
		return l->nl && is_format_patch_line(l->p + 1, l->len - 1);
	if (bline_starts(l, "From ") && l->nl && is_format_patch_line(l->p, l->len))
		return true;
	if (bline_starts(l, "[PATCH]") && git_space(at(l, 7))) {
		/* git takes this line as it is, encoded words too */
		if (l->len <= PATCH_INBODY_MAX)
			set_inbody(r->h, IB_SUBJECT, l->p, l->len, true);
		return true;
	}
	for (i = 0; i < IB_NR; i++) {
		size_t v;

		if (!inbody_value(r->h, i) && is_header(l, inbody_names[i], &v)) {
			accum_add(r, l);
			return true;
		}
	}
	return false;
}

static void clear_inbody(struct patch_head *h)
{
	free(h->from);
	free(h->subject);
	free(h->date);
	h->from = h->subject = h->date = NULL;
}

/* One line of the message part; false once the patch starts with it */
static bool message_line(struct reader *r, const struct bline *l)
{
	if (r->stage && !l->len) {
		if (r->accum.len) {
			flush(r);
			r->stage = false;
		}
		return true;
	}
	if (r->stage) {
		r->stage = inbody_line(r, l);
		if (r->stage)
			return true;
	}
	if ((r->flags & PATCH_SCISSORS) && is_scissors(l)) {
		strbuf_reset(&r->h->log);
		clear_inbody(r->h);
		r->stage = true;
		return true;
	}
	if (patch_break(l->p, l->len, l->nl))
		return false;
	strbuf_add(&r->h->log, l->p, l->len);
	if (l->nl)
		strbuf_addch(&r->h->log, '\n');
	return true;
}

void patch_head_read(const char *body, size_t len, unsigned int flags,
		     struct patch_head *h)
{
	struct reader r = { .h = h, .flags = flags, .stage = true,
			    .accum = STRBUF_INIT };
	const char *p = body, *end = body + len;

	memset(h, 0, sizeof(*h));
	strbuf_init(&h->log, 0);
	h->patch_start = len;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		struct bline l = { p, nl ? (size_t)(nl - p) : (size_t)(end - p), !!nl };

		if (!message_line(&r, &l)) {
			h->patch_start = p - body;
			h->has_patch = true;
			break;
		}
		p = nl ? nl + 1 : end;
	}
	flush(&r);
	strbuf_release(&r.accum);
}

void patch_head_release(struct patch_head *h)
{
	clear_inbody(h);
	strbuf_release(&h->log);
}

/* git's cleanup_space(): each run of blanks to one space */
static void collapse_space(struct strbuf *sb)
{
	size_t r, w = 0;
	bool blank = false;

	for (r = 0; r < sb->len; r++) {
		if (git_space(sb->buf[r])) {
			if (!blank)
				sb->buf[w++] = ' ';
			blank = true;
			continue;
		}
		blank = false;
		sb->buf[w++] = sb->buf[r];
	}
	strbuf_setlen(sb, w);
}

static void trim_space(struct strbuf *sb)
{
	size_t b = 0;

	while (sb->len && git_space(sb->buf[sb->len - 1]))
		sb->len--;
	while (b < sb->len && git_space(sb->buf[b]))
		b++;
	memmove(sb->buf, sb->buf + b, sb->len - b);
	strbuf_setlen(sb, sb->len - b);
}

/*
 * git's cleanup_subject(): what it strips is a prefix, so the subject is
 * read once and what stays copied, never moved up (issue 38: a memmove
 * per stripped character made a 2.4 MB in-body Subject: line of ':'
 * take 85 s, and the jail killed its parser).  A bracket it keeps (with
 * PATCH_KEEP_NON_PATCH) is copied with the blank after it.
 */
void patch_clean_subject(const char *subject, unsigned int flags,
			 struct strbuf *out)
{
	const char *s = subject ? subject : "";
	size_t len = strlen(s), pos = 0;
	struct strbuf sb = STRBUF_INIT;

	while (pos < len) {
		char c = s[pos];
		const char *close;
		size_t n;

		if ((c == 'r' || c == 'R') && len > pos + 3 &&
		    (s[pos + 1] == 'e' || s[pos + 1] == 'E') && s[pos + 2] == ':') {
			pos += 3;
			continue;
		}
		if (c == ' ' || c == '\t' || c == ':') {
			pos++;
			continue;
		}
		if (c != '[' || !(close = memchr(s + pos, ']', len - pos)))
			break;
		n = close - (s + pos) + 1;
		if ((flags & PATCH_KEEP_NON_PATCH) &&
		    !(n >= 7 && memmem(s + pos, n, "PATCH", 5))) {
			strbuf_add(&sb, s + pos, n);
			pos += n;
			if (pos < len && git_space(s[pos]))
				strbuf_addch(&sb, s[pos++]);
			continue;
		}
		pos += n;
	}
	strbuf_add(&sb, s + pos, len - pos);
	trim_space(&sb);
	collapse_space(&sb);
	strbuf_addbuf(out, &sb);
	strbuf_release(&sb);
}

/* The name when it looks like one, else the address (git's get_sane_name) */
static char *sane_name(const struct strbuf *name, const char *email)
{
	if (!name->len || name->len > 60 || strpbrk(name->buf, "@<>"))
		return xstrdup(email);
	return xstrndup(name->buf, name->len);
}

/* Drop the quotes of "quoted strings", keep (comments), as git does */
static const char *unquote(struct strbuf *out, const char *in, char end)
{
	bool literal = false;
	int c;

	if (end == ')')
		strbuf_addch(out, '(');
	while ((c = *in++)) {
		if (literal) {
			literal = false;
		} else if (end && c == '\\') {
			literal = true;
			continue;
		} else if (end == '"' && c == '"') {
			return in;
		} else if (end == ')' && c == ')') {
			strbuf_addch(out, ')');
			return in;
		} else if (end != '"' && c == '(') {
			in = unquote(out, in, ')');
			continue;
		} else if (end == 0 && c == '"') {
			in = unquote(out, in, '"');
			continue;
		}
		strbuf_addch(out, c);
	}
	return in - 1;
}

/* "John Doe <johndoe>": no '@' anywhere */
static void bogus_from(const char *text, char **name, char **email)
{
	const char *bra = strchr(text, '<'), *ket = bra ? strchr(bra, '>') : NULL;
	struct strbuf n = STRBUF_INIT;

	if (!ket)
		return;
	*email = xstrndup(bra + 1, ket - bra - 1);
	strbuf_add(&n, text, bra - text);
	trim_space(&n);
	*name = sane_name(&n, *email);
	strbuf_release(&n);
}

void patch_author(const char *text, char **name, char **email)
{
	struct strbuf f = STRBUF_INIT;
	char *at;
	size_t el, start;

	*name = *email = NULL;
	if (!text)
		return;
	strbuf_addstr(&f, text);
	collapse_space(&f);
	{
		struct strbuf u = STRBUF_INIT;

		unquote(&u, f.buf, 0);
		strbuf_release(&f);
		f = u;
	}
	at = strchr(f.buf, '@');
	if (!at) {
		struct strbuf c = STRBUF_INIT;

		strbuf_addstr(&c, text);
		collapse_space(&c);
		bogus_from(c.buf, name, email);
		if (!*email) {
			*name = xstrdup("");
			*email = xstrdup("");
		}
		strbuf_release(&c);
		strbuf_release(&f);
		return;
	}
	while (at > f.buf) {
		char c = at[-1];

		if (git_space(c))
			break;
		if (c == '<') {
			at[-1] = ' ';
			break;
		}
		at--;
	}
	el = strcspn(at, " \n\t\r\v\f>");
	*email = xstrndup(at, el);
	start = at - f.buf;
	el += at[el] ? 1 : 0;
	memmove(f.buf + start, f.buf + start + el, f.len - start - el);
	strbuf_setlen(&f, f.len - el);
	collapse_space(&f);
	trim_space(&f);
	if (f.len && f.buf[0] == '(' && f.buf[f.len - 1] == ')') {
		memmove(f.buf, f.buf + 1, f.len - 1);
		strbuf_setlen(&f, f.len >= 2 ? f.len - 2 : 0);
	}
	*name = sane_name(&f, *email);
	strbuf_release(&f);
}
