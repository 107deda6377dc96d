/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network: HTTP(S) requests over libcurl, the only file that
 * includes curl.h.  The lore client (lore.c) is built on net_request();
 * mail sending (SMTP via libcurl for replies) belongs here too, as one
 * more function on the same struct net.
 *
 * A struct net owns one curl easy handle: connections (and DNS, TLS
 * sessions) are kept alive and reused between requests to the same
 * host.  It is not thread-safe; use one per thread.
 *
 *	struct net net;
 *	struct net_request req = { .url = "https://lore.kernel.org/linux-mm/new.atom" };
 *	struct net_response res = NET_RESPONSE_INIT;
 *
 *	net_init(&net, NULL);
 *	if (net_request(&net, &req, &res))
 *		... res.error.buf says why no response arrived ...
 *	else if (res.status == 200)
 *		... res.body ...
 *	net_response_release(&res);
 *	net_release(&net);
 */
#ifndef LOREBOT_NET_H
#define LOREBOT_NET_H

#include <stdint.h>

#include "lib/strbuf.h"

#define NET_DEFAULT_TIMEOUT_MS 30000
#define NET_DEFAULT_MAX_SIZE (64u << 20)

/* Why a request got no (complete) response */
enum net_error {
	NET_OK,
	NET_CONNECT,	/* cannot resolve or connect */
	NET_TIMEOUT,	/* the whole request took longer than its timeout */
	NET_BROKEN,	/* the connection broke: a partial or empty response */
	NET_DECODE,	/* bad Content-Encoding data */
	NET_TOO_LARGE,	/* the body passed max_size */
	NET_ABORTED,	/* the write callback said stop */
	NET_TLS,	/* certificate or TLS handshake problem */
	NET_OTHER,
};

struct net_stats {
	uint64_t requests;
	uint64_t bytes_in;	/* on the wire: headers and (encoded) bodies */
	uint64_t bytes_out;
};

struct net {
	void *curl;		/* CURL *, kept for connection reuse */
	char *user_agent;
	struct net_stats stats;
};

/*
 * Streaming: called with each piece of the (decoded) body; return 0 to
 * go on, non-zero to stop the transfer (the request then fails with
 * NET_ABORTED).
 */
typedef int (*net_write_fn)(void *data, const char *buf, size_t len);

struct net_request {
	const char *method;	/* NULL: "GET"; "POST", "HEAD", ... */
	const char *url;
	const char *const *headers;	/* NULL-terminated "Name: value" */
	const void *body;	/* request body; POST with no body sends "" */
	size_t body_len;
	uint64_t timeout_ms;	/* the whole request; 0: NET_DEFAULT_TIMEOUT_MS */
	uint64_t connect_timeout_ms;	/* 0: min(timeout, 10 s) */
	size_t max_size;	/* response body limit; 0: NET_DEFAULT_MAX_SIZE */
	bool compressed;	/* send Accept-Encoding: gzip, decode the reply */
	bool follow;		/* follow up to 5 redirects (http/https only) */
	net_write_fn write;	/* stream the body here instead of res->body */
	void *write_data;
};

struct net_response {
	long status;		/* HTTP status of the final response; 0: none */
	struct strbuf headers;	/* header lines of the final response */
	struct strbuf body;	/* the body, unless the request streamed it */
	enum net_error err;
	struct strbuf error;	/* what went wrong, for people; "" when NET_OK */
	uint64_t bytes_in;	/* headers + body as received */
	uint64_t bytes_out;
	uint64_t elapsed_ms;
};

#define NET_RESPONSE_INIT { .headers = STRBUF_INIT, .body = STRBUF_INIT, \
			    .error = STRBUF_INIT }

/* user_agent NULL: "lorebot/<version>".  0, or -1 when curl cannot start. */
int net_init(struct net *n, const char *user_agent);
void net_release(struct net *n);

/*
 * Perform one request.  Returns 0 when a complete response arrived,
 * whatever its status (look at res->status), and -1 when none did:
 * res->err and res->error say why.  res is reset first, so one response
 * can be reused for several requests.
 */
int net_request(struct net *n, const struct net_request *req,
		struct net_response *res);

void net_response_init(struct net_response *res);
void net_response_release(struct net_response *res);

/* The value of a response header (case-insensitive name), or NULL; caller frees */
char *net_response_header(const struct net_response *res, const char *name);

/* Is the failure worth trying again later (connection, timeout, cut off)? */
bool net_error_transient(enum net_error err);

/* Append s percent-encoded (RFC 3986 unreserved characters kept) */
void net_escape(struct strbuf *sb, const char *s);

/* "1.2 KB", "3.4 MB": for messages */
void net_format_bytes(struct strbuf *sb, uint64_t bytes);

/*
 * Mail: one message over SMTP (smtp://host[:port], STARTTLS when the
 * server offers it, required with credentials or starttls > 0; or
 * smtps://host[:port], TLS from the start).  The same struct net (and
 * its live connections) as the HTTP requests.
 */
struct net_mail {
	const char *url;
	const char *from;		/* envelope sender (addr-spec) */
	const char *const *rcpt;	/* NULL-terminated envelope recipients */
	const char *data;		/* the message, CRLF line ends */
	size_t len;
	const char *user;		/* AUTH when set */
	const char *password;
	int starttls;			/* 0: when offered (required with a user),
					 * 1: required, -1: never */
	const char *cainfo;		/* CA certificates to verify with, or NULL */
	uint64_t timeout_ms;		/* 0: NET_DEFAULT_TIMEOUT_MS */
};

/*
 * Send one message.  0 when the server accepted it; -1 when not:
 * res->err and res->error say why, res->status is the server's last
 * reply code (0 when none came).  res->body is not used.
 */
int net_send_mail(struct net *n, const struct net_mail *m, struct net_response *res);

/* Did the server refuse for good (a 5xx reply), so that retrying is pointless? */
bool net_mail_permanent(const struct net_response *res);

#endif
