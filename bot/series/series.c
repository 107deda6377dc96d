// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/mail/mail.h"
#include "bot/mail/mbox.h"
#include "lib/log.h"
#include "lib/scratch.h"
#include "bot/series/series.h"
#include "bot/series/series-int.h"

/* Climbing a reply chain stops after this many steps */
#define MAX_CLIMB 100000


void series_init(struct assembly *a, size_t max_size)
{
	memset(a, 0, sizeof(*a));
	strbuf_init(&a->problems, 0);
	strbuf_init(&a->fatal, 0);
	strpool_init(&a->pool);
	strpool_init(&a->msg_structs);
	a->max_size = max_size ? max_size : 16 << 20;
}

void series_trust_senders(struct assembly *a, const char **senders, size_t nr)
{
	free(a->trusted);
	a->trusted = senders;
	a->nr_trusted = nr;
}

/* What a send holds outside the pool: trailers of messages not in it */
static void send_release(struct send *s)
{
	int i;

	for (i = 0; i < s->total; i++)
		patch_trailers_release(&s->patches[i].trailers);
	patch_trailers_release(&s->cover_trailers);
}

void series_msg_release(struct msg *m)
{
	size_t i;

	patch_trailers_release(&m->trailers);
	strbuf_release(&m->warnings);
	if (m->pool)
		return;		/* the rest goes with the pool */
	free(m->msgid);
	free(m->parent);
	for (i = 0; i < m->nr_refs; i++)
		free(m->refs[i]);
	free(m->refs);
	free(m->subject);
	free(m->title);
	subject_release(&m->subj);
	free(m->sender_name);
	free(m->sender_email);
	free(m->author_name);
	free(m->author_email);
	free(m->base_commit);
	free(m->change_id);
	free(m->diff_hash);
	for (i = 0; i < m->nr_links; i++)
		free(m->links[i]);
	free(m->links);
}

void series_msg_free(struct msg *m)
{
	series_msg_release(m);
	if (!m->pool)
		free(m);
}

void series_release(struct assembly *a)
{
	size_t i;

	/* the pool holds most: touch only what it does not (scratch) */
	for (i = 0; i < a->nr && a->nr_malloced; i++)
		if (a->msgs[i]->pool != &a->pool)
			series_msg_free(a->msgs[i]);
	if (!a->msgs_mapped)
		free(a->msgs);
	free(a->kinds);
	if (!a->state_mapped)
		free(a->state);
	strmap_release(&a->by_id);
	strmap_release(&a->roots);
	/* the trailers of messages in the pool are the pool's too */
	for (i = 0; i < a->nr_sends && a->nr_malloced; i++) {
		scratch_tick(a->scratch);
		send_release(a->sends[i]);
	}
	if (!a->sends_mapped)
		free(a->sends);
	if (!a->series_mapped)
		free(a->series);	/* the series themselves are in the pool */
	strbuf_release(&a->problems);
	strbuf_release(&a->fatal);
	strpool_release(&a->pool);
	strpool_release(&a->msg_structs);
	scratch_close(a->scratch);
	free(a->trusted);
}

/* Past series.memory, the problems go to the scratch file too */
#define PROBLEMS_KEPT (64 * 1024)

struct problems_block {
	struct problems_block *next;
	size_t len;
	char text[];
};

static void problems_to_scratch(struct assembly *a)
{
	struct problems_block *b;

	if (!a->problems.len)
		return;
	b = scratch_alloc(a->scratch, sizeof(*b) + a->problems.len);
	if (!b)
		return;		/* they stay here; scratch_error() says why */
	b->len = a->problems.len;
	memcpy(b->text, a->problems.buf, b->len);
	if (a->moved_last)
		a->moved_last->next = b;
	else
		a->moved = b;
	a->moved_last = b;
	strbuf_reset(&a->problems);
}

void series_problem(struct assembly *a, size_t index, const char *msgid,
		    const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(&a->problems, "message %zu", index + 1);
	if (msgid)
		strbuf_addf(&a->problems, " <%s>", msgid);
	strbuf_addstr(&a->problems, ": ");
	va_start(ap, fmt);
	strbuf_vaddf(&a->problems, fmt, ap);
	va_end(ap);
	strbuf_addch(&a->problems, '\n');
	if (a->scratch && a->problems.len >= PROBLEMS_KEPT)
		problems_to_scratch(a);
}

/* Message-IDs in lore links: https://lore.kernel.org/<list>/<msgid>/ */
static void find_links(const char *body, struct msg *m)
{
	const char *p = body;
	size_t alloc = 0;

	if (m->pool)	/* room for all: an arena does not grow arrays */
		m->links = strpool_alloc(m->pool, MSG_MAX_LINKS * sizeof(*m->links));

	while ((p = strstr(p, "://")) && m->nr_links < MSG_MAX_LINKS) {
		const char *end = p + 3, *seg;
		struct strbuf id = STRBUF_INIT;

		while (*end && !isspace((unsigned char)*end) && *end != '>' &&
		       *end != ')' && *end != '"')
			end++;
		/* the last path segment with an '@' (or %40) in it */
		for (seg = end; seg > p + 3; seg--) {
			const char *s = seg - 1;
			const char *e;

			if (*s != '/')
				continue;
			e = memchr(s + 1, '/', end - s - 1);
			if (!e)
				e = end;
			if (memmem(s + 1, e - s - 1, "@", 1) ||
			    memmem(s + 1, e - s - 1, "%40", 3)) {
				const char *q;

				for (q = s + 1; q < e; q++) {
					if (*q == '%' && q + 2 < e &&
					    isxdigit((unsigned char)q[1]) &&
					    isxdigit((unsigned char)q[2])) {
						char hex[3] = { q[1], q[2], 0 };

						strbuf_addch(&id, strtol(hex, NULL, 16));
						q += 2;
					} else {
						strbuf_addch(&id, *q);
					}
				}
				break;
			}
		}
		if (id.len && memchr(id.buf, '@', id.len) && !memchr(id.buf, '?', id.len)) {
			if (m->pool) {
				m->links[m->nr_links++] = strpool_intern(m->pool, id.buf);
			} else {
				ALLOC_GROW(m->links, m->nr_links + 1, alloc);
				m->links[m->nr_links++] = strbuf_detach(&id, NULL);
			}
		}
		strbuf_release(&id);
		p = end;
	}
}

