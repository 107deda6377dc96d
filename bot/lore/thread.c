// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/lore/lore.h"
#include "bot/mail/mbox.h"
#include "bot/lore/thread.h"

struct sink {
	FILE *f;
	struct strbuf msg;
	size_t skipped;
};

/* mboxrd, as lore writes it */
static int write_msg(void *data, const struct mbox_msg *m)
{
	struct sink *s = data;

	if (m->too_big) {
		s->skipped++;
		return 0;
	}
	strbuf_reset(&s->msg);
	mbox_write_rd(&s->msg, "mboxrd@z", m->data, m->len);
	fwrite(s->msg.buf, 1, s->msg.len, s->f);
	return 0;
}

static char *first_list_url(const struct config *cfg)
{
	char **names = NULL, *url = NULL;
	size_t nr = config_subsections(cfg, CFG_SUB_list_url, &names), i;

	for (i = 0; i < nr; i++) {
		if (!url && config_sub(cfg, CFG_SUB_list_url, names[i]))
			url = xstrdup(config_sub(cfg, CFG_SUB_list_url, names[i]));
		free(names[i]);
	}
	free(names);
	return url;
}

int thread_to_mbox(const struct config *cfg, const char *url, const char *msgid,
		   char **path, struct strbuf *err)
{
	const char *dir = getenv("TMPDIR");
	char *base = url ? xstrdup(url) : first_list_url(cfg), *id;
	struct lore_opts lo;
	struct sink s = { .msg = STRBUF_INIT };
	struct lore l;
	int64_t n;
	int fd, ret = -1;

	*path = NULL;
	if (!base) {
		strbuf_addstr(err, "no inbox to ask: give --url or configure [list \"NAME\"] url");
		return -1;
	}
	id = xstrdup(msgid + (*msgid == '<'));
	if (*id && id[strlen(id) - 1] == '>')
		id[strlen(id) - 1] = '\0';
	lore_opts_from_config(&lo, cfg);
	if (lore_init(&l, base, &lo, err))
		goto out;
	*path = xasprintf("%s/lorebot-thread.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(*path);
	if (fd < 0 || !(s.f = fdopen(fd, "w"))) {
		strbuf_addf(err, "cannot create '%s': %s", *path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_lore;
	}
	n = lore_thread(&l, id, write_msg, &s, err);
	if (fclose(s.f) && n > 0) {
		strbuf_addf(err, "cannot write '%s': %s", *path, strerror(errno));
		n = -1;
	}
	if (n == 0)
		strbuf_addf(err, "<%s> is not known at %s", id, base);
	if (n > 0)
		ret = 0;
out_lore:
	lore_release(&l);
out:
	if (ret && *path) {
		unlink(*path);
		free(*path);
		*path = NULL;
	}
	strbuf_release(&s.msg);
	free(id);
	free(base);
	return ret;
}
