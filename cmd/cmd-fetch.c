// SPDX-License-Identifier: GPL-2.0
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/results/contract.h"
#include "bot/fetch/fetch.h"
#include "bot/report/reply.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"

struct fetch_opts {
	const char *url, *list, *query, *since, *thread, *message, *mbox, *method;
	int batches;
	uint64_t commit_every;
	bool force, json, reparse;
};

static json_object *result_json(const char *name, const char *url,
				const struct fetch_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", jx_new_str(name));
	json_object_object_add(o, "url", jx_new_str(url));
	json_object_object_add(o, rk_flist_status,
			       json_object_new_string(fetch_status_name(r->status)));
	json_object_object_add(o, "windows", json_object_new_int64(r->windows));
	json_object_object_add(o, "threads", json_object_new_int64(r->threads));
	json_object_object_add(o, "requests", json_object_new_int64(r->stats.requests));
	json_object_object_add(o, "retries", json_object_new_int64(r->stats.retries));
	json_object_object_add(o, "bytes_in", json_object_new_int64(r->stats.bytes_in));
	json_object_object_add(o, "bytes_out", json_object_new_int64(r->stats.bytes_out));
	json_object_object_add(o, "received", json_object_new_int64(r->received));
	json_object_object_add(o, rk_flist_added, json_object_new_int64(r->added));
	json_object_object_add(o, "variants", json_object_new_int64(r->variants));
	json_object_object_add(o, "duplicates", json_object_new_int64(r->duplicates));
	json_object_object_add(o, "skipped", json_object_new_int64(r->skipped));
	json_object_object_add(o, "cursor", json_object_new_int64(r->cursor));
	json_object_object_add(o, rk_flist_failures, json_object_new_int(r->failures));
	json_object_object_add(o, rk_flist_next_poll, r->next_poll ?
			       json_object_new_int64(r->next_poll) : NULL);
	json_object_object_add(o, rk_flist_error, r->error.len ?
			       json_object_new_string(r->error.buf) : NULL);
	return o;
}

static void changes_json(json_object *arr, const struct store_changes *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		const struct store_change *ch = &c->v[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, rk_fver_id, json_object_new_string(ch->id));
		json_object_object_add(o, "change",
				       json_object_new_string(store_change_name(ch->kind)));
		json_object_object_add(o, "series_id", jx_new_str(ch->series_id));
		json_object_object_add(o, "title", jx_new_str(ch->title));
		json_object_object_add(o, "version", json_object_new_int(ch->version));
		json_object_object_add(o, "have", json_object_new_int(ch->have));
		json_object_object_add(o, "total", json_object_new_int(ch->total));
		json_object_object_add(o, "complete", json_object_new_boolean(ch->complete));
		json_object_object_add(o, "generation",
				       json_object_new_int64(ch->generation));
		json_object_array_add(arr, o);
	}
}

/* versions listed in the text output; a catch-up can bring thousands */
#define MAX_LISTED 50

