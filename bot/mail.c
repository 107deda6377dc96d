// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bot/mail.h"

#define MAX_MIME_DEPTH 16
#define MAX_MIME_PARTS 256

static GMimeParserOptions *parser_options;
static GMimeFormatOptions *format_options;

static void ignore_warning(gint64 offset, GMimeParserWarning errcode,
			   const gchar *item, gpointer data)
{
	(void)offset;
	(void)errcode;
	(void)item;
	(void)data;
}

static void mail_lib_init(void)
{
	if (parser_options)
		return;
	g_mime_init();
	parser_options = g_mime_parser_options_new();
	g_mime_parser_options_set_rfc2047_compliance_mode(parser_options,
							  GMIME_RFC_COMPLIANCE_LOOSE);
	g_mime_parser_options_set_address_compliance_mode(parser_options,
							  GMIME_RFC_COMPLIANCE_LOOSE);
	g_mime_parser_options_set_parameter_compliance_mode(parser_options,
							    GMIME_RFC_COMPLIANCE_LOOSE);
	g_mime_parser_options_set_allow_addresses_without_domain(parser_options, TRUE);
	g_mime_parser_options_set_warning_callback(parser_options, ignore_warning,
						   NULL);
	format_options = g_mime_format_options_new();
	g_mime_format_options_set_newline_format(format_options,
						 GMIME_NEWLINE_FORMAT_UNIX);
}

/* A copy that is valid UTF-8 without CR, LF or other controls */
static char *clean_text(const char *s)
{
	size_t n;
	char *v, *p;

	if (!s)
		return NULL;
	n = strlen(s);
	if (utf8_valid(s, n)) {
		v = xstrndup(s, n);
	} else {
		char *g = g_utf8_make_valid(s, -1);

		v = xstrdup(g);
		g_free(g);
	}
	for (p = v; *p; p++)
		if ((unsigned char)*p < 32)
			*p = ' ';
	return v;
}

/* Collapse runs of blanks left by unfolding: "a\n b" -> "a b" */
static char *clean_subject(const char *s)
{
	char *c = clean_text(s ? s : ""), *r = c, *w = c;
	bool space = false;

	while (*r == ' ')
		r++;
	for (; *r; r++) {
		if (*r == ' ') {
			space = true;
			continue;
		}
		if (space && w != c)
			*w++ = ' ';
		space = false;
		*w++ = *r;
	}
	*w = '\0';
	return c;
}

static char *lower_domain(const char *addr)
{
	char *a = clean_text(addr), *at, *p;

	if (!a)
		return NULL;
	at = strrchr(a, '@');
	for (p = at ? at : a; *p; p++)
		*p = tolower((unsigned char)*p);
	if (!*a) {
		free(a);
		return NULL;
	}
	return a;
}

static void add_addresses(InternetAddressList *list, struct address **out,
			  size_t *nr, int depth)
{
	size_t alloc = *nr;
	int i, n;

	if (!list || depth > 4)
		return;
	n = internet_address_list_length(list);
	for (i = 0; i < n && *nr < 1024; i++) {
		InternetAddress *ia = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_GROUP(ia)) {
			add_addresses(internet_address_group_get_members(
					      INTERNET_ADDRESS_GROUP(ia)),
				      out, nr, depth + 1);
			alloc = *nr;
			continue;
		}
		if (!INTERNET_ADDRESS_IS_MAILBOX(ia))
			continue;
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[*nr].name = clean_text(internet_address_get_name(ia));
		if ((*out)[*nr].name && !*(*out)[*nr].name) {
			free((*out)[*nr].name);
			(*out)[*nr].name = NULL;
		}
		(*out)[*nr].email = lower_domain(internet_address_mailbox_get_addr(
					INTERNET_ADDRESS_MAILBOX(ia)));
		(*nr)++;
	}
}

static char *clean_id(const char *id);

/*
 * The first Message-ID header: public-inbox appends a second one when a
 * Message-ID is reused for other content, and GMime reports the last.
 */
