// SPDX-License-Identifier: GPL-2.0
#include <arpa/inet.h>
#include <malloc.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "bot/web/web.h"

/*
 * Bounds per client.  A slowloris (connections that trickle a header
 * line every few seconds, each resetting the idle timeout) must not
 * keep anyone else out, nor a client on its own address: a health check
 * from 127.0.0.1, every client behind a reverse proxy (issue 38: 70
 * slow connections from 127.0.0.1 and /healthz answered none of 11
 * checks).  So one address holds at most WEB_CONNECTIONS_PER_IP
 * connections still waiting for their request's headers; one more
 * from it closes the one of those that has waited longest, and the
 * newcomer, which a real client fills at once, is served.  A connection
 * whose request is being answered is never closed for it.  Against many
 * addresses, the WEB_CONNECTIONS slots: put a reverse proxy with a total
 * header timeout in front (lorebot-serve(1)).
 */
#define WEB_CONNECTIONS 256
#define WEB_CONNECTIONS_PER_IP 8
#define WEB_IDLE_S 15

/* A connection as the slot keeping sees it (its MHD socket context) */
struct web_conn {
	struct web_conn *next;
	int fd;
	struct sockaddr_storage addr;
	uint64_t waiting_since;	/* ms: since it waits for a request */
	bool answering;		/* its request's headers are in */
	bool closing;		/* shut down for a newcomer */
};

struct web {
	struct MHD_Daemon *d;
	web_handler_fn fn;
	void *data;
	uint16_t port;
	pthread_mutex_t lock;
	struct web_conn *conns;
	unsigned long evicted;
};

struct web_request {
	struct MHD_Connection *conn;
	const char *method;
	const char *path;
};

/* Nothing on these pages runs or loads from elsewhere */
static const char *const security_headers[][2] = {
	{ "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
	  "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'" },
	{ "X-Content-Type-Options", "nosniff" },
	{ "X-Frame-Options", "DENY" },
	{ "Referrer-Policy", "no-referrer" },
	{ "Cache-Control", "no-store" },
};

const char *web_path(const struct web_request *req)
{
	return req->path;
}

const char *web_method(const struct web_request *req)
{
	return req->method;
}