char *series_msg_keep(struct msg *m, const char *s)
{
	return m->pool ? strpool_intern(m->pool, s) : xstrdup_or_null(s);
}

static char *keep(struct msg *m, const char *s)
{
	return series_msg_keep(m, s);
}

void series_msg_subject_to_pool(struct msg *m)
{
	struct subject *s = &m->subj;
	char *tree = s->tree, *prefixes = s->prefixes, *title = s->title;

	s->tree = keep(m, tree);
	s->prefixes = keep(m, prefixes);
	s->title = keep(m, title);
	free(tree);
	free(prefixes);
	free(title);
}

int series_msg_from_raw(const char *raw, size_t len, struct msg *m, struct strbuf *err)
{
	return series_msg_from_raw_pool(raw, len, NULL, m, err);
}

int series_msg_from_raw_pool(const char *raw, size_t len, struct strpool *pool,
			     struct msg *m, struct strbuf *err)
{
	struct mail mail;
	struct patch patch;
	const char *parent;
	size_t i, first, nr;

	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	if (mail_parse_flags(raw, len, MAIL_NO_RECIPIENTS | MAIL_TEXT_SENT, &mail, err)) {
		strbuf_release(&m->warnings);
		return -1;
	}
	m->pool = pool;
	m->trailers.pool = pool;
	strbuf_addbuf(&m->warnings, &mail.warnings);
	m->msgid = keep(m, mail.msgid);
	parent = mail_parent(&mail);
	m->parent = keep(m, parent);
	/* keep the root and the nearest ancestors */
	first = mail.nr_refs > MSG_MAX_REFS ? mail.nr_refs - (MSG_MAX_REFS - 1) : 1;
	nr = MIN(mail.nr_refs, MSG_MAX_REFS) + 1;
	m->refs = pool ? strpool_alloc(pool, nr * sizeof(*m->refs)) :
		xcalloc(nr, sizeof(*m->refs));
	for (i = 0; i < mail.nr_refs; i++)
		if (i == 0 || i >= first)
			m->refs[m->nr_refs++] = keep(m, mail.refs[i]);
	m->subject = pool ? strpool_strdup(pool, mail.subject ? mail.subject : "") :
		xstrdup(mail.subject ? mail.subject : "");
	subject_parse(m->subject, &m->subj);
	if (pool)
		series_msg_subject_to_pool(m);
	m->sender_name = keep(m, mail.from.name);
	m->sender_email = keep(m, mail.from.email);
	m->date = mail.date;
	m->tz = mail.tz;
	m->has_diff = patch_body_has_diff(mail.body, mail.body_len);
	/*
	 * A cover letter has a diffstat: b4 reads a diff-less parent of
	 * patches that has one as their cover letter, whatever its tags
	 * ("[PATCHSET v2]", "[PATCHSET 1/4]"), and its version as theirs
	 */
	m->has_diffstat = !m->has_diff && m->subj.patch &&
		!m->subj.reply && !m->subj.forward &&
		patch_body_has_diffstat(mail.body, mail.body_len);

	if (!m->subj.reply && !m->subj.forward &&
	    (m->has_diff || (m->subj.patch && m->subj.counted) || m->has_diffstat)) {
		patch_extract_flags(&mail, PATCH_HEAD, &patch);
		m->author_name = keep(m, patch.author_name);
		m->author_email = keep(m, patch.author_email);
		m->title = keep(m, patch.subject);
		m->base_commit = keep(m, patch.base_commit);
		m->change_id = keep(m, patch.change_id);
		if (m->has_diff) {
			char hex[PATCH_HASH_HEX];

			patch_diff_hash(mail.body, mail.body_len, hex);
			/* unique: not worth interning */
			m->diff_hash = pool ? strpool_strdup(pool, hex) : xstrdup(hex);
		}
		if (pool) {
			for (i = 0; i < patch.trailers.nr; i++)
				patch_trailers_add(&m->trailers, patch.trailers.t[i].name,
						   patch.trailers.t[i].value);
		} else {
			m->trailers = patch.trailers;
			memset(&patch.trailers, 0, sizeof(patch.trailers));
		}
		patch_release(&patch);
		if ((m->subj.counted && m->subj.n == 0) || m->has_diffstat)
			find_links(mail.body ? mail.body : "", m);
	} else {
		m->author_name = keep(m, mail.from.name);
		m->author_email = keep(m, mail.from.email);
		m->title = keep(m, m->subj.title);
		if (m->parent)
			patch_reply_trailers(&mail, false, &m->trailers);
	}
	mail_release(&mail);
	return 0;
}

static void classify(struct msg *m);

/* Keep what a reply needs: its place in the thread and its trailers */
static void msg_trim(struct msg *m)
{
	if (m->pool) {
		/* the pool keeps them; only interned ones are shared */
		m->subject = "";
		m->title = m->sender_name = m->author_name = m->author_email = NULL;
		memset(&m->subj, 0, sizeof(m->subj));
		m->subj.reply = true;
		return;
	}
	free(m->subject);
	m->subject = xstrdup("");
	free(m->title);
	free(m->sender_name);
	free(m->author_name);
	free(m->author_email);
	m->title = m->sender_name = m->author_name = m->author_email = NULL;
	subject_release(&m->subj);
	m->subj.reply = true;
}