static void print_text(const char *name, const struct fetch_result *r)
{
	struct strbuf b = STRBUF_INIT;
	int64_t now = time(NULL);
	size_t i;

	net_format_bytes(&b, r->stats.bytes_in);
	switch (r->status) {
	case FETCH_NOT_DUE:
		printf("%s: not due; next poll in %lld s (%s; --force polls now)\n", name,
		       (long long)(r->next_poll - now), r->failures ?
		       "backing off after failed polls" : "lore.minpoll");
		break;
	case FETCH_UNCHANGED:
		printf("%s: nothing new (%llu request%s, %s)\n", name,
		       (unsigned long long)r->stats.requests,
		       r->stats.requests == 1 ? "" : "s", b.buf);
		break;
	case FETCH_FAILED:
		printf("%s: failed after %llu messages; %d failed poll%s in a row, "
		       "next poll in %lld s\n", name, (unsigned long long)r->added,
		       r->failures, r->failures == 1 ? "" : "s",
		       (long long)(r->next_poll - now));
		break;
	default:
		printf("%s: %llu new message%s, %llu known (%zu window%s, %zu thread%s, "
		       "%llu requests, %s)%s\n", name, (unsigned long long)r->added,
		       r->added == 1 ? "" : "s",
		       (unsigned long long)(r->duplicates + r->variants), r->windows,
		       r->windows == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s",
		       (unsigned long long)r->stats.requests, b.buf,
		       r->status == FETCH_MORE ? "; more to fetch in the next pass" : "");
	}
	for (i = 0; i < store_changes_count(&r->changes); i++) {
		const struct store_change *ch = &r->changes.v[i];

		if (i == MAX_LISTED || i == r->changes.nr) {
			printf("  ... and %zu more (--json lists them all)\n",
			       store_changes_count(&r->changes) - i);
			break;
		}
		if (ch->kind == STORE_VERSION_GONE)
			printf("  %-8s <%s>\n", store_change_name(ch->kind), ch->id);
		else
			printf("  %-8s %s v%d [%d/%d%s] %s <%s>\n",
			       store_change_name(ch->kind), ch->series_id, ch->version,
			       ch->have, ch->total, ch->complete ? "" : ", incomplete",
			       ch->title, ch->id);
	}
	strbuf_release(&b);
}

/* "https://lore.kernel.org/linux-mm/" -> "linux-mm" */
struct run {
	struct ctx *ctx;
	struct store *st;
	char *gitdir;
	const struct fetch_opts *o;
	json_object *lists, *versions, *answers;
	int ret;
};

static void report(struct run *run, const char *name, const char *url,
		   struct fetch_result *r, int rc)
{
	if (rc) {
		fprintf(stderr, "lorebot: %s: %s\n", name ? name : "fetch", r->error.buf);
		run->ret = EXIT_INFRA;
	}
	if (run->o->json) {
		json_object_array_add(run->lists, result_json(name, url, r));
		changes_json(run->versions, &r->changes);
	} else {
		print_text(name ? name : "mbox", r);
	}
}

/* Command-line options over the configuration; 0 or -1 (reported) */
static int finish_cfg(struct run *run, struct fetch_cfg *c)
{
	const struct fetch_opts *o = run->o;

	c->gitdir = run->gitdir;
	c->force = o->force;
	if (o->batches > 0)
		c->max_batches = o->batches;
	if (o->method && fetch_parse_method(o->method, &c->method)) {
		fprintf(stderr, "lorebot fetch: bad --method '%s' (search or git)\n", o->method);
		return -1;
	}
	if (c->method == FETCH_GIT && c->query && *c->query) {
		fprintf(stderr, "lorebot fetch: %s: a query needs method search\n", c->name);
		return -1;
	}
	return 0;
}

static void fetch_one(struct run *run, struct fetch_cfg *c)
{
	struct fetch_result r = FETCH_RESULT_INIT;
	int rc;

	if (finish_cfg(run, c)) {
		run->ret = EXIT_USAGE;
		return;
	}
	if (run->o->thread || run->o->message)
		rc = fetch_thread(run->st, c, run->o->thread ? run->o->thread :
				  run->o->message, !run->o->thread, &r);
	else
		rc = fetch_list(run->st, c, &r);
	report(run, c->name, c->url, &r, rc);
	fetch_result_release(&r);
}

static void fetch_url(struct run *run)
{
	const struct fetch_opts *o = run->o;
	char *name = o->list ? xstrdup(o->list) : fetch_name_from_url(o->url);
	struct strbuf err = STRBUF_INIT;
	struct fetch_cfg c;

	/* a [list "NAME"] still sets its query, since, method... */
	if (fetch_cfg_list(&c, run->ctx->cfg, name, &err) < 0) {
		cmd_usage_error("fetch", "%s", err.buf);
		run->ret = EXIT_USAGE;
		strbuf_release(&err);
		free(name);
		return;
	}
	strbuf_release(&err);
	c.url = o->url;
	if (o->query)
		c.query = o->query;
	if (o->since && fetch_parse_since(o->since, time(NULL), &c.since)) {
		cmd_usage_error("fetch", "bad --since '%s'", o->since);
		run->ret = EXIT_USAGE;
	} else {
		fetch_one(run, &c);
	}
	free(name);
}

