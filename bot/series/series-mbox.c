// SPDX-License-Identifier: GPL-2.0
/* An mbox into series, for apply and check (bot/series/series-mbox.h) */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/mail/mbox.h"
#include "bot/series/series-mbox.h"
#include "bot/lore/thread.h"

void series_mbox_init(struct series_mbox *m, const struct config *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
	series_init(&m->a, config_v(cfg)->mail_maxsize);
	series_trust_senders(&m->a, config_list_copy(&config_v(cfg)->series_trust),
			     config_v(cfg)->series_trust.nr);
}

void series_mbox_release(struct series_mbox *m)
{
	series_release(&m->a);
	if (m->tmp)
		unlink(m->tmp);
	free(m->tmp);
	m->tmp = NULL;
}

/* stdin is read twice (series, then whole messages): keep a copy */
static int save_stdin(struct series_mbox *m)
{
	const char *dir = getenv("TMPDIR");
	char *buf = NULL;
	size_t len = 0;
	int fd, ret;

	m->tmp = xasprintf("%s/lorebot-mbox.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(m->tmp);
	if (fd < 0) {
		ret = -errno;
		free(m->tmp);
		m->tmp = NULL;
		return ret;
	}
	close(fd);
	ret = util_read_file("/dev/stdin", &buf, &len, SIZE_MAX);
	if (!ret)
		ret = util_write_file(m->tmp, buf, len);
	free(buf);
	return ret;
}

int series_mbox_read(struct series_mbox *m, const char *path)
{
	int ret;

	if (!strcmp(path, "-")) {
		ret = save_stdin(m);
		if (ret)
			return ret;
		path = m->tmp;
	}
	m->path = path;
	ret = series_add_mbox(&m->a, path);
	if (!ret)
		series_build(&m->a);
	return ret;
}

int series_mbox_fetch(struct series_mbox *m, const char *url, const char *msgid,
		      struct strbuf *err)
{
	if (thread_to_mbox(m->cfg, url, msgid, &m->tmp, err))
		return -1;
	return series_mbox_read(m, m->tmp);
}

bool series_send_is(const struct send *s, const char *id)
{
	int i;

	if (!strcmp(s->id, id) || (s->series && !strcmp(s->series->id, id)))
		return true;
	for (i = 0; i < s->total; i++)
		if (s->patches[i].msg && !strcmp(s->patches[i].msg->msgid, id))
			return true;
	return false;
}

size_t series_mbox_pick(const struct series_mbox *m, const char *id, struct send ***out)
{
	const struct assembly *a = &m->a;
	struct send **v = NULL;
	size_t i, j, nr = 0, alloc = 0;

	for (i = 0; i < a->nr_series; i++) {
		const struct series *se = a->series[i];

		for (j = 0; j < se->nr; j++) {
			struct send *s = se->sends[j];

			if (!s->have)
				continue;
			if (id ? !series_send_is(s, id) : !!s->superseded_by)
				continue;
			/* a series id: its current version only */
			if (id && !strcmp(se->id, id) && s->superseded_by)
				continue;
			ALLOC_GROW(v, nr + 1, alloc);
			v[nr++] = s;
		}
	}
	*out = v;
	return nr;
}

int series_mbox_reread(const struct series_mbox *m, const bool *want, size_t nr,
		       series_mbox_fn *fn, void *ctx)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	int ret = mbox_open(&r, m->path, m->a.max_size);

	if (ret)
		return ret;
	while ((ret = mbox_next(&r, &mm)) > 0)
		if (mm.index < nr && want[mm.index] && !mm.too_big)
			fn(ctx, mm.index, mm.raw.buf, mm.raw.len);
	mbox_msg_release(&mm);
	mbox_close(&r);
	return ret;
}