/*
 * Room for n elements of size in *arr (which holds nr), taken from the
 * scratch file when there is one; *mapped says where *arr is.  With
 * no room left there, it grows in memory (scratch_error() says why).
 */
void series_array_resize(struct assembly *a, void **arr, size_t nr, size_t n,
			 size_t *alloc, size_t size, bool *mapped)
{
	void *to = a->scratch ? scratch_alloc(a->scratch, n * size) : NULL;
	bool in_scratch = to != NULL;

	if (!to && !*mapped) {
		*arr = xrealloc(*arr, n * size);
		*alloc = n;
		return;
	}
	if (!to)
		to = xmalloc(n * size);
	/* both arrays mapped in at once, no tick between */
	scratch_room(a->scratch, (in_scratch ? n * size : 0) + (*mapped ? nr * size : 0));
	if (nr)
		memcpy(to, *arr, nr * size);
	if (!*mapped)
		free(*arr);
	else
		scratch_forget(a->scratch, *arr, nr * size);
	*mapped = in_scratch;
	*arr = to;
	*alloc = n;
}


static void add_msg(struct assembly *a, struct msg *m)
{
	ARRAY_GROW(a, a->msgs, a->nr, a->alloc, a->msgs_mapped);
	/* a byte a message: in memory even past series.memory */
	ALLOC_GROW(a->kinds, a->nr + 1, a->alloc_kinds);
	m->slot = a->nr;
	a->kinds[a->nr] = (unsigned char)m->kind;
	a->msgs[a->nr++] = m;
}

void series_msg_set_missing_id(struct msg *m, const char *raw, size_t len)
{
	char h[17];

	if (m->msgid)
		return;
	util_hash_hex(raw, len, h);
	m->msgid = xasprintf("lorebot-%s@" MSG_MISSING_ID_DOMAIN, h);
	if (m->pool) {
		char *id = m->msgid;

		m->msgid = strpool_intern(m->pool, id);
		free(id);
	}
}

struct msg *series_add_msg(struct assembly *a, struct msg *m)
{
	size_t index = m->index;
	const char *line;

	if (util_ends_with(m->msgid, "@" MSG_MISSING_ID_DOMAIN))
		series_problem(a, index, NULL,
			       "no 'Message-ID' header; using <%s>", m->msgid);
	for (line = m->warnings.buf; *line; ) {
		const char *nl = strchr(line, '\n');
		int n = nl ? (int)(nl - line) : (int)strlen(line);

		if (!strstr(line, "Message-ID"))
			series_problem(a, index, m->msgid, "%.*s", n, line);
		line += n + (nl ? 1 : 0);
	}
	strbuf_release(&m->warnings);	/* reported */
	/*
	 * Replies and other discussion only need their place in the thread
	 * and the trailers they give: drop the rest now, so that memory
	 * grows with the patches of a large mbox, not with its chatter.
	 */
	classify(m);
	if ((m->kind == MSG_REPLY || m->kind == MSG_OTHER) && !m->has_diffstat)
		msg_trim(m);
	if (strmap_get(&a->by_id, m->msgid)) {
		series_problem(a, index, m->msgid,
			       "duplicate Message-ID; the first copy is used");
		series_msg_free(m);
		return NULL;
	}
	strmap_put(&a->by_id, m->msgid, m);
	add_msg(a, m);
	a->maybe_covers += m->has_diffstat;
	if (m->pool != &a->pool)
		a->nr_malloced++;
	return m;
}

static int msg_from_mbox(const char *raw, size_t len, size_t index, uint64_t offset,
			 struct strpool *pool, struct msg *m, struct strbuf *err)
{
	if (series_msg_from_raw_pool(raw, len, pool, m, err))
		return -1;
	m->index = index;
	m->offset = offset;
	m->size = len;
	series_msg_set_missing_id(m, raw, len);
	return 0;
}

/* What the messages held in memory take, roughly */
static size_t held(const struct assembly *a)
{
	/* the pools, per message a pointer, a kind and two hash entries, problems */
	return a->pool.bytes + a->msg_structs.bytes + a->nr * 57 + a->problems.len;
}

/* The first problem the scratch file met becomes the assembly's; 0 or -1 */
static int scratch_failed(struct assembly *a)
{
	const char *why = scratch_error(a->scratch);

	if (why && !a->fatal.len)
		strbuf_addstr(&a->fatal, why);
	return series_failed(a);
}

/*
 * Past series.memory: everything the assembly holds moves to a scratch
 * file, where it is (see lib/scratch.h), and what it allocates from
 * now on comes from there.  0 or -1 (a->fatal).
 */
