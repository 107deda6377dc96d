// SPDX-License-Identifier: GPL-2.0
#include <curl/curl.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/base/net.h"
#include "bot/base/version.h"

struct sink {
	const struct net_request *req;
	struct net_response *res;
	size_t max_size;
	size_t got;
	bool too_large;
	bool aborted;
};

static size_t body_cb(char *ptr, size_t size, size_t nmemb, void *data)
{
	struct sink *s = data;
	size_t len = size * nmemb;

	if (s->got + len > s->max_size) {
		s->too_large = true;
		return 0;
	}
	s->got += len;
	if (s->req->write) {
		if (s->req->write(s->req->write_data, ptr, len)) {
			s->aborted = true;
			return 0;
		}
		return len;
	}
	strbuf_add(&s->res->body, ptr, len);
	return len;
}

static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *data)
{
	struct sink *s = data;
	size_t len = size * nmemb;

	/* a new status line: forget the headers of an earlier response */
	if (len >= 5 && !memcmp(ptr, "HTTP/", 5))
		strbuf_reset(&s->res->headers);
	strbuf_add(&s->res->headers, ptr, len);
	return len;
}

int net_init(struct net *n, const char *user_agent)
{
	static bool global_done;

	memset(n, 0, sizeof(*n));
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return -1;
		global_done = true;
	}
	n->curl = curl_easy_init();
	if (!n->curl)
		return -1;
	n->user_agent = user_agent && *user_agent ? xstrdup(user_agent) :
		xasprintf("lorebot/%s (+https://lore.kernel.org/linux-mm/ CI bot)",
			  version_string());
	return 0;
}

void net_release(struct net *n)
{
	if (n->curl)
		curl_easy_cleanup(n->curl);
	free(n->user_agent);
	memset(n, 0, sizeof(*n));
}

void net_response_init(struct net_response *res)
{
	memset(res, 0, sizeof(*res));
	strbuf_init(&res->headers, 0);
	strbuf_init(&res->body, 0);
	strbuf_init(&res->error, 0);
}

void net_response_release(struct net_response *res)
{
	strbuf_release(&res->headers);
	strbuf_release(&res->body);
	strbuf_release(&res->error);
}

static void response_reset(struct net_response *res)
{
	strbuf_reset(&res->headers);
	strbuf_reset(&res->body);
	strbuf_reset(&res->error);
	res->status = 0;
	res->err = NET_OK;
	res->bytes_in = res->bytes_out = res->elapsed_ms = 0;
}

/* curl's codes, grouped by what a caller can do about them */
static const struct {
	CURLcode code;
	enum net_error err;
} error_map[] = {
	{ CURLE_COULDNT_RESOLVE_HOST, NET_CONNECT },
	{ CURLE_COULDNT_RESOLVE_PROXY, NET_CONNECT },
	{ CURLE_COULDNT_CONNECT, NET_CONNECT },
	{ CURLE_OPERATION_TIMEDOUT, NET_TIMEOUT },
	{ CURLE_PARTIAL_FILE, NET_BROKEN },
	{ CURLE_GOT_NOTHING, NET_BROKEN },
	{ CURLE_RECV_ERROR, NET_BROKEN },
	{ CURLE_SEND_ERROR, NET_BROKEN },
	{ CURLE_HTTP2, NET_BROKEN },
	{ CURLE_HTTP2_STREAM, NET_BROKEN },
	{ CURLE_WEIRD_SERVER_REPLY, NET_BROKEN },
	{ CURLE_BAD_CONTENT_ENCODING, NET_DECODE },
	{ CURLE_SSL_CONNECT_ERROR, NET_TLS },
	{ CURLE_PEER_FAILED_VERIFICATION, NET_TLS },
	{ CURLE_SSL_CACERT_BADFILE, NET_TLS },
};

static enum net_error classify(CURLcode code)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(error_map); i++)
		if (error_map[i].code == code)
			return error_map[i].err;
	return NET_OTHER;
}

bool net_error_transient(enum net_error err)
{
	return err == NET_CONNECT || err == NET_TIMEOUT || err == NET_BROKEN ||
		err == NET_DECODE;
}

static struct curl_slist *make_headers(const struct net_request *req)
{
	struct curl_slist *list = NULL, *tmp;
	const char *const *h;

	for (h = req->headers; h && *h; h++) {
		tmp = curl_slist_append(list, *h);
		if (!tmp)
			abort();
		list = tmp;
	}
	/* no "Expect: 100-continue" round trip for POST bodies */
	if (req->method && !strcmp(req->method, "POST")) {
		tmp = curl_slist_append(list, "Expect:");
		if (!tmp)
			abort();
		list = tmp;
	}
	return list;
}

static void set_options(CURL *c, struct net *n, const struct net_request *req,
			struct sink *s, struct curl_slist *hdrs, char *errbuf)
{
	uint64_t timeout = req->timeout_ms ? req->timeout_ms : NET_DEFAULT_TIMEOUT_MS;
	uint64_t ctimeout = req->connect_timeout_ms ? req->connect_timeout_ms :
		MIN(timeout, 10000);
	const char *method = req->method ? req->method : "GET";

	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_USERAGENT, n->user_agent);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)ctimeout);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_cb);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, s);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	if (req->compressed)
		curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "gzip");
	if (req->follow) {
		curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
		curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	}
	if (!strcmp(method, "HEAD")) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(method, "POST")) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(req->body ? req->body_len : 0));
		curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, req->body ? req->body : "");
	} else if (strcmp(method, "GET")) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
		if (req->body) {
			curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
					 (curl_off_t)req->body_len);
			curl_easy_setopt(c, CURLOPT_COPYPOSTFIELDS, req->body);
		}
	}
}