static void fetch_configured(struct run *run)
{
	char **names = NULL;
	size_t nr = config_subsections(run->ctx->cfg, CFG_SUB_list_url, &names), i, done = 0;

	for (i = 0; i < nr; i++) {
		struct strbuf err = STRBUF_INIT;
		struct fetch_cfg c;
		int r = fetch_cfg_list(&c, run->ctx->cfg, names[i], &err);

		if (r < 0) {
			fprintf(stderr, "lorebot: %s\n", err.buf);
			run->ret = EXIT_USAGE;
		} else if (r) {
			fetch_one(run, &c);
			done++;
		}
		strbuf_release(&err);
		free(names[i]);
	}
	free(names);
	if (!done && run->ret == EXIT_OK) {
		cmd_usage_error("fetch", "no list to fetch: give --url or configure "
				"list.<name>.url");
		run->ret = EXIT_USAGE;
	}
}

static int do_reparse(struct run *run)
{
	struct strbuf err = STRBUF_INIT;
	struct store_changes ch = { .limit = 1 };	/* a count is all it prints */
	int64_t n = store_reparse(run->st, true, &err);

	if (n < 0 || store_rebuild_series(run->st, &ch, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		strbuf_release(&err);
		store_changes_release(&ch);
		return EXIT_INFRA;
	}
	printf("parsed %lld messages again; %zu series versions changed\n",
	       (long long)n, store_changes_count(&ch));
	strbuf_release(&err);
	store_changes_release(&ch);
	return EXIT_OK;
}

static int batches_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	int *batches = opt->value;

	*batches = atoi(arg);
	if (*batches < 1) {
		strbuf_addf(err, "bad --batches '%s'", arg);
		return -1;
	}
	return 0;
}

const char cmd_fetch_help[] =
	"NAME\n"
	"    lorebot-fetch - follow mailing lists on lore (public-inbox) into the database\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE] fetch [--force] [--json] [--batches N]\n"
	"    lorebot [--db FILE] fetch --url URL [--list NAME] [--query Q] [--since WHEN]\n"
	"                              [--method search|git]\n"
	"    lorebot [--db FILE] fetch --url URL --thread MSGID | --message MSGID\n"
	"    lorebot [--db FILE] fetch --mbox FILE [--list NAME]\n"
	"    lorebot [--db FILE] fetch --reparse\n"
	"\n"
	"DESCRIPTION\n"
	"    One incremental pass over every list configured (list.<name>.url), or\n"
	"    over the inbox at --url: a cheap probe (the inbox's manifest.js.gz, a\n"
	"    few hundred bytes) tells whether anything changed since the last pass;\n"
	"    if so, the messages received since the stored cursor are searched in\n"
	"    windows of lore.batch messages, downloaded as gzip'ed mbox and stored\n"
	"    exactly as received, each batch of a window committed as it is\n"
	"    stored and the advanced cursor once the window is (a pass stopped\n"
	"    midway keeps what it stored); the next window is downloaded while\n"
	"    one is stored.  Of several messages with one Message-ID, the one\n"
	"    the inbox has first (its /raw lists them as they arrived) counts,\n"
	"    never the one with the earliest Date:.\n"
	"    Patches whose parent is missing get their whole thread\n"
	"    (t.mbox.gz).  Then the series are assembled again and what is new is\n"
	"    printed: the series versions that are new, changed or gone.\n"
	"\n"
	"    Answers to lorebot's own mails among what came are read for unquoted\n"
	"    lines 'lorebot: invalid ID [why]', 'lorebot: ignore RULE' and\n"
	"    'lorebot: retest' from the series' author, whoever gave it a\n"
	"    Reviewed-by or an Acked-by, or reply.maintainers: findings dismissed\n"
	"    for the series, the latest version queued to be tested again (at most\n"
	"    once per reply.retestinterval).  Each command is recorded once, with\n"
	"    what came of it; anyone else's is ignored and logged.\n"
	"\n"
	"    Politeness: a list is not polled again within lore.minpoll; failed\n"
	"    requests are retried with exponential back-off and jitter (lore.retries,\n"
	"    lore.retrydelay); after a failed pass the list backs off (doubling, at\n"
	"    most lore.backoffmax); a pass fetches at most lore.maxbatches windows,\n"
	"    the rest in the next pass.  --force ignores lore.minpoll and the back-off.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when every list was fetched (or did not need to be), 2 on usage\n"
	"    errors, 3 when a list could not be fetched (network, server, disk).\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot --db mm.db fetch --url https://lore.kernel.org/linux-mm/ --since 7d\n"
	"    lorebot --db mm.db series --json\n";