static char *first_message_id(GMimeMessage *msg)
{
	GMimeHeaderList *list = g_mime_object_get_header_list(GMIME_OBJECT(msg));
	GMimeHeader *h = list ? g_mime_header_list_get_header(list, "Message-ID") : NULL;
	char *id = NULL, *dec;

	if (h && g_mime_header_get_value(h)) {
		dec = g_mime_utils_decode_message_id(g_mime_header_get_value(h));
		id = clean_id(dec);
		g_free(dec);
	}
	return id ? id : clean_id(g_mime_message_get_message_id(msg));
}

static char *clean_id(const char *id)
{
	char *c;

	if (!id)
		return NULL;
	while (*id == '<' || isspace((unsigned char)*id))
		id++;
	c = clean_text(id);
	if (c) {
		size_t n = strlen(c);

		while (n && (c[n - 1] == '>' || c[n - 1] == ' '))
			c[--n] = '\0';
		if (!n || strchr(c, ' ')) {
			free(c);
			return NULL;
		}
	}
	return c;
}

static void parse_refs(struct mail *m, GMimeMessage *msg)
{
	const char *irt = g_mime_object_get_header(GMIME_OBJECT(msg), "In-Reply-To");
	const char *rv = g_mime_object_get_header(GMIME_OBJECT(msg), "References");
	GMimeReferences *refs = rv ? g_mime_references_parse(parser_options, rv) : NULL;
	int i, n, skip = 0;

	if (irt) {
		GMimeReferences *r = g_mime_references_parse(parser_options, irt);

		if (r && g_mime_references_length(r) > 0)
			m->in_reply_to = clean_id(g_mime_references_get_message_id(r, 0));
		if (r)
			g_mime_references_free(r);
	}
	if (!refs)
		return;
	n = g_mime_references_length(refs);
	if (n > MAIL_MAX_REFS) {
		/* keep the root and the nearest ancestors */
		strbuf_addf(&m->warnings, "References has %d ids; kept %d\n",
			    n, MAIL_MAX_REFS);
		skip = n - MAIL_MAX_REFS;
	}
	m->refs = xcalloc(n - skip, sizeof(*m->refs));
	for (i = 0; i < n; i++) {
		char *id;

		if (i > 0 && i <= skip)
			continue;
		id = clean_id(g_mime_references_get_message_id(refs, i));
		if (id)
			m->refs[m->nr_refs++] = id;
	}
	g_mime_references_free(refs);
}

static void strip_cr(struct strbuf *sb)
{
	char *cr = memchr(sb->buf, '\r', sb->len);
	size_t r, w;

	if (!cr)
		return;
	for (r = w = cr - sb->buf; r < sb->len; r++) {
		if (sb->buf[r] == '\r' && r + 1 < sb->len && sb->buf[r + 1] == '\n')
			continue;
		sb->buf[w++] = sb->buf[r];
	}
	strbuf_setlen(sb, w);
}

static bool is_utf8_name(const char *cs)
{
	return !cs || !g_ascii_strcasecmp(cs, "utf-8") ||
		!g_ascii_strcasecmp(cs, "utf8") ||
		!g_ascii_strcasecmp(cs, "us-ascii") ||
		!g_ascii_strcasecmp(cs, "ascii");
}

