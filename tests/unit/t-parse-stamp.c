// SPDX-License-Identifier: GPL-2.0
/*
 * A stored message keeps its parsed form for as long as its stamp is
 * this parser's (store_parse_stamp(): STORE_PARSE_VERSION and the MIME
 * library's version), across builds.  So the stamp must change whenever
 * what some message parses to changes.  This test parses every mail of
 * tests/fixtures (mbox and single messages, the bad and odd ones of
 * mailinfo and mail among them) and compares a hash of their parsed
 * forms with the one recorded for the current version.
 *
 * If it fails: the parser's output changed.  Bump STORE_PARSE_VERSION
 * in bot/store/store.h (every stored message is then parsed again, once, at
 * the next fetch) and record the fingerprint this test prints.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mail/mail.h"
#include "bot/mail/mbox.h"
#include "bot/series/series.h"
#include "bot/store/store.h"
#include "tests/unit/tap.h"

static const struct {
	int version;
	const char *library;
	const char *fingerprint;
	size_t mails;
} recorded[] = {
	{ 1, "GMime 3.2.13", "45c65012574c80d1", 239 },
	/* issue 38: an in-body header over 64 KiB is not used (inbody-long.eml) */
	{ 2, "GMime 3.2.13", "cae2fd8a31012b77", 240 },
	/* issue 45: patch mails read whole, attachments, as git am reads them */
	{ 3, "GMime 3.2.13", "fcda1cc636ddbad9", 302 },
	/*
	 * issue 45 again: a reply's trailers read as sent (format=flowed),
	 * a patch's diff_hash
	 */
	{ 4, "GMime 3.2.13", "0985a8fb17e0b52d", 355 },
};

struct paths {
	char **v;
	size_t nr, alloc;
};

static void walk(const char *dir, struct paths *p)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *path;

		if (e->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, e->d_name);
		if (e->d_type == DT_DIR) {
			walk(path, p);
			free(path);
		} else if (util_ends_with(e->d_name, ".mbox") ||
			   util_ends_with(e->d_name, ".eml")) {
			ALLOC_GROW(p->v, p->nr + 1, p->alloc);
			p->v[p->nr++] = path;
		} else {
			free(path);
		}
	}
	closedir(d);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* every parsed form (or error) of the mails of path, in order, into all */
static size_t parse_file(const char *path, struct strbuf *all)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	size_t n = 0;

	if (mbox_open(&r, path, 16 << 20))
		return 0;
	while (mbox_next(&r, &mm) > 0) {
		struct strbuf err = STRBUF_INIT;
		struct msg m;

		if (series_msg_from_raw(mm.raw.buf, mm.raw.len, &m, &err)) {
			strbuf_addf(all, "error %s\n", err.buf);
		} else {
			char *json = store_msg_to_json(&m);

			strbuf_addf(all, "%s\n", json);
			free(json);
			series_msg_release(&m);
		}
		strbuf_release(&err);
		n++;
	}
	mbox_msg_release(&mm);
	mbox_close(&r);
	return n;
}

int main(void)
{
	struct paths p = { 0 };
	struct strbuf all = STRBUF_INIT;
	char *top = xasprintf("%s/tests/fixtures", tap_src());
	char fp[17];
	size_t i, mails = 0;
	bool known = false;

	walk(top, &p);
	qsort(p.v, p.nr, sizeof(*p.v), by_name);
	ok(p.nr >= 40, "%zu fixture files with mail", p.nr);
	for (i = 0; i < p.nr; i++) {
		mails += parse_file(p.v[i], &all);
		free(p.v[i]);
	}
	free(p.v);
	ok(mails >= 150, "%zu mails parsed", mails);
	util_hash_hex(all.buf, all.len, fp);
	ok(!strstr(store_parse_stamp(), "failed"), "the stamp is \"%s\"",
	   store_parse_stamp());

	for (i = 0; i < ARRAY_SIZE(recorded); i++) {
		if (recorded[i].version != STORE_PARSE_VERSION ||
		    strcmp(recorded[i].library, mail_library()))
			continue;
		known = true;
		is_str(fp, recorded[i].fingerprint,
		       "the parsed forms of the %zu mails are those recorded for parser "
		       "version %d with %s (if not: bump STORE_PARSE_VERSION in "
		       "bot/store/store.h and record %s here)", mails, STORE_PARSE_VERSION,
		       mail_library(), fp);
		is_int(mails, recorded[i].mails, "as many mails as recorded");
	}
	if (!known)
		ok(1, "# SKIP no fingerprint recorded for parser version %d with %s "
		   "(here: %s over %zu mails)", STORE_PARSE_VERSION, mail_library(), fp,
		   mails);
	strbuf_release(&all);
	free(top);
	return done_testing();
}
