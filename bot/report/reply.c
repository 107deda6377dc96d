// SPDX-License-Identifier: GPL-2.0
/*
 * Replies: compose what is due, apply the policies, deliver under the
 * state machine described in reply.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "lib/jsonx.h"
#include "lib/log.h"
#include "bot/mail/mbox.h"
#include "bot/base/net.h"
#include "bot/report/reply-int.h"
#include "bot/store/store-results.h"

void reply_summary_init(struct reply_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->replies = json_object_new_array();
	strbuf_init(&s->dry, 0);
}

void reply_summary_release(struct reply_summary *s)
{
	json_object_put(s->replies);
	strbuf_release(&s->dry);
	memset(s, 0, sizeof(*s));
}

/* Tests only: die here, as a crash or kill -9 would (see reply.h) */
static void test_crash(const char *point)
{
	const char *v = getenv("LOREBOT_TEST_CRASH");

	if (v && !strcmp(v, point)) {
		fflush(NULL);
		raise(SIGKILL);
	}
}

static const char *reply_mode(const struct reply_run_opts *o, const struct report_version *v)
{
	const char *mode = NULL;

	if (o->outbox)
		return "outbox";
	if (v->list)
		mode = config_sub(o->report.cfg, CFG_SUB_list_replymode, v->list);
	return mode && *mode ? mode : config_v(o->report.cfg)->reply_mode;
}

/* Why this reply is not to be mailed at all, or NULL */
static const char *skip_reason(const struct reply_run_opts *o, const struct report_version *v,
			       const struct reply_mail *m, const char *mode)
{
	if (!strcmp(mode, "off"))
		return "reply mode is off";
	if (v->rfc && !config_v(o->report.cfg)->reply_rfc)
		return "RFC series (reply.rfc is off)";
	if (m->to.nr && report_ignored(o->report.cfg, m->to.v[0].email))
		return "the author is on reply.ignore";
	return NULL;
}

static void note_row(struct store *st, int64_t id, struct reply_summary *sum,
		     const char *file)
{
	struct strbuf err = STRBUF_INIT;
	struct reply_row r;
	json_object *o;

	if (store_replies_load(st, id, &r, &err) > 0) {
		size_t i;

		o = reply_row_json(&r, false);
		if (file)
			json_object_object_add(o, "file", json_object_new_string(file));
		/* the latest state of a reply tried several times */
		for (i = 0; i < json_object_array_length(sum->replies); i++)
			if (json_object_get_int64(json_object_object_get(
				json_object_array_get_idx(sum->replies, i), "id")) == id)
				break;
		if (i < json_object_array_length(sum->replies))
			json_object_array_put_idx(sum->replies, i, o);
		else
			json_object_array_add(sum->replies, o);
		store_reply_row_release(&r);
	}
	strbuf_release(&err);
}

/*
 * Has v been replied to already (any kind: a reply is once per version,
 * and once more after each retest)?
 */
static int replied(struct store *st, const struct report_version *v)
{
	struct strbuf kind = STRBUF_INIT;
	int k, r = 0;

	for (k = 0; k < REPLY_KIND_NR && !r; k++) {
		strbuf_reset(&kind);
		report_kind_round(&kind, k, v->retests);
		r = store_replies_exists(st, v->id, kind.buf);
	}
	strbuf_release(&kind);
	return r;
}

/* The reply and its report's record: both or neither */
static int insert(struct store *st, const struct report_version *v, const struct reply_mail *m,
		  const char *mode, const char *why, int64_t now, int64_t *rowid,
		  struct strbuf *err)
{
	bool own = !db_in_transaction(st->db);
	struct strbuf kind = STRBUF_INIT;
	struct store_reply row = {
		.patch = m->patch, .msgid = m->msgid, .in_reply_to = m->in_reply_to,
		.subject = m->subject, .to = &m->to, .cc = &m->cc, .text = &m->text,
		.report_id = m->report_id, .snapshot = m->snapshot,
		.files = m->files, .nr_files = m->nr_files,
	};
	int r;

	if (own && store_begin(st, err))
		return -1;
	report_kind_round(&kind, m->kind, m->round);
	r = store_replies_insert(st, v->id, kind.buf, &row, mode, why ? "skipped" : "queued",
				 why, now, rowid, err);
	strbuf_release(&kind);
	if (r) {
		if (own)
			store_rollback(st);
		return -1;
	}
	return own ? store_commit(st, err) : 0;
}