/* Decoded content of a leaf part, converted to UTF-8, appended to sb */
static void add_part_text(struct mail *m, GMimePart *part, struct strbuf *sb)
{
	GMimeDataWrapper *dw = g_mime_part_get_content(part);
	const char *cs = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part),
								  "charset");
	GMimeStream *out;
	GByteArray *ba;
	struct strbuf raw = STRBUF_INIT;

	if (!dw)
		return;
	out = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(dw, out) < 0)
		strbuf_addstr(&m->warnings, "cannot decode body\n");
	ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out));
	strbuf_add(&raw, ba->data, ba->len);
	g_object_unref(out);
	strip_cr(&raw);

	if (is_utf8_name(cs)) {
		if (!g_utf8_validate(raw.buf, raw.len, NULL))
			strbuf_addstr(&m->warnings, "invalid UTF-8 in body\n");
		strbuf_addbuf(sb, &raw);
	} else {
		gsize rd = 0, wr = 0;
		GError *gerr = NULL;
		gchar *conv = g_convert(raw.buf, raw.len, "UTF-8",
					g_mime_charset_iconv_name(cs), &rd, &wr, &gerr);

		if (conv) {
			strbuf_add(sb, conv, wr);
			g_free(conv);
		} else {
			strbuf_addf(&m->warnings,
				    "cannot convert body from charset '%s'\n", cs);
			strbuf_addbuf(sb, &raw);
		}
		if (gerr)
			g_error_free(gerr);
	}
	strbuf_release(&raw);
}

static bool is_patch_type(GMimeContentType *ct)
{
	const char *sub = g_mime_content_type_get_media_subtype(ct);

	return g_mime_content_type_is_type(ct, "text", "*") && sub &&
		(!g_ascii_strcasecmp(sub, "x-patch") ||
		 !g_ascii_strcasecmp(sub, "x-diff") ||
		 !g_ascii_strcasecmp(sub, "patch") ||
		 !g_ascii_strcasecmp(sub, "diff"));
}

struct walk {
	struct mail *m;
	struct strbuf body;
	struct strbuf attached;	/* text/x-patch attachments */
	bool have_body;
	int parts;
};

static void walk_part(struct walk *w, GMimeObject *obj, int depth)
{
	GMimeContentType *ct;

	if (++w->parts > MAX_MIME_PARTS || depth > MAX_MIME_DEPTH) {
		if (w->parts == MAX_MIME_PARTS + 1 || depth == MAX_MIME_DEPTH + 1)
			strbuf_addstr(&w->m->warnings,
				      "MIME structure too deep or too large; rest ignored\n");
		return;
	}
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int i, n = g_mime_multipart_get_count(mp);

		for (i = 0; i < n; i++)
			walk_part(w, g_mime_multipart_get_part(mp, i), depth + 1);
		return;
	}
	if (!GMIME_IS_PART(obj))
		return;		/* message/rfc822 and the like: not ours */
	ct = g_mime_object_get_content_type(obj);
	if (is_patch_type(ct)) {
		/* the newline before a boundary belongs to the boundary */
		add_part_text(w->m, GMIME_PART(obj), &w->attached);
		strbuf_complete_line(&w->attached);
		return;
	}
	if (!g_mime_content_type_is_type(ct, "text", "plain") || w->have_body)
		return;
	if (g_mime_part_is_attachment(GMIME_PART(obj)) && w->have_body)
		return;
	add_part_text(w->m, GMIME_PART(obj), &w->body);
	w->have_body = true;
}

static void parse_date(struct mail *m, GMimeMessage *msg)
{
	GDateTime *dt = g_mime_message_get_date(msg);

	if (!dt) {
		const char *raw = g_mime_object_get_header(GMIME_OBJECT(msg), "Date");

		strbuf_addf(&m->warnings, raw ? "cannot parse 'Date' header\n" :
			    "no 'Date' header\n");
		return;
	}
	m->date = g_date_time_to_unix(dt);
	m->tz = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
}

static char *parse_list_id(const char *v)
{
	const char *lt, *gt;

	if (!v)
		return NULL;
	lt = strrchr(v, '<');
	gt = lt ? strchr(lt, '>') : NULL;
	if (lt && gt) {
		char *s = xstrndup(lt + 1, gt - lt - 1);
		char *c = clean_text(s);

		free(s);
		return c;
	}
	return clean_text(v);
}

