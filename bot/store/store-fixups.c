// SPDX-License-Identifier: GPL-2.0
/* Diffs in replies: the messages that answer a patch with a diff (store.h) */
#include <stdlib.h>

#include "bot/store/store-int.h"

int store_fixups_of(struct store *st, const char *const *parents, size_t n,
		    struct fixup_rows *out, struct strbuf *err)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT msgid, parent, subject, from_name, from_email, date FROM messages"
		" WHERE parent = ? AND json_extract(meta, '$.has_diff')"
		" AND lower(subject) LIKE 're:%' ORDER BY date, id");
	size_t i;
	int r;

	if (!s) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (!parents[i])
			continue;
		if (db_bind_text(s, 1, parents[i])) {
			strbuf_addstr(err, db_error(st->db));
			return -1;
		}
		while ((r = db_step(s)) > 0) {
			struct fixup_row *f;

			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			f = &out->v[out->nr++];
			f->msgid = xstrdup_or_null(db_column_text(s, 0));
			f->parent = xstrdup_or_null(db_column_text(s, 1));
			f->subject = xstrdup_or_null(db_column_text(s, 2));
			f->from_name = xstrdup_or_null(db_column_text(s, 3));
			f->from_email = xstrdup_or_null(db_column_text(s, 4));
			f->date = db_column_int(s, 5);
		}
		db_reset(s);
		if (r < 0) {
			strbuf_addstr(err, db_error(st->db));
			return -1;
		}
	}
	return 0;
}

void store_fixup_rows_release(struct fixup_rows *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->v[i].msgid);
		free(r->v[i].parent);
		free(r->v[i].subject);
		free(r->v[i].from_name);
		free(r->v[i].from_email);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
