// SPDX-License-Identifier: GPL-2.0
/*
 * A version's KCIDB document when its pipeline ends: written to
 * kcidb.dir, POSTed to kcidb.url with kcidb.tokenfile's token (kcidb.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/export/kcidb.h"
#include "bot/base/net.h"
#include "bot/base/secret.h"
#include "lib/jsonx.h"

#define ATTEMPTS 3

/* A file name for a version id: what is not [A-Za-z0-9._@+-] becomes '_' */
static void file_name(const char *id, struct strbuf *sb)
{
	const char *p;

	for (p = id; *p && p - id < 200; p++)
		strbuf_addch(sb, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || strchr("._@+-", *p) ? *p : '_');
	if (sb->len && sb->buf[0] == '.')
		sb->buf[0] = '_';
	strbuf_addstr(sb, ".json");
}

static int write_doc(const char *dir, const char *id, const char *text, struct strbuf *log,
		     struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT;
	int ret = -1;

	if (util_mkdir_p(dir, 0755)) {
		strbuf_addf(err, "kcidb.dir '%s': %s", dir, strerror(errno));
		goto out;
	}
	strbuf_addf(&path, "%s/", dir);
	file_name(id, &path);
	strbuf_addf(&tmp, "%s.tmp", path.buf);
	if (util_write_file(tmp.buf, text, strlen(text)) || rename(tmp.buf, path.buf)) {
		strbuf_addf(err, "cannot write '%s': %s", path.buf, strerror(errno));
		unlink(tmp.buf);
		goto out;
	}
	strbuf_addf(log, "KCIDB document written: %s\n", path.buf);
	ret = 0;
out:
	strbuf_release(&path);
	strbuf_release(&tmp);
	return ret;
}

static int submit(const struct config *cfg, const char *text, struct strbuf *log,
		  struct strbuf *err)
{
	const char *url = config_v(cfg)->kcidb_url, *tokenfile = config_v(cfg)->kcidb_tokenfile;
	struct net_response res = NET_RESPONSE_INIT;
	struct net net;
	char *token = NULL, *auth = NULL;
	const char *headers[] = { "Content-Type: application/json", NULL, NULL };
	struct net_request req = {
		.method = "POST", .url = url, .headers = headers, .body = text,
		.body_len = strlen(text), .timeout_ms = config_v(cfg)->kcidb_timeout,
	};
	int i, ret = -1;

	if (tokenfile && *tokenfile) {
		if (secret_token("kcidb.tokenfile", tokenfile, &token, err))
			return -1;
		auth = xasprintf("Authorization: Bearer %s", token);
		headers[1] = auth;
	}
	if (net_init(&net, config_v(cfg)->lore_useragent)) {
		strbuf_addstr(err, "cannot start libcurl");
		goto out;
	}
	for (i = 0; i < ATTEMPTS && ret; i++) {
		if (i)
			sleep(1u << i);
		if (net_request(&net, &req, &res)) {
			if (!net_error_transient(res.err) || i == ATTEMPTS - 1)
				strbuf_addf(err, "submitting to %s: %s", url, res.error.buf);
			if (!net_error_transient(res.err))
				break;
			continue;
		}
		if (res.status >= 200 && res.status < 300) {
			strbuf_addf(log, "KCIDB document submitted to %s: HTTP %ld\n", url,
				    res.status);
			ret = 0;
		} else if (res.status < 500 || i == ATTEMPTS - 1) {
			strbuf_addf(err, "submitting to %s: HTTP %ld %.200s", url, res.status,
				    res.body.buf);
			if (res.status < 500)
				break;
		}
	}
	net_release(&net);
out:
	net_response_release(&res);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	return ret;
}

bool kcidb_enabled(const struct config *cfg)
{
	const char *dir = config_v(cfg)->kcidb_dir, *url = config_v(cfg)->kcidb_url;

	return (dir && *dir) || (url && *url);
}

int kcidb_publish(struct store *st, const struct report_opts *o, const char *version,
		  struct strbuf *log, struct strbuf *err)
{
	const char *dir = config_v(o->cfg)->kcidb_dir, *url = config_v(o->cfg)->kcidb_url;
	json_object *doc;
	int ret = 0;

	if (!kcidb_enabled(o->cfg))
		return 0;
	doc = kcidb_doc_new();
	if (kcidb_export(st, o, 0, version, doc, err) < 0) {
		json_object_put(doc);
		return -1;
	}
	if (dir && *dir)
		ret = write_doc(dir, version, jx_text(doc, true), log, err);
	if (url && *url && submit(o->cfg, jx_text(doc, false), log, err))
		ret = -1;
	json_object_put(doc);
	return ret;
}