/* The general path: GMime builds the MIME tree */
static int parse_mime(const char *raw, size_t len, struct mail *m,
		      struct strbuf *err)
{
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *msg;
	InternetAddressList *from;
	struct address *tmp = NULL;
	size_t ntmp = 0;
	struct walk w = { .m = m, .body = STRBUF_INIT, .attached = STRBUF_INIT };

	stream = g_mime_stream_mem_new_with_buffer(raw, len);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	msg = g_mime_parser_construct_message(parser, parser_options);
	g_object_unref(parser);
	g_object_unref(stream);
	if (!msg) {
		strbuf_addstr(err, "cannot parse message headers");
		return -1;
	}

	m->msgid = first_message_id(msg);
	if (!m->msgid)
		strbuf_addstr(&m->warnings, "no 'Message-ID' header\n");
	parse_refs(m, msg);
	m->subject = clean_subject(g_mime_message_get_subject(msg));
	from = g_mime_message_get_from(msg);
	add_addresses(from, &tmp, &ntmp, 0);
	if (ntmp) {
		m->from = tmp[0];
		while (ntmp > 1) {
			ntmp--;
			free(tmp[ntmp].name);
			free(tmp[ntmp].email);
		}
	} else {
		strbuf_addstr(&m->warnings, "no usable 'From' header\n");
	}
	free(tmp);
	add_addresses(g_mime_message_get_to(msg), &m->to, &m->nr_to, 0);
	add_addresses(g_mime_message_get_cc(msg), &m->cc, &m->nr_cc, 0);
	m->list_id = parse_list_id(g_mime_object_get_header(GMIME_OBJECT(msg),
							    "List-Id"));
	parse_date(m, msg);

	if (g_mime_message_get_mime_part(msg))
		walk_part(&w, g_mime_message_get_mime_part(msg), 0);
	if (w.attached.len) {
		strbuf_complete_line(&w.body);
		strbuf_addbuf(&w.body, &w.attached);
	}
	strbuf_release(&w.attached);
	m->body = strbuf_detach(&w.body, &m->body_len);
	g_object_unref(msg);
	return 0;
}

/*
 * The fast path.  Most list mail is one text/plain part in UTF-8 or
 * ASCII, 7bit or 8bit: its body is the bytes after the header, and
 * building a MIME tree for it costs GMime about 260k instructions per
 * message (117 per byte; see bench/README.md).  For those messages the
 * header block is only split and unfolded here; every value is still
 * decoded by GMime (encoded words, addresses, dates).  Anything else -
 * multipart, quoted-printable, base64, other charsets - takes the
 * GMime path above.
 */
enum {
	H_MSGID, H_IRT, H_REFS, H_SUBJECT, H_FROM, H_TO, H_CC, H_DATE,
	H_LISTID, H_CTYPE, H_CTE, H_NR
};

static const char *const header_names[H_NR] = {
	[H_MSGID] = "message-id", [H_IRT] = "in-reply-to",
	[H_REFS] = "references", [H_SUBJECT] = "subject", [H_FROM] = "from",
	[H_TO] = "to", [H_CC] = "cc", [H_DATE] = "date",
	[H_LISTID] = "list-id", [H_CTYPE] = "content-type",
	[H_CTE] = "content-transfer-encoding",
};

struct headers {
	struct strbuf store;	/* the values kept, unfolded, NUL after each */
	size_t off[H_NR];
	bool seen[H_NR];
	size_t body;		/* offset of the body */
};

/* A header's value, "" when absent (valid until h is released) */
static const char *hv(const struct headers *h, int i)
{
	return h->seen[i] ? h->store.buf + h->off[i] : "";
}

static size_t hlen(const struct headers *h, int i)
{
	return strlen(hv(h, i));
}

