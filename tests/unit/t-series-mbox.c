// SPDX-License-Identifier: GPL-2.0
/*
 * An mbox into series for apply and check (bot/series/series-mbox.c): which
 * versions --series picks (a series id: its current version; a version's
 * or a patch's Message-ID: the versions holding it, superseded or not),
 * the second pass over the messages wanted, and stdin read twice through
 * a copy that goes with the release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/series/series-mbox.h"
#include "tests/unit/tap.h"

struct seen {
	int calls;
	bool a32;	/* the v3 patch's own mail came, whole */
};

static void count(void *ctx, size_t index, const char *raw, size_t len)
{
	struct seen *s = ctx;

	(void)index;
	s->calls++;
	if (memmem(raw, len, "<a3-2>", 6) && memmem(raw, len, "\n\n", 2))
		s->a32 = true;
}

/* The ids of the versions picked for id, space-separated */
static char *picked(const struct series_mbox *m, const char *id)
{
	struct send **v;
	size_t nr = series_mbox_pick(m, id, &v), i;
	struct strbuf sb = STRBUF_INIT;

	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", v[i]->id);
	free(v);
	return strbuf_detach(&sb, NULL);
}

int main(void)
{
	struct config cfg = CONFIG_INIT;
	struct series_mbox m;
	struct seen seen = { 0 };
	char *path = xasprintf("%s/tests/fixtures/series/partial.mbox", tap_src());
	char *s, *tmp;
	bool *want;
	size_t i, nr = 0;

	config_parse(&cfg, NULL);
	series_mbox_init(&m, &cfg);
	is_int(series_mbox_read(&m, path), 0, "partial.mbox: v2, and v3 resending 2/2");
	s = picked(&m, NULL);
	is_str(s, "a3-2", "no id: the current version");
	free(s);
	s = picked(&m, m.a.sends[0]->series->id);
	is_str(s, "a3-2", "a series id: its current version only");
	free(s);
	s = picked(&m, "a2-0");
	is_str(s, "a2-0", "a version's id: that version, superseded as it is");
	free(s);
	s = picked(&m, "a2-1");
	is_str(s, "a2-0 a3-2", "a patch's Message-ID: every version that has it");
	free(s);
	s = picked(&m, "nothing");
	is_str(s, "", "an id of nothing: none");
	free(s);

	for (i = 0; i < m.a.nr; i++)
		nr = MAX(nr, m.a.msgs[i]->index + 1);
	want = xcalloc(nr, sizeof(*want));
	for (i = 0; i < m.a.nr; i++)
		if (!strcmp(m.a.msgs[i]->msgid, "a3-2"))
			want[m.a.msgs[i]->index] = true;
	is_int(series_mbox_reread(&m, want, nr, count, &seen), 0, "read again");
	ok(seen.calls == 1 && seen.a32, "only the message wanted, whole");
	series_mbox_release(&m);

	/* stdin: read twice, through a copy */
	if (!freopen(path, "r", stdin))
		return 1;
	series_mbox_init(&m, &cfg);
	is_int(series_mbox_read(&m, "-"), 0, "stdin");
	ok(m.tmp && !strcmp(m.path, m.tmp), "read from a copy");
	s = picked(&m, NULL);
	is_str(s, "a3-2", "the same versions");
	free(s);
	seen.calls = 0;
	seen.a32 = false;
	is_int(series_mbox_reread(&m, want, nr, count, &seen), 0, "stdin read again");
	ok(seen.calls == 1 && seen.a32, "... the message wanted");
	tmp = xstrdup(m.tmp);
	series_mbox_release(&m);
	ok(access(tmp, F_OK), "the copy goes with the release");
	free(tmp);
	free(want);
	free(path);
	config_release(&cfg);
	return done_testing();
}