static void account(CURL *c, struct net *n, struct net_response *res)
{
	curl_off_t down = 0, up = 0;
	long hsize = 0, rsize = 0;

	curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &down);
	curl_easy_getinfo(c, CURLINFO_HEADER_SIZE, &hsize);
	curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up);
	curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &rsize);
	res->bytes_in = (uint64_t)down + (uint64_t)hsize;
	res->bytes_out = (uint64_t)up + (uint64_t)rsize;
	n->stats.requests++;
	n->stats.bytes_in += res->bytes_in;
	n->stats.bytes_out += res->bytes_out;
}

int net_request(struct net *n, const struct net_request *req,
		struct net_response *res)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink s = {
		.req = req, .res = res,
		.max_size = req->max_size ? req->max_size : NET_DEFAULT_MAX_SIZE,
	};
	struct curl_slist *hdrs;
	uint64_t start = util_now_ms();
	CURL *c = n->curl;
	CURLcode rc;

	response_reset(res);
	/* options go, live connections stay */
	curl_easy_reset(c);
	hdrs = make_headers(req);
	set_options(c, n, req, &s, hdrs, errbuf);
	rc = curl_easy_perform(c);
	res->elapsed_ms = util_now_ms() - start;
	account(c, n, res);
	curl_slist_free_all(hdrs);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
		return 0;
	}
	if (s.too_large) {
		res->err = NET_TOO_LARGE;
		strbuf_addf(&res->error, "response larger than %zu bytes", s.max_size);
	} else if (s.aborted) {
		res->err = NET_ABORTED;
		strbuf_addstr(&res->error, "transfer stopped by the receiver");
	} else {
		res->err = classify(rc);
		strbuf_addstr(&res->error, *errbuf ? errbuf : curl_easy_strerror(rc));
		strbuf_rtrim(&res->error);
	}
	/* a status may have arrived before the failure: keep it for messages */
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	return -1;
}

char *net_response_header(const struct net_response *res, const char *name)
{
	const char *p = res->headers.buf;
	size_t nlen = strlen(name);

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len > nlen && p[nlen] == ':' && !strncasecmp(p, name, nlen)) {
			const char *v = p + nlen + 1;
			const char *e = p + len;

			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
				e--;
			return xstrndup(v, e - v);
		}
		p += len + (eol ? 1 : 0);
	}
	return NULL;
}

void net_escape(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			strbuf_addch(sb, c);
		} else {
			strbuf_addch(sb, '%');
			strbuf_addch(sb, hex[c >> 4]);
			strbuf_addch(sb, hex[c & 15]);
		}
	}
}

void net_format_bytes(struct strbuf *sb, uint64_t bytes)
{
	if (bytes < 1024)
		strbuf_addf(sb, "%llu B", (unsigned long long)bytes);
	else if (bytes < 1024 * 1024)
		strbuf_addf(sb, "%.1f KB", bytes / 1024.0);
	else
		strbuf_addf(sb, "%.1f MB", bytes / (1024.0 * 1024));
}

/* SMTP */

struct mail_src {
	const char *data;
	size_t len, off;
};

static size_t mail_read_cb(char *buf, size_t size, size_t nmemb, void *data)
{
	struct mail_src *src = data;
	size_t n = MIN(size * nmemb, src->len - src->off);

	memcpy(buf, src->data + src->off, n);
	src->off += n;
	return n;
}

int net_send_mail(struct net *n, const struct net_mail *m, struct net_response *res)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct mail_src src = { .data = m->data, .len = m->len };
	uint64_t timeout = m->timeout_ms ? m->timeout_ms : NET_DEFAULT_TIMEOUT_MS;
	struct curl_slist *rcpt = NULL, *tmp;
	const char *const *r;
	uint64_t start = util_now_ms();
	char *from = xasprintf("<%s>", m->from);
	long use_ssl;
	CURL *c = n->curl;
	CURLcode rc;

	response_reset(res);
	for (r = m->rcpt; r && *r; r++) {
		char *a = xasprintf("<%s>", *r);

		tmp = curl_slist_append(rcpt, a);
		free(a);
		if (!tmp)
			abort();
		rcpt = tmp;
	}
	if (m->starttls < 0)
		use_ssl = CURLUSESSL_NONE;
	else if (m->starttls > 0 || (m->user && *m->user))
		use_ssl = CURLUSESSL_ALL;
	else
		use_ssl = CURLUSESSL_TRY;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, m->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)MIN(timeout, 10000));
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, mail_read_cb);
	curl_easy_setopt(c, CURLOPT_READDATA, &src);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_USE_SSL, use_ssl);
	if (m->cainfo && *m->cainfo)
		curl_easy_setopt(c, CURLOPT_CAINFO, m->cainfo);
	if (m->user && *m->user) {
		curl_easy_setopt(c, CURLOPT_USERNAME, m->user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, m->password ? m->password : "");
	}
	rc = curl_easy_perform(c);
	res->elapsed_ms = util_now_ms() - start;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	n->stats.requests++;
	n->stats.bytes_out += src.off;
	res->bytes_out = src.off;
	curl_easy_setopt(c, CURLOPT_MAIL_RCPT, NULL);
	curl_slist_free_all(rcpt);
	free(from);
	if (rc == CURLE_OK)
		return 0;
	res->err = rc == CURLE_USE_SSL_FAILED ? NET_TLS : classify(rc);
	strbuf_addstr(&res->error, *errbuf ? errbuf : curl_easy_strerror(rc));
	strbuf_rtrim(&res->error);
	return -1;
}

bool net_mail_permanent(const struct net_response *res)
{
	return res->status >= 500 && res->status < 600;
}
