// SPDX-License-Identifier: GPL-2.0
/* The header block split and unfolded without GMime (see mail-int.h) */
#include <strings.h>

#include "bot/mail/mail.h"
#include "bot/mail/mail-int.h"

static const char *const header_names[H_NR] = {
	[H_MSGID] = "message-id", [H_IRT] = "in-reply-to",
	[H_REFS] = "references", [H_SUBJECT] = "subject", [H_FROM] = "from",
	[H_TO] = "to", [H_CC] = "cc", [H_DATE] = "date",
	[H_LISTID] = "list-id", [H_CTYPE] = "content-type",
	[H_CTE] = "content-transfer-encoding",
};

const char *mail_hv(const struct headers *h, int i)
{
	return h->seen[i] ? h->store.buf + h->off[i] : "";
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
int mail_split_headers(const char *raw, size_t len, unsigned int flags,
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

void mail_headers_release(struct headers *h)
{
	strbuf_release(&h->store);
}

bool mail_headers_simple(const struct headers *h)
{
	const char *ct = mail_hv(h, H_CTYPE), *cte = mail_hv(h, H_CTE), *cs;

	if (h->seen[H_CTE] && strncasecmp(cte, "7bit", 4) &&
	    strncasecmp(cte, "8bit", 4) &&
	    strncasecmp(cte, "binary", 6))
		return false;
	if (!h->seen[H_CTYPE])
		return true;
	if (strncasecmp(ct, "text/plain", 10) ||
	    (ct[10] && ct[10] != ';' && ct[10] != ' '))
		return false;
	cs = strcasestr(ct, "charset=");
	if (!cs)
		return true;
	cs += 8;
	if (*cs == '"')
		cs++;
	return !strncasecmp(cs, "utf-8", 5) ||
		!strncasecmp(cs, "utf8", 4) ||
		!strncasecmp(cs, "us-ascii", 8);
}