static int header_index(const char *name, size_t len)
{
	static size_t lens[H_NR];
	int i;

	if (!lens[0])
		for (i = 0; i < H_NR; i++)
			lens[i] = strlen(header_names[i]);
	for (i = 0; i < H_NR; i++) {
		const char *hn = header_names[i];
		size_t k;

		if (lens[i] != len)
			continue;
		for (k = 0; k < len; k++) {
			unsigned char ch = name[k];

			if (ch >= 'A' && ch <= 'Z')
				ch += 'a' - 'A';
			if (ch != (unsigned char)hn[k])
				break;
		}
		if (k == len)
			return i;
	}
	return -1;
}

/*
 * The headers parsing needs, into one buffer: a value is always the last
 * one stored while its continuation lines follow.  0, or -1 when the
 * first line is not a header at all.
 */
static int split_headers(const char *raw, size_t len, unsigned int flags,
			 struct headers *h)
{
	const char *p = raw, *end = raw + len;
	int cur = -1;

	memset(h, 0, sizeof(*h));
	strbuf_init(&h->store, 1024);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end, *colon;
		size_t n;

		if (le > p && le[-1] == '\r')
			le--;
		if (le == p) {			/* the blank line */
			p = nl ? nl + 1 : end;
			break;
		}
		if (*p == ' ' || *p == '\t') {	/* folded: unfold */
			if (cur >= 0)
				strbuf_add(&h->store, p, le - p);
			goto next;
		}
		colon = memchr(p, ':', le - p);
		for (n = 0; colon && p + n < colon; n++)
			if ((unsigned char)p[n] <= ' ' && p[n] != ' ')
				colon = NULL;
		if (!colon || colon == p) {
			if (p == raw)
				return -1;
			cur = -1;		/* a broken line: skipped */
			goto next;
		}
		n = colon - p;
		while (n && p[n - 1] == ' ')
			n--;
		cur = header_index(p, n);
		if ((cur == H_TO || cur == H_CC) && (flags & MAIL_NO_RECIPIENTS))
			cur = -1;
		if (cur >= 0 && h->seen[cur]) {
			cur = -1;		/* the first one counts */
		} else if (cur >= 0) {
			const char *v = colon + 1;

			h->seen[cur] = true;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			/* ends the value before (an empty one too) */
			strbuf_addch(&h->store, '\0');
			h->off[cur] = h->store.len;
			strbuf_add(&h->store, v, le - v);
		}
next:
		p = nl ? nl + 1 : end;
	}
	h->body = p - raw;
	return 0;
}

static void headers_release(struct headers *h)
{
	strbuf_release(&h->store);
}

/* Is this a single text/plain part in UTF-8 or ASCII, not encoded? */
static bool is_simple(struct headers *h)
{
	const char *ct = hv(h, H_CTYPE), *cte = hv(h, H_CTE), *cs;

	if (h->seen[H_CTE] && g_ascii_strncasecmp(cte, "7bit", 4) &&
	    g_ascii_strncasecmp(cte, "8bit", 4) &&
	    g_ascii_strncasecmp(cte, "binary", 6))
		return false;
	if (!h->seen[H_CTYPE])
		return true;
	if (g_ascii_strncasecmp(ct, "text/plain", 10) ||
	    (ct[10] && ct[10] != ';' && ct[10] != ' '))
		return false;
	cs = strcasestr(ct, "charset=");
	if (!cs)
		return true;
	cs += 8;
	if (*cs == '"')
		cs++;
	return !g_ascii_strncasecmp(cs, "utf-8", 5) ||
		!g_ascii_strncasecmp(cs, "utf8", 4) ||
		!g_ascii_strncasecmp(cs, "us-ascii", 8);
}

/* clean_id() of id[0..n-1]: plain ASCII without blanks is common */
static char *clean_id_len(const char *id, size_t n)
{
	char *tmp, *r;
	size_t i;

	for (i = 0; i < n; i++)
		if ((unsigned char)id[i] <= ' ' || (unsigned char)id[i] >= 0x7f ||
		    id[i] == '>')
			break;
	if (i == n && n && id[0] != '<')
		return xstrndup(id, n);
	tmp = xstrndup(id, n);
	r = clean_id(tmp);
	free(tmp);
	return r;
}

