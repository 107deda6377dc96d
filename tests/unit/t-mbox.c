// SPDX-License-Identifier: GPL-2.0
/*
 * mbox_set_view(): messages served in place from the read buffer are the
 * same, byte for byte, as the copies, across buffer refills, lines longer
 * than a read, >From unescaping, CRLF and messages too large to keep.
 * mbox_write_rd(): what it writes the reader gives back, byte for byte.
 */
#include <fcntl.h>
#include <unistd.h>

#include "bot/mail/mbox.h"
#include "tests/unit/tap.h"

static void add_msg(struct strbuf *sb, unsigned int *seed, int i)
{
	const char *nl = i % 7 == 3 ? "\r\n" : "\n";
	int lines, l;

	*seed = *seed * 1103515245 + 12345;
	lines = (*seed >> 16) % 200;
	if (i % 50 == 17)
		lines = 9000;		/* larger than a read */
	strbuf_addf(sb, "From mboxrd@z Thu Jan  1 00:00:00 1970%s", nl);
	strbuf_addf(sb, "From: Dev %d <dev%d@example.org>%s", i, i, nl);
	strbuf_addf(sb, "Subject: [PATCH %d/9] mm: thing%s", i % 9 + 1, nl);
	strbuf_addf(sb, "Message-ID: <%d@example.org>%s%s", i, nl, nl);
	for (l = 0; l < lines; l++) {
		*seed = *seed * 1103515245 + 12345;
		/* escapes in every fifth message: they make a copy */
		switch ((*seed >> 16) % 23 + (i % 5 ? 2 : 0)) {
		case 0:
			strbuf_addf(sb, ">From the escaped line %d%s", l, nl);
			break;
		case 1:
			strbuf_addf(sb, ">>From twice escaped%s", nl);
			break;
		case 2:
			strbuf_addf(sb, "> quoted, not escaped%s", nl);
			break;
		case 3:
			strbuf_addf(sb, "%s", nl);
			break;
		default:
			strbuf_addf(sb, "+\tline %d of message %d, some text to fill%s",
				    l, i, nl);
		}
	}
	if (i % 40 == 5)		/* one line longer than a read */
		strbuf_addchars(sb, 'x', 300 * 1024);
	strbuf_addf(sb, "%s%s", nl, nl);
	if (i % 60 == 9)		/* an empty message between separators */
		strbuf_addf(sb, "From mboxrd@z Thu Jan  1 00:00:00 1970\n\n");
}

static void test_views(void)
{
	char dir[] = "/tmp/t-mbox.XXXXXX", *path;
	struct strbuf sb = STRBUF_INIT;
	struct mbox_reader rv, rc;
	struct mbox_msg mv = MBOX_MSG_INIT, mc = MBOX_MSG_INIT;
	unsigned int seed = 42;
	size_t n = 0, views = 0, differ = 0, big = 0;
	int i, fd, a, b;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	path = xasprintf("%s/m.mbox", dir);
	for (i = 0; i < 400; i++)
		add_msg(&sb, &seed, i);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ok(fd >= 0 && write(fd, sb.buf, sb.len) == (ssize_t)sb.len, "wrote %zu bytes", sb.len);
	close(fd);

	ok(!mbox_open(&rv, path, 200 * 1024), "open for views");
	ok(!mbox_open(&rc, path, 200 * 1024), "open for copies");
	mbox_set_view(&rv, true);
	for (;;) {
		a = mbox_next(&rv, &mv);
		b = mbox_next(&rc, &mc);
		if (a != b) {
			differ++;
			break;
		}
		if (a <= 0)
			break;
		n++;
		if (mv.too_big != mc.too_big || mv.offset != mc.offset ||
		    mv.size != mc.size || mv.len != mc.len ||
		    memcmp(mv.data, mc.data, mv.len) ||
		    mc.data != mc.raw.buf || mc.len != mc.raw.len)
			differ++;
		views += !mv.too_big && mv.data != mv.raw.buf;
		big += mv.too_big;
	}
	is_int(differ, 0, "views and copies agree on all %zu messages", n);
	ok(n >= 400, "every message read (%zu)", n);
	ok(big > 0, "messages over the limit were skipped in both (%zu)", big);
	ok(views > n / 2, "most messages were served in place (%zu of %zu)", views, n);
	mbox_msg_release(&mv);
	mbox_msg_release(&mc);
	mbox_close(&rv);
	mbox_close(&rc);

	unlink(path);
	rmdir(dir);
	free(path);
	strbuf_release(&sb);
}