static int plan_version(struct store *st, const struct reply_run_opts *o, const char *id,
			struct reply_summary *sum, struct strbuf *err)
{
	struct strbuf cerr = STRBUF_INIT;
	struct report_version v;
	struct reply_due due;
	struct reply_mail m;
	const char *mode, *why;
	int64_t rowid = 0;
	int r, ret = 0;

	r = report_version_load(st, id, 0, &v, err);
	if (r <= 0)
		return r;
	/* a later outcome (a retried stage) amends nothing already sent */
	r = report_due(&v, &o->report, &due) ? replied(st, &v) : 1;
	if (r) {
		if (r < 0) {
			strbuf_addstr(err, db_error(st->db));
			ret = -1;
		}
		report_version_release(&v);
		return ret;
	}
	report_mail_init(&m);
	if (report_compose(st, &v, &due, &o->report, &m, &cerr)) {
		/* one version that cannot be answered does not stop the others */
		log_warn("cannot compose the %s reply for '%s': %s",
			 report_kind_name(due.kind), v.id, cerr.buf);
		sum->errors++;
		goto out;
	}
	mode = reply_mode(o, &v);
	why = skip_reason(o, &v, &m, mode);
	sum->composed++;
	if (o->dry_run && why) {
		log_info("%s reply for '%s' would be skipped: %s",
			 report_kind_name(m.kind), v.id, why);
		sum->skipped++;
	} else if (o->dry_run) {
		mbox_write_rd(&sum->dry, m.msgid, m.text.buf, m.text.len);
	} else if (insert(st, &v, &m, mode, why, o->report.now, &rowid, err)) {
		ret = -1;
	} else if (rowid) {
		log_info("%s reply for '%s' %s: <%s>", report_kind_name(m.kind), v.id,
			 why ? "skipped" : "queued", m.msgid);
		if (why) {
			sum->skipped++;
			note_row(st, rowid, sum, NULL);
		}
	}
out:
	strbuf_release(&cerr);
	report_mail_release(&m);
	report_version_release(&v);
	return ret;
}

static int plan(struct store *st, const struct reply_run_opts *o, struct reply_summary *sum,
		struct strbuf *err)
{
	/*
	 * Versions with results recorded since their last reply (or with no
	 * reply yet): nothing else can make a reply due
	 */
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id FROM versions v WHERE gone = 0 AND superseded_by IS NULL"
		" AND EXISTS (SELECT 1 FROM results r WHERE r.version = v.id AND r.recorded >="
		"  coalesce((SELECT max(created) FROM replies p WHERE p.version = v.id), 0))"
		" AND (?1 IS NULL OR id = ?1 OR series = ?1) ORDER BY date, id");
	char **ids = NULL;
	size_t nr = 0, i;
	int ret = 0;

	if (!s || db_bind_text(s, 1, o->series) || db_column_all(s, &ids, &nr)) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	for (i = 0; i < nr && !ret; i++)
		ret = plan_version(st, o, ids[i], sum, err) < 0 ? -1 : 0;
	db_strings_free(ids, nr);
	return ret;
}

/* delivery */

struct deliver_ctx {
	struct store *st;
	const struct reply_run_opts *o;
	const struct config *cfg;
	struct reply_summary *sum;
	struct net net;
	bool net_ready;
	char *outbox;
	int64_t now;
	uint64_t retry_ms;	/* the shortest wait before a retry this pass; 0: none */
};

static uint64_t backoff_ms(const struct config *cfg, int attempts)
{
	uint64_t d = config_v(cfg)->reply_retrydelay;
	uint64_t max = config_v(cfg)->reply_backoffmax;

	while (--attempts > 0 && d < max)
		d *= 2;
	return MIN(d, max);
}

/* Over a rate limit: when a slot frees, else 0 */
static int64_t rate_limited(struct deliver_ctx *c, const struct reply_row *r)
{
	int64_t perhour = config_v(c->cfg)->reply_perhour;
	int64_t perauthor = config_v(c->cfg)->reply_perauthor;
	int64_t since = c->now - 3600;

	if (perhour > 0 && store_replies_sent_since(c->st, since, NULL) >= perhour)
		return store_replies_oldest_since(c->st, since, NULL) + 3600;
	if (perauthor > 0 && r->author &&
	    store_replies_sent_since(c->st, since, r->author) >= perauthor)
		return store_replies_oldest_since(c->st, since, r->author) + 3600;
	return 0;
}