/* Every <id> of a header value, in order; at most max */
static size_t angle_ids(const char *v, char **out, size_t max)
{
	size_t nr = 0;

	while (nr < max && (v = strchr(v, '<'))) {
		const char *e = strchr(v, '>');

		if (!e)
			break;
		if (e > v + 1) {
			out[nr] = clean_id_len(v + 1, e - v - 1);
			if (out[nr])
				nr++;
		}
		v = e + 1;
	}
	return nr;
}

static char *first_id(const char *v)
{
	char *id = NULL;

	if (angle_ids(v, &id, 1))
		return id;
	/* a bare id, as some mailers write it */
	return strchr(v, '@') ? clean_id(v) : NULL;
}

static void fast_refs(struct mail *m, const char *v)
{
	size_t n = 0, skip = 0, i;
	const char *p;
	char **all;

	for (p = v; (p = strchr(p, '<')); p++)
		n++;
	if (!n)
		return;
	all = xcalloc(n, sizeof(*all));
	n = angle_ids(v, all, n);
	if (n > MAIL_MAX_REFS) {
		strbuf_addf(&m->warnings, "References has %zu ids; kept %d\n",
			    n, MAIL_MAX_REFS);
		skip = n - MAIL_MAX_REFS;
	}
	m->refs = xcalloc(n - skip, sizeof(*m->refs));
	for (i = 0; i < n; i++) {
		if (i > 0 && i <= skip)
			free(all[i]);
		else
			m->refs[m->nr_refs++] = all[i];
	}
	free(all);
}

static void fast_addresses(const char *v, struct address **out, size_t *nr)
{
	InternetAddressList *l = internet_address_list_parse(parser_options, v);

	if (l) {
		add_addresses(l, out, nr, 0);
		g_object_unref(l);
	}
}

/*
 * Seconds since the epoch of a UTC date (mon 0-11), as timegm() without
 * its cost: days from civil, H. Hinnant's algorithm.
 */
static time_t civil_to_unix(int y, int mon, int d, int hh, int mm, int ss)
{
	int m = mon + 1, era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;		/* y >= 1969 here: no negative years */
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return ((time_t)era * 146097 + doe - 719468) * 86400 +
		hh * 3600 + mm * 60 + ss;
}

/* Blanks, then 1..max digits */
static bool date_num(const char **pp, int max, int *v)
{
	const char *p = *pp;
	int n = 0;

	while (*p == ' ')
		p++;
	for (*v = 0; n < max && isdigit((unsigned char)p[n]); n++)
		*v = *v * 10 + (p[n] - '0');
	*pp = p + n;
	return n > 0;
}

/* At least one blank, as sscanf's " " between fields */
static bool date_blank(const char **pp)
{
	if (**pp != ' ')
		return false;
	while (**pp == ' ')
		(*pp)++;
	return true;
}

/*
 * "Mon, 6 May 2024 10:00:00 +0000", the form git send-email and most
 * mailers write; anything else is GMime's (obsolete zones, missing
 * seconds, two-digit years, the broken forms).
 */
