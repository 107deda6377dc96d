// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/gz.h"
#include "lib/log.h"
#include "bot/lore/lore.h"

#define DEF_ATTEMPTS 5
#define DEF_RETRY_MS 1000
#define DEF_BACKOFF_MAX_MS (10 * 60 * 1000)
#define DEF_MAX_SIZE (256u << 20)
#define DEF_MAX_MSG (16u << 20)

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int lore_init(struct lore *l, const char *base_url, const struct lore_opts *o,
	      struct strbuf *err)
{
	memset(l, 0, sizeof(*l));
	if (!util_starts_with(base_url, "http://") && !util_starts_with(base_url, "https://")) {
		strbuf_addf(err, "'%s' is not an http:// or https:// URL", base_url);
		return -1;
	}
	if (net_init(&l->net, o ? o->user_agent : NULL)) {
		strbuf_addstr(err, "cannot initialise libcurl");
		return -1;
	}
	l->base = util_ends_with(base_url, "/") ? xstrdup(base_url) :
		xasprintf("%s/", base_url);
	if (o)
		l->o = *o;
	if (!l->o.attempts)
		l->o.attempts = DEF_ATTEMPTS;
	if (!l->o.retry_delay_ms)
		l->o.retry_delay_ms = DEF_RETRY_MS;
	if (!l->o.backoff_max_ms)
		l->o.backoff_max_ms = DEF_BACKOFF_MAX_MS;
	if (!l->o.max_size)
		l->o.max_size = DEF_MAX_SIZE;
	if (!l->o.max_msg)
		l->o.max_msg = DEF_MAX_MSG;
	l->seed = (unsigned int)(util_now_ms() ^ (uint64_t)getpid() << 16);
	l->sleep_ms = sleep_ms;
	return 0;
}

void lore_release(struct lore *l)
{
	net_release(&l->net);
	free(l->base);
	memset(l, 0, sizeof(*l));
}

void lore_entry_release(struct lore_entry *e)
{
	free(e->msgid);
	memset(e, 0, sizeof(*e));
}

/* requests with retries */

enum body_kind {
	BODY_PLAIN,	/* Content-Encoding: gzip is undone by curl */
	BODY_GZIP,	/* application/gzip: we gunzip and check the trailer */
};

struct fetched {
	long status;
	struct strbuf body;	/* decoded */
};

/* Wait before attempt n+1: exponential, capped, half of it random */
static uint64_t backoff_ms(struct lore *l, int n, const char *retry_after)
{
	uint64_t d = l->o.retry_delay_ms;
	int i;

	for (i = 1; i < n && d < l->o.backoff_max_ms; i++)
		d *= 2;
	d = MIN(d, l->o.backoff_max_ms);
	if (retry_after) {
		char *end;
		unsigned long s = strtoul(retry_after, &end, 10);

		if (end != retry_after && !*end)
			return MIN((uint64_t)s * 1000, l->o.backoff_max_ms);
	}
	return d / 2 + (d > 1 ? (uint64_t)rand_r(&l->seed) % (d / 2 + 1) : 0);
}

static bool status_transient(long status)
{
	return status == 408 || status == 429 || status >= 500;
}

static int request(struct lore *l, const char *method, const char *url,
		   enum body_kind kind, struct fetched *f, struct strbuf *err)
{
	struct net_request req = {
		.method = method, .url = url,
		.timeout_ms = l->o.timeout_ms,
		.max_size = l->o.max_size,
		.compressed = kind == BODY_PLAIN,
	};
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf why = STRBUF_INIT;
	int attempt, ret = -1;

	for (attempt = 1; ; attempt++) {
		char *retry_after = NULL;
		bool transient;
		int r;

		strbuf_reset(&why);
		strbuf_reset(&f->body);
		r = net_request(&l->net, &req, &res);
		l->stats.requests++;
		l->stats.bytes_in += res.bytes_in;
		l->stats.bytes_out += res.bytes_out;
		f->status = res.status;
		if (r) {
			transient = net_error_transient(res.err);
			strbuf_addbuf(&why, &res.error);
		} else if (status_transient(res.status)) {
			transient = true;
			strbuf_addf(&why, "HTTP %ld", res.status);
			retry_after = net_response_header(&res, "Retry-After");
		} else if (res.status >= 200 && res.status < 300 && kind == BODY_GZIP) {
			if (!gz_gunzip(res.body.buf, res.body.len, l->o.max_size,
				       &f->body, &why)) {
				ret = 0;
				break;
			}
			transient = true;	/* cut short on the way: try again */
		} else {
			struct strbuf tmp = f->body;

			f->body = res.body;
			res.body = tmp;
			ret = 0;
			break;
		}
		if (!transient || attempt >= l->o.attempts) {
			strbuf_addf(err, "%s %s: %s", method, url, why.buf);
			if (transient)
				strbuf_addf(err, " (gave up after %d attempts)", attempt);
			free(retry_after);
			break;
		}
		{
			uint64_t d = backoff_ms(l, attempt, retry_after);

			log_warn("lore: %s %s: %s; retry %d/%d in %.1f s", method, url,
				 why.buf, attempt, l->o.attempts - 1, d / 1000.0);
			free(retry_after);
			l->stats.retries++;
			l->sleep_ms(d);
		}
	}
	strbuf_release(&why);
	net_response_release(&res);
	return ret;
}