/* Hand the mail over: 0 done, -1 transient, -2 permanent */
static int transmit(struct deliver_ctx *c, const struct reply_row *r, const char *file,
		    struct strbuf *why)
{
	if (!strcmp(r->mode, "outbox"))
		return reply_outbox_deliver(c->outbox, file, r->mail, r->mail_len, why) ? -1 : 0;
	if (strcmp(r->mode, "smtp")) {
		strbuf_addf(why, "unknown reply mode '%s'", r->mode);
		return -2;
	}
	if (!c->net_ready) {
		if (net_init(&c->net, config_v(c->cfg)->lore_useragent)) {
			strbuf_addstr(why, "cannot start libcurl");
			return -1;
		}
		c->net_ready = true;
	}
	return reply_smtp_deliver(c->cfg, &c->net, r, why);
}

/* A reply left in "sending" by a process that died: was it handed over? */
static int in_doubt(struct deliver_ctx *c, const struct reply_row *r, const char *file,
		    struct strbuf *err)
{
	int64_t wait = (int64_t)(config_v(c->cfg)->reply_indoubt / 1000);

	if (!strcmp(r->mode, "outbox") && reply_outbox_has(c->outbox, file))
		return store_replies_set(c->st, r->id, "sent", 0, "found in the outbox after an "
					 "interrupted delivery", c->now, err) ? -1 : 1;
	if (store_replies_in_archive(c->st, r->msgid))
		return store_replies_set(c->st, r->id, "sent", 0, "found in the list archive after "
					 "an interrupted delivery", c->now, err) ? -1 : 1;
	if (!strcmp(r->mode, "smtp") && c->now < r->updated + wait) {
		/*
		 * It may have gone out: give the archive time to show it.
		 * The wait counts from the interrupted attempt (updated,
		 * left alone here), whatever reply.indoubt says next time.
		 */
		if (store_replies_note(c->st, r->id, "delivery interrupted; waiting for the list "
				       "archive before sending again", err))
			return -1;
		c->sum->deferred++;
		return 1;
	}
	return 0;
}

static int deliver_one(struct deliver_ctx *c, struct reply_row *r, struct strbuf *err)
{
	char *file = reply_outbox_name(r);
	struct strbuf why = STRBUF_INIT;
	int64_t later;
	int ret = 0, t;

	if (!strcmp(r->state, "sending")) {
		t = in_doubt(c, r, file, err);
		if (t) {
			if (t > 0)
				note_row(c->st, r->id, c->sum, NULL);
			ret = t < 0 ? -1 : 0;
			goto out;
		}
	}
	later = rate_limited(c, r);
	if (later) {
		/* (an interrupted reply that got here is to be sent again: queued) */
		c->sum->deferred++;
		ret = store_replies_set(c->st, r->id, "queued", later, "rate limit (reply.perhour, "
					"reply.perauthor)", c->now, err);
		goto out;
	}
	t = store_replies_claim(c->st, r->id, c->now, err);
	if (t <= 0) {
		ret = t;
		goto out;
	}
	test_crash("sending");
	t = transmit(c, r, file, &why);
	if (!t)
		test_crash("sent");
	if (!t) {
		c->sum->sent++;
		ret = store_replies_set(c->st, r->id, "sent", 0, NULL, c->now, err);
		log_info("%s reply <%s> %s", r->kind, r->msgid, !strcmp(r->mode, "outbox") ?
			 "filed in the outbox" : "sent");
	} else if (t == -1 && r->attempts + 1 < config_v(c->cfg)->reply_attempts) {
		uint64_t ms = backoff_ms(c->cfg, r->attempts + 1);

		c->sum->queued++;
		if (!c->retry_ms || ms < c->retry_ms)
			c->retry_ms = ms;
		log_warn("reply <%s>: %s; trying again in %llu ms", r->msgid, why.buf,
			 (unsigned long long)ms);
		ret = store_replies_set(c->st, r->id, "queued", c->now + (int64_t)(ms / 1000),
					why.buf, c->now, err);
	} else {
		c->sum->failed++;
		log_err("reply <%s> failed: %s", r->msgid, why.buf);
		ret = store_replies_set(c->st, r->id, "failed", 0, why.buf, c->now, err);
	}
	note_row(c->st, r->id, c->sum, !strcmp(r->mode, "outbox") && !t ? file : NULL);
out:
	strbuf_release(&why);
	free(file);
	return ret;
}

