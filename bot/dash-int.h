/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the dashboard (dash*.c) */
#ifndef LOREBOT_DASH_INT_H
#define LOREBOT_DASH_INT_H

#include <json-c/json.h>

#include "bot/dash.h"
#include "bot/reply.h"
#include "bot/report.h"
#include "bot/store.h"
#include "bot/template.h"
#include "bot/web.h"

struct dash {
	struct store st;		/* read-only */
	char *botname;
	struct report_opts ro;
	char *templates;
	char *logroot;
	int64_t refresh_s;
	struct web *web;
	bool has_results;		/* the report tables exist */
};

/* A version with what the pages show about it */
struct dash_version {
	struct report_version v;
	const char *state;
	struct reply_rows replies;
};

struct dash_versions {
	struct dash_version *v;
	size_t nr, alloc;
	size_t total;		/* matching versions, before limit and offset */
};

struct dash_filter {
	const char *state, *author, *q;
	const char *series;	/* series id or version id */
	size_t limit;		/* 0: all */
	size_t offset;
};

/* limit and offset from a request (?limit=, ?offset=), limit def when absent */
void dash_filter_paging(struct dash_filter *f, const struct web_request *req, size_t def);

/*
 * Versions (not gone) matching f, newest first; with_mail loads reply
 * texts.  Without a state, author or text filter only the page asked
 * for is loaded.
 */
enum dash_load_flags {
	DASH_MAIL = 1 << 0,	/* the replies with their text */
	DASH_LIGHT = 1 << 1,	/* state and counts only (REPORT_LIGHT), no replies */
};

int dash_load(struct dash *d, const struct dash_filter *f, unsigned int flags,
	      struct dash_versions *out, struct strbuf *err);
void dash_versions_release(struct dash_versions *vs);

/* The version object of the API */
json_object *dash_version_json(const struct dash_version *dv, bool with_mail);

/* handlers: id is what follows the route's prefix, or NULL */
typedef void dash_handler_fn(struct dash *d, const struct web_request *req, const char *id,
			     struct web_response *res);
dash_handler_fn dash_api_series, dash_api_one, dash_healthz, dash_metrics;
dash_handler_fn dash_page_list, dash_page_series, dash_log;
void dash_error(struct dash *d, struct web_response *res, int status, const char *msg);

/* Render a page template around body (title, refresh) into res */
void dash_render(struct dash *d, struct web_response *res, const char *file,
		 struct tvars *vars);

#endif
