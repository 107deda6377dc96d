/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An mbox into series, for the commands that take one (apply --mbox,
 * check --mbox, and their --msgid, the thread fetched from lore): the
 * messages are assembled into series versions in one pass, in bounded
 * memory as 'lorebot series' does (bodies are not kept), the versions
 * asked for are picked, and the messages wanted whole (patches, cover
 * letters, replies with a diff) are read again in a second pass.  Stdin
 * is copied to a temporary file first, since it is read twice.
 *
 *	struct series_mbox m;
 *	series_mbox_init(&m, cfg);
 *	if (series_mbox_read(&m, "-", &err)) ... cannot read ...
 *	nr = series_mbox_pick(&m, id, &sends);
 *	... want[msg->index] = true for each message wanted ...
 *	series_mbox_reread(&m, want, nr_want, fn, ctx);
 *	series_mbox_release(&m);
 */
#ifndef LOREBOT_SERIES_MBOX_H
#define LOREBOT_SERIES_MBOX_H

#include "bot/conf/config.h"
#include "bot/series/series.h"

struct series_mbox {
	struct assembly a;	/* built once read */
	const struct config *cfg;
	const char *path;	/* what was read: the file, or tmp */
	char *tmp;		/* stdin's copy or the thread fetched; removed */
};

/* An empty one, with mail.maxsize and series.trust of cfg */
void series_mbox_init(struct series_mbox *m, const struct config *cfg);
/* Read and assemble path ("-": stdin); 0 or -errno */
int series_mbox_read(struct series_mbox *m, const char *path);
/*
 * The thread of msgid from lore (url, else the first list.<name>.url),
 * then read as series_mbox_read(): 0, -1 with *err when it could not be
 * fetched (bot/lore/thread.h), or -errno when it could not be read
 */
int series_mbox_fetch(struct series_mbox *m, const char *url, const char *msgid,
		      struct strbuf *err);
void series_mbox_release(struct series_mbox *m);

/* Is s the version or its series of that id, or has it a patch of that Message-ID? */
bool series_send_is(const struct send *s, const char *id);
/*
 * The versions to look at into *out (caller frees the array): those that
 * have a patch, the current ones, or with id the one it names (a series
 * id: its current version; a version's or a patch's Message-ID: that
 * version, superseded or not).  Returns how many.
 */
size_t series_mbox_pick(const struct series_mbox *m, const char *id, struct send ***out);

/*
 * Read the mbox again: fn with each message whose index i has want[i]
 * (want has nr entries), whole; 0 or -errno
 */
typedef void series_mbox_fn(void *ctx, size_t index, const char *raw, size_t len);
int series_mbox_reread(const struct series_mbox *m, const bool *want, size_t nr,
		       series_mbox_fn *fn, void *ctx);

#endif