static bool strict_date(const char *s, int64_t *t, int *tz)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	int day, year, hh, mm, ss, off, mon, n = 0;
	char mname[4], sign;
	const char *p = s;
	time_t r;

	if (strlen(s) > 64)
		return false;
	if (p[0] && p[1] && p[2] && p[3] == ',')
		p += 4;
	/* " %2d %3s %4d %2d:%2d:%2d %c%4d", without sscanf's cost */
	if (!date_num(&p, 2, &day) || !date_blank(&p))
		return false;
	for (n = 0; n < 3 && p[n] && p[n] != ' '; n++)
		mname[n] = p[n];
	if (n != 3 || p[3] != ' ')
		return false;
	p += 3;
	if (!date_num(&p, 4, &year) || !date_blank(&p) ||
	    !date_num(&p, 2, &hh) || *p++ != ':' ||
	    !date_num(&p, 2, &mm) || *p++ != ':' ||
	    !date_num(&p, 2, &ss) || !date_blank(&p))
		return false;
	sign = *p++;
	if ((sign != '+' && sign != '-') || !isdigit((unsigned char)*p) ||
	    !date_num(&p, 4, &off))
		return false;
	while (*p == ' ')
		p++;
	if (*p && *p != '(')
		return false;
	mname[3] = '\0';
	for (mon = 0; mon < 12; mon++)
		if (!memcmp(months + 3 * mon, mname, 3))
			break;
	if (mon == 12 || day < 1 || day > 31 || year < 1970 || hh > 23 ||
	    mm > 59 || ss > 60 || off > 1459 || off % 100 > 59)
		return false;
	r = civil_to_unix(year, mon, day, hh, mm, ss);
	*tz = (off / 100 * 60 + off % 100) * (sign == '-' ? -1 : 1);
	*t = (int64_t)r - (int64_t)*tz * 60;
	return true;
}

/* "Name <addr>" or "addr" with nothing GMime would need to decode */
static bool simple_from(const char *v, struct address *a)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *e;

	if (strpbrk(v, "\",()\\;:") || strstr(v, "=?") ||
	    !utf8_valid(v, strlen(v)))
		return false;
	if (!lt) {
		if (!strchr(v, '@') || strchr(v, ' ') || strchr(v, '>'))
			return false;
		a->email = lower_domain(v);
		return a->email != NULL;
	}
	if (!gt || gt[1] || strchr(lt + 1, '<') || gt == lt + 1)
		return false;
	for (e = lt; e > v && e[-1] == ' '; e--)
		;
	if (e > v) {
		char *name = xstrndup(v, e - v);

		a->name = clean_text(name);
		free(name);
	}
	{
		char *addr = xstrndup(lt + 1, gt - lt - 1);

		a->email = lower_domain(addr);
		free(addr);
	}
	return a->email != NULL;
}

static int parse_simple(const char *raw, size_t len, struct headers *h,
			unsigned int flags, struct mail *m)
{
	const char *subj = hv(h, H_SUBJECT);
	struct address *from = NULL;
	size_t nfrom = 0;
	struct strbuf body = STRBUF_INIT;

	m->msgid = first_id(hv(h, H_MSGID));
	if (!m->msgid)
		strbuf_addstr(&m->warnings, "no 'Message-ID' header\n");
	m->in_reply_to = first_id(hv(h, H_IRT));
	fast_refs(m, hv(h, H_REFS));
	if (strstr(subj, "=?") || !utf8_valid(subj, hlen(h, H_SUBJECT))) {
		char *d = g_mime_utils_header_decode_text(parser_options, subj);

		m->subject = clean_subject(d);
		g_free(d);
	} else {
		m->subject = clean_subject(subj);
	}
	if (simple_from(hv(h, H_FROM), &m->from)) {
		nfrom = 0;
	} else {
		fast_addresses(hv(h, H_FROM), &from, &nfrom);
		if (!nfrom)
			strbuf_addstr(&m->warnings, "no usable 'From' header\n");
	}
	if (nfrom) {
		m->from = from[0];
		while (nfrom > 1) {
			nfrom--;
			free(from[nfrom].name);
			free(from[nfrom].email);
		}
	}
	free(from);
	if (h->seen[H_TO] && !(flags & MAIL_NO_RECIPIENTS))
		fast_addresses(hv(h, H_TO), &m->to, &m->nr_to);
	if (h->seen[H_CC] && !(flags & MAIL_NO_RECIPIENTS))
		fast_addresses(hv(h, H_CC), &m->cc, &m->nr_cc);
	if (h->seen[H_LISTID])
		m->list_id = parse_list_id(hv(h, H_LISTID));
	if (h->seen[H_DATE] && strict_date(hv(h, H_DATE), &m->date, &m->tz)) {
		/* the common form */
	} else if (h->seen[H_DATE]) {
		GDateTime *dt = g_mime_utils_header_decode_date(hv(h, H_DATE));

		if (dt) {
			m->date = g_date_time_to_unix(dt);
			m->tz = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
			g_date_time_unref(dt);
		} else {
			strbuf_addstr(&m->warnings, "cannot parse 'Date' header\n");
		}
	} else {
		strbuf_addstr(&m->warnings, "no 'Date' header\n");
	}
	strbuf_add(&body, raw + h->body, len - h->body);
	strip_cr(&body);
	if (!utf8_valid(body.buf, body.len))
		strbuf_addstr(&m->warnings, "invalid UTF-8 in body\n");
	m->body = strbuf_detach(&body, &m->body_len);
	return 0;
}

