/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP server: libmicrohttpd (the only file that includes it)
 * in a thread of its own, answering GET and HEAD with what a handler
 * puts into a response.  Requests are handled one at a time, on that
 * one thread, so the handler's state (a database connection) needs no
 * locking.  Every response carries headers that keep a browser from
 * running anything (no scripts, no frames, no MIME sniffing).
 *
 *	struct web *w;
 *	if (web_start(&w, "127.0.0.1:8080", handle, data, &err)) ...
 *	... web_port(w) ... (the port, when 0 was asked for)
 *	web_stop(w);
 */
#ifndef LOREBOT_WEB_H
#define LOREBOT_WEB_H

#include <stdint.h>

#include "lib/strbuf.h"

struct web;
struct web_request;

struct web_response {
	int status;			/* 200 unless set */
	const char *content_type;	/* "text/html; charset=utf-8" unless set */
	struct strbuf body;
	char *location;			/* a redirect target, or NULL */
};

/* The request's path (decoded, without the query) and method */
const char *web_path(const struct web_request *req);
const char *web_method(const struct web_request *req);
/* A query argument (decoded), or NULL */
const char *web_query(const struct web_request *req, const char *key);

typedef void (*web_handler_fn)(void *data, const struct web_request *req,
			       struct web_response *res);

/*
 * Listen on "HOST:PORT" ("[::1]:PORT" for IPv6; port 0 picks a free one)
 * and serve in a thread of its own.  0, or -1 with the reason in err.
 */
int web_start(struct web **w, const char *listen, web_handler_fn fn, void *data,
	      struct strbuf *err);
uint16_t web_port(const struct web *w);
void web_stop(struct web *w);

#endif