static int assembly_spill(struct assembly *a)
{
	struct strbuf err = STRBUF_INIT;

	if (scratch_open(&a->scratch, a->spill_after, &err)) {
		strbuf_addbuf(&a->fatal, &err);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	log_debug("series: more than %zu bytes of messages after %zu; "
		  "assembling in a scratch file", a->spill_after, a->nr);
	strpool_use_scratch(&a->pool, a->scratch);
	strpool_use_scratch(&a->msg_structs, a->scratch);
	strmap_use_scratch(&a->by_id, a->scratch);
	strmap_use_scratch(&a->roots, a->scratch);
	/* the list of messages too, with room for more */
	if (a->alloc) {
		void *p = a->msgs;

		series_array_resize(a, &p, a->nr, a->alloc * 3 / 2 + 16, &a->alloc,
				    sizeof(*a->msgs), &a->msgs_mapped);
		a->msgs = p;
	}
	problems_to_scratch(a);
	/* hand back what the tables took: the window takes its place */
	malloc_trim(0);
	return scratch_failed(a);
}

/*
 * Once per unit of work (a message, a send): past series.memory, move to
 * a scratch file (in place, so at any time, building included), and
 * once there, keep to its window.
 */
void series_tick(struct assembly *a)
{
	if (a->scratch) {
		scratch_tick(a->scratch);
		scratch_failed(a);
	} else if (a->spill_after && held(a) > a->spill_after &&
		   !series_failed(a)) {
		assembly_spill(a);
	}
}

struct msg *series_add_raw(struct assembly *a, const char *raw, size_t len,
			   size_t index, uint64_t offset)
{
	struct strbuf err = STRBUF_INIT;
	/* in the pool: one that cannot be parsed wastes its bytes there */
	struct msg *m = series_msg_alloc(a);

	if (msg_from_mbox(raw, len, index, offset, &a->pool, m, &err)) {
		series_problem(a, index, NULL, "%s", err.buf);
		strbuf_release(&err);
		a->errors++;
		return NULL;
	}
	strbuf_release(&err);
	m = series_add_msg(a, m);
	series_tick(a);
	return m;
}

static void assembly_too_big(struct assembly *a, size_t index, uint64_t size)
{
	series_problem(a, index, NULL, "too large (%llu bytes, limit %zu); skipped",
		       (unsigned long long)size, a->max_size);
	a->errors++;
}

static void assembly_add_one(struct assembly *a, const struct mbox_msg *mm)
{
	if (mm->too_big)
		assembly_too_big(a, mm->index, mm->size);
	else
		series_add_raw(a, mm->data, mm->len, mm->index, mm->offset);
}

int series_add_mbox(struct assembly *a, const char *path)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	int ret;

	ret = mbox_open(&r, path, a->max_size);
	if (ret)
		return ret;
	mbox_set_view(&r, true);
	while ((ret = mbox_next(&r, &mm)) > 0) {
		assembly_add_one(a, &mm);
		if (series_failed(a))
			break;
	}
	mbox_msg_release(&mm);
	mbox_close(&r);
	return series_failed(a) ? -EIO : ret;
}

/* classification */

static void classify(struct msg *m)
{
	const struct subject *s = &m->subj;

	if (s->reply || s->forward) {
		m->kind = m->parent ? MSG_REPLY : MSG_OTHER;
		return;
	}
	if (s->patch && s->counted && s->n == 0) {
		m->kind = MSG_COVER;
		return;
	}
	if (m->has_diff) {
		m->kind = MSG_PATCH;
		return;
	}
	/* trailers sent in reply without "Re:" (b4 does the same) */
	m->kind = m->parent ? MSG_REPLY : MSG_OTHER;
}

static void key_add(const char *kind, const char *v, struct strbuf *sb,
		    void (*fn)(const char *key, void *ctx), void *ctx)
{
	if (!v || !*v)
		return;
	strbuf_reset(sb);
	strbuf_addf(sb, "%s:%s", kind, v);
	fn(sb->buf, ctx);
}

void series_msg_each_key(struct msg *m, void (*fn)(const char *key, void *ctx), void *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	enum msg_kind kind = m->kind;
	size_t i;

	/* the thread: what series_known_parent(), send_root() and replies climb */
	key_add("m", m->msgid, &sb, fn, ctx);
	key_add("m", m->parent, &sb, fn, ctx);
	for (i = 0; i < m->nr_refs; i++)
		key_add("m", m->refs[i], &sb, fn, ctx);
	classify(m);
	if (m->kind == MSG_PATCH || m->kind == MSG_COVER || m->has_diffstat) {
		char *t = subject_normalise_title(m->title);

		/* cover letters' lore links, series keys, fallback grouping */
		for (i = 0; i < m->nr_links; i++)
			key_add("m", m->links[i], &sb, fn, ctx);
		char *st = xasprintf("%s\n%s", m->sender_email ? m->sender_email : "",
				     t ? t : "");

		/* series_key(): a sender's sends of one title are one series */
		key_add("st", st, &sb, fn, ctx);
		free(st);
		/* series_group_fallback(): a sender's sends of a version and count */
		if (m->sender_email && m->subj.total > 1) {
			st = xasprintf("%d %d %s", m->subj.version, m->subj.total,
				       m->sender_email);
			key_add("f", st, &sb, fn, ctx);
			free(st);
		}
		key_add("c", m->change_id, &sb, fn, ctx);
		key_add("t", t, &sb, fn, ctx);
		free(t);
	}
	m->kind = kind;
	strbuf_release(&sb);
}

char *series_msg_unthreaded_key(const struct msg *m)
{
	if (!m->unthreaded || !m->sender_email || m->subj.total <= 1)
		return NULL;
	return xasprintf("u:%d %d %s", m->subj.version, m->subj.total, m->sender_email);
}

bool series_same_sender(const char *x, const char *y)
{
	return !strcmp(x ? x : "", y ? y : "");
}

static bool same_send(const struct msg *a, const struct msg *b)
{
	if (a->kind != MSG_PATCH && a->kind != MSG_COVER)
		return false;
	if (b->kind != MSG_PATCH && b->kind != MSG_COVER)
		return false;
	return a->subj.version == b->subj.version &&
		a->subj.total == b->subj.total &&
		a->sender_email && b->sender_email &&
		!strcmp(a->sender_email, b->sender_email);
}

/*
 * A string of m's, interned in the assembly's pool: the strings of a
 * message parsed into that pool are there already, and looking them up
 * again would map pages of the scratch file back in.
 */
static char *in_pool(struct assembly *a, const struct msg *m, char *s)
{
	return m->pool == &a->pool ? s : strpool_intern(&a->pool, s);
}

struct send *series_new_send(struct assembly *a, const struct msg *first)
{
	/* sends live as long as the messages: in the pool too */
	struct send *s = strpool_alloc(&a->pool, sizeof(*s));

	s->total = first->subj.total;
	s->version = first->subj.version;
	s->patches = strpool_alloc(&a->pool, s->total * sizeof(*s->patches));
	s->sender_email = in_pool(a, first, first->sender_email);
	s->date = first->date;
	s->cover_trailers.pool = &a->pool;
	ARRAY_GROW(a, a->sends, a->nr_sends, a->alloc_sends, a->sends_mapped);
	a->sends[a->nr_sends++] = s;
	return s;
}

