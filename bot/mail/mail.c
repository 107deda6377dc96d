// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <gmime/gmime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bot/mail/mail.h"
#include "bot/mail/mail-int.h"

#define MAX_MIME_DEPTH 16
#define MAX_MIME_PARTS 256

static GMimeParserOptions *parser_options;
static GMimeFormatOptions *format_options;

/* The mail being parsed on this thread, told of a broken MIME structure */
static _Thread_local struct mail *parsing;

static void note_warning(gint64 offset, GMimeParserWarning errcode,
			 const gchar *item, gpointer data)
{
	(void)offset;
	(void)item;
	(void)data;
	switch (errcode) {
	case GMIME_WARN_INVALID_CONTENT_TYPE:
	case GMIME_WARN_MALFORMED_MULTIPART:
	case GMIME_WARN_TRUNCATED_MESSAGE:
	case GMIME_WARN_MALFORMED_MESSAGE:
	case GMIME_CRIT_INVALID_HEADER_NAME:
	case GMIME_CRIT_CONFLICTING_HEADER:
	case GMIME_CRIT_CONFLICTING_PARAMETER:
	case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY:
	case GMIME_CRIT_NESTING_OVERFLOW:
	case GMIME_WARN_PART_WITHOUT_CONTENT:
	case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT:
		if (parsing)
			parsing->mime_broken = true;
		break;
	default:
		break;
	}
}

