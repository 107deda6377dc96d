// SPDX-License-Identifier: GPL-2.0
/* Mail parsing and patch extraction on the hand-made fixtures */
#include "bot/mail/mail.h"
#include "bot/mail/mbox.h"
#include "bot/mail/patch.h"
#include "tests/unit/tap.h"

#define DIFF \
	"diff --git a/mm/frob.c b/mm/frob.c\n" \
	"index 1111111..2222222 100644\n" \
	"--- a/mm/frob.c\n" \
	"+++ b/mm/frob.c\n" \
	"@@ -1,3 +1,4 @@\n" \
	" int frob(void)\n" \
	" {\n" \
	"+\treturn 1;\t \n" \
	" }\n"

/* Read message idx (0-based) of a fixture mbox */
static int load(const char *name, size_t idx, struct mail *m, struct strbuf *raw)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/tests/fixtures/mail/%s", tap_src(), name);
	int ret = -1;

	if (mbox_open(&r, path, 1 << 20)) {
		free(path);
		return -1;
	}
	while (mbox_next(&r, &mm) > 0) {
		if (mm.index != idx)
			continue;
		if (raw)
			strbuf_addbuf(raw, &mm.raw);
		ret = mail_parse(mm.raw.buf, mm.raw.len, m, &err);
		break;
	}
	mbox_msg_release(&mm);
	mbox_close(&r);
	strbuf_release(&err);
	free(path);
	return ret;
}

static void with_patch(const char *name, size_t idx, struct mail *m,
		       struct subject *s, struct patch *p)
{
	if (load(name, idx, m, NULL)) {
		ok(0, "load %s", name);
		memset(m, 0, sizeof(*m));
	}
	subject_parse(m->subject, s);
	patch_extract(m, p);
}

static void release(struct mail *m, struct subject *s, struct patch *p)
{
	patch_release(p);
	subject_release(s);
	mail_release(m);
}

/*
 * The fast path (plain text) and the GMime path (quoted-printable forces
 * it) must read the same headers the same way.
 */
static void same_both_ways(const char *from, const char *date)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	struct mail fast, mime;
	const char *hdr = "Subject: =?UTF-8?Q?caf=C3=A9?= [PATCH] x\n"
		"Message-ID: <id@x>\nReferences: <r1@x>\n <r2@x>\nIn-Reply-To: <r2@x>\n";

	strbuf_addf(&a, "From: %s\nDate: %s\n%s\nbody\n", from, date, hdr);
	strbuf_addf(&b, "From: %s\nDate: %s\n%sMIME-Version: 1.0\n"
		    "Content-Transfer-Encoding: quoted-printable\n\nbody\n",
		    from, date, hdr);
	if (mail_parse(a.buf, a.len, &fast, &err) || mail_parse(b.buf, b.len, &mime, &err)) {
		ok(0, "both parse: %s / %s", from, date);
		goto out;
	}
	ok((fast.from.name == mime.from.name ||
	    (fast.from.name && mime.from.name && !strcmp(fast.from.name, mime.from.name))) &&
	   ((!fast.from.email && !mime.from.email) ||
	    (fast.from.email && mime.from.email && !strcmp(fast.from.email, mime.from.email))),
	   "same From: %s -> '%s' <%s> / '%s' <%s>", from,
	   fast.from.name ? fast.from.name : "", fast.from.email ? fast.from.email : "",
	   mime.from.name ? mime.from.name : "", mime.from.email ? mime.from.email : "");
	ok(fast.date == mime.date && fast.tz == mime.tz, "same Date: %s -> %lld %d / %lld %d",
	   date, (long long)fast.date, fast.tz, (long long)mime.date, mime.tz);
	is_str(fast.subject, mime.subject, "same Subject");
	ok(fast.nr_refs == 2 && mime.nr_refs == 2 && !strcmp(fast.refs[1], mime.refs[1]) &&
	   !strcmp(fast.in_reply_to, mime.in_reply_to), "same References and In-Reply-To");
	mail_release(&fast);
	mail_release(&mime);
out:
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

/*
 * GMime 3.2.13 reads adjacent B words of one charset as one base64 text
 * and stops at the first padding; lorebot must not lose the rest.
 */
