// SPDX-License-Identifier: GPL-2.0
/* Posting the checks that are due to patchwork's REST API 1.3 (patchwork.h) */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "bot/base/net.h"
#include "bot/export/patchwork-int.h"
#include "bot/base/secret.h"
#include "lib/jsonx.h"
#include "lib/log.h"
#include "lib/strmap.h"

#define BACKOFF_MAX_S 3600

void patchwork_summary_init(struct patchwork_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->checks = json_object_new_array();
}

void patchwork_summary_release(struct patchwork_summary *s)
{
	json_object_put(s->checks);
	memset(s, 0, sizeof(*s));
}

/* Tests only: die here, as a crash or kill -9 would (see patchwork.h) */
static void test_crash(const char *point)
{
	const char *v = getenv("LOREBOT_TEST_CRASH");

	if (v && !strcmp(v, point)) {
		fflush(NULL);
		raise(SIGKILL);
	}
}

struct pw {
	struct store *st;
	const struct config *cfg;
	struct patchwork_summary *sum;
	struct net net;
	struct strbuf api;	/* <url>/api/1.3/ */
	char *auth;		/* "Authorization: Token <token>" */
	int64_t now;
	/* this pass's lookups: msgid -> 1 + the index of its answer in found[] */
	struct strmap ids;
	struct pw_found {
		int64_t id;		/* as find_patch() */
		struct strbuf why;
	} *found;
	size_t nr_found, alloc_found;
};

/* One request: 0 with an answer (res->status), -1 without (res->error) */
static int request(struct pw *p, const char *method, const char *url, const char *body,
		   struct net_response *res)
{
	const char *headers[] = { "Accept: application/json",
				  "Content-Type: application/json", p->auth, NULL };
	struct net_request req = {
		.method = method, .url = url, .headers = headers,
		.body = body, .body_len = body ? strlen(body) : 0,
		.timeout_ms = config_v(p->cfg)->patchwork_timeout,
		.max_size = 8 << 20,
	};

	return net_request(&p->net, &req, res);
}

/* Why a response is not what was asked for, for the row's reason */
static void why(struct strbuf *sb, const char *what, const struct net_response *res)
{
	if (res->status)
		strbuf_addf(sb, "%s: HTTP %ld %.200s", what, res->status, res->body.buf);
	else
		strbuf_addf(sb, "%s: %s", what, res->error.buf);
}

/* The patch's id on patchwork: >0, 0 not there (yet), -1 transient, -2 refused */
static int64_t find_patch(struct pw *p, const struct pw_row *r, struct strbuf *reason)
{
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	json_object *arr = NULL;
	int64_t id = -1;
	size_t i;

	strbuf_addf(&url, "%spatches/?project=", p->api.buf);
	net_escape(&url, config_v(p->cfg)->patchwork_project);
	strbuf_addstr(&url, "&msgid=");
	net_escape(&url, r->msgid);
	if (request(p, "GET", url.buf, NULL, &res)) {
		why(reason, "looking up the patch", &res);
		goto out;
	}
	if (res.status != 200) {
		why(reason, "looking up the patch", &res);
		id = res.status >= 500 || res.status == 429 ? -1 : -2;
		goto out;
	}
	arr = json_tokener_parse(res.body.buf);
	if (!arr || !json_object_is_type(arr, json_type_array)) {
		strbuf_addstr(reason, "looking up the patch: not a list of patches");
		goto out;
	}
	id = 0;
	for (i = 0; i < json_object_array_length(arr) && !id; i++)
		id = jx_int(json_object_array_get_idx(arr, i), "id", 0);
	if (!id)
		strbuf_addf(reason, "<%s> is not on patchwork (yet)", r->msgid);
out:
	json_object_put(arr);
	net_response_release(&res);
	strbuf_release(&url);
	return id;
}

/* find_patch() once per patch and pass: a patch has several checks */
static int64_t find_patch_once(struct pw *p, const struct pw_row *r, struct strbuf *reason)
{
	uintptr_t i = (uintptr_t)strmap_get(&p->ids, r->msgid);

	if (!i) {
		ALLOC_GROW(p->found, p->nr_found + 1, p->alloc_found);
		i = p->nr_found++;
		strbuf_init(&p->found[i].why, 0);
		p->found[i].id = find_patch(p, r, &p->found[i].why);
		strmap_put(&p->ids, r->msgid, (void *)(i + 1));
	} else {
		i--;
	}
	strbuf_addbuf(reason, &p->found[i].why);
	return p->found[i].id;
}