/* Room in s for patch n of a cover letter that counted fewer (b4 takes the most) */
static void send_fit(struct assembly *a, struct send *s, int n)
{
	struct send_patch *p;

	if (n <= s->total)
		return;
	p = strpool_alloc(&a->pool, n * sizeof(*p));
	memcpy(p, s->patches, s->total * sizeof(*p));
	s->patches = p;
	s->total = n;
}

void series_send_put(struct assembly *a, struct send *s, struct msg *m)
{
	struct send_patch *slot;

	series_state(a, m)->send = s;
	if (m->date && (!s->date || m->date < s->date))
		s->date = m->date;
	if (m->kind == MSG_COVER) {
		if (s->cover && s->cover != m)
			series_problem(a, m->index, m->msgid,
				       "second cover letter in one send; ignored");
		else
			s->cover = m;
		return;
	}
	send_fit(a, s, m->subj.n);
	slot = &s->patches[m->subj.n - 1];
	if (slot->msg) {
		/* the same N/M posted twice in one thread: keep the later */
		struct msg *old = slot->msg;

		series_problem(a, m->index, m->msgid,
			       "patch %d/%d posted twice in one send; "
			       "using the later copy", m->subj.n, s->total);
		if (m->date < old->date) {
			old = m;
			m = slot->msg;
		}
		series_state(a, old)->send = NULL;
		series_kind_set(a, old, MSG_OTHER);
	} else {
		s->have++;
	}
	slot->msg = m;
}

struct msg *series_known_parent(struct assembly *a, const struct msg *m)
{
	struct msg *p = strmap_get(&a->by_id, m->parent);
	size_t i;

	/* the parent is missing: the nearest known ancestor */
	for (i = m->nr_refs; !p && i-- > 0; )
		p = strmap_get(&a->by_id, m->refs[i]);
	return p;
}

/*
 * May m join the send of p, a cover letter of its version it replies to
 * though it counts another number of patches (b4 reads one series)?  When
 * it is of p's sender, or p has none of its sender's patches (a
 * maintainer posting others' patches with their From:, or an author
 * writing from two addresses), or m is numbered past its count (one more
 * patch for the series, "[PATCH 16/15]", whoever sends it).
 */
static bool joins_cover(struct assembly *a, const struct msg *p, const struct msg *m)
{
	return p->kind == MSG_COVER && p->subj.version == m->subj.version &&
		(series_same_sender(p->sender_email, m->sender_email) ||
		 !series_state(a, p)->own_patches || m->subj.past_count);
}

/*
 * The topmost ancestor of m that belongs to the same send, or NULL:
 * patches threaded to the cover letter (--thread=shallow), to patch 1
 * (no cover letter) or each to the previous one (--chain-reply-to).  A
 * patch numbered past its count ("[PATCH 4/3]") in reply to a patch of
 * its version is one more of that patch's send, as b4 reads it: *via is
 * then that patch, and NULL returned.
 */
static struct msg *root_once(struct assembly *a, struct msg *m, struct msg **via)
{
	struct msg *top = NULL, *cur = m, *p;
	size_t i, steps = 0;

	for (i = 0; i < m->nr_refs && !top; i++) {
		p = strmap_get(&a->by_id, m->refs[i]);
		if (p && p != m && same_send(p, m))
			top = cur = p;
	}
	while (steps++ < MAX_CLIMB) {
		p = series_known_parent(a, cur);
		if (!p || p == m)
			break;
		if (!same_send(p, m)) {
			if (cur->kind == MSG_PATCH && joins_cover(a, p, m))
				top = p;
			else if (cur == m && m->subj.past_count &&
				 p->kind == MSG_PATCH && p->subj.version == m->subj.version)
				*via = p;
			break;
		}
		top = cur = p;
	}
	return top;
}

/* root_once(), through the patches numbered past their count */
static struct msg *send_root(struct assembly *a, struct msg *m)
{
	struct msg *top, *via;
	bool extends = false;
	size_t steps = 0;

	for (;;) {
		via = NULL;
		top = root_once(a, m, &via);
		if (!via || steps++ >= MAX_CLIMB)
			return top ? top : extends ? m : NULL;
		/* the send of the patch it extends: of its root, or its own */
		m = via;
		extends = true;
	}
}

/*
 * Cover letters as b4 reads them, before patches are grouped.  The
 * parent of a patch of its sender (or of another: joins_cover()) that
 * has no diff but a diffstat is
 * the cover letter, "0/N" or not ("[PATCHSET v2]", "[PATCHSET 1/4]");
 * a patch that gives no version ("[PATCH 2/5]") in reply to a cover
 * letter with a diffstat, or of its count, is of the cover letter's
 * version ("[PATCHSET v2 0/5]", "[PATCH RFC 0/6 v2]": b4 0.12 wants the
 * diffstat, else it reads v1 without a cover letter, and a cover-only
 * v2); and a cover letter with a diffstat that only patches of another
 * version reply to ("[PATCH v2 0/3]" above "[PATCH v3 n/3]") is theirs,
 * of the newest of them.  (b4 gives a patch that has no version the
 * version of the patch 1 it replies to, too: upthread_version().)
 */
static struct msg *cover_of(struct assembly *a, struct msg *m)
{
	struct msg *p;

	if (!m->subj.counted || m->subj.n < 1)
		return NULL;
	p = series_known_parent(a, m);
	if (!p || p->has_diff || !(p->kind == MSG_COVER || p->has_diffstat))
		return NULL;
	/* another's patches: see joins_cover() */
	if (!series_same_sender(p->sender_email, m->sender_email) &&
	    series_state(a, p)->own_patches && !m->subj.past_count)
		return NULL;
	return p;
}

