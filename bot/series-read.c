// SPDX-License-Identifier: GPL-2.0
/*
 * The rest of an mbox once assembly is on disk: one thread reads and
 * parses, the caller's writes to the scratch database.  Each takes about
 * half the time, and they overlap on two cores.
 *
 * The reading thread touches nothing of the assembly: it hands over
 * parsed messages (or what was wrong with one) through a short queue,
 * in order, and the caller does everything else exactly as
 * assembly_add_raw() would, problems included, so the output is the
 * same as reading in one thread.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bot/mbox.h"
#include "bot/series-int.h"

#define QUEUE 256

enum item_kind { ITEM_MSG, ITEM_FAILED, ITEM_TOO_BIG, ITEM_END };

struct item {
	enum item_kind kind;
	struct msg *m;		/* ITEM_MSG */
	char *err;		/* ITEM_FAILED */
	size_t index;
	uint64_t size;		/* ITEM_TOO_BIG */
	int ret;		/* ITEM_END: mbox_next()'s 0 or -errno */
};

struct pipe {
	struct mbox_reader *r;
	struct item q[QUEUE];
	size_t head, nr;
	bool stop;		/* the caller gave up: read no further */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
};

static void item_free(struct item *it)
{
	if (it->m)
		msg_free(it->m);
	free(it->err);
}

static void put(struct pipe *p, struct item *it)
{
	pthread_mutex_lock(&p->lock);
	while (p->nr == QUEUE && !p->stop)
		pthread_cond_wait(&p->room, &p->lock);
	if (p->stop) {
		pthread_mutex_unlock(&p->lock);
		item_free(it);
		return;
	}
	p->q[(p->head + p->nr++) % QUEUE] = *it;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

static void take(struct pipe *p, struct item *it)
{
	pthread_mutex_lock(&p->lock);
	while (!p->nr)
		pthread_cond_wait(&p->more, &p->lock);
	*it = p->q[p->head];
	p->head = (p->head + 1) % QUEUE;
	p->nr--;
	pthread_cond_signal(&p->room);
	pthread_mutex_unlock(&p->lock);
}

static bool stopped(struct pipe *p)
{
	bool stop;

	pthread_mutex_lock(&p->lock);
	stop = p->stop;
	pthread_mutex_unlock(&p->lock);
	return stop;
}

static void *reader(void *arg)
{
	struct pipe *p = arg;
	struct mbox_msg mm = MBOX_MSG_INIT;
	struct strbuf err = STRBUF_INIT;
	int ret = 0;

	while (!stopped(p) && (ret = mbox_next(p->r, &mm)) > 0) {
		struct item it = { .index = mm.index };

		if (mm.too_big) {
			it.kind = ITEM_TOO_BIG;
			it.size = mm.size;
		} else {
			it.m = xmalloc(sizeof(*it.m));
			strbuf_reset(&err);
			if (msg_from_mbox(mm.data, mm.len, mm.index, mm.offset,
					  NULL, it.m, &err)) {
				free(it.m);
				it.m = NULL;
				it.kind = ITEM_FAILED;
				it.err = xstrdup(err.buf);
			} else {
				it.kind = ITEM_MSG;
			}
		}
		put(p, &it);
	}
	if (!stopped(p)) {
		struct item end = { .kind = ITEM_END, .ret = ret };

		put(p, &end);
	}
	strbuf_release(&err);
	mbox_msg_release(&mm);
	return NULL;
}

int assembly_add_mbox_rest(struct assembly *a, struct mbox_reader *r)
{
	struct pipe p = { .r = r };
	struct item it;
	pthread_t t;
	int ret = 0;

	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.more, NULL);
	pthread_cond_init(&p.room, NULL);
	if (pthread_create(&t, NULL, reader, &p)) {
		/* no thread: read here, one after the other */
		struct mbox_msg mm = MBOX_MSG_INIT;

		while ((ret = mbox_next(r, &mm)) > 0 && !assembly_failed(a))
			assembly_add_one(a, &mm);
		mbox_msg_release(&mm);
		goto out;
	}
	for (;;) {
		take(&p, &it);
		if (it.kind == ITEM_END) {
			ret = it.ret;
			break;
		}
		if (it.kind == ITEM_TOO_BIG) {
			assembly_too_big(a, it.index, it.size);
		} else if (it.kind == ITEM_FAILED) {
			assembly_problem(a, it.index, NULL, "%s", it.err);
			a->errors++;
			free(it.err);
		} else {
			assembly_add_msg(a, it.m);
		}
		if (assembly_failed(a))
			break;
	}
	/* on failure: stop the reader, and free what it had queued */
	pthread_mutex_lock(&p.lock);
	p.stop = true;
	pthread_cond_broadcast(&p.room);
	pthread_mutex_unlock(&p.lock);
	pthread_join(t, NULL);
	while (p.nr) {
		it = p.q[p.head];
		p.head = (p.head + 1) % QUEUE;
		p.nr--;
		item_free(&it);
	}
out:
	pthread_cond_destroy(&p.more);
	pthread_cond_destroy(&p.room);
	pthread_mutex_destroy(&p.lock);
	return ret;
}
