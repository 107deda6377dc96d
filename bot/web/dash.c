// SPDX-License-Identifier: GPL-2.0
/* The dashboard: start, stop and the routes to the pages and the API */
#include <stdlib.h>

#include "bot/web/dash-int.h"
#include "bot/store/store-results.h"

/* A path, or a prefix ending in '/' that an id follows */
static const struct route {
	const char *path;
	bool id;
	dash_handler_fn *fn;
} routes[] = {
	{ "/", false, dash_page_list },
	{ "/series/", true, dash_page_series },
	{ "/api/series", false, dash_api_series },
	{ "/api/series/", false, dash_api_series },
	{ "/api/series/", true, dash_api_one },
	{ "/api/checks/", true, dash_api_checks },
	{ "/healthz", false, dash_healthz },
	{ "/metrics", false, dash_metrics },
	{ "/log/", true, dash_log },
	{ "/joblog/", true, dash_job_log_page },
	{ "/config/", true, dash_config },
	{ "/queue", false, dash_page_queue },
	{ "/r/", true, dash_report },
};

static void route(void *data, const struct web_request *req, struct web_response *res)
{
	struct dash *d = data;
	const char *path = web_path(req), *id;
	size_t i;

	/*
	 * One read transaction a request: one snapshot for all its queries,
	 * and one lock taken instead of one per statement (half the CPU of
	 * the index page went to fcntl() and fstat())
	 */
	db_exec(d->st.db, "BEGIN");
	for (i = 0; i < ARRAY_SIZE(routes); i++) {
		if (!routes[i].id && !strcmp(path, routes[i].path)) {
			routes[i].fn(data, req, NULL, res);
			break;
		}
		if (routes[i].id && util_skip_prefix(path, routes[i].path, &id) && *id) {
			routes[i].fn(data, req, id, res);
			break;
		}
	}
	if (i == ARRAY_SIZE(routes))
		dash_error(data, res, 404, "no such page");
	db_exec(d->st.db, "COMMIT");
}

int dash_start(struct dash **dp, const struct dash_opts *o, struct strbuf *err)
{
	struct dash *d = xcalloc(1, sizeof(*d));
	const char *listen = o->listen ? o->listen : config_v(o->cfg)->web_listen;
	const char *logroot = config_v(o->cfg)->web_logroot;

	*dp = NULL;
	d->botname = xstrdup(config_v(o->cfg)->core_botname);
	if (db_open(&d->st.db, o->db_path, DB_READONLY, err)) {
		free(d);
		return -1;
	}
	/* pages read through the mapping instead of copied in by pread() */
	db_exec(d->st.db, "PRAGMA mmap_size = 268435456");
	d->has_results = store_results_available(d->st.db);
	d->has_jobs = dash_has_table(d, "jobs");
	d->has_states = dash_has_table(d, "version_states");
	report_opts_init(&d->ro, o->cfg);
	if (o->archs)
		report_opts_set_archs(&d->ro, o->archs);
	/* nothing of the configuration is read after this: it may be reloaded */
	d->ro.cfg = NULL;
	d->ro.repo = NULL;
	d->templates = template_dir(config_v(o->cfg)->web_templates);
	d->logroot = xstrdup(logroot && *logroot ? logroot : config_v(o->cfg)->core_statedir);
	d->refresh_s = (int64_t)(config_v(o->cfg)->web_refresh / 1000);
	dash_public_init(d, o->cfg);
	if (web_start(&d->web, listen, route, d, err)) {
		dash_stop(d);
		return -1;
	}
	*dp = d;
	return 0;
}

unsigned int dash_port(const struct dash *d)
{
	return web_port(d->web);
}

void dash_stop(struct dash *d)
{
	if (!d)
		return;
	web_stop(d->web);
	store_close(&d->st);
	report_opts_release(&d->ro);
	free(d->templates);
	free(d->logroot);
	dash_public_release(d);
	free(d->botname);
	free(d);
}
