/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two ways of assembling series share: in memory (series.c)
 * and, for more mail than memory should hold, in a scratch database
 * (series-disk.c).  Both give the same result for the same messages.
 */
#ifndef LOREBOT_SERIES_INT_H
#define LOREBOT_SERIES_INT_H

#include "bot/series.h"

/* Patches sent without threading join a send posted within this time */
#define FALLBACK_WINDOW (60 * 60)
/* Climbing a reply chain stops after this many steps */
#define MAX_CLIMB 100000

/* What versions of one series share: change-id, or title and sender */
char *series_key(const struct send *s);
/* sr->id: a stable name made from the key of its first send */
void series_set_id(struct series *sr, const char *key);
/*
 * Sort a series' sends (version, date, id) and set superseded_by (the
 * better send of the same version, else the newest version) and resend.
 */
void series_order(struct series *sr);

struct mbox_msg;
struct mbox_reader;
/*
 * One message of an mbox parsed into m (pool: as msg_from_raw_pool()),
 * with its place in the file and a made-up Message-ID if it has none
 */
int msg_from_mbox(const char *raw, size_t len, size_t index, uint64_t offset,
		  struct strpool *pool, struct msg *m, struct strbuf *err);
/* A message over a->max_size: reported and counted, never held */
void assembly_too_big(struct assembly *a, size_t index, uint64_t size);
/* One message of an mbox, as assembly_add_mbox() takes it */
void assembly_add_one(struct assembly *a, const struct mbox_msg *mm);
/*
 * The rest of an mbox once the assembly is on disk, parsed in a thread
 * of its own (series-read.c); mbox_next()'s 0 or -errno at the end.
 */
int assembly_add_mbox_rest(struct assembly *a, struct mbox_reader *r);

/*
 * The scratch database: assembly_spill() moves every message there
 * (when the assembly grows past a->spill_after) and from then on
 * assembly_add_msg() writes each new one there.  0 or -1 (a->fatal).
 */
struct series_disk;
int series_disk_open(struct assembly *a);
void series_disk_close(struct assembly *a);
/* Takes m (malloc'ed or in a->pool) and releases it; NULL always */
struct msg *series_disk_add(struct assembly *a, struct msg *m);
size_t series_disk_nr(const struct assembly *a);
void series_disk_build(struct assembly *a);
/* Each send of each series, in the order of the in-memory assembly */
void series_disk_each_send(const struct assembly *a,
			   void (*fn)(const struct send *s, void *ctx), void *ctx);
/* Move a->problems to the database once it holds 64 KB */
void series_disk_flush_problems(struct assembly *a);
/* What was moved, in order, in pieces of whole lines */
void series_disk_each_problems(const struct assembly *a,
			       void (*fn)(const char *buf, size_t len, void *ctx),
			       void *ctx);

#endif
