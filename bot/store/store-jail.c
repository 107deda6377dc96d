// SPDX-License-Identifier: GPL-2.0
/*
 * Stored mail parsed in a jail (store.h, lib/jail.h): the parser (GMime,
 * the patch and trailer readers) runs in a helper that sees no file of
 * the bot's, no network and no other process, and hands back each
 * message's parsed form as the JSON the database keeps anyway
 * (store_msg_to_json()).  The process that holds the database reads
 * that JSON (json-c) and nothing of the mail itself but its bytes.
 */
#include <stdlib.h>

#include "bot/mail/mail.h"
#include "bot/store/store.h"
#include "lib/jail.h"

/*
 * A parse takes milliseconds (256 messages or 8 MB a request: well
 * under a second): half a minute is a parser that is stuck on a batch,
 * ten seconds on one message.  A batch it is stuck on is parsed again a
 * message at a time, so that one poisonous mail costs the two (issue
 * 38: a minute each, and a fetch pass killed at daemon.fetchtimeout
 * before it stored anything, for good).
 */
#define PARSE_TIMEOUT_MS 30000
#define PARSE_ONE_TIMEOUT_MS 10000
/* A request: store_add_messages()' callers send at most a few MB */
#define MAX_REQUEST (256ULL << 20)
/* A parsed form is a small part of its message */
#define MAX_ANSWER (256ULL << 20)

/*
 * A request is messages, each as its length (8 bytes) and its bytes; the
 * answer has for each a status byte (0 parsed, 1 not), a length and the
 * parsed form's JSON (store_msg_to_json()) or why it could not be read.
 */
static void put_record(struct strbuf *sb, int status, const char *p, size_t len)
{
	uint64_t n = len;

	if (status >= 0)
		strbuf_addch(sb, status);
	strbuf_add(sb, &n, sizeof(n));
	strbuf_add(sb, p, len);
}

/* The next record of buf (status < 0: none): 1, 0 at its end, -1 if cut short */
static int get_record(const char **buf, const char *end, int *status, const char **p,
		      size_t *len)
{
	const char *b = *buf;
	uint64_t n;

	if (b == end)
		return 0;
	if (status) {
		*status = (unsigned char)*b++;
		if (*status > 1)
			return -1;
	}
	if ((size_t)(end - b) < sizeof(n))
		return -1;
	memcpy(&n, b, sizeof(n));
	b += sizeof(n);
	if (n > (uint64_t)(end - b))
		return -1;
	*p = b;
	*len = n;
	*buf = b + n;
	return 1;
}

/* In the jail: each message to its parsed form, or why it cannot be read */
static int answer_messages(const char *req, size_t len, struct strbuf *resp)
{
	const char *end = req + len, *raw;
	struct strbuf err = STRBUF_INIT;
	struct msg m;
	size_t n;
	char *json;
	int r;

	while ((r = get_record(&req, end, NULL, &raw, &n)) > 0) {
		strbuf_reset(&err);
		if (series_msg_from_raw(raw, n, &m, &err)) {
			put_record(resp, 1, err.buf, err.len);
			continue;
		}
		series_msg_set_missing_id(&m, raw, n);
		json = store_msg_to_json(&m);
		put_record(resp, 0, json, strlen(json));
		free(json);
		series_msg_release(&m);
	}
	strbuf_release(&err);
	if (r < 0) {
		strbuf_reset(resp);
		strbuf_addstr(resp, "a request cut short");
		return 1;
	}
	return 0;
}

/* In the jail: one mail to struct mail's JSON (mail_to_json()) */
static int answer_mail(const char *raw, size_t len, struct strbuf *resp)
{
	struct mail m = MAIL_INIT;
	char *json;

	if (mail_parse(raw, len, &m, resp))
		return 1;
	json = mail_to_json(&m);
	strbuf_addstr(resp, json);
	free(json);
	mail_release(&m);
	return 0;
}

/* A request's first byte says what it asks: 'S' messages for the store, 'M' a mail */
int store_jail_answer(void *ctx, const char *req, size_t len, struct strbuf *resp)
{
	(void)ctx;
	if (len && *req == 'S')
		return answer_messages(req + 1, len - 1, resp);
	if (len && *req == 'M')
		return answer_mail(req + 1, len - 1, resp);
	strbuf_addstr(resp, "an unknown request");
	return 1;
}