const char *mail_library(void)
{
	static char v[32];

	if (!*v)
		snprintf(v, sizeof(v), "GMime %u.%u.%u", gmime_major_version,
			 gmime_minor_version, gmime_micro_version);
	return v;
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
	g_mime_parser_options_set_warning_callback(parser_options, note_warning,
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
	if (util_utf8_valid(s, n)) {
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

/* RFC 2047 decoding of a header value, by GMime (its bug worked around) */
static char *decode_text(const char *v)
{
	char *fixed = mail_unpad_b_words(v), *d, *r;

	d = g_mime_utils_header_decode_text(parser_options, fixed ? fixed : v);
	r = xstrdup(d ? d : "");
	g_free(d);
	free(fixed);
	return r;
}

static InternetAddressList *parse_addresses(const char *v)
{
	char *fixed = mail_unpad_b_words(v);
	InternetAddressList *l = internet_address_list_parse(parser_options,
							      fixed ? fixed : v);

	free(fixed);
	return l;
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

/* NUL bytes end C strings: U+FFFD stands for each; true when there were */
static bool replace_nul(struct strbuf *sb)
{
	struct strbuf out = STRBUF_INIT;
	size_t i;

	if (!memchr(sb->buf, '\0', sb->len))
		return false;
	for (i = 0; i < sb->len; i++) {
		if (sb->buf[i])
			strbuf_addch(&out, sb->buf[i]);
		else
			strbuf_addstr(&out, "\xef\xbf\xbd");
	}
	strbuf_release(sb);
	*sb = out;
	return true;
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

/*
 * A parameter of a Content-Type value as git mailinfo finds one: the
 * first "name=" anywhere, the value up to ';' or a blank, or quoted
 */
static bool ct_param_is(const char *ct, const char *name, const char *value)
{
	const char *p = ct ? strcasestr(ct, name) : NULL;
	size_t n;

	if (!p)
		return false;
	p += strlen(name);
	if (*p == '"')
		n = strcspn(++p, "\"");
	else
		n = strcspn(p, "; \t");
	return n == strlen(value) && !strncasecmp(p, value, n);
}

/*
 * text/plain; format=flowed (RFC 3676) as git mailinfo reads it: a line
 * ending in a space goes on with the next one (that space dropped with
 * delsp=yes), a leading space is stuffing; "-- " stays.  With sent, the
 * text as it was is kept there when this changed it.
 */
static void unflow(const char *ct, struct strbuf *sb, struct strbuf *sent)
{
	struct strbuf out = STRBUF_INIT, prev = STRBUF_INIT;
	bool delsp = ct_param_is(ct, "delsp=", "yes");
	size_t r = 0;

	if (!ct_param_is(ct, "format=", "flowed"))
		return;
	while (r < sb->len) {
		const char *p = sb->buf + r, *nl = memchr(p, '\n', sb->len - r);
		size_t len = nl ? (size_t)(nl - p) : sb->len - r;

		r += len + !!nl;
		if (len == 3 && !memcmp(p, "-- ", 3)) {
			strbuf_addbuf(&out, &prev);
			strbuf_reset(&prev);
		} else {
			if (len && *p == ' ') {
				p++;
				len--;
			}
			if (len && p[len - 1] == ' ') {
				strbuf_add(&prev, p, len - delsp);
				continue;
			}
			strbuf_addbuf(&out, &prev);
			strbuf_reset(&prev);
		}
		strbuf_add(&out, p, len);
		if (nl)
			strbuf_addch(&out, '\n');
	}
	strbuf_addbuf(&out, &prev);
	if (sent && (out.len != sb->len || memcmp(out.buf, sb->buf, out.len)))
		strbuf_addbuf(sent, sb);
	strbuf_release(sb);
	*sb = out;
	strbuf_release(&prev);
}

static bool is_utf8_name(const char *cs)
{
	return !cs || !g_ascii_strcasecmp(cs, "utf-8") ||
		!g_ascii_strcasecmp(cs, "utf8") ||
		!g_ascii_strcasecmp(cs, "us-ascii") ||
		!g_ascii_strcasecmp(cs, "ascii");
}

/* raw (in charset cs) appended to sb in UTF-8; warn: say what was wrong */
static void add_utf8(struct mail *m, const char *cs, const struct strbuf *raw,
		     struct strbuf *sb, bool warn)
{
	gsize rd = 0, wr = 0;
	GError *gerr = NULL;
	gchar *conv;

	if (is_utf8_name(cs)) {
		if (warn && !g_utf8_validate(raw->buf, raw->len, NULL))
			strbuf_addstr(&m->warnings, "invalid UTF-8 in body\n");
		strbuf_addbuf(sb, raw);
		return;
	}
	conv = g_convert(raw->buf, raw->len, "UTF-8", g_mime_charset_iconv_name(cs),
			 &rd, &wr, &gerr);
	if (conv) {
		strbuf_add(sb, conv, wr);
		g_free(conv);
	} else {
		if (warn)
			strbuf_addf(&m->warnings,
				    "cannot convert body from charset '%s'\n", cs);
		strbuf_addbuf(sb, raw);
	}
	if (gerr)
		g_error_free(gerr);
}

/*
 * Decoded content of a leaf part, converted to UTF-8, appended to sb;
 * with sent, the text as sent when format=flowed changed it (unflow())
 */
static void add_part_text(struct mail *m, GMimePart *part, struct strbuf *sb,
			  struct strbuf *sent)
{
	GMimeDataWrapper *dw = g_mime_part_get_content(part);
	const char *cs = g_mime_object_get_content_type_parameter(GMIME_OBJECT(part),
								  "charset");
	GMimeStream *out;
	GByteArray *ba;
	struct strbuf raw = STRBUF_INIT, as_sent = STRBUF_INIT;

	if (!dw)
		return;
	out = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(dw, out) < 0)
		strbuf_addstr(&m->warnings, "cannot decode body\n");
	ba = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out));
	strbuf_add(&raw, ba->data, ba->len);
	g_object_unref(out);
	strip_cr(&raw);
	if (replace_nul(&raw))
		m->body_nul = true;
	unflow(g_mime_object_get_header(GMIME_OBJECT(part), "Content-Type"), &raw,
	       sent ? &as_sent : NULL);

	if (!is_utf8_name(cs) && !m->charset)
		m->charset = xstrdup(cs);
	add_utf8(m, cs, &raw, sb, true);
	if (as_sent.len)
		add_utf8(m, cs, &as_sent, sent, false);
	strbuf_release(&raw);
	strbuf_release(&as_sent);
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

static bool is_text_plain(GMimeContentType *ct)
{
	return g_mime_content_type_is_type(ct, "text", "plain");
}

/* an attachment named as git format-patch and diff -u name them */
static bool has_patch_name(GMimePart *part)
{
	const char *f = g_mime_part_get_filename(part);
	size_t n = f ? strlen(f) : 0;

	return (n > 6 && !g_ascii_strcasecmp(f + n - 6, ".patch")) ||
		(n > 5 && !g_ascii_strcasecmp(f + n - 5, ".diff"));
}

struct walk {
	struct mail *m;
	struct strbuf body;
	struct strbuf attached;	/* text/x-patch attachments */
	struct strbuf sent;	/* MAIL_TEXT_SENT: body's part as sent */
	bool want_sent;
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

		w->m->multipart = true;
		for (i = 0; i < n; i++)
			walk_part(w, g_mime_multipart_get_part(mp, i), depth + 1);
		return;
	}
	if (!GMIME_IS_PART(obj)) {
		w->m->skipped_parts++;	/* message/rfc822 and the like */
		return;
	}
	ct = g_mime_object_get_content_type(obj);
	/*
	 * After the first text/plain part, every text/plain part (a patch
	 * attached after a short note) and every patch, of a text type or
	 * named *.patch or *.diff (sent as application/octet-stream) is read
	 * on, in order, as git mailinfo reads them
	 */
	if (is_patch_type(ct) || (w->have_body && is_text_plain(ct)) ||
	    (!g_mime_content_type_is_type(ct, "text", "*") &&
	     has_patch_name(GMIME_PART(obj)))) {
		/* the newline before a boundary belongs to the boundary */
		add_part_text(w->m, GMIME_PART(obj), &w->attached, NULL);
		strbuf_complete_line(&w->attached);
		return;
	}
	if (!is_text_plain(ct)) {
		w->m->skipped_parts++;
		return;
	}
	add_part_text(w->m, GMIME_PART(obj), &w->body,
		      w->want_sent ? &w->sent : NULL);
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

/* The first header called name, unfolded, as sent; NULL when absent */
static char *raw_header(GMimeMessage *msg, const char *name)
{
	GMimeHeaderList *list = g_mime_object_get_header_list(GMIME_OBJECT(msg));
	GMimeHeader *h = list ? g_mime_header_list_get_header(list, name) : NULL;
	const char *v = h ? g_mime_header_get_raw_value(h) : NULL;
	struct strbuf sb = STRBUF_INIT;

	if (!v)
		return NULL;
	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v; v++)
		if (*v != '\r' && *v != '\n')
			strbuf_addch(&sb, *v);
	return strbuf_detach(&sb, NULL);
}

static void set_subject(struct mail *m, const char *v);
static void set_from(struct mail *m, const char *v);
static void fast_addresses(const char *v, struct address **out, size_t *nr);

/* The general path: GMime builds the MIME tree */
static int parse_mime(const char *raw, size_t len, unsigned int flags,
		      struct mail *m, struct strbuf *err)
{
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *msg;
	struct walk w = { .m = m, .body = STRBUF_INIT, .attached = STRBUF_INIT,
			  .sent = STRBUF_INIT, .want_sent = flags & MAIL_TEXT_SENT };
	char *v;

	stream = g_mime_stream_mem_new_with_buffer(raw, len);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	parsing = m;
	msg = g_mime_parser_construct_message(parser, parser_options);
	parsing = NULL;
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
	v = raw_header(msg, "Subject");
	set_subject(m, v ? v : "");
	free(v);
	v = raw_header(msg, "From");
	set_from(m, v ? v : "");
	free(v);
	if (!(flags & MAIL_NO_RECIPIENTS)) {
		v = raw_header(msg, "To");
		if (v)
			fast_addresses(v, &m->to, &m->nr_to);
		free(v);
		v = raw_header(msg, "Cc");
		if (v)
			fast_addresses(v, &m->cc, &m->nr_cc);
		free(v);
	}
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
	if (w.sent.len)
		m->text_sent = strbuf_detach(&w.sent, NULL);
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
	InternetAddressList *l = parse_addresses(v);

	if (l) {
		add_addresses(l, out, nr, 0);
		g_object_unref(l);
	}
}

/* "Name <addr>" or "addr" with nothing GMime would need to decode */
static bool simple_from(const char *v, struct address *a)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *e;

	if (strpbrk(v, "\",()\\;:") || strstr(v, "=?") ||
	    !util_utf8_valid(v, strlen(v)))
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

/* Subject: as text, encoded words decoded, blanks collapsed */
static void set_subject(struct mail *m, const char *v)
{
	if (strstr(v, "=?") || !util_utf8_valid(v, strlen(v))) {
		char *d = decode_text(v);

		m->subject = clean_subject(d);
		free(d);
	} else {
		m->subject = clean_subject(v);
	}
}

/* From: the first address, and the whole value as text */
static void set_from(struct mail *m, const char *v)
{
	struct address *from = NULL;
	size_t nfrom = 0;
	if (strstr(v, "=?") || !util_utf8_valid(v, strlen(v))) {
		char *d = decode_text(v);

		m->from_text = clean_subject(d);
		free(d);
	} else {
		m->from_text = clean_subject(v);
	}
	if (simple_from(v, &m->from))
		return;
	fast_addresses(v, &from, &nfrom);
	if (!nfrom)
		strbuf_addstr(&m->warnings, "no usable 'From' header\n");
	if (nfrom) {
		m->from = from[0];
		while (nfrom > 1) {
			nfrom--;
			free(from[nfrom].name);
			free(from[nfrom].email);
		}
	}
	free(from);
}

static int parse_simple(const char *raw, size_t len, struct headers *h,
			unsigned int flags, struct mail *m)
{
	const char *subj = mail_hv(h, H_SUBJECT);
	struct strbuf body = STRBUF_INIT, sent = STRBUF_INIT;

	m->msgid = first_id(mail_hv(h, H_MSGID));
	if (!m->msgid)
		strbuf_addstr(&m->warnings, "no 'Message-ID' header\n");
	m->in_reply_to = first_id(mail_hv(h, H_IRT));
	fast_refs(m, mail_hv(h, H_REFS));
	set_subject(m, subj);
	set_from(m, mail_hv(h, H_FROM));
	if (h->seen[H_TO] && !(flags & MAIL_NO_RECIPIENTS))
		fast_addresses(mail_hv(h, H_TO), &m->to, &m->nr_to);
	if (h->seen[H_CC] && !(flags & MAIL_NO_RECIPIENTS))
		fast_addresses(mail_hv(h, H_CC), &m->cc, &m->nr_cc);
	if (h->seen[H_LISTID])
		m->list_id = parse_list_id(mail_hv(h, H_LISTID));
	if (h->seen[H_DATE] && mail_strict_date(mail_hv(h, H_DATE), &m->date, &m->tz)) {
		/* the common form */
	} else if (h->seen[H_DATE]) {
		GDateTime *dt = g_mime_utils_header_decode_date(mail_hv(h, H_DATE));

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
	if (replace_nul(&body))
		m->body_nul = true;
	if (h->seen[H_CTYPE])
		unflow(mail_hv(h, H_CTYPE), &body, (flags & MAIL_TEXT_SENT) ? &sent : NULL);
	if (!util_utf8_valid(body.buf, body.len))
		strbuf_addstr(&m->warnings, "invalid UTF-8 in body\n");
	m->body = strbuf_detach(&body, &m->body_len);
	if (sent.len)
		m->text_sent = strbuf_detach(&sent, NULL);
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
	if (mail_split_headers(raw, len, flags, &h)) {
		mail_headers_release(&h);
		strbuf_addstr(err, "not a mail message: no header at the start");
		return -1;
	}
	if (mail_headers_simple(&h))
		ret = parse_simple(raw, len, &h, flags, m);
	else
		ret = parse_mime(raw, len, flags, m, err);
	mail_headers_release(&h);
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
	free(m->from_text);
	for (i = 0; i < m->nr_to; i++)
		address_release(&m->to[i]);
	for (i = 0; i < m->nr_cc; i++)
		address_release(&m->cc[i]);
	free(m->to);
	free(m->cc);
	free(m->list_id);
	free(m->charset);
	free(m->body);
	free(m->text_sent);
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
	d = decode_text(value ? value : "");
	c = clean_subject(d);
	free(d);
	return c;
}

char *mail_from_charset(const char *charset, const char *s, size_t len,
			size_t *out_len)
{
	gsize rd = 0, wr = 0;
	gchar *conv = g_convert(s, len, "UTF-8", g_mime_charset_iconv_name(charset),
				&rd, &wr, NULL);
	char *r;

	if (!conv)
		return NULL;
	r = xstrndup(conv, wr);
	*out_len = wr;
	g_free(conv);
	return r;
}

char *mail_clean_header(const char *value)
{
	return clean_subject(value);
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
