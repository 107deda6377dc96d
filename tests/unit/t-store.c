// SPDX-License-Identifier: GPL-2.0
/*
 * The store: messages once per content, variants, the parsed form kept
 * in the database, series rebuilt with new/updated/gone changes.
 */
#include <json-c/json.h>
#include <unistd.h>

#include "bot/mail/mbox.h"
#include "lib/jsonw.h"
#include "bot/series/series-out.h"
#include "bot/store/store.h"
#include "bot/store/store-int.h"
#include "bot/base/version.h"
#include "tests/unit/tap.h"

static char *fixture(const char *name)
{
	return xasprintf("%s/tests/fixtures/lore/%s", tap_src(), name);
}

/* every message of an mbox into the store; returns how many were new */
static int add_mbox(struct store *st, const char *path, int *dups)
{
	struct mbox_reader r;
	struct mbox_msg m = MBOX_MSG_INIT;
	struct strbuf err = STRBUF_INIT;
	int added = 0;

	if (mbox_open(&r, path, 16 << 20))
		return -1;
	store_begin(st, &err);
	while (mbox_next(&r, &m) > 0) {
		enum store_added a;

		if (store_add_message(st, 0, m.raw.buf, m.raw.len, &a, NULL, &err))
			break;
		added += a == STORE_NEW;
		*dups += a == STORE_DUPLICATE;
	}
	store_commit(st, &err);
	mbox_msg_release(&m);
	mbox_close(&r);
	strbuf_release(&err);
	return added;
}