int mail_parse(const char *raw, size_t len, struct mail *m, struct strbuf *err)
{
	return mail_parse_flags(raw, len, 0, m, err);
}

int mail_parse_flags(const char *raw, size_t len, unsigned int flags,
		     struct mail *m, struct strbuf *err)
{
	struct headers h;
	int ret;

	mail_lib_init();
	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	if (!len) {
		strbuf_addstr(err, "empty message");
		return -1;
	}
	if (split_headers(raw, len, flags, &h)) {
		headers_release(&h);
		strbuf_addstr(err, "not a mail message: no header at the start");
		return -1;
	}
	if (is_simple(&h))
		ret = parse_simple(raw, len, &h, flags, m);
	else
		ret = parse_mime(raw, len, m, err);
	headers_release(&h);
	return ret;
}

static void address_release(struct address *a)
{
	free(a->name);
	free(a->email);
}

void mail_release(struct mail *m)
{
	size_t i;

	free(m->msgid);
	free(m->in_reply_to);
	for (i = 0; i < m->nr_refs; i++)
		free(m->refs[i]);
	free(m->refs);
	free(m->subject);
	address_release(&m->from);
	for (i = 0; i < m->nr_to; i++)
		address_release(&m->to[i]);
	for (i = 0; i < m->nr_cc; i++)
		address_release(&m->cc[i]);
	free(m->to);
	free(m->cc);
	free(m->list_id);
	free(m->body);
	strbuf_release(&m->warnings);
	memset(m, 0, sizeof(*m));
}

const char *mail_parent(const struct mail *m)
{
	if (m->in_reply_to)
		return m->in_reply_to;
	return m->nr_refs ? m->refs[m->nr_refs - 1] : NULL;
}

char *mail_decode_header(const char *value)
{
	char *d, *c;

	mail_lib_init();
	d = g_mime_utils_header_decode_text(parser_options, value ? value : "");
	c = clean_subject(d);
	g_free(d);
	return c;
}

char *mail_encode_header(const char *name, const char *value)
{
	char *clean = clean_subject(value), *enc, *r;

	(void)name;
	mail_lib_init();
	enc = g_mime_utils_header_encode_text(format_options, clean, "utf-8");
	r = xstrdup(enc ? enc : clean);
	g_free(enc);
	free(clean);
	return r;
}

void mail_format_date(int64_t t, int tz, struct strbuf *sb)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
					     "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
					       "Jun", "Jul", "Aug", "Sep", "Oct",
					       "Nov", "Dec" };
	time_t local = (time_t)(t + (int64_t)tz * 60);
	struct tm tm;
	int off = tz < 0 ? -tz : tz;

	gmtime_r(&local, &tm);
	strbuf_addf(sb, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d",
		    days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
		    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    tz < 0 ? '-' : '+', off / 60, off % 60);
}

int mail_parse_date(const char *s, int64_t *t, int *tz)
{
	GDateTime *dt;

	mail_lib_init();
	dt = g_mime_utils_header_decode_date(s);
	if (!dt)
		return -1;
	*t = g_date_time_to_unix(dt);
	*tz = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
	g_date_time_unref(dt);
	return 0;
}