static int parse_opts(int argc, char **argv, struct fetch_opts *o)
{
	const struct parse_opt opts[] = {
		OPT_STRING(0, "url", &o->url, "URL",
			   "a public-inbox, e.g. https://lore.kernel.org/linux-mm/"),
		OPT_STRING(0, "list", &o->list, "NAME",
			   "the list's name in the database (default: the last part of the URL); "
			   "a [list \"NAME\"] section still sets its query, since and method"),
		OPT_STRING(0, "query", &o->query, "Q",
			   "only messages matching this public-inbox search"),
		OPT_STRING(0, "since", &o->since, "WHEN",
			   "where the first fetch starts: 2026-01-31, 14d (ago), or unix seconds "
			   "(default: list.<name>.since, else everything)"),
		OPT_CALLBACK(0, "batches", &o->batches, "N",
			     "windows per pass (default: lore.maxbatches)", batches_cb),
		OPT_STRING(0, "method", &o->method, "M",
			   "search (default; HTTP searches, a query works) or git (mirror the "
			   "inbox's git epochs next to the database, lore.gitdir: every message "
			   "once, in import order)"),
		OPT_STRING(0, "thread", &o->thread, "MSGID",
			   "fetch the whole thread of MSGID (t.mbox.gz)"),
		OPT_STRING(0, "message", &o->message, "MSGID",
			   "fetch the single message MSGID (raw)"),
		OPT_STRING(0, "mbox", &o->mbox, "FILE",
			   "import a local mbox instead (- for stdin), committed every 64 MB of "
			   "mail: stopped, the same import again stores the rest"),
		OPT_SIZE(0, "commit-every", &o->commit_every, "SIZE",
			 "with --mbox: commit every SIZE of mail (16m, 512k) instead of 64 MB: "
			 "less is lost to a stop, more commits are made"),
		OPT_BOOL(0, "reparse", &o->reparse,
			 "parse every stored message again (after a parser fix)"),
		OPT_BOOL('f', "force", &o->force,
			 "poll now, whatever lore.minpoll and the back-off say"),
		OPT_BOOL('j', "json", &o->json,
			 "print {\"lists\": [...], \"versions\": [...], \"answers\": [...]}"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "fetch", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if ((o->thread || o->message) && !o->url)
		return cmd_usage_error("fetch", "--thread and --message need --url");
	if (o->thread && o->message)
		return cmd_usage_error("fetch", "--thread or --message, not both");
	if (o->mbox && o->url)
		return cmd_usage_error("fetch", "--mbox or --url, not both");
	if (o->commit_every && !o->mbox)
		return cmd_usage_error("fetch", "--commit-every goes with --mbox");
	if ((o->query || o->since) && !o->url)
		return cmd_usage_error("fetch", "--query and --since go with --url "
				       "(configured lists have list.<name>.query/since)");
	return 0;
}

/*
 * Answers to lorebot's own mails among what came: their commands, and
 * the versions a retest queued again (among the versions changed, for
 * the daemon to plan)
 */
static void answers(struct run *run)
{
	struct reply_answers a = { 0 };
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (reply_answers_scan(run->st, run->ctx->cfg, (int64_t)time(NULL), &a, &err)) {
		fprintf(stderr, "lorebot: answers to lorebot's mails: %s\n", err.buf);
		run->ret = EXIT_INFRA;
	}
	for (i = 0; i < a.nr; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, rk_answer_msgid, json_object_new_string(a.v[i].msgid));
		json_object_object_add(o, rk_answer_from, jx_new_str(a.v[i].sender));
		json_object_object_add(o, rk_answer_command,
				       json_object_new_string(a.v[i].command));
		json_object_object_add(o, rk_answer_outcome, json_object_new_string(
					       a.v[i].done ? RD_ANSWER_DONE : RD_ANSWER_IGNORED));
		json_object_object_add(o, rk_answer_why, json_object_new_string(a.v[i].why));
		json_object_array_add(run->answers, o);
		if (!run->o->json)
			printf("answer <%s> from %s: lorebot: %s: %s%s\n", a.v[i].msgid,
			       a.v[i].sender ? a.v[i].sender : "?", a.v[i].command,
			       a.v[i].done ? "" : "ignored: ", a.v[i].why);
	}
	for (i = 0; i < a.nr_retested; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_string(a.retested[i]));
		json_object_object_add(o, "change", json_object_new_string("retest"));
		json_object_array_add(run->versions, o);
	}
	reply_answers_release(&a);
	strbuf_release(&err);
}