/* fn(m) for every message of a kind, in order */
static void each_of_kind(struct assembly *a, enum msg_kind kind,
			 void (*fn)(struct assembly *a, struct msg *m, void *ctx),
			 void *ctx)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		series_tick(a);
		if (series_kind_of(a, i) == kind)
			fn(a, a->msgs[i], ctx);
	}
}

/* m's parent, when a cover letter (or its diffstat parent), has its sender's patches */
static void mark_own(struct assembly *a, struct msg *m, void *ctx)
{
	struct msg *p;

	(void)ctx;
	if (!m->subj.counted || m->subj.n < 1)
		return;
	p = series_known_parent(a, m);
	if (p && !p->has_diff && (p->kind == MSG_COVER || p->has_diffstat) &&
	    series_same_sender(p->sender_email, m->sender_email))
		series_state(a, p)->own_patches = true;
}

/*
 * A patch that gives no version, sent by its author in reply to patch 1
 * of a version (a companion series), or numbered past its count by
 * anyone ("[PATCH 4/3]"): of that version, as b4 reads it
 */
static void upthread_version(struct assembly *a, struct msg *m)
{
	struct msg *p;

	if (m->subj.version != 1 || !m->subj.counted || m->subj.n < 1)
		return;
	p = series_known_parent(a, m);
	if (p && p->kind == MSG_PATCH && p->subj.n == 1 && p->subj.version != 1 &&
	    (series_same_sender(p->sender_email, m->sender_email) || m->subj.past_count))
		m->subj.version = p->subj.version;
}

/*
 * Where a cover letter and the patches of its send all reply to one
 * message (v4 sent in reply to v3's cover letter, without threading to
 * its own): the key of both
 */
static char *sibling_key(const struct msg *m, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s\n%d %d %s", m->parent, m->subj.version, m->subj.total,
		    m->sender_email ? m->sender_email : "");
	return sb->buf;
}

struct siblings {
	struct strmap map;
	struct strbuf sb;
};

static void add_sibling(struct assembly *a, struct msg *m, void *ctx)
{
	struct siblings *sib = ctx;

	if (m->parent && m->sender_email && !strmap_get(&sib->map, sibling_key(m, &sib->sb)))
		strmap_put(&sib->map, strpool_strdup(&a->pool, sib->sb.buf), m);
}

/* The cover letters that reply to something, by sibling_key() */
static void map_siblings(struct assembly *a, struct siblings *sib)
{
	if (a->scratch)
		strmap_use_scratch(&sib->map, a->scratch);
	each_of_kind(a, MSG_COVER, add_sibling, sib);
}

static void adopt_covers(struct assembly *a)
{
	struct siblings sib = { STRMAP_INIT, STRBUF_INIT };
	size_t i;

	/* the cover letters their sender's patches reply to */
	each_of_kind(a, MSG_PATCH, mark_own, NULL);

	for (i = 0; i < a->nr; i++) {
		struct msg *m, *p;

		series_tick(a);
		if (series_kind_of(a, i) != MSG_PATCH)
			continue;
		m = a->msgs[i];
		p = cover_of(a, m);
		if (!p) {
			upthread_version(a, m);
			continue;
		}
		if (p->kind != MSG_COVER) {
			series_kind_set(a, p, MSG_COVER);
			p->subj.counted = true;
			p->subj.n = 0;
			p->subj.total = m->subj.total;
			if (p->subj.version == 1)
				p->subj.version = m->subj.version;
		}
		if (m->subj.version == 1 &&
		    (p->has_diffstat || p->subj.total == m->subj.total))
			m->subj.version = p->subj.version;
		if (m->subj.version == p->subj.version)
			series_state(a, p)->cover_matched = true;
	}
	if (!a->maybe_covers)
		return;
	/* a cover letter of their own, beside the one they reply to, is theirs */
	map_siblings(a, &sib);
	for (i = 0; i < a->nr; i++) {
		struct msg *m, *p;

		series_tick(a);
		if (series_kind_of(a, i) != MSG_PATCH)
			continue;
		m = a->msgs[i];
		p = cover_of(a, m);
		if (!p || !p->has_diffstat || p->subj.version == m->subj.version ||
		    series_state(a, p)->cover_matched ||
		    strmap_get(&sib.map, sibling_key(m, &sib.sb)))
			continue;
		/* the newest version of those replying to it */
		if (!series_state(a, p)->cover_taken ||
		    p->subj.version < m->subj.version)
			p->subj.version = m->subj.version;
		series_state(a, p)->cover_taken = true;
	}
	strmap_release(&sib.map);
	strbuf_release(&sib.sb);
}

/* every cover letter opens a send */
static void open_send(struct assembly *a, struct msg *m, void *ctx)
{
	(void)ctx;
	series_send_put(a, series_new_send(a, m), m);
	strmap_put(&a->roots, m->msgid, series_send_of(a, m));
}

static void group_threaded(struct assembly *a)
{
	struct strmap *roots = &a->roots;
	struct siblings sib = { STRMAP_INIT, STRBUF_INIT };
	size_t i;

	adopt_covers(a);
	each_of_kind(a, MSG_COVER, open_send, NULL);
	map_siblings(a, &sib);
	for (i = 0; i < a->nr; i++) {
		struct msg *m, *root;
		struct send *s;

		series_tick(a);
		if (series_kind_of(a, i) != MSG_PATCH)
			continue;
		m = a->msgs[i];
		if (m->subj.n < 1 || m->subj.n > m->subj.total)
			continue;
		root = send_root(a, m);
		s = NULL;
		if (!root && m->parent && m->sender_email) {
			struct msg *c = strmap_get(&sib.map, sibling_key(m, &sib.sb));

			s = c ? series_send_of(a, c) : NULL;
		}
		if (s) {
			/* its cover letter replies to what it replies to */
			series_send_put(a, s, m);
			continue;
		}
		if (!root) {
			/*
			 * Patch 1 of several with a parent outside the send
			 * (v2 sent in reply to v1) starts a send; patches
			 * without any threading are grouped later.
			 */
			if (m->subj.total > 1 && (m->subj.n > 1 || !m->parent))
				continue;
			root = m;
		}
		s = strmap_get(roots, root->msgid);
		if (!s) {
			s = series_new_send(a, root);
			strmap_put(roots, root->msgid, s);
		}
		series_send_put(a, s, m);
	}
	strmap_release(&sib.map);
	strbuf_release(&sib.sb);
}

