/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dashboard: pages and a JSON API about every series version, read
 * from the database (a read-only connection of its own), served by
 * web.h.  `lorebot serve` runs it alone; the daemon can run it too.
 *
 *	/                     series list (filters: ?state= &author= &q=)
 *	/series/<id>          a series (id: series id or version id)
 *	/api/series           {"series": [version objects], "messages": N}
 *	/api/series/<id>      {"series": {id, title, author, versions: [...]}}
 *	/api/checks/<msgid>   {"checks": [{patch, context, state, description}]} (pcheck.h)
 *	/healthz              {"status": "ok", ...} (503 when the database fails)
 *	/metrics              Prometheus text format
 *	/log/<result id>      the log a stage result names (under web.logroot)
 *	/r/<report id>        a report as it was mailed (dash-report.c)
 *
 * A version object is what `lorebot series --json` prints for it, plus
 * "state" (report_state()), "cause" (why it is in that state, in one
 * line, or null), "counts" ({"errors", "warnings", "notes"} of its
 * findings), "results" (store_results_to_json()), "mails" (the replies about
 * it) and "list".  No page or object names a server path (dash-public.c).
 */
#ifndef LOREBOT_DASH_H
#define LOREBOT_DASH_H

#include "bot/conf/config.h"
#include "bot/store/store-results.h"
#include "lib/strbuf.h"

struct dash;

struct dash_opts {
	const char *db_path;
	const struct config *cfg;
	const char *listen;		/* NULL: web.listen */
	const char *archs;		/* "x86_64,arm64": NULL: build.arch or all */
};

/*
 * Open db_path read-only and serve in a thread of its own (web.h).  The
 * configuration is read here only, so the caller may reload or free it
 * afterwards.  0, or -1 with the reason in err.
 */
int dash_start(struct dash **d, const struct dash_opts *o, struct strbuf *err);
/* The port it listens on */
unsigned int dash_port(const struct dash *d);
void dash_stop(struct dash *d);

#endif