static void padded_b_words(void)
{
	static const char *const paths[] = {
		"",	/* the fast path */
		"MIME-Version: 1.0\nContent-Transfer-Encoding: quoted-printable\n",
	};
	struct strbuf err = STRBUF_INIT;
	char *d;
	size_t i;

	d = mail_decode_header("=?utf-8?b?YWI=?= =?utf-8?b?Y2Q=?=");
	is_str(d, "abcd", "padded B words: every word decoded");
	free(d);
	/* "\xc3\xa9" split over two padded words */
	d = mail_decode_header("=?UTF-8?B?ww==?= =?UTF-8?B?qQ==?=x =?utf-8?b?YQ==?= z");
	is_str(d, "\xc3\xa9x a z", "a character split over padded words");
	free(d);
	d = mail_decode_header("=?utf-8?b?YWJj?= =?utf-8?b?ZA==?=");
	is_str(d, "abcd", "an unpadded word before a padded one");
	free(d);
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct strbuf raw = STRBUF_INIT;
		struct mail m;

		strbuf_addf(&raw, "From: =?utf-8?b?SsO2?= =?utf-8?b?cmc=?= <j@x.org>\n"
			    "Subject: =?utf-8?b?W1BBVENIXSBh?= =?utf-8?b?Yg==?= "
			    "=?utf-8?b?Y2Q=?=\n%s\nbody\n", paths[i]);
		if (mail_parse(raw.buf, raw.len, &m, &err)) {
			ok(0, "padded words parse (%zu)", i);
		} else {
			is_str(m.subject, "[PATCH] abcd", "padded B words in Subject (%s path)",
			       i ? "GMime" : "fast");
			is_str(m.from.name, "J\xc3\xb6rg", "padded B words in a From name (%s path)",
			       i ? "GMime" : "fast");
			is_str(m.from_text, "J\xc3\xb6rg <j@x.org>", "From as text (%s path)",
			       i ? "GMime" : "fast");
			mail_release(&m);
		}
		strbuf_release(&raw);
	}
	strbuf_release(&err);
}

/* Trailers given in a reply: the forms b4 reads, Link: and Closes:, mangled addresses */
static void reply_forms(void)
{
	static const char raw[] =
		"From: Eve Reviewer <eve@example.com>\n"
		"Subject: Re: [PATCH] mm: x\n"
		"Message-ID: <r@x>\n"
		"In-Reply-To: <p@x>\n\n"
		"> Signed-off-by: Quoted Person <q@example.com>\n\n"
		"Reviewed-by: Eve Reviewer <eve@example.com<mailto:eve@example.com>>\n"
		"Tested-by: Eve Reviewer eve@example.com<mailto:eve@example.com>\n"
		"Link: https://lore.kernel.org/r/abc@x\n"
		"Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1\n"
		"Link: not a URL\n"
		"Acked-by: Someone Else <other@example.com>\n"
		"Suggested-by: https://example.com/eve\n";
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT;
	struct trailers t = { 0 };
	struct mail m;
	size_t i;

	if (mail_parse(raw, sizeof(raw) - 1, &m, &err)) {
		ok(0, "reply parses");
		return;
	}
	patch_reply_trailers(&m, false, &t);
	for (i = 0; i < t.nr; i++)
		strbuf_addf(&got, "%s: %s\n", t.t[i].name, t.t[i].value);
	is_str(got.buf,
	       "Reviewed-by: Eve Reviewer <eve@example.com>\n"
	       "Tested-by: Eve Reviewer <eve@example.com>\n"
	       "Link: https://lore.kernel.org/r/abc@x\n"
	       "Closes: https://bugzilla.kernel.org/show_bug.cgi?id=1\n",
	       "reply trailers: mangled addresses mended, Link: and Closes: kept, "
	       "others' and URL values not");
	patch_trailers_release(&t);
	strbuf_release(&got);
	strbuf_release(&err);
	mail_release(&m);
}

