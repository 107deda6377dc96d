// SPDX-License-Identifier: GPL-2.0
/*
 * Stored mail parsed in a jail (bot/store/store-jail.c): the parsed form is the
 * one parsing in process gives, byte for byte; a message the parser dies
 * on is stored all the same, unparsed, with why, and costs only itself:
 * the messages of its batch before and after it are parsed (each alone
 * again, by a new parser).  A mail read for a reply (store_parse_mail())
 * through the jail is what mail_parse() gives here, for every message of
 * the fixture threads and for hostile ones (a NUL byte, encoded names).
 */
#include <stdlib.h>
#include <unistd.h>

#include "bot/mail/mail.h"
#include "bot/mail/mbox.h"
#include "bot/store/store.h"
#include "tests/unit/tap.h"

/* the real parser, but one that dies on a marked message (a parser bug) */
static int answer_or_die(void *ctx, const char *req, size_t len, struct strbuf *resp)
{
	if (memmem(req, len, "X-Parser-Bug: yes", 17))
		__builtin_trap();
	return store_jail_answer(ctx, req, len, resp);
}

/* ... or one stuck on it (a parse that never ends) */
static int answer_or_hang(void *ctx, const char *req, size_t len, struct strbuf *resp)
{
	if (memmem(req, len, "X-Parser-Bug: yes", 17))
		for (;;)
			pause();
	return store_jail_answer(ctx, req, len, resp);
}

static char *mail(const char *id, const char *extra)
{
	return xasprintf("From: A U Thor <author@example.org>\nTo: linux-mm@kvack.org\n"
			 "Subject: [PATCH] mm: test %s\nDate: Mon, 1 Jun 2026 10:00:00 +0000\n"
			 "Message-ID: <%s@example.org>\n%s\nbody of %s\n\n"
			 "Signed-off-by: A U Thor <author@example.org>\n", id, id, extra, id);
}

/* col of the message whose msgid is id@example.org, or (id NULL) that has an error */
static char *column(struct store *st, const char *col, const char *id)
{
	char *sql = id ? xasprintf("SELECT %s FROM messages WHERE msgid = '%s@example.org'",
				   col, id) :
		xasprintf("SELECT %s FROM messages WHERE error IS NOT NULL", col);
	struct db_stmt *s = db_prepare(st->db, sql);
	char *v = NULL;

	if (s && db_step(s) > 0 && db_column_text(s, 0))
		v = xstrdup(db_column_text(s, 0));
	if (s)
		db_reset(s);
	free(sql);
	return v;
}

/* the three messages into a new database at path: 0 or -1 */
static int add_three(struct store *st, const char *path, store_jail_fn *fn, bool jail,
		     struct strbuf *err)
{
	char *m[3] = { mail("one", ""), mail("two", "X-Parser-Bug: yes\n"), mail("three", "") };
	struct store_raw r[3];
	enum store_added added[3];
	int i, ret;

	for (i = 0; i < 3; i++)
		r[i] = (struct store_raw){ m[i], strlen(m[i]) };
	if (store_open(st, path, err))
		return -1;
	if (jail)
		store_jail_use(st, fn);
	/*
	 * a stuck parser (answer_or_hang) costs 5 s; a parser that is not
	 * stuck answers in milliseconds, but on a loaded machine one took
	 * over 500 ms (the limit before) and its message was stored unparsed
	 */
	st->jail_batch_ms = 3000;
	st->jail_one_ms = 2000;
	ret = store_begin(st, err) || store_add_messages(st, 0, r, 3, added, NULL, err) ||
		store_commit(st, err) ? -1 : 0;
	for (i = 0; i < 3; i++)
		free(m[i]);
	return ret;
}

/* every message of path: through the jail and here, the same struct mail */
static void same_mail(struct store *st, const char *path)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	size_t n = 0, same = 0;

	if (mbox_open(&r, path, 16 << 20)) {
		ok(0, "cannot read %s", path);
		return;
	}
	while (mbox_next(&r, &mm) > 0) {
		struct mail a = MAIL_INIT, b = MAIL_INIT;
		struct strbuf ea = STRBUF_INIT, eb = STRBUF_INIT;
		int ra = store_parse_mail(st, mm.raw.buf, mm.raw.len, &a, &ea);
		int rb = mail_parse(mm.raw.buf, mm.raw.len, &b, &eb);
		char *ja = ra ? xstrdup(ea.buf) : mail_to_json(&a);
		char *jb = rb ? xstrdup(eb.buf) : mail_to_json(&b);

		n++;
		if (ra == rb && !strcmp(ja, jb))
			same++;
		else
			printf("# message %zu of %s differs:\n# %s\n# %s\n", n, path, ja, jb);
		free(ja);
		free(jb);
		mail_release(&a);
		mail_release(&b);
		strbuf_release(&ea);
		strbuf_release(&eb);
	}
	mbox_msg_release(&mm);
	mbox_close(&r);
	ok(n > 0 && same == n, "%s: %zu of %zu mails the same through the jail", path, same, n);
}