static int deliver_pass(struct deliver_ctx *c, struct strbuf *err)
{
	struct reply_rows rows = { 0 };
	size_t i;
	int ret;

	c->now = (int64_t)time(NULL);
	c->retry_ms = 0;
	ret = store_replies_pending(c->st, c->now, c->o->series, &rows, err);
	for (i = 0; i < rows.nr && !ret; i++)
		ret = deliver_one(c, &rows.v[i], err);
	store_reply_rows_release(&rows);
	return ret;
}

/* One deliverer at a time: a lock next to the database (released by a crash too) */
static int lock_deliveries(struct store *st, struct strbuf *err)
{
	char *path = xasprintf("%s.reply-lock", db_path(st->db));
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		strbuf_addf(err, fd < 0 ? "cannot open '%s': %s" :
			    "'%s' is locked: another lorebot is delivering replies (%s)",
			    path, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

static char *outbox_dir(const struct reply_run_opts *o)
{
	const char *d = o->outbox ? o->outbox : config_v(o->report.cfg)->reply_outbox;

	if (d && *d)
		return xstrdup(d);
	return xasprintf("%s/outbox", config_v(o->report.cfg)->core_statedir);
}

int reply_run(struct store *st, const struct reply_run_opts *o, struct reply_summary *sum,
	      struct strbuf *err)
{
	struct deliver_ctx c = { .st = st, .o = o, .cfg = o->report.cfg, .sum = sum };
	uint64_t waited = 0, max_wait;
	int fd, ret;

	if (!store_results_available(st->db)) {
		strbuf_addstr(err, "the database has no results or replies tables");
		return -1;
	}
	if (plan(st, o, sum, err))
		return -1;
	if (o->dry_run || o->no_send)
		return 0;
	fd = lock_deliveries(st, err);
	if (fd < 0)
		return -1;
	c.outbox = outbox_dir(o);
	max_wait = o->wait ? config_v(c.cfg)->reply_wait : 0;
	for (;;) {
		ret = deliver_pass(&c, err);
		if (ret || !c.retry_ms || waited + c.retry_ms > max_wait)
			break;
		usleep(c.retry_ms * 1000);
		waited += c.retry_ms;
		sum->queued = 0;
	}
	if (c.net_ready)
		net_release(&c.net);
	free(c.outbox);
	close(fd);
	return ret;
}

json_object *reply_row_json(const struct reply_row *r, bool with_mail)
{
	json_object *o = json_object_new_object();
	json_object *rcpt = r->recipients ? json_tokener_parse(r->recipients) : NULL;
	char *report = report_id_of(r->msgid);

	json_object_object_add(o, "id", json_object_new_int64(r->id));
	/* its permanent page: /r/<report> on the dashboard */
	json_object_object_add(o, "report", jx_new_str(report));
	free(report);
	json_object_object_add(o, "version", jx_new_str(r->version));
	json_object_object_add(o, "kind", jx_new_str(r->kind));
	json_object_object_add(o, "patch", json_object_new_int(r->patch));
	json_object_object_add(o, "msgid", jx_new_str(r->msgid));
	json_object_object_add(o, "in_reply_to", jx_new_str(r->in_reply_to));
	json_object_object_add(o, "subject", jx_new_str(r->subject));
	json_object_object_add(o, "to", rcpt ? json_object_get(jx_get(rcpt, "to")) : NULL);
	json_object_object_add(o, "cc", rcpt ? json_object_get(jx_get(rcpt, "cc")) : NULL);
	json_object_object_add(o, "mode", jx_new_str(r->mode));
	json_object_object_add(o, "state", jx_new_str(r->state));
	json_object_object_add(o, "reason", jx_new_str(r->reason));
	json_object_object_add(o, "attempts", json_object_new_int(r->attempts));
	json_object_object_add(o, "created", json_object_new_int64(r->created));
	json_object_object_add(o, "sent", r->sent ? json_object_new_int64(r->sent) : NULL);
	if (with_mail && r->mail)
		json_object_object_add(o, "mail", json_object_new_string_len(r->mail,
									     (int)r->mail_len));
	json_object_put(rcpt);
	return o;
}