static void add_query(struct strbuf *url, const char *key, const char *value)
{
	strbuf_addch(url, strchr(url->buf, '?') ? '&' : '?');
	strbuf_addstr(url, key);
	strbuf_addch(url, '=');
	net_escape(url, value);
}

static void msg_url(struct lore *l, struct strbuf *url, const char *msgid,
		    const char *suffix)
{
	strbuf_addstr(url, l->base);
	net_escape(url, msgid);
	strbuf_addstr(url, suffix);
}

/* Atom */

int lore_parse_time(const char *s, int64_t *t)
{
	struct tm tm = { 0 };
	int n = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || !n)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = timegm(&tm);
	return 0;
}

static char *between(const char *s, const char *end, const char *open,
		     const char *close)
{
	const char *a = memmem(s, end - s, open, strlen(open)), *b;

	if (!a)
		return NULL;
	a += strlen(open);
	b = memmem(a, end - a, close, strlen(close));
	return b ? xstrndup(a, b - a) : NULL;
}

/* The Message-ID is the last path segment of the entry's link */
static char *link_msgid(const char *entry, const char *end)
{
	const char *p = memmem(entry, end - entry, "<link", 5), *h, *q;
	struct strbuf id = STRBUF_INIT;

	if (!p)
		return NULL;
	h = memmem(p, end - p, "href=\"", 6);
	if (!h)
		return NULL;
	h += 6;
	q = memchr(h, '"', end - h);
	if (!q)
		return NULL;
	if (q > h && q[-1] == '/')
		q--;
	for (p = q; p > h && p[-1] != '/'; p--)
		;
	for (; p < q; p++) {
		if (*p == '%' && q - p > 2 && isxdigit((unsigned char)p[1]) &&
		    isxdigit((unsigned char)p[2])) {
			char hex[3] = { p[1], p[2], 0 };

			strbuf_addch(&id, (char)strtol(hex, NULL, 16));
			p += 2;
		} else if (*p == '&' && util_starts_with(p, "&amp;")) {
			strbuf_addch(&id, '&');
			p += 4;
		} else {
			strbuf_addch(&id, *p);
		}
	}
	if (!id.len) {
		strbuf_release(&id);
		return NULL;
	}
	return strbuf_detach(&id, NULL);
}

int lore_atom_first(const char *xml, struct lore_entry *e, int64_t *feed_updated)
{
	const char *entry = strstr(xml, "<entry>"), *end;
	char *upd;

	memset(e, 0, sizeof(*e));
	if (feed_updated) {
		const char *stop = entry ? entry : xml + strlen(xml);

		*feed_updated = 0;
		upd = between(xml, stop, "<updated>", "</updated>");
		if (upd && lore_parse_time(upd, feed_updated))
			*feed_updated = 0;
		free(upd);
	}
	/* an offset past the results gives a bare "</feed>" with status 200 */
	if (!strstr(xml, "<feed") && !strstr(xml, "</feed>"))
		return -1;
	if (!entry)
		return 0;
	end = strstr(entry, "</entry>");
	if (!end)
		return -1;
	e->msgid = link_msgid(entry, end);
	upd = between(entry, end, "<updated>", "</updated>");
	if (!e->msgid || !upd || lore_parse_time(upd, &e->ts)) {
		free(upd);
		lore_entry_release(e);
		return -1;
	}
	free(upd);
	return 1;
}

/* probe */

void lore_epochs_release(struct lore_epochs *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++)
		free(e->v[i].fingerprint);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

char *lore_epoch_url(const struct lore *l, int n)
{
	return xasprintf("%s%d", l->base, n);
}

static int cmp_epoch(const void *a, const void *b)
{
	const struct lore_epoch *x = a, *y = b;

	return (x->n > y->n) - (x->n < y->n);
}

/* "/linux-mm/git/3.git" -> 3 */
static int epoch_number(const char *key)
{
	const char *p = strstr(key, "/git/");
	char *end;
	long n;

	if (!p)
		return -1;
	n = strtol(p + 5, &end, 10);
	return end != p + 5 && !strcmp(end, ".git") && n >= 0 && n < 1000000 ? (int)n : -1;
}