int main(void)
{
	char dir[] = "/tmp/lorebot-t-store-jail-XXXXXX";
	struct store in = { 0 }, out = { 0 };
	struct strbuf err = STRBUF_INIT;
	char *pin, *pout, *a, *b;

	if (!mkdtemp(dir))
		return 1;
	pin = xasprintf("%s/jail.db", dir);
	pout = xasprintf("%s/here.db", dir);
	ok(!add_three(&in, pin, answer_or_die, true, &err), "stored through the jail (%s)",
	   err.buf);
	ok(!add_three(&out, pout, NULL, false, &err), "stored parsing here (%s)", err.buf);
	a = column(&in, "meta", "one");
	b = column(&out, "meta", "one");
	ok(a && b && !strcmp(a, b), "the parsed form through the jail is the same");
	free(a);
	free(b);
	a = column(&in, "meta", "three");
	b = column(&out, "meta", "three");
	ok(a && b && !strcmp(a, b), "... for the message after the one it died on");
	free(a);
	free(b);
	/* unparsed, it has no Message-ID but one made of its bytes */
	a = column(&in, "error", NULL);
	ok(a && strstr(a, "died on this request: killed by signal"),
	   "the message it died on is stored, unparsed, saying why: %s", a ? a : "(null)");
	free(a);
	a = column(&in, "raw", NULL);
	ok(a && strstr(a, "X-Parser-Bug: yes"), "... with its bytes");
	free(a);
	a = column(&in, "error", "one");
	ok(!a, "the others have no error");
	free(a);
	{
		/*
		 * a parser stuck on a message (issue 38: it held a whole fetch
		 * pass past its time limit, and nothing was stored): the
		 * batch's time, then that message's alone, and it is stored
		 * unparsed; the others are parsed
		 */
		struct store hang = { 0 };
		char *ph = xasprintf("%s/hang.db", dir);

		ok(!add_three(&hang, ph, answer_or_hang, true, &err),
		   "stored through a jail stuck on one message (%s)", err.buf);
		a = column(&hang, "error", NULL);
		ok(a && strstr(a, "no answer within 2000 ms"),
		   "the message it is stuck on is stored, unparsed, saying why: %s",
		   a ? a : "(null)");
		free(a);
		a = column(&hang, "meta", "three");
		b = column(&out, "meta", "three");
		ok(a && b && !strcmp(a, b), "... the message after it is parsed");
		free(a);
		free(b);
		store_close(&hang);
		free(ph);
	}
	{
		/*
		 * a store on a command's stack (lorebot fetch, the daemon):
		 * store_open() gives it the default time limits, whatever
		 * the memory held (left uninitialised, they killed the parser
		 * at once, "within 1 ms", and stored mail unparsed)
		 */
		struct store left;
		char *pl = xasprintf("%s/left.db", dir), *m = mail("left", "");
		struct store_raw r = { m, strlen(m) };
		enum store_added added;
		int ret;

		memset(&left, 0xff, sizeof(left));
		ret = store_open(&left, pl, &err);
		ok(!ret, "a store over leftover memory (%s)", err.buf);
		store_jail_use(&left, NULL);
		ret = store_begin(&left, &err) ||
			store_add_messages(&left, 0, &r, 1, &added, NULL, &err) ||
			store_commit(&left, &err);
		ok(!ret, "... stores a message (%s)", err.buf);
		a = column(&left, "error", NULL);
		ok(!a, "... through the jail, parsed: %s", a ? a : "no error");
		free(a);
		store_close(&left);
		unlink(pl);
		free(pl);
		free(m);
	}
	{
		/* the same bytes twice in one batch: stored once, then a duplicate */
		char *d = mail("twice", "");
		struct store_raw r[2] = { { d, strlen(d) }, { d, strlen(d) } };
		enum store_added added[2];

		ok(!store_begin(&in, &err) && !store_add_messages(&in, 0, r, 2, added, NULL, &err) &&
		   !store_commit(&in, &err), "a batch with one message twice (%s)", err.buf);
		ok(added[0] == STORE_NEW && added[1] == STORE_DUPLICATE,
		   "... stored once, then a duplicate");
		free(d);
	}
	{
		const char *names[] = { "000_73a05b4700ab1a7a.mbox", "003_6100bb5053417aef.mbox",
					"004_476fa21b8430df59.mbox" };
		char *hostile = xasprintf("%s/hostile.mbox", dir);
		FILE *f = fopen(hostile, "w");
		size_t i;

		store_jail_stop(&in);
		store_jail_use(&in, NULL);
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			char *p = xasprintf("%s/tests/fixtures/lore/%s", tap_src(), names[i]);

			same_mail(&in, p);
			free(p);
		}
		/* a NUL byte in the body, names in encoded words, a charset */
		fputs("From x Mon Sep 17 00:00:00 2001\n"
		      "From: =?utf-8?q?Zo=C3=AB_=C3=9Cn=C3=AFc=C3=B6d=C3=A9?= <z@example.org>\n"
		      "To: a@example.org, \"B, C\" <b@example.org>\nCc: =?koi8-r?b?8NLJ18XU?= <c@example.org>\n"
		      "Subject: =?iso-8859-1?q?caf=E9?= [PATCH] mm: x\nMessage-ID: <nul@example.org>\n"
		      "Content-Type: text/plain; charset=iso-8859-1\n\nab", f);
		fputc(0, f);
		fputs("cd caf\xe9\n+line\n\n", f);
		fclose(f);
		same_mail(&in, hostile);
		unlink(hostile);
		free(hostile);
	}
	store_close(&in);
	store_close(&out);
	unlink(pin);
	unlink(pout);
	free(pin);
	free(pout);
	strbuf_release(&err);
	rmdir(dir);
	return done_testing();
}