static char *assembly_json_of(struct assembly *a)
{
	struct strbuf sb = STRBUF_INIT;
	struct jsonw w = JSONW_INIT(&sb, false);
	size_t i, j;

	jw_arr(&w);
	for (i = 0; i < a->nr_series; i++)
		for (j = 0; j < a->series[i]->nr; j++)
			series_send_write_json(&w, a->series[i]->sends[j]);
	jw_end_arr(&w);
	return strbuf_detach(&sb, NULL);
}

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = xasprintf("%s/t-store-%d.db", dir, (int)getpid());
	char *f004 = fixture("004_476fa21b8430df59.mbox");
	char *f003 = fixture("003_6100bb5053417aef.mbox");
	struct strbuf err = STRBUF_INIT, raw = STRBUF_INIT;
	struct store_changes ch = { 0 };
	struct assembly a, b;
	struct store st;
	char *ja, *jb;
	int dups = 0, r;
	size_t i;

	r = store_open(&st, path, &err);
	is_int(r, 0, "open %s", err.buf);
	is_int(add_mbox(&st, f004, &dups), 17, "17 new messages");
	is_int(add_mbox(&st, f004, &dups), 0, "the same again: nothing new");
	is_int(dups, 17, "17 duplicates");
	is_int(store_count_messages(&st), 17, "17 stored");
	ok(store_series_dirty(&st), "the series are dirty");

	/* the parsed form gives the same assembly as the raw messages */
	series_init(&a, 0);
	series_add_mbox(&a, f004);
	series_build(&a);
	series_init(&b, 0);
	is_int(store_load_assembly(&st, &b, false, NULL, &err), 0, "load from the store");
	series_build(&b);
	ja = assembly_json_of(&a);
	jb = assembly_json_of(&b);
	is_str(jb, ja, "stored parsed form = parsing the mbox");
	for (i = 0; i < b.nr; i++)
		if (!b.msgs[i]->rowid)
			break;
	is_int(i, b.nr, "every loaded message knows its row");
	free(ja);
	free(jb);
	series_release(&a);
	series_release(&b);

	/* a parse with another lorebot version is redone from raw */
	db_exec(st.db, "UPDATE messages SET meta_version = 'old', meta = '{}'");
	is_int(store_reparse(&st, false, &err), 17, "stale parsed forms are redone");
	is_int(store_reparse(&st, false, &err), 0, "and only once");
	{
		char *q = xasprintf("SELECT count(*) FROM messages WHERE meta_version = '%s'",
				    store_parse_stamp());
		int64_t n = -1;

		db_query_int(st.db, q, 0, &n);
		is_int(n, 17, "each stamped \"%s\", whatever the build", store_parse_stamp());
		free(q);
	}
	/* a failure is tried again by the next build, not by the same one */
	{
		char *q = xasprintf("UPDATE messages SET meta_version = '%s', meta = NULL,"
				    " error = 'died' WHERE id = (SELECT min(id) FROM messages)",
				    store_failed_stamp());

		db_exec(st.db, q);
		free(q);
	}
	is_int(store_reparse(&st, false, &err), 0, "a failure of this build is not tried again");
	db_exec(st.db, "UPDATE messages SET meta_version = 'failed 0123abc'"
		" WHERE id = (SELECT min(id) FROM messages)");
	is_int(store_reparse(&st, false, &err), 1, "a failure of another build is tried again");
	is_int(store_reparse(&st, false, &err), 0, "once");

	r = store_rebuild_series(&st, &ch, &err);
	is_int(r, 0, "rebuild %s", err.buf);
	is_int(ch.nr, 1, "one change");
	ok(ch.nr == 1 && ch.v[0].kind == STORE_VERSION_NEW && ch.v[0].version == 3 &&
	   ch.v[0].complete, "a new complete v3");
	ok(!store_series_dirty(&st), "clean after the rebuild");
	store_changes_release(&ch);
	store_rebuild_series(&st, &ch, &err);
	is_int(ch.nr, 0, "rebuilding again changes nothing");
	store_changes_release(&ch);

	/* more mail: 003 (two sends, one superseded) */
	add_mbox(&st, f003, &dups);
	store_rebuild_series(&st, &ch, &err);
	is_int(ch.nr, 2, "two new versions from 003");
	store_changes_release(&ch);
	/* the same changes again, one kept and one counted */
	{
		struct store_changes one = { .limit = 1 };

		db_exec(st.db, "DELETE FROM versions WHERE id IN (SELECT id FROM versions"
			" ORDER BY id DESC LIMIT 2)");
		store_mark_dirty(&st, &err);
		store_rebuild_series(&st, &one, &err);
		ok(one.nr == 1 && store_changes_count(&one) == 2,
		   "with a limit of one: one change kept, two counted");
		store_changes_release(&one);
	}

	/* a version no longer produced is kept as gone */
	db_exec(st.db, "DELETE FROM messages WHERE msgid = '20250115033807.46664-1-21cnbao@gmail.com'");
	store_mark_dirty(&st, &err);
	store_rebuild_series(&st, &ch, &err);
	{
		int gone = 0, added = 0;

		for (i = 0; i < ch.nr; i++) {
			gone += ch.v[i].kind == STORE_VERSION_GONE &&
				!strcmp(ch.v[i].id, "20250115033807.46664-1-21cnbao@gmail.com");
			added += ch.v[i].kind == STORE_VERSION_NEW &&
				!strcmp(ch.v[i].id, "20250115033807.46664-2-21cnbao@gmail.com");
		}
		ok(gone == 1 && added == 1,
		   "without its cover letter the version is gone, and one under patch 1's id is new");
	}
	store_changes_release(&ch);

	is_int(store_get_raw(&st, "20250115033807.46664-3-21cnbao@gmail.com", &raw, &err), 1,
	       "raw of a stored message");
	ok(util_starts_with(raw.buf, "From: Barry Song"), "as received");
	is_int(store_get_raw(&st, "nosuch@x", &raw, &err), 0, "unknown message");

	/* an unparsable message is stored too */
	{
		enum store_added ad;

		r = store_add_message(&st, 0, "\0\0\0", 3, &ad, NULL, &err);
		is_int(r, 0, "binary garbage is stored");
	}
	store_close(&st);
	unlink(path);
	{
		char *w = xasprintf("%s-wal", path), *s2 = xasprintf("%s-shm", path);

		unlink(w);
		unlink(s2);
		free(w);
		free(s2);
	}
	free(path);
	free(f003);
	free(f004);
	strbuf_release(&err);
	strbuf_release(&raw);
	return done_testing();
}