/* Reply number i from "from", with more headers and a body; 0 when it parses */
static int parse_reply(struct mail *m, unsigned int flags, size_t i, const char *from,
		       const char *head, const char *body)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	strbuf_addf(&raw, "From: %s\nSubject: Re: [PATCH] mm: x\nMessage-ID: <r%zu@x>\n"
		    "In-Reply-To: <p@x>\n%s\n%s\n", from, i, head, body);
	r = mail_parse_flags(raw.buf, raw.len, flags, m, &err);
	if (r)
		ok(0, "reply %zu parses: %s", i, err.buf);
	strbuf_release(&raw);
	strbuf_release(&err);
	return r;
}

/*
 * The sender's address as b4 compares it: "+tag"s and a domain one label
 * longer do not make another person.  The first is syzbot ci's reply
 * <690c6437.050a0220.baf87.0083.GAE@google.com> (linux-xfs, 2025-11-06),
 * whose indented tag b4 0.12 carries to the series' 14 patches.
 */
static void reply_addresses(void)
{
	static const struct {
		const char *from, *trailer;
		bool taken;
	} cases[] = {
		{ "syzbot ci <syzbot+ci853f3070c3383748@syzkaller.appspotmail.com>",
		  "  Tested-by: syzbot@syzkaller.appspotmail.com", true },
		{ "Ann Dev <ann+kernel@example.org>", "Acked-by: A. Dev <ann@example.org>", true },
		{ "Ann Dev <ann@linux.example.com>", "Acked-by: A. <ann@example.com>", true },
		{ "Ann Dev <ann@example.com>", "Acked-by: A. <ann@linux.example.com>", true },
		{ "Ann Dev <ann@a.b.example.com>", "Acked-by: A. <ann@example.com>", false },
		{ "Ann Dev <ann@example.com>", "Acked-by: A. <bob@example.com>", false },
		{ "Ann Dev <ann@example.com>", "Acked-by: A. <ann@xexample.com>", false },
		{ "Ann Dev <ann+x@example.com>", "Acked-by: A. <bob+x@example.com>", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct trailers t = { 0 };
		struct mail m;

		if (parse_reply(&m, 0, i, cases[i].from, "", cases[i].trailer))
			continue;
		patch_reply_trailers(&m, false, &t);
		is_int(t.nr, cases[i].taken, "%s from %s: %s", cases[i].trailer, cases[i].from,
		       cases[i].taken ? "taken" : "not the sender's");
		patch_trailers_release(&t);
		mail_release(&m);
	}
}

/*
 * format=flowed: git mailinfo joins a line ending in a space to the next
 * one whatever its quote depth, so "> " before a trailer swallows it; b4
 * reads a reply's lines as sent.  Both paths (plain 8bit and
 * quoted-printable), delsp=yes, and a mail that is not flowed.
 */
static void reply_flowed(void)
{
	static const struct {
		const char *ct, *cte, *body;
		bool kept;
	} cases[] = {
		{ "text/plain; charset=UTF-8; format=flowed", "8bit",
		  "> Signed-off-by: A <a@x>\n> \nReviewed-by: Eve R <eve@example.com>\n", true },
		{ "text/plain; charset=UTF-8; format=flowed; delsp=yes", "quoted-printable",
		  "> Signed-off-by: A <a@x>\n>=20\nReviewed-by: Eve R <eve@example.com>\n", true },
		{ "text/plain; charset=UTF-8", "8bit",
		  "> Signed-off-by: A <a@x>\n> \nReviewed-by: Eve R <eve@example.com>\n", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct trailers t = { 0 };
		char *head = xasprintf("MIME-Version: 1.0\nContent-Type: %s\n"
				       "Content-Transfer-Encoding: %s\n", cases[i].ct,
				       cases[i].cte);
		struct mail m;
		int r = parse_reply(&m, MAIL_TEXT_SENT, 100 + i, "Eve R <eve@example.com>",
				    head, cases[i].body);

		free(head);
		if (r)
			continue;
		if (cases[i].kept)
			ok(strstr(m.body, "Reviewed-by") && !strstr(m.body, "\nReviewed-by"),
			   "%s, %s: the body is git's (the trailer joined to '>')",
			   cases[i].ct, cases[i].cte);
		is_int(m.text_sent != NULL, cases[i].kept, "%s: the text as sent %s",
		       cases[i].ct, cases[i].kept ? "kept" : "not needed");
		patch_reply_trailers(&m, false, &t);
		is_int(t.nr, 1, "%s, %s: the Reviewed-by after '> ' is taken", cases[i].ct,
		       cases[i].cte);
		patch_trailers_release(&t);
		mail_release(&m);
	}
}

/*
 * patch_diff_hash() reads as patchwork's hash does: line numbers of hunks,
 * the first directory of file names and lines that do not begin with
 * '-', '+' or ' ' (the message, index lines) make no difference
 */
static void diff_hash(void)
{
	static const char *const same[] = {
		"msg\n---\n f | 1 +\n\ndiff --git a/f b/f\nindex 1..2 100644\n"
		"--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n x\n+y\n z\n",
		"other message\n---\n f | 1 +\n\ndiff --git a/f b/f\nindex 3..4 100644\n"
		"--- a/f\n+++ b/f\n@@ -10,2 +11,3 @@ int f(void)\n x\n+y\n z\n",
		"msg\n---\n f | 1 +\n\n--- x/f\t2020-01-01\n+++ y/f\n@@ -7,2 +7,3 @@\n x\n+y\n z\n",
	};
	static const char *const other[] = {
		"msg\n---\n f | 1 +\n\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n x\n+Y\n z\n",
		"msg\n---\n f | 1 +\n\n--- a/g\n+++ b/g\n@@ -1,2 +1,3 @@\n x\n+y\n z\n",
		"msg\n---\n f | 1 +\n\n--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n x\n+y\n",
		" indented message\n---\n f | 1 +\n\n--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n x\n+y\n z\n",
	};
	char h0[PATCH_HASH_HEX], h[PATCH_HASH_HEX];
	size_t i;

	patch_diff_hash(same[0], strlen(same[0]), h0);
	is_int(strlen(h0), PATCH_HASH_HEX - 1, "the hash is %d hex digits", PATCH_HASH_HEX - 1);
	for (i = 1; i < ARRAY_SIZE(same); i++) {
		patch_diff_hash(same[i], strlen(same[i]), h);
		is_str(h, h0, "diff hash: the same diff hashes the same (%zu)", i);
	}
	for (i = 0; i < ARRAY_SIZE(other); i++) {
		patch_diff_hash(other[i], strlen(other[i]), h);
		ok(strcmp(h, h0), "diff hash: another diff or indented line differs (%zu)", i);
	}
}

int main(void)
{
	struct mail m;
	struct subject s;
	struct patch p;
	struct strbuf raw = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;

	with_patch("encoded-headers.mbox", 0, &m, &s, &p);
	is_str(m.subject, "[PATCH] mm: fix frob for J\xc3\xb6rg and caf\xc3\xa9",
	       "RFC 2047 Q and B words in a folded Subject");
	is_str(m.from.name, "J\xc3\xb6rg R\xc3\xb6" "del", "ISO-8859-1 Q word in From");
	is_str(m.from.email, "joerg@example.org", "domain lowercased");
	ok(strstr(p.message, "J\xc3\xb6rg's caf\xc3\xa9") != NULL,
	   "quoted-printable UTF-8 body decoded");
	is_str(p.diff, DIFF, "diff exact after quoted-printable");
	release(&m, &s, &p);

	with_patch("base64-body.mbox", 0, &m, &s, &p);
	is_str(p.diff, DIFF, "diff exact after base64 (tab, trailing blanks)");
	is_int(p.trailers.nr, 1, "one trailer");
	is_str(p.trailers.t[0].name, "Signed-off-by", "Signed-off-by found");
	is_str(p.signature, "2.39.5\n", "signature");
	release(&m, &s, &p);

	with_patch("latin1-body.mbox", 0, &m, &s, &p);
	ok(strstr(p.message, "caf\xc3\xa9 Ren\xc3\xa9") != NULL,
	   "ISO-8859-1 body converted to UTF-8");
	is_str(m.warnings.buf, "", "no warnings for a declared charset");
	release(&m, &s, &p);

	with_patch("multipart.mbox", 0, &m, &s, &p);
	ok(strstr(m.body, "<p>html</p>") == NULL, "alternative: html part skipped");
	is_str(p.diff, DIFF, "alternative: text/plain part used");
	release(&m, &s, &p);
	with_patch("multipart.mbox", 1, &m, &s, &p);
	is_str(p.diff, DIFF, "mixed: attached text/x-patch appended");
	is_str(m.in_reply_to, "mp-1@example.org", "In-Reply-To without brackets");
	release(&m, &s, &p);

	with_patch("crlf.mbox", 1, &m, &s, &p);
	ok(strchr(m.body, '\r') == NULL, "CRLF body normalised");
	is_str(m.subject, "[PATCH 1/2] mm: crlf series part 1", "CRLF headers");
	is_str(p.diff, DIFF, "CRLF: diff exact");
	release(&m, &s, &p);

	with_patch("inbody.mbox", 0, &m, &s, &p);
	is_str(p.author_name, "Real Author", "in-body From: name");
	is_str(p.author_email, "author@example.com", "in-body From: address");
	is_str(p.subject, "mm: the real subject", "in-body Subject:");
	is_int(p.date, 1715073133, "in-body Date:");
	is_int(p.tz, 120, "in-body Date: zone");
	ok(strncmp(p.message, "Fix the frob.", 13) == 0,
	   "message starts after the in-body headers");
	release(&m, &s, &p);

	ok(load("mboxrd.mbox", 0, &m, &raw) == 0, "mboxrd message parses");
	ok(strstr(raw.buf, "\nFrom the start") != NULL, "mboxrd: '>From' unquoted");
	ok(strstr(raw.buf, "\n>From quoted") != NULL, "mboxrd: '>>From' loses one '>'");
	mail_release(&m);
	strbuf_reset(&raw);

	ok(load("no-msgid.mbox", 1, &m, NULL) == 0, "a message without Message-ID parses");
	ok(m.msgid == NULL, "no Message-ID");
	ok(strstr(m.warnings.buf, "Message-ID") != NULL, "warning names the header");
	mail_release(&m);

	/* broken input */
	ok(mail_parse("", 0, &m, &err) < 0, "empty message refused");
	is_str(err.buf, "empty message", "named");
	strbuf_reset(&err);
	ok(mail_parse("\x01\x02 garbage\n", 11, &m, &err) < 0, "binary garbage refused");
	strbuf_reset(&err);
	{
		const char *t = "Subject: x\nContent-Transfer-Encoding: base64\n\nAAAA!!!=\nQUJD";
		ok(mail_parse(t, strlen(t), &m, &err) == 0, "unterminated base64 parses");
		mail_release(&m);
	}
	{
		const char *t = "Subject: bad \xff\xfe utf8\nFrom: \xff <a@b.c>\n\nbody \xff\n";
		ok(mail_parse(t, strlen(t), &m, &err) == 0, "invalid UTF-8 parses");
		ok(util_utf8_valid(m.subject, strlen(m.subject)), "subject made valid UTF-8");
		ok(strstr(m.warnings.buf, "invalid UTF-8") != NULL, "invalid body reported");
		mail_release(&m);
	}
	strbuf_release(&err);
	strbuf_release(&raw);

	same_both_ways("Alice Dev <alice@Example.ORG>", "Mon, 6 May 2024 10:00:00 +0000");
	same_both_ways("alice@example.org", "Sat, 7 Feb 2026 16:16:09 +0800");
	same_both_ways("\"Dev, Alice\" <alice@example.org>", "Tue, 14 Jan 2025 19:38:04 -0930");
	same_both_ways("=?UTF-8?Q?J=C3=B6rg?= <j@x.org>", "6 May 2024 10:00:00 +0100");
	same_both_ways("Bob (the builder) <bob@x.org>", "Mon, 6 May 2024 10:00 GMT");
	same_both_ways("Carol <carol@x.org>", "Mon, 06 May 24 10:00:00 EST");
	same_both_ways("Dave Reviewer <dave@x.org>", "Mon,  6 May 2024 10:00:00 +0000 (UTC)");
	same_both_ways("<eve@x.org>", "Wed, 31 Dec 2025 23:59:59 -0000");
	same_both_ways("Frank <frank@x.org>", "garbage date");
	padded_b_words();
	reply_forms();
	reply_addresses();
	reply_flowed();
	diff_hash();
	return done_testing();
}