void store_jail_use(struct store *st, store_jail_fn *answer)
{
	struct jail_opts o = {
		.fn = answer ? answer : store_jail_answer,
		.timeout_ms = PARSE_TIMEOUT_MS,
		.max_request = MAX_REQUEST,
		.max_response = MAX_ANSWER,
	};

	if (!st->jail)
		st->jail = jail_new(&o);
}

int store_jail_start(struct store *st, struct strbuf *err)
{
	return st->jail ? jail_start(st->jail, err) : 0;
}

/* m as series_msg_from_raw() leaves it when it fails */
static void unparsed(struct msg *m)
{
	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
}

/* One request for raws[0..n): 0, or -1 with err (nothing filled in) */
static int parse_batch(struct store *st, const struct store_raw *raws, size_t n,
		       struct msg *m, bool *parsed, struct strbuf *perr, struct strbuf *err)
{
	uint64_t timeout = n == 1 ? (st->jail_one_ms ? st->jail_one_ms : PARSE_ONE_TIMEOUT_MS) :
		(st->jail_batch_ms ? st->jail_batch_ms : PARSE_TIMEOUT_MS);
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	const char *b, *end, *p = NULL;
	size_t i, len = 0;
	bool failed;
	int status = 0, r = -1;

	strbuf_addch(&req, 'S');
	for (i = 0; i < n; i++)
		put_record(&req, -1, raws[i].raw, raws[i].len);
	if (jail_call_within(st->jail, req.buf, req.len, timeout, &resp, &failed, err))
		goto out;
	if (failed) {
		strbuf_addf(err, "the jailed parser: %s", resp.buf);
		goto out;
	}
	/* every record first: a short answer fills in nothing */
	b = resp.buf;
	end = resp.buf + resp.len;
	for (i = 0; i < n; i++)
		if (get_record(&b, end, &status, &p, &len) <= 0)
			break;
	if (i < n || b != end) {
		strbuf_addstr(err, "the jailed parser answered for other messages than asked");
		goto out;
	}
	b = resp.buf;
	for (i = 0; i < n; i++) {
		get_record(&b, end, &status, &p, &len);
		unparsed(&m[i]);
		parsed[i] = false;
		if (status) {
			strbuf_add(&perr[i], p, len);
			continue;
		}
		/* NUL-terminated for json-c: the record is copied */
		{
			char *json = xstrndup(p, len);

			if (store_msg_from_json(json, &m[i])) {
				series_msg_release(&m[i]);
				unparsed(&m[i]);
				strbuf_addstr(&perr[i], "the jailed parser answered what is "
					      "not a parsed message");
			} else {
				parsed[i] = true;
			}
			free(json);
		}
	}
	r = 0;
out:
	strbuf_release(&req);
	strbuf_release(&resp);
	return r;
}

void store_jail_parse_many(struct store *st, const struct store_raw *raws, size_t n,
			   struct msg *m, bool *parsed, struct strbuf *perr)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (!parse_batch(st, raws, n, m, parsed, perr, &err))
		goto out;
	/* one of them broke it: each alone, so that it costs only itself */
	for (i = 0; i < n; i++) {
		strbuf_reset(&err);
		if (n == 1 || parse_batch(st, raws + i, 1, m + i, parsed + i, perr + i, &err)) {
			unparsed(&m[i]);
			parsed[i] = false;
			strbuf_addbuf(&perr[i], &err);
		}
	}
out:
	strbuf_release(&err);
}

int store_parse_mail(struct store *st, const char *raw, size_t len, struct mail *m,
		     struct strbuf *err)
{
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	bool failed;
	int r = -1;

	if (!st->jail)
		return mail_parse(raw, len, m, err);
	memset(m, 0, sizeof(*m));
	strbuf_init(&m->warnings, 0);
	strbuf_addch(&req, 'M');
	strbuf_add(&req, raw, len);
	if (jail_call(st->jail, req.buf, req.len, &resp, &failed, err))
		goto out;
	if (failed) {
		strbuf_addbuf(err, &resp);
		goto out;
	}
	r = mail_from_json(resp.buf, resp.len, m, err);
out:
	strbuf_release(&req);
	strbuf_release(&resp);
	return r;
}

void store_jail_stop(struct store *st)
{
	jail_free(st->jail);
	st->jail = NULL;
}