static int manifest_token(const char *json, struct strbuf *token,
			  struct lore_epochs *epochs)
{
	json_object *o = json_tokener_parse(json);
	struct strbuf parts = STRBUF_INIT;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -1;
	}
	/* keys come in the server's order; the fingerprints say it all */
	json_object_object_foreach(o, key, val) {
		json_object *fp, *mod;
		int n = epoch_number(key);

		if (!json_object_object_get_ex(val, "fingerprint", &fp) ||
		    !json_object_is_type(fp, json_type_string))
			continue;
		strbuf_addf(&parts, "%s=%s;", key, json_object_get_string(fp));
		if (epochs && n >= 0) {
			struct lore_epoch *e;

			ALLOC_GROW(epochs->v, epochs->nr + 1, epochs->alloc);
			e = &epochs->v[epochs->nr++];
			e->n = n;
			e->fingerprint = xstrdup(json_object_get_string(fp));
			e->modified = json_object_object_get_ex(val, "modified", &mod) ?
				json_object_get_int64(mod) : 0;
		}
	}
	if (epochs && epochs->nr)
		qsort(epochs->v, epochs->nr, sizeof(*epochs->v), cmp_epoch);
	json_object_put(o);
	if (!parts.len) {
		strbuf_release(&parts);
		return -1;
	}
	strbuf_addstr(token, "m:");
	strbuf_addbuf(token, &parts);
	strbuf_release(&parts);
	return 0;
}

int lore_probe(struct lore *l, struct strbuf *token, struct lore_epochs *epochs,
	       struct strbuf *err)
{
	struct fetched f = { .body = STRBUF_INIT };
	struct strbuf url = STRBUF_INIT;
	struct lore_entry e;
	int64_t feed = 0;
	int ret = -1;