int series_cmp_key(const void *x, const void *y)
{
	const struct sort_key *a = x, *b = y;

	if (a->date != b->date)
		return a->date < b->date ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * Sort keys in place (heapsort): glibc's qsort() would malloc a copy of
 * them, and with a million messages that is megabytes.  The keys are
 * all different, so the order is the same as any sort's.
 */
static void sift(struct assembly *a, struct sort_key *k, size_t i, size_t n,
		 int (*cmp)(const void *, const void *))
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct sort_key t;

		series_tick(a);	/* a tie compares Message-IDs, in the file */
		if (c >= n)
			return;
		if (c + 1 < n && cmp(&k[c], &k[c + 1]) < 0)
			c++;
		if (cmp(&k[i], &k[c]) >= 0)
			return;
		t = k[i];
		k[i] = k[c];
		k[c] = t;
		i = c;
	}
}

void series_sort_keys(struct assembly *a, struct sort_key *k, size_t n,
		      int (*cmp)(const void *, const void *))
{
	size_t i;

	for (i = n / 2; i-- > 0; )
		sift(a, k, i, n, cmp);
	for (i = n; i-- > 1; ) {
		struct sort_key t = k[0];

		k[0] = k[i];
		k[i] = t;
		sift(a, k, 0, i, cmp);
	}
}

static void finish_send(struct assembly *a, struct send *s)
{
	struct msg *head = s->cover;
	int i;

	for (i = 0; i < s->total && !head; i++)
		head = s->patches[i].msg;
	s->complete = s->have == s->total;
	s->id = in_pool(a, head, head->msgid);
	s->title = in_pool(a, head, head->title);
	s->tree = in_pool(a, head, head->subj.tree);
	s->author_name = in_pool(a, head, head->author_name);
	s->author_email = in_pool(a, head, head->author_email);
	s->rfc = head->subj.rfc;
	s->resend = head->subj.resend;
	s->base_commit = in_pool(a, head, head->base_commit);
	s->change_id = in_pool(a, head, head->change_id);
	for (i = 0; i < s->total; i++) {
		struct msg *p = s->patches[i].msg;

		if (!p)
			continue;
		if (!s->base_commit && p->base_commit)
			s->base_commit = in_pool(a, p, p->base_commit);
		if (!s->tree && p->subj.tree)
			s->tree = in_pool(a, p, p->subj.tree);
		s->rfc |= p->subj.rfc;
		s->resend |= p->subj.resend;
		/*
		 * The patch's own trailers start the list replies add to;
		 * without any, the list interns in the assembly's pool.
		 */
		s->patches[i].trailers = p->trailers;
		/*
		 * What replies give goes to a copy (made by the first
		 * one), near what assembly writes now: in a scratch file,
		 * writing beside the message would map its page back in.
		 */
		s->patches[i].trailers.alloc = p->trailers.nr;
		/*
		 * Only trailers of its own does the message free; in a
		 * pool the copy it keeps is never read again, and not
		 * writing it leaves its page clean.
		 */
		if (!p->trailers.pool)
			memset(&p->trailers, 0, sizeof(p->trailers));
		if (!s->patches[i].trailers.nr)
			s->patches[i].trailers.pool = &a->pool;
	}
}

/*
 * Replies: find the patch or cover replied to, collect their trailers.
 * The answer is kept for every reply on the way up, so that a chain is
 * climbed once whatever the order its messages came in (children before
 * their parents made this quadratic).
 */
struct climb {
	struct msg **path;
	size_t nr, alloc;
};

static struct msg *reply_target(struct assembly *a, struct msg *m,
				struct climb *c)
{
	struct msg *p = m, *t = NULL, *q;
	size_t i;

	c->nr = 0;
	for (;;) {
		struct msg_state *l = series_state(a, p);

		if (l->target_known) {
			t = l->target;
			break;
		}
		if (l->climbing)
			break;		/* a cycle: no target */
		ALLOC_GROW(c->path, c->nr + 1, c->alloc);
		c->path[c->nr++] = p;
		l->climbing = true;
		q = series_known_parent(a, p);
		if (!q)
			break;
		if ((q->kind == MSG_PATCH || q->kind == MSG_COVER) &&
		    series_send_of(a, q)) {
			t = q;
			break;
		}
		if (q->kind != MSG_REPLY && q->kind != MSG_OTHER)
			break;
		p = q;
		series_tick(a);
	}
	for (i = 0; i < c->nr; i++) {
		struct msg_state *l = series_state(a, c->path[i]);

		series_tick(a);
		l->target = t;
		l->target_known = true;
		l->climbing = false;
	}
	return t;
}

/*
 * What replies gave a patch, by its patch_diff_hash(): b4 0.12 carries
 * it to the patch of a later version with the same hash in the thread
 * (the mbox it reads; LoreMailbox.get_series(), its trailer_map).  Here
 * only to a patch of the same sender: the hash is a fast one, and no
 * one gains a review by a collision with their own patch.  Trailers
 * given on a cover letter stay with its version.
 */
struct given {
	int version;
	const char *root;	/* of the thread */
	const char *sender;	/* of the patch given them */
	const char *name, *value;
	const struct strpool *pool;	/* where name and value are interned */
};

struct given_list {
	struct given *g;
	size_t nr, alloc;
};