const char *web_query(const struct web_request *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
			((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static void conn_unlink(struct web *w, struct web_conn *c)
{
	struct web_conn **p;

	for (p = &w->conns; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			return;
		}
	}
}

/*
 * A newcomer c from an address that already has WEB_CONNECTIONS_PER_IP
 * connections waiting for their request: the one of them that has
 * waited longest is shut down (MHD then closes it).  Called with the
 * lock held.
 */
static void make_room(struct web *w, struct web_conn *c)
{
	struct web_conn *x, *oldest = NULL;
	unsigned int waiting = 0;

	for (x = w->conns; x; x = x->next) {
		if (x == c || x->closing || x->answering || !same_address(&x->addr, &c->addr))
			continue;
		waiting++;
		if (!oldest || x->waiting_since < oldest->waiting_since)
			oldest = x;
	}
	if (waiting < WEB_CONNECTIONS_PER_IP || !oldest)
		return;
	oldest->closing = true;
	shutdown(oldest->fd, SHUT_RDWR);
	w->evicted++;
}

static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct web *w = cls;
	struct web_conn *c = *socket_context, *x, *next;
	const union MHD_ConnectionInfo *fd, *addr;

	pthread_mutex_lock(&w->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		c = xcalloc(1, sizeof(*c));
		c->fd = fd ? fd->connect_fd : -1;
		if (addr && addr->client_addr)
			memcpy(&c->addr, addr->client_addr,
			       addr->client_addr->sa_family == AF_INET6 ?
			       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
		c->waiting_since = util_now_ms();
		/* one that had its descriptor is gone, whatever MHD told so far */
		for (x = w->conns; x; x = next) {
			next = x->next;
			if (x->fd == c->fd) {
				conn_unlink(w, x);
				free(x);
			}
		}
		c->next = w->conns;
		w->conns = c;
		*socket_context = c;
		if (c->fd >= 0)
			make_room(w, c);
	} else if (c) {
		conn_unlink(w, c);
		free(c);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&w->lock);
}

/* The connection's request is answered or ended: it waits for another */
static void request_done(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct web *w = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct web_conn *c = ci ? ci->socket_context : NULL;

	(void)state;
	(void)toe;
	if (!c)
		return;
	pthread_mutex_lock(&w->lock);
	c->answering = false;
	c->waiting_since = util_now_ms();
	pthread_mutex_unlock(&w->lock);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version,
			      const char *upload_data, size_t *upload_size, void **state)
{
	static int first_call;
	struct web *w = cls;
	struct web_request req = { .conn = conn, .method = method, .path = url };
	struct web_response res = { .status = 200, .body = STRBUF_INIT };
	struct MHD_Response *r;
	enum MHD_Result ret;
	bool big;
	size_t i;

	(void)version;
	(void)upload_data;
	if (!*state) {		/* headers only so far */
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		struct web_conn *c = ci ? ci->socket_context : NULL;

		/* a request in: its connection is not closed for a newcomer */
		if (c) {
			pthread_mutex_lock(&w->lock);
			c->answering = true;
			pthread_mutex_unlock(&w->lock);
		}
		*state = &first_call;
		return MHD_YES;
	}
	if (*upload_size) {	/* a body: not for us */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		res.status = 405;
		res.content_type = "text/plain; charset=utf-8";
		strbuf_addstr(&res.body, "only GET and HEAD\n");
	} else {
		w->fn(w->data, &req, &res);
	}
	r = MHD_create_response_from_buffer(res.body.len, res.body.buf, MHD_RESPMEM_MUST_COPY);
	if (!r) {
		strbuf_release(&res.body);
		free(res.location);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", res.content_type ? res.content_type :
				"text/html; charset=utf-8");
	for (i = 0; i < ARRAY_SIZE(security_headers); i++)
		MHD_add_response_header(r, security_headers[i][0], security_headers[i][1]);
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	if (res.location)
		MHD_add_response_header(r, "Location", res.location);
	ret = MHD_queue_response(conn, (unsigned int)res.status, r);
	MHD_destroy_response(r);
	big = res.body.len > (1u << 20);
	strbuf_release(&res.body);
	free(res.location);
	/* a large answer (the whole API) should not stay in the heap for good */
	if (big)
		malloc_trim(0);
	return ret;
}

/* "host:port" or "[v6]:port" into an address; 0 or -1 */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len,
			struct strbuf *err)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	const char *colon = strrchr(listen, ':');
	char *host;
	int r;

	if (!colon || colon == listen || !colon[1]) {
		strbuf_addf(err, "bad listen address '%s' (HOST:PORT)", listen);
		return -1;
	}
	if (listen[0] == '[' && colon[-1] == ']')
		host = xstrndup(listen + 1, colon - listen - 2);
	else
		host = xstrndup(listen, colon - listen);
	r = getaddrinfo(host, colon + 1, &hints, &ai);
	free(host);
	if (r || !ai) {
		strbuf_addf(err, "bad listen address '%s': %s", listen, gai_strerror(r));
		return -1;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

int web_start(struct web **wp, const char *listen, web_handler_fn fn, void *data,
	      struct strbuf *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct web *w;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;

	*wp = NULL;
	if (parse_listen(listen, &ss, &len, err))
		return -1;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	w = xcalloc(1, sizeof(*w));
	w->fn = fn;
	w->data = data;
	pthread_mutex_init(&w->lock, NULL);
	w->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, w,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)WEB_IDLE_S,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)WEB_CONNECTIONS,
				MHD_OPTION_NOTIFY_CONNECTION, notify_connection, w,
				MHD_OPTION_NOTIFY_COMPLETED, request_done, w,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
				MHD_OPTION_END);
	if (!w->d) {
		strbuf_addf(err, "cannot listen on '%s' (address in use or not available)",
			    listen);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return -1;
	}
	info = MHD_get_daemon_info(w->d, MHD_DAEMON_INFO_BIND_PORT);
	w->port = info ? info->port : 0;
	*wp = w;
	return 0;
}

uint16_t web_port(const struct web *w)
{
	return w->port;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	MHD_stop_daemon(w->d);
	while (w->conns) {
		struct web_conn *c = w->conns;

		w->conns = c->next;
		free(c);
	}
	pthread_mutex_destroy(&w->lock);
	free(w);
}