int cmd_fetch(int argc, char **argv, struct ctx *ctx)
{
	struct fetch_opts o = { 0 };
	struct store st;
	struct run run = { .ctx = ctx, .st = &st, .o = &o };
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (parse_opts(argc, argv, &o))
		return EXIT_USAGE;
	ret = cmd_open_store(ctx, &st, true);
	if (ret)
		return ret;
	/* the jailed parser now: where none can be made, no pass starts */
	if (store_jail_start(&st, &err)) {
		fprintf(stderr, "lorebot: cannot parse mail in a jail here: %s "
			"(build.sandbox = false parses it without one)\n", err.buf);
		strbuf_release(&err);
		store_close(&st);
		return EXIT_INFRA;
	}
	if (o.reparse) {
		ret = do_reparse(&run);
		store_close(&st);
		return ret;
	}
	run.lists = json_object_new_array();
	run.versions = json_object_new_array();
	run.answers = json_object_new_array();
	run.gitdir = config_v(ctx->cfg)->lore_gitdir ?
		xstrdup(config_v(ctx->cfg)->lore_gitdir) :
		xasprintf("%s.lore", db_path(st.db));
	if (o.mbox) {
		struct fetch_result r = FETCH_RESULT_INIT;
		int rc;

		/* an archive's first import changes every version: text lists a few */
		if (!o.json)
			r.changes.limit = MAX_LISTED;
		rc = fetch_mbox_file(&st, o.list, o.mbox,
				     config_v(ctx->cfg)->mail_maxsize, o.commit_every, &r);

		report(&run, o.list, NULL, &r, rc);
		fetch_result_release(&r);
	} else if (o.url) {
		fetch_url(&run);
	} else {
		fetch_configured(&run);
	}
	answers(&run);
	if (o.json) {
		json_object *out = json_object_new_object();

		json_object_object_add(out, rk_fetch_lists, run.lists);
		json_object_object_add(out, rk_fetch_versions, run.versions);
		json_object_object_add(out, rk_fetch_answers, run.answers);
		jx_print(out, stdout);
		json_object_put(out);
	} else {
		json_object_put(run.lists);
		json_object_put(run.versions);
		json_object_put(run.answers);
	}
	free(run.gitdir);
	store_close(&st);
	return run.ret;
}