/* The thread's first message: the root of References, else the parent */
static const char *thread_root(const struct msg *m)
{
	return m->nr_refs ? m->refs[0] : m->parent ? m->parent : m->msgid;
}

static void give(struct assembly *a, struct strmap *given, const struct send *s,
		 const struct msg *target, const struct trailer *tr,
		 const struct strpool *pool)
{
	struct given_list *l = strmap_get(given, target->diff_hash);

	if (!l) {
		l = strpool_alloc(&a->pool, sizeof(*l));
		strmap_put(given, target->diff_hash, l);
	}
	if (l->nr + 1 > l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 2;

		l->g = strpool_grow(&a->pool, l->g, l->nr, n, sizeof(*l->g));
		l->alloc = n;
	}
	l->g[l->nr++] = (struct given){ s->version, thread_root(target),
					target->sender_email, tr->name, tr->value,
					pool };
}

/* Each patch takes what was given its diff in an earlier version */
static void carry_given(struct assembly *a, struct strmap *given)
{
	size_t i, j;
	int n;

	for (i = 0; i < a->nr_sends; i++) {
		struct send *s = a->sends[i];

		series_tick(a);
		for (n = 0; n < s->total; n++) {
			struct send_patch *sp = &s->patches[n];
			struct given_list *l;

			if (!sp->msg || !sp->msg->diff_hash ||
			    !(l = strmap_get(given, sp->msg->diff_hash)))
				continue;
			for (j = 0; j < l->nr; j++) {
				const struct given *g = &l->g[j];

				if (g->version >= s->version ||
				    strcmp(g->root, thread_root(sp->msg)) ||
				    !g->sender || !sp->msg->sender_email ||
				    strcmp(g->sender, sp->msg->sender_email) ||
				    patch_trailers_has(&sp->trailers, g->name, g->value))
					continue;
				patch_trailers_add_interned(&sp->trailers, g->name,
							    g->value, g->pool);
			}
		}
	}
}

static void attach_replies(struct assembly *a)
{
	struct strmap given = STRMAP_INIT;
	struct climb c = { 0 };
	bool gave = false;
	size_t i, t;
	int n;

	if (a->scratch)
		strmap_use_scratch(&given, a->scratch);

	for (i = 0; i < a->nr; i++) {
		enum msg_kind kind = series_kind_of(a, i);
		struct msg *m, *target;
		struct send *s;

		series_tick(a);
		if (kind != MSG_REPLY && kind != MSG_OTHER)
			continue;
		m = a->msgs[i];
		target = reply_target(a, m, &c);
		if (!target)
			continue;
		s = series_send_of(a, target);
		s->replies++;
		/*
		 * A patch is not a reply: the earlier copy of a patch posted
		 * twice keeps its own trailers (b4 reads only replies)
		 */
		if (m->has_diff && !m->subj.reply)
			continue;
		for (t = 0; t < m->trailers.nr && !m->has_diffstat; t++) {
			const struct trailer *tr = &m->trailers.t[t];

			if (target->kind == MSG_PATCH && target->diff_hash) {
				give(a, &given, s, target, tr, m->trailers.pool);
				gave = true;
			}
			if (target->kind == MSG_COVER &&
			    !patch_trailers_has(&s->cover_trailers, tr->name, tr->value))
				patch_trailers_add_interned(&s->cover_trailers, tr->name,
							    tr->value, m->trailers.pool);

			for (n = 0; n < s->total; n++) {
				struct send_patch *sp = &s->patches[n];

				if (target->kind == MSG_PATCH && sp->msg != target)
					continue;
				if (!sp->msg ||
				    patch_trailers_has(&sp->trailers, tr->name, tr->value))
					continue;
				patch_trailers_add_interned(&sp->trailers, tr->name,
							    tr->value, m->trailers.pool);
			}
		}
	}
	free(c.path);
	if (gave)
		carry_given(a, &given);
	strmap_release(&given);
}

/* a->state, zeroed: in the scratch file when there is one */
static int alloc_state(struct assembly *a)
{
	if (!a->nr)
		return 0;
	if (!a->scratch) {
		a->state = xcalloc(a->nr, sizeof(*a->state));
		return 0;
	}
	a->state = scratch_alloc(a->scratch, a->nr * sizeof(*a->state));
	a->state_mapped = true;
	return a->state ? 0 : scratch_failed(a);
}

void series_build(struct assembly *a)
{
	size_t i;

	if (series_failed(a) || alloc_state(a))
		return;
	group_threaded(a);
	series_group_fallback(a);
	for (i = 0; i < a->nr_sends; i++) {
		series_tick(a);
		finish_send(a, a->sends[i]);
	}
	attach_replies(a);
	series_complete_partial_resends(a);
	series_link(a);
	if (a->scratch)
		scratch_failed(a);
}

size_t series_nr_msgs(const struct assembly *a)
{
	return a->nr;
}

void series_each_send(const struct assembly *a,
		      void (*fn)(const struct send *s, void *ctx), void *ctx)
{
	size_t i, j;

	for (i = 0; i < a->nr_series; i++) {
		for (j = 0; j < a->series[i]->nr; j++) {
			scratch_tick(a->scratch);
			fn(a->series[i]->sends[j], ctx);
		}
	}
}

struct lines {
	void (*fn)(const char *line, size_t len, void *ctx);
	void *ctx;
};

static void each_line(const char *p, size_t len, void *ctx)
{
	const struct lines *l = ctx;
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		l->fn(p, n, l->ctx);
		p += n + (nl ? 1 : 0);
	}
}

void series_each_problem(const struct assembly *a,
			 void (*fn)(const char *line, size_t len, void *ctx),
			 void *ctx)
{
	struct lines l = { fn, ctx };
	const struct problems_block *b;

	for (b = a->moved; b; b = b->next) {
		scratch_tick(a->scratch);
		each_line(b->text, b->len, &l);
	}
	each_line(a->problems.buf, a->problems.len, &l);
}