/* Does patchwork list this check already (an interrupted post that went through)? */
static int already_there(struct pw *p, const struct pw_row *r, struct strbuf *reason)
{
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	json_object *arr = NULL;
	int found = -1;
	size_t i;

	strbuf_addf(&url, "%spatches/%lld/checks/?context=", p->api.buf, (long long)r->pw_patch);
	net_escape(&url, r->context);
	if (request(p, "GET", url.buf, NULL, &res) || res.status != 200) {
		why(reason, "listing the patch's checks", &res);
		goto out;
	}
	arr = json_tokener_parse(res.body.buf);
	found = 0;
	for (i = 0; arr && json_object_is_type(arr, json_type_array) &&
	     i < json_object_array_length(arr) && !found; i++) {
		json_object *c = json_object_array_get_idx(arr, i);

		found = !strcmp(jx_strz(c, "context"), r->context) &&
			!strcmp(jx_strz(c, "state"), r->state) &&
			!strcmp(jx_strz(c, "description"), r->description);
	}
out:
	json_object_put(arr);
	net_response_release(&res);
	strbuf_release(&url);
	return found;
}

/* POST the check: 0 created, -1 transient, -2 refused */
static int post(struct pw *p, const struct pw_row *r, int64_t *check, struct strbuf *reason)
{
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf url = STRBUF_INIT;
	json_object *o = json_object_new_object(), *ans;
	int ret = -1;

	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "target_url", r->target_url ?
			       json_object_new_string(r->target_url) : NULL);
	json_object_object_add(o, "context", json_object_new_string(r->context));
	json_object_object_add(o, "description", json_object_new_string(r->description));
	strbuf_addf(&url, "%spatches/%lld/checks/", p->api.buf, (long long)r->pw_patch);
	if (request(p, "POST", url.buf, jx_text(o, false), &res)) {
		why(reason, "posting the check", &res);
	} else if (res.status == 201) {
		ans = json_tokener_parse(res.body.buf);
		*check = jx_int(ans, "id", 0);
		json_object_put(ans);
		ret = 0;
	} else {
		why(reason, "posting the check", &res);
		ret = res.status >= 500 || res.status == 429 ? -1 : -2;
	}
	json_object_put(o);
	net_response_release(&res);
	strbuf_release(&url);
	return ret;
}

static int64_t backoff_s(const struct config *cfg, int attempts)
{
	int64_t d = (int64_t)(config_v(cfg)->patchwork_retrydelay / 1000);

	if (d < 1)
		d = 1;
	while (--attempts > 0 && d < BACKOFF_MAX_S)
		d *= 2;
	return MIN(d, BACKOFF_MAX_S);
}

static void note(struct pw *p, int64_t id)
{
	struct strbuf err = STRBUF_INIT;
	struct pw_row r;

	if (patchwork_row_load(p->st, id, &r, &err) > 0) {
		json_object_array_add(p->sum->checks, patchwork_row_json(&r));
		patchwork_row_release(&r);
	}
	strbuf_release(&err);
}

/* After a failed attempt: later, or failed for good; 0 or -1 */
static int again(struct pw *p, const struct pw_row *r, int attempts, bool permanent,
		 const char *reason, struct strbuf *err)
{
	if (!permanent && attempts < config_v(p->cfg)->patchwork_attempts) {
		int64_t later = p->now + backoff_s(p->cfg, attempts);

		p->sum->queued++;
		log_warn("patchwork check %s of <%s>: %s; trying again in %llds", r->context,
			 r->msgid, reason, (long long)(later - p->now));
		return patchwork_set(p->st, r->id, "queued", later, reason, p->now, err);
	}
	p->sum->failed++;
	log_err("patchwork check %s of <%s> failed: %s", r->context, r->msgid, reason);
	return patchwork_set(p->st, r->id, "failed", 0, reason, p->now, err);
}

