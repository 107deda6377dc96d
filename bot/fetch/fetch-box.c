// SPDX-License-Identifier: GPL-2.0
/* The sandbox of the daemon's fetch passes (bot/fetch/fetch-box.h) */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/fetch/fetch-box.h"

/* Started by root, the pass is this uid in its user namespace (nobody's) */
#define FETCH_UID_INSIDE 65534

static const char *box_own(struct fetch_box *b, char *s)
{
	b->own[b->nr_own++] = s;
	return s;
}

void fetch_box_release(struct fetch_box *b)
{
	while (b->nr_own)
		free(b->own[--b->nr_own]);
}

int fetch_box_make(struct fetch_box *b, const struct fetch_box_paths *p,
		   struct strbuf *err)
{
	static const char *const sqlite_files[] = { "-wal", "-shm" };
	const char *const maybe_hidden[] = { p->statedir, p->outbox, p->repo, p->cache };
	const char *tmp = box_own(b, xasprintf("%s/tmp", p->dir));
	size_t rw = 0, hide = 0, i;

	b->sb.enabled = true;
	b->sb.allow_net = true;
	/* it starts the jail of its mail parser (bot/store/store-jail.c) */
	if (geteuid() == 0)
		b->sb.uid_inside = FETCH_UID_INSIDE;
	b->rw[rw++] = p->db;
	for (i = 0; i < ARRAY_SIZE(sqlite_files); i++) {
		const char *f = box_own(b, xasprintf("%s%s", p->db, sqlite_files[i]));

		if (access(f, F_OK)) {
			strbuf_addf(err, "%s is missing (the database is not in WAL mode?)", f);
			return -1;
		}
		b->rw[rw++] = f;
	}
	if (util_mkdir_p(tmp, 0700)) {
		strbuf_addf(err, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	b->rw[rw++] = tmp;
	if (p->git) {
		const char *g = config_v(p->cfg)->lore_gitdir;
		char *gitdir = g ? util_path_absolute(g) : xasprintf("%s.lore", p->db);

		box_own(b, gitdir);
		if (util_mkdir_p(gitdir, 0755)) {
			strbuf_addf(err, "cannot create %s: %s", gitdir, strerror(errno));
			return -1;
		}
		b->rw[rw++] = gitdir;
	}
	b->sb.rw = b->rw;
	for (i = 0; i < ARRAY_SIZE(maybe_hidden); i++)
		if (maybe_hidden[i] && !access(maybe_hidden[i], F_OK))
			b->hide[hide++] = maybe_hidden[i];
	b->sb.hide = b->hide;
	b->ro[0] = p->config;
	b->sb.ro = b->ro;
	b->env[0] = box_own(b, xasprintf("TMPDIR=%s", tmp));
	return 0;
}