	strbuf_addf(&url, "%smanifest.js.gz", l->base);
	if (request(l, "GET", url.buf, BODY_GZIP, &f, err))
		goto out;
	if (f.status == 200) {
		if (manifest_token(f.body.buf, token, epochs)) {
			strbuf_addf(err, "GET %s: not a public-inbox manifest", url.buf);
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (f.status != 404) {
		strbuf_addf(err, "GET %s: HTTP %ld", url.buf, f.status);
		goto out;
	}
	/* no manifest (not public-inbox, or an old one): the newest entry */
	strbuf_reset(&url);
	strbuf_addf(&url, "%snew.atom", l->base);
	if (request(l, "GET", url.buf, BODY_PLAIN, &f, err))
		goto out;
	if (f.status != 200) {
		strbuf_addf(err, "GET %s: HTTP %ld%s", url.buf, f.status,
			    f.status == 404 ? " (is this a public-inbox URL?)" : "");
		goto out;
	}
	switch (lore_atom_first(f.body.buf, &e, &feed)) {
	case 1:
		strbuf_addf(token, "a:%lld:%lld:%s", (long long)feed,
			    (long long)e.ts, e.msgid);
		lore_entry_release(&e);
		ret = 0;
		break;
	case 0:
		strbuf_addf(token, "a:%lld:", (long long)feed);
		ret = 0;
		break;
	default:
		strbuf_addf(err, "GET %s: not an Atom feed", url.buf);
	}
out:
	strbuf_release(&url);
	strbuf_release(&f.body);
	return ret;
}

/* search */

int lore_search_entry(struct lore *l, const char *query, bool oldest_first,
		      size_t skip, struct lore_entry *e, struct strbuf *err)
{
	struct fetched f = { .body = STRBUF_INIT };
	struct strbuf url = STRBUF_INIT, o = STRBUF_INIT;
	int ret = -1;

	memset(e, 0, sizeof(*e));
	strbuf_addstr(&url, l->base);
	add_query(&url, "q", query);
	add_query(&url, "x", "A");
	add_query(&url, "l", "1");
	/* o=-1 is the oldest, o=-2 the next...; o=0 the newest */
	strbuf_addf(&o, "%s%zu", oldest_first ? "-" : "", oldest_first ? skip + 1 : skip);
	add_query(&url, "o", o.buf);
	if (request(l, "GET", url.buf, BODY_PLAIN, &f, err))
		goto out;
	if (f.status == 404) {
		ret = 0;	/* no results is a 404 page, not an empty feed */
		goto out;
	}
	if (f.status != 200) {
		strbuf_addf(err, "GET %s: HTTP %ld%s", url.buf, f.status,
			    f.status == 400 ? " (bad search query)" : "");
		goto out;
	}
	ret = lore_atom_first(f.body.buf, e, NULL);
	if (ret < 0)
		strbuf_addf(err, "GET %s: not an Atom feed", url.buf);
out:
	strbuf_release(&o);
	strbuf_release(&url);
	strbuf_release(&f.body);
	return ret;
}

int64_t lore_mbox_each(struct lore *l, const struct strbuf *mbox,
		       lore_msg_fn fn, void *data, struct strbuf *err)
{
	struct mbox_reader r;
	struct mbox_msg m = MBOX_MSG_INIT;
	int64_t n = 0;
	int rc;

	mbox_open_mem(&r, mbox->buf, mbox->len, l->o.max_msg);
	while ((rc = mbox_next(&r, &m)) > 0) {
		if (fn(data, &m)) {
			if (!err->len)
				strbuf_addf(err, "message %zu could not be stored", m.index + 1);
			n = -1;
			break;
		}
		n++;
	}
	if (rc < 0 && n >= 0) {
		strbuf_addf(err, "cannot split the mbox: %s", strerror(-rc));
		n = -1;
	}
	mbox_msg_release(&m);
	mbox_close(&r);
	return n;
}

/* GET or POST url for gzip'ed mboxrd into *mbox: 1, 0 for 404 ("none"), -1 */
static int get_mbox(struct lore *l, const char *method, const char *url,
		    struct strbuf *mbox, struct strbuf *err)
{
	struct fetched f = { .body = STRBUF_INIT };
	int ret = -1;

	if (request(l, method, url, BODY_GZIP, &f, err))
		goto out;
	if (f.status == 404) {
		ret = 0;
		goto out;
	}
	if (f.status != 200) {
		strbuf_addf(err, "%s %s: HTTP %ld", method, url, f.status);
		goto out;
	}
	strbuf_release(mbox);
	*mbox = f.body;
	strbuf_init(&f.body, 0);
	ret = 1;
out:
	strbuf_release(&f.body);
	return ret;
}

/* The same, each message to fn: the count, or -1 */
static int64_t each_of_mbox(struct lore *l, const char *method, const char *url,
			    lore_msg_fn fn, void *data, struct strbuf *err)
{
	struct strbuf mbox = STRBUF_INIT;
	int64_t n = get_mbox(l, method, url, &mbox, err);

	if (n > 0)
		n = lore_mbox_each(l, &mbox, fn, data, err);
	strbuf_release(&mbox);
	return n;
}

int lore_search_mbox_get(struct lore *l, const char *query, bool threads,
			 struct strbuf *mbox, struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT;
	int r;

	strbuf_reset(mbox);
	strbuf_addstr(&url, l->base);
	add_query(&url, "q", query);
	add_query(&url, "x", "m");
	if (threads)
		add_query(&url, "t", "1");
	/* x=m only works with POST; GET returns the HTML page */
	r = get_mbox(l, "POST", url.buf, mbox, err);
	strbuf_release(&url);
	return r;
}

int64_t lore_thread(struct lore *l, const char *msgid, lore_msg_fn fn,
		    void *data, struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT;
	int64_t n;

	msg_url(l, &url, msgid, "/t.mbox.gz");
	n = each_of_mbox(l, "GET", url.buf, fn, data, err);
	strbuf_release(&url);
	return n;
}

int64_t lore_raw(struct lore *l, const char *msgid, lore_msg_fn fn, void *data,
		 struct strbuf *err)
{
	struct fetched f = { .body = STRBUF_INIT };
	struct strbuf url = STRBUF_INIT;
	int64_t n = -1;

	msg_url(l, &url, msgid, "/raw");
	if (request(l, "GET", url.buf, BODY_PLAIN, &f, err))
		goto out;
	if (f.status == 404) {
		n = 0;
		goto out;
	}
	if (f.status != 200) {
		strbuf_addf(err, "GET %s: HTTP %ld", url.buf, f.status);
		goto out;
	}
	n = lore_mbox_each(l, &f.body, fn, data, err);
out:
	strbuf_release(&url);
	strbuf_release(&f.body);
	return n;
}

void lore_opts_from_config(struct lore_opts *o, const struct config *cfg)
{
	const struct config_values *cv = config_v(cfg);

	memset(o, 0, sizeof(*o));
	o->timeout_ms = cv->lore_timeout;
	o->attempts = cv->lore_retries;
	o->retry_delay_ms = cv->lore_retrydelay;
	o->backoff_max_ms = cv->lore_backoffmax;
	o->max_msg = cv->mail_maxsize;
	o->user_agent = cv->lore_useragent;
	if (o->attempts < 1)
		o->attempts = 1;
}