static int deliver_one(struct pw *p, struct pw_row *r, struct strbuf *err)
{
	struct strbuf reason = STRBUF_INIT;
	int64_t check = 0;
	int t, ret = 0;

	if (!r->pw_patch) {
		int64_t id = find_patch_once(p, r, &reason);

		if (id <= 0) {
			/* not there (yet) counts as an attempt: patchwork may never get it */
			t = patchwork_claim(p->st, r->id, p->now, err);
			if (t > 0)
				ret = again(p, r, r->attempts + 1, id == -2, reason.buf, err);
			else
				ret = t;
			goto out;
		}
		r->pw_patch = id;
		if (patchwork_set_ids(p->st, r->id, id, 0, err)) {
			ret = -1;
			goto out;
		}
	}
	if (!strcmp(r->status, "sending")) {
		/* interrupted between the POST and its record: did it go through? */
		t = already_there(p, r, &reason);
		if (t > 0) {
			p->sum->sent++;
			ret = patchwork_set(p->st, r->id, "sent", 0, "found on patchwork after an "
					    "interrupted post", p->now, err);
			goto out;
		}
		if (t < 0) {
			p->sum->deferred++;
			goto out;	/* cannot tell: ask again next time */
		}
	}
	t = patchwork_claim(p->st, r->id, p->now, err);
	if (t <= 0) {
		ret = t;
		goto out;
	}
	test_crash("pw-sending");
	t = post(p, r, &check, &reason);
	if (!t)
		test_crash("pw-sent");
	if (!t) {
		p->sum->sent++;
		ret = patchwork_set_ids(p->st, r->id, 0, check, err);
		if (!ret)
			ret = patchwork_set(p->st, r->id, "sent", 0, NULL, p->now, err);
		log_info("patchwork check %s %s of <%s> posted", r->context, r->state, r->msgid);
	} else {
		ret = again(p, r, r->attempts + 1, t == -2, reason.buf, err);
	}
out:
	note(p, r->id);
	strbuf_release(&reason);
	return ret;
}

/* One deliverer at a time: a lock next to the database (released by a crash too) */
static int lock_deliveries(struct store *st, struct strbuf *err)
{
	char *path = xasprintf("%s.patchwork-lock", db_path(st->db));
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		fd = -2;
	} else if (fd < 0) {
		strbuf_addf(err, "cannot open '%s': %s", path, strerror(errno));
	}
	free(path);
	return fd;
}

int patchwork_deliver(struct store *st, const struct config *cfg, const char *version,
		      struct patchwork_summary *sum, struct strbuf *err)
{
	struct pw p = { .st = st, .cfg = cfg, .sum = sum, .api = STRBUF_INIT,
			.ids = STRMAP_INIT };
	const char *url = config_v(cfg)->patchwork_url;
	const char *project = config_v(cfg)->patchwork_project;
	const char *tokenfile = config_v(cfg)->patchwork_tokenfile;
	struct pw_rows rows = { 0 };
	char *token = NULL;
	int fd, ret = 0;
	size_t i;

	if (!patchwork_enabled(cfg))
		return 0;
	if (!project || !*project || !tokenfile || !*tokenfile) {
		strbuf_addstr(err, "patchwork.url needs patchwork.project and patchwork.tokenfile");
		return -1;
	}
	fd = lock_deliveries(st, err);
	if (fd == -2)
		return 1;
	if (fd < 0)
		return -1;
	p.now = (int64_t)time(NULL);
	if (patchwork_rows_due(st, p.now, version, &rows, err)) {
		ret = -1;
		goto out;
	}
	if (!rows.nr)
		goto out;
	if (secret_token("patchwork.tokenfile", tokenfile, &token, err)) {
		ret = -1;
		goto out;
	}
	p.auth = xasprintf("Authorization: Token %s", token);
	strbuf_addstr(&p.api, url);
	while (p.api.len && p.api.buf[p.api.len - 1] == '/')
		strbuf_setlen(&p.api, p.api.len - 1);
	strbuf_addstr(&p.api, "/api/1.3/");
	if (net_init(&p.net, config_v(cfg)->lore_useragent)) {
		strbuf_addstr(err, "cannot start libcurl");
		ret = -1;
		goto out;
	}
	for (i = 0; i < rows.nr && !ret; i++)
		ret = deliver_one(&p, &rows.v[i], err);
	net_release(&p.net);
	for (i = 0; i < p.nr_found; i++)
		strbuf_release(&p.found[i].why);
	free(p.found);
	strmap_release(&p.ids);
out:
	patchwork_rows_release(&rows);
	strbuf_release(&p.api);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (p.auth) {
		memset(p.auth, 0, strlen(p.auth));
		free(p.auth);
	}
	close(fd);
	return ret;
}
