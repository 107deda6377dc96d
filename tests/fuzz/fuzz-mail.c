// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: one raw message through MIME parsing and extraction,
 * and a differential one: lorebot's reading against git mailinfo's, which
 * must agree but where the difference is a documented one (bot/mail/mailinfo.h).
 * LOREBOT_FUZZ_NO_GIT=1 leaves git out (faster, no subprocesses).
 */
#include <stdio.h>
#include <stdlib.h>

#include "bot/mail/mailinfo.h"
#include "bot/series/series.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

/* A field's text for the report: escaped, cut short */
static void show(const char *who, const char *s, size_t len)
{
	size_t i;

	fprintf(stderr, "  %s: ", who);
	for (i = 0; i < len && i < 400; i++) {
		unsigned char c = s[i];

		if (c == '\n')
			fputs("\\n", stderr);
		else if (c < 32 || c >= 127)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fputc('\n', stderr);
}

static void field(const struct mailinfo *mi, enum mailinfo_field f,
		  const char *who)
{
	const char *v = f == MI_AUTHOR ? mi->author : f == MI_EMAIL ? mi->email :
		f == MI_SUBJECT ? mi->subject : f == MI_DATE ? mi->date_text : NULL;
	const struct strbuf *sb = f == MI_MESSAGE ? &mi->message : &mi->patch;

	if (v)
		show(who, v, strlen(v));
	else
		show(who, sb->buf, sb->len);
}

static void differential(const char *raw, size_t size)
{
	struct mailinfo_cmp cmp = MAILINFO_CMP_INIT;
	struct strbuf err = STRBUF_INIT;
	int f;

	if (!mailinfo_compare(raw, size, 0, &cmp, &err) &&
	    mailinfo_undocumented(&cmp)) {
		for (f = 0; f < MI_NR; f++) {
			if (!cmp.differs[f] || cmp.cls[f])
				continue;
			fprintf(stderr, "undocumented difference in %s\n",
				mailinfo_field_name(f));
			field(&cmp.ours, f, "lorebot");
			field(&cmp.git, f, "git    ");
		}
		abort();
	}
	mailinfo_cmp_release(&cmp);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static int no_git = -1;
	struct strbuf err = STRBUF_INIT;
	struct msg m;

	if (no_git < 0)
		no_git = getenv("LOREBOT_FUZZ_NO_GIT") != NULL;
	if (!series_msg_from_raw((const char *)data, size, &m, &err))
		series_msg_release(&m);
	strbuf_release(&err);
	if (!no_git)
		differential((const char *)data, size);
	return 0;
}
