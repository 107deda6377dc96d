// SPDX-License-Identifier: GPL-2.0
/* lorebot's reading of a mail in git mailinfo's terms (see mailinfo.h) */
#include <stdlib.h>

#include "bot/mail/mail.h"
#include "bot/mail/mailinfo.h"
#include "bot/mail/patch.h"

static const char *const field_names[MI_NR] = {
	[MI_AUTHOR] = "author", [MI_EMAIL] = "email", [MI_SUBJECT] = "subject",
	[MI_DATE] = "date", [MI_MESSAGE] = "message", [MI_PATCH] = "patch",
};

const char *mailinfo_field_name(enum mailinfo_field f)
{
	return f < MI_NR ? field_names[f] : "?";
}

int mailinfo_lorebot(const char *raw, size_t len, unsigned int flags,
		     struct mailinfo *mi, struct strbuf *err)
{
	struct mail m;
	struct patch p;
	struct strbuf date = STRBUF_INIT;

	if (mail_parse(raw, len, &m, err))
		return -1;
	patch_extract_flags(&m, flags & ~PATCH_HEAD, &p);
	mi->author = xstrdup(p.author_name ? p.author_name : "");
	mi->email = xstrdup(p.author_email ? p.author_email : "");
	mi->subject = xstrdup(p.subject);
	if (p.date) {
		mi->has_date = true;
		mi->date = p.date;
		mi->tz = p.tz;
		mail_format_date(p.date, p.tz, &date);
	}
	mi->date_text = strbuf_detach(&date, NULL);
	strbuf_addstr(&mi->message, p.message);
	mi->charset = xstrdup_or_null(m.charset);
	mi->multipart = m.multipart;
	mi->skipped_parts = m.skipped_parts;
	mi->mime_broken = m.mime_broken;
	if (p.patch)
		strbuf_add(&mi->patch, p.patch, p.patch_len);
	patch_release(&p);
	mail_release(&m);
	return 0;
}

void mailinfo_format(const struct mailinfo *mi, struct strbuf *sb)
{
	strbuf_addf(sb, "Author: %s\nEmail: %s\nSubject: %s\n", mi->author,
		    mi->email, mi->subject);
	if (mi->has_date || *mi->date_text)
		strbuf_addf(sb, "Date: %s\n", mi->date_text);
	strbuf_addch(sb, '\n');
}

void mailinfo_release(struct mailinfo *mi)
{
	free(mi->author);
	free(mi->email);
	free(mi->subject);
	free(mi->date_text);
	free(mi->charset);
	strbuf_release(&mi->message);
	strbuf_release(&mi->patch);
	memset(mi, 0, sizeof(*mi));
	strbuf_init(&mi->message, 0);
	strbuf_init(&mi->patch, 0);
}