#define MSG(s) { s, sizeof(s) - 1 }

/* Messages whose lines must survive the trip: escapes, NULs, CRLF */
static const struct {
	const char *data;
	size_t len;
} msgs[] = {
	MSG("Subject: escapes\n\nFrom the start\n>From one\n>>From two\n"
	    ">>>From three\n> From quoted\nFrom\n>From\nFromage\n"),
	MSG("From somebody Mon Sep 17 00:00:00 2001\nSubject: a From line first\n\nbody\n"),
	MSG("Subject: a separator after a blank line\n\nx\n\n"
	    "From mboxrd@z Thu Jan  1 00:00:00 1970\n\n>From mboxrd@z Thu Jan  1 00:00:00 1970\ny\n"),
	MSG("Subject: nul\n\nbefore\0after\nFrom \0 after a nul\n\0\n>\0From x\n"),
	MSG("Subject: crlf\r\n\r\nFrom crlf\r\n>From crlf\r\n"),
	MSG("Subject: ends in blank lines\n\nbody\n\n\n"),
	MSG("Subject: no final newline\n\nFrom the last line"),
	MSG("Subject: a nul at the end\n\nlast\0"),
	MSG(">From the header block\n\n>>From\n"),
};

static void test_roundtrip(bool view)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	struct mbox_msg m = MBOX_MSG_INIT;
	struct mbox_reader r;
	size_t i, n = sizeof(msgs) / sizeof(msgs[0]);
	int ret = 0;

	for (i = 0; i < n; i++)
		mbox_write_rd(&sb, "mboxrd@z", msgs[i].data, msgs[i].len);
	mbox_open_mem(&r, sb.buf, sb.len, 1 << 20);
	mbox_set_view(&r, view);
	for (i = 0; i < n; i++) {
		ret = mbox_next(&r, &m);
		if (ret != 1)
			break;
		/* the format ends every message with a newline */
		strbuf_reset(&want);
		strbuf_add(&want, msgs[i].data, msgs[i].len);
		strbuf_complete_line(&want);
		ok(m.len == want.len && !memcmp(m.data, want.buf, want.len),
		   "%s: message %zu read back as written (%zu bytes, wrote %zu)",
		   view ? "view" : "copy", i, m.len, want.len);
	}
	is_int(i, n, "%s: every message read back", view ? "view" : "copy");
	is_int(mbox_next(&r, &m), 0, "%s: and no more", view ? "view" : "copy");
	mbox_msg_release(&m);
	mbox_close(&r);
	strbuf_release(&want);
	strbuf_release(&sb);
}

/* The bytes themselves: one '>' more on ^>*From , a newline, a blank line */
static void test_write(void)
{
	static const char want[] =
		"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		">From a\n>>From b\n>>>From c\n> From d\nx\0y\n>From e\n\n"
		"From <id@example.org> Thu Jan  1 00:00:00 1970\n"
		"\n"
		"From <id@example.org> Thu Jan  1 00:00:00 1970\n"
		"z\n\n";
	static const char one[] = "From a\n>From b\n>>From c\n> From d\nx\0y\nFrom e";
	struct strbuf sb = STRBUF_INIT;

	mbox_write_rd(&sb, "mboxrd@z", one, sizeof(one) - 1);
	mbox_write_rd(&sb, "<id@example.org>", "", 0);
	mbox_write_rd(&sb, "<id@example.org>", "z\n", 2);
	ok(sb.len == sizeof(want) - 1 && !memcmp(sb.buf, want, sb.len),
	   "mbox_write_rd() writes mboxrd (%zu bytes)", sb.len);
	strbuf_release(&sb);
}

int main(void)
{
	test_views();
	test_write();
	test_roundtrip(false);
	test_roundtrip(true);
	return done_testing();
}
