// SPDX-License-Identifier: GPL-2.0
/* Mail headers that cannot be abused */
#include "bot/mail/mail-out.h"
#include "tests/unit/tap.h"

static char *header(const char *name, const char *value, bool text)
{
	struct strbuf sb = STRBUF_INIT;

	if (text)
		mail_out_text_header(&sb, name, value);
	else
		mail_out_header(&sb, name, value);
	return strbuf_detach(&sb, NULL);
}

static char *addr(const char *name, const char *email)
{
	struct strbuf sb = STRBUF_INIT;

	mail_out_format_addr(&sb, name, email);
	return strbuf_detach(&sb, NULL);
}

/* every line but the last ends in LF and the next starts with a blank */
static bool one_header(const char *h)
{
	const char *p;

	for (p = h; *p; p++) {
		if (*p == '\r')
			return false;
		if (*p == '\n' && p[1] && p[1] != ' ' && p[1] != '\t')
			return false;
	}
	return true;
}

int main(void)
{
	static const char *const good[] = { "a@b.c", "first.last+tag@sub.example.org",
					    "x_y-z@example.org", NULL };
	static const char *const bad[] = { "", "a", "@b.c", "a@", "a@@b", "a b@c.d",
					   "a@b.c\r\nBcc: x@y.z", "<a@b.c>", "a,b@c.d",
					   "a@b.c;", "\"a\"@b.c", "a@.b", "a@b.", "é@b.c", NULL };
	struct mail_addrs as = MAIL_ADDRS_INIT;
	const char *ids[] = { "1@a", "bad id@x", "2@b", "no-at-sign", "3@c" };
	struct strbuf sb = STRBUF_INIT;
	char *h, *msgid, *msgid2;
	size_t i;

	for (i = 0; good[i]; i++)
		ok(mail_out_valid_email(good[i]), "valid address '%s'", good[i]);
	for (i = 0; bad[i]; i++)
		ok(!mail_out_valid_email(bad[i]), "invalid address #%zu", i);
	ok(mail_out_valid_msgid("20250115033807.46664-1-21cnbao@gmail.com"), "a Message-ID");
	ok(!mail_out_valid_msgid("a b@c"), "a Message-ID with a blank");
	ok(!mail_out_valid_msgid("a@b>\r\nBcc: x"), "a Message-ID with CR LF");
	ok(!mail_out_valid_msgid("nodomain"), "a Message-ID without @");

	h = addr("Barry Song", "a@b.c");
	is_str(h, "Barry Song <a@b.c>", "a plain name");
	free(h);
	h = addr("Song, Barry \"Bazza\"", "a@b.c");
	is_str(h, "\"Song, Barry \\\"Bazza\\\"\" <a@b.c>", "a name with specials is quoted");
	free(h);
	h = addr("Zoë", "a@b.c");
	is_str(h, "=?UTF-8?B?Wm/Dqw==?= <a@b.c>", "a UTF-8 name is encoded");
	free(h);
	h = addr("Eve\r\nBcc: x@y.z", "a@b.c");
	is_str(h, "\"Eve Bcc: x@y.z\" <a@b.c>", "CR LF in a name become a blank");
	free(h);
	h = addr(NULL, "a@b.c");
	is_str(h, "a@b.c", "no name");
	free(h);

	h = header("Subject", "Re: [PATCH] x\r\nBcc: evil@example.org", true);
	is_str(h, "Subject: Re: [PATCH] x Bcc: evil@example.org\n", "CR LF in a subject");
	free(h);
	h = header("Subject", "Re: [PATCH v3 0/4] mm: batched unmap lazyfree large folios during reclamation", true);
	is_str(h, "Subject: Re: [PATCH v3 0/4] mm: batched unmap lazyfree large folios during\n"
	       " reclamation\n", "folded at a blank before 78 columns");
	ok(one_header(h), "folded: one header");
	free(h);
	h = header("Subject", "Re: Zoë's naïve bug", true);
	ok(!strchr(h, 0xc3) && strstr(h, "=?") && one_header(h), "a UTF-8 subject is encoded");
	free(h);
	h = header("X", "a\nb\rc\td", false);
	is_str(h, "X: a b c d\n", "controls in any header value become blanks");
	free(h);
	h = header("Subject", "Re: ==?utf-8?q?=0D=0ABcc:_x@y.z?=", true);
	ok(one_header(h) && !strstr(h, "\nBcc"), "a literal encoded CR LF does not start a line");
	free(h);

	is_int(mail_addrs_add(&as, "A", "a@b.c"), 1, "add");
	is_int(mail_addrs_add(&as, "A again", "A@B.C"), 0, "the same address, any case, once");
	is_int(mail_addrs_add(&as, "Bad", "not an address"), 0, "an invalid address is not added");
	is_int(mail_addrs_add(&as, "Z\nBcc: q@r.s", "z@b.c"), 1, "add another");
	mail_out_addrs_header(&sb, "Cc", &as);
	is_str(sb.buf, "Cc: A <a@b.c>,\n\t\"Z Bcc: q@r.s\" <z@b.c>\n", "one address per line");
	ok(one_header(sb.buf), "one header");
	strbuf_reset(&sb);
	mail_out_ids_header(&sb, "References", ids, 5);
	is_str(sb.buf, "References: <1@a>\n\t<2@b>\n\t<3@c>\n", "References: the valid ids");
	mail_addrs_release(&as);
	strbuf_release(&sb);

	msgid = mail_out_new_msgid("example.org", 1736912283);
	msgid2 = mail_out_new_msgid("example.org", 1736912283);
	ok(!strncmp(msgid, "20250115033803.", 15) && strstr(msgid, "-lorebot@example.org"),
	   "a Message-ID: time, tag, domain (%s)", msgid);
	ok(strcmp(msgid, msgid2), "two Message-IDs differ");
	ok(mail_out_valid_msgid(msgid), "it is valid");
	free(msgid);
	free(msgid2);
	return done_testing();
}
