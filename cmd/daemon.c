// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's loop.  It only schedules: every fetch pass, every stage
 * and the dashboard run as children in a run_pool (lib/run.h), so
 * nothing in the loop waits for the network, parses mail or serves
 * HTTP; the loop waits on a signalfd with a timeout of at most a second,
 * and what it writes to the database are short transactions.  What a
 * version needs next is derived from its results (bot/sched/pipeline.h) at
 * start-up and whenever one of its jobs ends.
 */
#include <errno.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd/daemon.h"
#include "bot/sched/exec.h"
#include "bot/fetch/fetch.h"
#include "bot/fetch/fetch-box.h"
#include "bot/sched/job.h"
#include "bot/results/contract.h"
#include "lib/log.h"
#include "bot/export/patchwork.h"
#include "bot/sched/pipeline.h"
#include "bot/report/report.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "lib/run.h"

#define TICK_MS 1000
#define REMOTE_TICK_MS 250	/* while jobs run on a cluster: no SIGCHLD ends them */
#define STOP_GRACE_MS 10000
#define PROGRESS_MS 30000	/* how often long jobs are reported */
#define RECONCILE_MS 60000	/* how often the queue is checked against the pool */
#define OPTIMIZE_MS (3600 * 1000ULL)	/* PRAGMA optimize */
#define SERVE_RESTART_MS 5000
#define MAX_INTERRUPTS 10	/* a job the daemon died under this often fails */
#define BUSY_MS 500		/* the loop waits this long for the write lock */
#define STOP_BUSY_MS 100	/* once stopping (a job not given back: next start) */
#define PLAN_SLICE_MS 100	/* start-up planning per turn of the loop */
#define FETCH_OUT_MAX (64 << 20)
#define REMOTE_BACKOFF_MS 30000	/* no submission this long after one failed */

enum task_class { CLASS_LIGHT, CLASS_HEAVY, CLASS_FETCH, CLASS_SERVE, CLASS_NOTIFY };

#define NOTIFY_MS 2000		/* how often due patchwork checks are looked for */
#define NOTIFY_IDLE_PASSES 3	/* --once: passes over them once the queue is idle */

struct dlist {
	char *name;
	char *url;
	struct fetch_cfg c;
	uint64_t next_ms;	/* monotonic */
	bool polled;		/* at least one pass since start */
	bool more;		/* the last pass stopped with more to fetch */
	bool running;		/* a pass is running */
	int crashes;		/* passes in a row that left no result */
};

/* What a task of the pool is (its data pointer) */
struct task {
	enum task_class klass;
	int64_t job;		/* jobs.id */
	char *version;
	char *what;		/* "build arm64 of <id>" for the log */
	char *list;		/* a fetch: its list's name */
	char *out;		/* a fetch: its JSON */
	bool remote;		/* a job of daemon.executor (not a local runner) */
	bool superseded;	/* cancelled: its version is superseded */
	long remote_id;		/* remote: the scheduler's id */
	char *node;		/* remote: where it runs, once known */
};

struct daemon {
	struct ctx *ctx;
	const struct daemon_opts *o;
	struct config *cfg;
	struct store st;
	struct pipeline_cfg pc;
	struct job_env env;
	const char *dbpath;	/* absolute */
	struct dlist *lists;
	size_t nr_lists;
	struct run_pool *pool;
	int max_heavy, max_light, attempts;
	/* daemon.executor, and the stages it runs */
	struct exec ex;
	uint64_t remote_backoff_ms;	/* no submission before this */
	uint64_t fetch_timeout_ms;
	int sigfd;
	bool stop, reload;
	bool serving;		/* the dashboard child runs */
	bool notifying;		/* a `lorebot patchwork` child runs */
	uint64_t notify_ms;	/* when to look for due checks again */
	int notify_idle;	/* passes started with the queue idle */
	uint64_t serve_ms;	/* when to start it (again) */
	uint64_t progress_ms, reconcile_ms, optimize_ms;
	int64_t window_to;	/* the completeness window was planned up to here */
	/* versions whose planning failed: again next tick */
	struct {
		char **v;
		size_t nr, alloc;
	} replan;
	/* the versions not finished at start-up, planned a slice a turn */
	struct pipeline_ids backlog;
	size_t backlog_done;
	int backlog_queued;
};

static void task_free(struct task *t)
{
	free(t->version);
	free(t->what);
	free(t->list);
	free(t->out);
	free(t->node);
	free(t);
}

static void lists_release(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nr_lists; i++) {
		free(d->lists[i].name);
		free(d->lists[i].url);
	}
	free(d->lists);
	d->lists = NULL;
	d->nr_lists = 0;
}

static struct dlist *find_list(struct daemon *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nr_lists; i++)
		if (!strcmp(d->lists[i].name, name))
			return &d->lists[i];
	return NULL;
}

static void add_list(struct daemon *d, const char *name, const char *url,
		     const struct fetch_cfg *c, const struct dlist *old)
{
	struct dlist *l;

	d->lists = xrealloc(d->lists, (d->nr_lists + 1) * sizeof(*d->lists));
	l = &d->lists[d->nr_lists++];
	memset(l, 0, sizeof(*l));
	if (old)
		*l = *old;	/* a reload keeps the schedule */
	l->name = xstrdup(name);
	l->url = xstrdup(url);
	l->c = *c;
	l->c.name = l->name;
	l->c.url = l->url;
}

/* The lists to follow: --url, or every enabled [list "NAME"] */
static int setup_lists(struct daemon *d)
{
	struct dlist *old = d->lists;
	size_t nr_old = d->nr_lists, nr, i;
	struct fetch_cfg c;
	char **names = NULL;
	int ret = 0;

	d->lists = NULL;
	d->nr_lists = 0;
	if (d->o->url) {
		char *name = fetch_name_from_url(d->o->url);
		struct strbuf err = STRBUF_INIT;

		/* a [list "NAME"] section still sets its poll interval, query... */
		if (fetch_cfg_list(&c, d->cfg, name, &err) < 0) {
			log_err("%s", err.buf);
			ret = -1;
		}
		add_list(d, name, d->o->url, &c, nr_old ? &old[0] : NULL);
		strbuf_release(&err);
		free(name);
		goto out;
	}
	nr = config_subsections(d->cfg, CFG_SUB_list_url, &names);
	for (i = 0; i < nr; i++) {
		struct strbuf err = STRBUF_INIT;
		int r = fetch_cfg_list(&c, d->cfg, names[i], &err);
		size_t k;

		if (r < 0) {
			log_err("%s", err.buf);
			ret = -1;
		} else if (r) {
			for (k = 0; k < nr_old && strcmp(old[k].name, names[i]); k++)
				;
			add_list(d, names[i], c.url, &c, k < nr_old ? &old[k] : NULL);
		}
		strbuf_release(&err);
		free(names[i]);
	}
	free(names);
	if (!d->nr_lists && !ret)
		log_warn("no list to follow: give --url or configure [list \"NAME\"]");
out:
	for (i = 0; i < nr_old; i++) {
		free(old[i].name);
		free(old[i].url);
	}
	free(old);
	return ret;
}

static void setup_limits(struct daemon *d)
{
	const char *level = config_v(d->cfg)->core_loglevel;
	enum log_level lvl;

	exec_configure(&d->ex, d->cfg);
	d->max_heavy = d->ex.max_jobs ? d->ex.max_jobs :
		MAX(1, config_v(d->cfg)->daemon_builds);
	d->max_light = MAX(1, config_v(d->cfg)->daemon_light);
	d->attempts = MAX(1, config_v(d->cfg)->daemon_attempts);
	d->fetch_timeout_ms = config_v(d->cfg)->daemon_fetchtimeout;
	d->env.timeout_ms = config_v(d->cfg)->daemon_jobtimeout;
	d->env.sandbox = config_v(d->cfg)->build_sandbox;
	if (level && !log_parse_level(level, &lvl) && log_get_level() != LOG_LVL_DEBUG)
		log_set_level(lvl);
	pipeline_cfg_release(&d->pc);
	pipeline_cfg_init(&d->pc, d->cfg, d->o->archs);
}

/* daemon.executor; created once (its jobs outlive a reload) */
static int setup_executor(struct daemon *d)
{
	struct strbuf err = STRBUF_INIT;

	if (exec_open(&d->ex, d->cfg, &err)) {
		log_err("%s", err.buf);
		strbuf_release(&err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static void reload(struct daemon *d)
{
	struct config fresh = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;

	d->reload = false;
	if (!d->ctx->config_path) {
		log_info("SIGHUP: no configuration file to reload");
		return;
	}
	if (config_load_strict(&fresh, d->ctx->config_path, &err)) {
		log_err("SIGHUP: keeping the old configuration: %s", err.buf);
		strbuf_release(&err);
		config_release(&fresh);
		return;
	}
	config_check(&fresh, &err);
	if (err.len)
		log_warn("SIGHUP: %s", err.buf);
	strbuf_release(&err);
	config_release(d->cfg);
	*d->cfg = fresh;
	setup_limits(d);
	setup_lists(d);
	log_info("configuration reloaded from '%s'", d->ctx->config_path);
}

static void handle_signals(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			if (!d->stop)
				log_info("signal %d: stopping", (int)si.ssi_signo);
			d->stop = true;
			break;
		case SIGHUP:
			d->reload = true;
			break;
		default:	/* SIGCHLD: the pool reaps */
			break;
		}
	}
}

/*
 * Signals are read between the steps of a turn and within the long ones,
 * so that SIGTERM is honoured within a second whatever the loop is doing
 */
static bool stopping(struct daemon *d)
{
	handle_signals(d);
	return d->stop;
}

/*
 * How long to wait for the database's write lock: not at all with
 * SIGTERM or SIGINT waiting to be read (the write is tried again later,
 * or at the next start), briefly once stopping
 */
static int busy_ms(void *ctx)
{
	struct daemon *d = ctx;
	sigset_t set;

	if (d->stop)
		return STOP_BUSY_MS;
	if (!sigpending(&set) && (sigismember(&set, SIGTERM) || sigismember(&set, SIGINT)))
		return 0;
	return BUSY_MS;
}

/* "lorebot --db DB [--config FILE]", then the command's own arguments */
struct argv {
	const char *v[24];
	int n;
};

static void argv_add(struct argv *a, const char *s)
{
	if (a->n < (int)ARRAY_SIZE(a->v) - 1)
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void argv_init(struct argv *a, struct daemon *d)
{
	a->n = 0;
	argv_add(a, d->env.self);
	argv_add(a, "--db");
	argv_add(a, d->dbpath);
	if (d->env.config) {
		argv_add(a, "--config");
		argv_add(a, d->env.config);
	}
}

/* planning: what a version needs is derived again; failures are retried */

struct cancel_ctx {
	struct daemon *d;
	const char *version;
};

static void cancel_one(void *ctx, void *data, uint64_t ms)
{
	struct cancel_ctx *c = ctx;
	struct task *t = data;

	(void)ms;
	if (!t->remote || t->superseded || !t->version || strcmp(t->version, c->version))
		return;
	t->superseded = true;
	log_info("job %lld: %s: the version is superseded; cancelling %s job %ld",
		 (long long)t->job, t->what, exec_name(&c->d->ex), t->remote_id);
	run_pool_cancel(c->d->pool, t, SIGTERM);
}

/* A superseded version's jobs on the cluster, queued or running, are cancelled */
static void cancel_superseded(struct daemon *d, const char *version)
{
	struct cancel_ctx c = { d, version };

	if (d->ex.x && run_pool_count(d->pool, -1) &&
	    pipeline_version_over(&d->st, version) > 0)
		run_pool_each(d->pool, cancel_one, &c);
}

/* Planning failed (the database was busy): the version again next turn */
static void replan_later(struct daemon *d, const char *version, const char *why)
{
	size_t i;

	log_err("%s; planned again shortly", why);
	for (i = 0; i < d->replan.nr && strcmp(d->replan.v[i], version); i++)
		;
	if (i == d->replan.nr) {
		ALLOC_GROW(d->replan.v, d->replan.nr + 1, d->replan.alloc);
		d->replan.v[d->replan.nr++] = xstrdup(version);
	}
}

/*
 * The patchwork checks of the version's stages that ended, stored to be
 * posted (bot/export/patchwork.h); the reply job plans them again, so a
 * failure here loses nothing
 */
static void pw_plan(struct daemon *d, const char *version)
{
	struct strbuf err = STRBUF_INIT;
	struct report_opts ro;
	int r;

	if (!patchwork_enabled(d->cfg))
		return;
	report_opts_init(&ro, d->cfg);
	if (d->o->archs)
		report_opts_set_archs(&ro, d->o->archs);
	r = store_begin(&d->st, &err);
	if (!r) {
		r = patchwork_plan(&d->st, &ro, version, &err);
		if (r < 0)
			store_rollback(&d->st);
		else
			r = store_commit(&d->st, &err);
	}
	if (r < 0)
		log_warn("patchwork checks of <%s>: %s", version, err.buf);
	report_opts_release(&ro);
	strbuf_release(&err);
}

static void plan(struct daemon *d, const char *version)
{
	struct strbuf err = STRBUF_INIT;

	if (pipeline_plan(&d->st, &d->pc, version, time(NULL), &err) < 0)
		replan_later(d, version, err.buf);
	cancel_superseded(d, version);
	pw_plan(d, version);
	strbuf_release(&err);
}

/* The versions not finished at start-up: a slice each turn */
static void plan_backlog(struct daemon *d)
{
	uint64_t until = util_now_ms() + PLAN_SLICE_MS;
	struct strbuf err = STRBUF_INIT;

	while (d->backlog_done < d->backlog.nr && util_now_ms() < until && !stopping(d)) {
		const char *v = d->backlog.v[d->backlog_done++];
		int r = pipeline_plan(&d->st, &d->pc, v, time(NULL), &err);

		if (r < 0) {
			replan_later(d, v, err.buf);
			strbuf_reset(&err);
		} else {
			d->backlog_queued += r;
		}
	}
	strbuf_release(&err);
	if (d->backlog.nr && d->backlog_done == d->backlog.nr) {
		log_info("%zu versions not finished at start-up planned: %d jobs queued",
			 d->backlog.nr, d->backlog_queued);
		pipeline_ids_release(&d->backlog);
		d->backlog_done = 0;
	}
}

static void replan(struct daemon *d)
{
	char **v = d->replan.v;
	size_t nr = d->replan.nr, i;

	if (!nr)
		return;
	memset(&d->replan, 0, sizeof(d->replan));
	for (i = 0; i < nr; i++) {
		plan(d, v[i]);
		free(v[i]);
	}
	free(v);
}

/* fetch passes */

/* A pass runs in a sandbox of its own (bot/fetch/fetch-box.h) when build.sandbox */
static int fetch_box(struct daemon *d, const struct dlist *l, const char *dir,
		     struct fetch_box *b)
{
	const struct fetch_box_paths p = {
		.cfg = d->cfg, .db = d->dbpath, .dir = dir,
		.git = l->c.method == FETCH_GIT, .config = d->env.config,
		.statedir = d->env.statedir, .outbox = d->env.outbox,
		.repo = d->env.repo, .cache = d->env.cache,
	};
	struct strbuf err = STRBUF_INIT;
	int ret = fetch_box_make(b, &p, &err);

	if (ret)
		log_err("%s: not fetching: %s", l->name, err.buf);
	strbuf_release(&err);
	return ret;
}

static void fetch_start(struct daemon *d, struct dlist *l)
{
	struct task *t = xcalloc(1, sizeof(*t));
	char *dir = xasprintf("%s/fetch", d->env.statedir);
	char *log = xasprintf("%s/%s.log", dir, l->name);
	struct run_task rt = { .res = { .klass = CLASS_FETCH,
					.timeout_ms = d->fetch_timeout_ms } };
	struct fetch_box box = { 0 };
	struct argv a;
	int r;

	util_mkdir_p(dir, 0755);
	/* fetch_box() says what it lacked */
	r = d->env.sandbox ? fetch_box(d, l, dir, &box) : 0;
	if (!r) {
		t->klass = CLASS_FETCH;
		t->list = xstrdup(l->name);
		t->out = xasprintf("%s/%s.json", dir, l->name);
		/* the last pass's output only */
		unlink(t->out);
		unlink(log);
		argv_init(&a, d);
		argv_add(&a, "fetch");
		argv_add(&a, "--url");
		argv_add(&a, l->url);
		argv_add(&a, "--list");
		argv_add(&a, l->name);
		argv_add(&a, "--json");
		if (!l->polled)
			argv_add(&a, "--force");	/* the first pass is not held back */
		rt.argv = a.v;
		rt.out_path = t->out;
		rt.log_path = log;
		rt.data = t;
		if (box.sb.enabled) {
			rt.sandbox = &box.sb;
			rt.env = box.env;
		}
		r = run_pool_submit(d->pool, &rt);
		if (r)
			log_err("%s: cannot start a fetch: %s", l->name, strerror(-r));
	}
	fetch_box_release(&box);
	if (r) {
		l->next_ms = util_now_ms() + MAX(l->c.poll_interval_ms, (uint64_t)1000);
		task_free(t);
	} else {
		l->running = true;
	}
	free(dir);
	free(log);
}

static void poll_lists(struct daemon *d)
{
	uint64_t now = util_now_ms();
	size_t i;

	for (i = 0; i < d->nr_lists && !d->stop; i++)
		if (!d->lists[i].running && now >= d->lists[i].next_ms)
			fetch_start(d, &d->lists[i]);
}

static uint64_t backoff_ms(const struct dlist *l, int failures)
{
	uint64_t ms = MAX(l->c.min_interval_ms, (uint64_t)1000);
	uint64_t max = l->c.backoff_max_ms ? l->c.backoff_max_ms : 600000;

	while (failures-- > 1 && ms < max)
		ms *= 2;
	return MIN(ms, max);
}

/* A pass ended: its JSON says how it went and which versions changed */
static void fetch_ended(struct daemon *d, struct task *t, const struct run_done *rd)
{
	struct dlist *l = find_list(d, t->list);
	uint64_t now = util_now_ms();
	json_object *o = NULL, *r, *vs;
	struct strbuf err = STRBUF_INIT;
	char *buf = NULL;
	size_t len, i;

	if (!util_read_file(t->out, &buf, &len, FETCH_OUT_MAX))
		o = json_tokener_parse(buf);
	free(buf);
	r = rd_at(rd_fetch_lists(o), 0);
	if (!l) {
		/* the list was dropped by a reload: its changes still count */
	} else if (!r) {
		char *why = rd->timed_out ? xasprintf("timed out after %llu s",
			(unsigned long long)d->fetch_timeout_ms / 1000) :
			xasprintf("ended with status %d and no result", rd->status);
		uint64_t wait = backoff_ms(l, ++l->crashes);

		log_warn("%s: fetch failed (%d in a row): the fetch %s; backing off, next "
			 "attempt in %llus", l->name, l->crashes, why,
			 (unsigned long long)wait / 1000);
		l->polled = true;
		l->more = false;
		l->next_ms = now + wait;
		free(why);
	} else {
		const char *status = rd_flist_status_z(r);
		int64_t next = rd_flist_next_poll(r, 0), tnow = time(NULL);

		l->crashes = 0;
		l->polled = true;
		l->more = !strcmp(status, fetch_status_name(FETCH_MORE));
		if (!strcmp(status, fetch_status_name(FETCH_FAILED)))
			log_warn("%s: fetch failed (%d in a row): %s; backing off, "
				 "next attempt in %llds", l->name, (int)rd_flist_failures(r, 0),
				 rd_flist_error(r) ? rd_flist_error(r) : "unknown error",
				 (long long)MAX(next - tnow, 0));
		else if (rd_flist_added(r, 0) || rd_fetch_versions_len(o))
			log_info("%s: %lld new messages, %zu versions new or changed",
				 l->name, (long long)rd_flist_added(r, 0),
				 rd_fetch_versions_len(o));
		if (l->more)
			l->next_ms = now;	/* catch up, one pass after another */
		else if (next > tnow)
			l->next_ms = now + (uint64_t)(next - tnow) * 1000;
		else
			l->next_ms = now + MAX(l->c.poll_interval_ms, (uint64_t)1000);
	}
	if (l)
		l->running = false;
	/* the fetch pass (a child) read them: its log is this one */
	for (i = 0; i < rd_fetch_answers_len(o); i++) {
		json_object *a = rd_at(rd_fetch_answers(o), i);
		bool done = !strcmp(rd_answer_outcome_z(a), RD_ANSWER_DONE);

		log_msg(done ? LOG_LVL_INFO : LOG_LVL_WARN, "answer <%s> from %s: \"lorebot: %s\": "
			"%s%s", rd_answer_msgid_z(a), rd_answer_from(a) ? rd_answer_from(a) : "?",
			rd_answer_command_z(a), done ? "" : "ignored: ", rd_answer_why_z(a));
	}
	vs = rd_fetch_versions(o);
	/* the fetch leaves them dirty when --arch is not build.arch */
	if (vs && json_object_array_length(vs) &&
	    report_states_flush(&d->st, STATES_DIRTY, &err)) {
		log_warn("the states of the versions fetched: %s", err.buf);
		strbuf_release(&err);
	}
	/* what stopping leaves unplanned is planned at the next start */
	for (i = 0; vs && i < json_object_array_length(vs) && !stopping(d); i++)
		if (rd_fver_id(rd_at(vs, i)))
			plan(d, rd_fver_id(rd_at(vs, i)));
	json_object_put(o);
}

/* jobs */

static struct task *job_task(const struct job *j, enum task_class klass)
{
	struct task *t = xcalloc(1, sizeof(*t));

	t->klass = klass;
	t->job = j->id;
	t->version = xstrdup(j->version);
	t->what = xasprintf("%s%s%s of <%s>", plan_stage_name(j->kind), *j->arch ? " " : "",
			    j->arch, j->version);
	return t;
}

/* The attempt failed: queued again, or failed for good after the last */
static void job_retry(struct daemon *d, struct job *j, const char *why, json_object *infra)
{
	struct strbuf err = STRBUF_INIT;
	bool last = j->attempts >= d->attempts;

	if (last ? job_give_up(&d->st, j, infra, why, &err) :
	    queue_requeue(d->st.db, j->id, why, &err))
		log_err("job %lld: %s", (long long)j->id, err.buf);
	log_warn("job %lld: %s; %s", (long long)j->id, why, last ? "failed" : "queued again");
	strbuf_release(&err);
}

/*
 * A job for the cluster: its directory is written here (the worker has no
 * database), then "lorebot job work DIR" is submitted.  The scheduler
 * enforces the time limit (exec_res()); the pool's own timeout would count
 * the time queued.
 */
static int remote_start(struct daemon *d, struct job *j, struct task *t)
{
	char *dir = job_dir(&d->env, j->id), *log = xasprintf("%s/job.log", dir);
	char *name = xasprintf("lorebot-%s%s%s-%lld", plan_stage_name(j->kind),
			       *j->arch ? "-" : "", j->arch, (long long)j->id);
	struct run_task rt = { .x = d->ex.x, .name = name, .workdir = dir,
			       .log_path = log, .data = t };
	struct strbuf err = STRBUF_INIT;
	struct argv a;
	int ret;

	t->remote = true;
	if (job_prepare(&d->st, d->cfg, &d->env, j, &err)) {
		job_retry(d, j, err.buf, NULL);
		ret = -EINVAL;
		goto out;
	}
	a.n = 0;
	argv_add(&a, d->env.self);
	if (d->env.config) {
		argv_add(&a, "--config");
		argv_add(&a, d->env.config);
	}
	argv_add(&a, "job");
	argv_add(&a, "work");
	argv_add(&a, dir);
	rt.argv = a.v;
	rt.res.klass = t->klass;
	exec_res(&d->ex, d->cfg, j->kind, &rt.res);
	ret = run_pool_submit(d->pool, &rt);
	if (ret) {
		log_err("job %lld: cannot submit %s to %s: %s; no submission for %ds",
			(long long)j->id, t->what, exec_name(&d->ex), strerror(-ret),
			REMOTE_BACKOFF_MS / 1000);
		d->remote_backoff_ms = util_now_ms() + REMOTE_BACKOFF_MS;
		queue_giveback(d->st.db, j->id, "cannot submit to the cluster", &err);
		goto out;
	}
	t->remote_id = exec_task_id(&d->ex, run_pool_handle(d->pool, t));
	if (queue_set_handle(d->st.db, j->id, run_pool_handle(d->pool, t), &err) ||
	    queue_set_where(d->st.db, j->id, t->remote_id, NULL, &err))
		log_err("job %lld: %s", (long long)j->id, err.buf);
	log_info("job %lld: %s submitted to %s as job %ld (attempt %d)", (long long)j->id,
		 t->what, exec_name(&d->ex), t->remote_id, j->attempts);
out:
	exec_res_release(&rt.res);
	strbuf_release(&err);
	free(name);
	free(dir);
	free(log);
	return ret;
}

static int job_start(struct daemon *d, struct job *j, enum task_class klass)
{
	char id[32];
	char *dir, *log;
	struct task *t = job_task(j, klass);
	/* the runner has its own limits; this one catches a hung runner */
	struct run_task rt = { .res = { .klass = klass, .timeout_ms = d->env.timeout_ms ?
					d->env.timeout_ms + 60000 : 0 } };
	struct argv a;
	int ret;

	if (exec_runs(&d->ex, j->kind)) {
		ret = remote_start(d, j, t);
		if (ret)
			task_free(t);
		return ret;
	}
	dir = job_dir(&d->env, j->id);
	log = xasprintf("%s/job.log", dir);
	snprintf(id, sizeof(id), "%lld", (long long)j->id);
	argv_init(&a, d);
	argv_add(&a, "job");
	argv_add(&a, "run");
	argv_add(&a, id);
	argv_add(&a, "--repo");
	argv_add(&a, d->env.repo);
	if (d->env.outbox) {
		argv_add(&a, "--outbox");
		argv_add(&a, d->env.outbox);
	}
	if (d->o->archs) {
		/* the reply and its "done" are about the archs the daemon tests */
		argv_add(&a, "--arch");
		argv_add(&a, d->o->archs);
	}
	rt.argv = a.v;
	rt.log_path = log;
	rt.data = t;
	ret = run_pool_submit(d->pool, &rt);
	if (ret) {
		struct strbuf err = STRBUF_INIT;

		log_err("job %lld: cannot start: %s", (long long)j->id, strerror(-ret));
		queue_requeue(d->st.db, j->id, "cannot start the job runner", &err);
		strbuf_release(&err);
		task_free(t);
	} else {
		struct strbuf err = STRBUF_INIT;

		queue_set_handle(d->st.db, j->id, run_pool_handle(d->pool, t), &err);
		strbuf_release(&err);
		log_info("job %lld: %s started (attempt %d)", (long long)j->id, t->what,
			 j->attempts);
	}
	free(dir);
	free(log);
	return ret;
}

static void start_jobs(struct daemon *d)
{
	static const enum task_class classes[] = { CLASS_HEAVY, CLASS_LIGHT };
	size_t c;

	/* a cluster that refused a job gets a rest (its jobs wait queued) */
	if (d->ex.x && util_now_ms() < d->remote_backoff_ms)
		return;
	for (c = 0; c < ARRAY_SIZE(classes) && !d->stop; c++) {
		int max = classes[c] == CLASS_HEAVY ? d->max_heavy : d->max_light;

		while (run_pool_count(d->pool, classes[c]) < (size_t)max && !stopping(d)) {
			struct strbuf err = STRBUF_INIT;
			struct job j;
			int r = queue_claim(d->st.db, classes[c] == CLASS_HEAVY, &j, &err);

			if (r < 0)
				log_err("%s", err.buf);
			strbuf_release(&err);
			if (r <= 0)
				break;
			job_start(d, &j, classes[c]);
			queue_job_release(&j);
		}
	}
}

/* Say how the job ended; an infrastructure failure is said louder */
static void log_ended(struct daemon *d, const struct job *j, const char *what)
{
	struct results rs = RESULTS_INIT;
	struct strbuf err = STRBUF_INIT;
	const struct result *r = NULL;

	if (j->kind < STAGE_RESULTS &&
	    store_results_load(&d->st, j->version, RESULTS_NO_DOCS, &rs, &err) >= 0)
		r = store_results_find(&rs, j->kind, j->arch);
	if (r && r->status == STATUS_INFRA)
		log_warn("job %lld: %s %s: infrastructure failure recorded: %s",
			 (long long)j->id, what, queue_job_state_name(j->state), r->summary);
	else
		log_info("job %lld: %s %s%s%s", (long long)j->id, what,
			 queue_job_state_name(j->state), j->error ? ": " : "",
			 j->error ? j->error : "");
	store_results_release(&rs);
	strbuf_release(&err);
}

/*
 * A job of the cluster ended (its executor says): what the worker left in its
 * directory is recorded here, or the attempt failed (the node's name in
 * the log).  Left running by a stop: nothing to do, the next start
 * reattaches it.
 */
static void remote_ended(struct daemon *d, struct task *t, struct job *j,
			 const struct run_done *rd)
{
	struct strbuf err = STRBUF_INIT;
	json_object *infra = NULL;

	if (rd->detached)
		return;
	/* where it ran, when it ended before track_nodes() saw it */
	if (*rd->node && (!t->node || strcmp(t->node, rd->node))) {
		free(t->node);
		t->node = xstrdup(rd->node);
		if (queue_set_where(d->st.db, t->job, t->remote_id, rd->node, &err))
			log_err("job %lld: %s", (long long)t->job, err.buf);
		strbuf_reset(&err);
	}
	if (t->superseded) {
		if (queue_finish(d->st.db, j->id, JOB_CANCELLED, "superseded", &err))
			log_err("job %lld: %s", (long long)j->id, err.buf);
		log_info("job %lld: %s cancelled (superseded; %s)", (long long)j->id, t->what,
			 rd->detail);
	} else if (!job_collect(&d->st, d->cfg, &d->env, j, &infra, &err)) {
		log_info("job %lld: %s done (%s)", (long long)j->id, t->what, rd->detail);
	} else {
		char *why = xasprintf("%s: %s", rd->detail, err.buf);

		job_retry(d, j, why, infra);
		free(why);
	}
	json_object_put(infra);
	strbuf_release(&err);
}

/* A runner ended: settle its job (it may have died), then plan its version */
static void job_ended(struct daemon *d, struct task *t, const struct run_done *rd)
{
	struct strbuf err = STRBUF_INIT;
	struct job j;

	if (queue_get(d->st.db, t->job, &j, &err)) {
		log_err("%s", err.buf);
		strbuf_release(&err);
		return;
	}
	if (t->remote && j.state == JOB_RUNNING) {
		remote_ended(d, t, &j, rd);
	} else if (j.state == JOB_RUNNING && rd->cancelled && d->stop) {
		/* stopping: back to the queue, the attempt not counted */
		queue_release(d->st.db, j.id, &err);
	} else if (j.state == JOB_RUNNING) {
		/* the runner died, was killed, or hung past its limit */
		char *why = rd->timed_out ?
			xstrdup("the job runner hung and was killed") :
			xasprintf("the job runner ended with status %d", rd->status);

		job_retry(d, &j, why, NULL);
		free(why);
	} else {
		log_ended(d, &j, t->what);
	}
	if (!d->stop)
		plan(d, j.version);
	queue_job_release(&j);
	strbuf_release(&err);
}

/* the dashboard */

static void serve_start(struct daemon *d)
{
	struct task *t = xcalloc(1, sizeof(*t));
	struct run_task rt = { .res = { .klass = CLASS_SERVE } };
	struct argv a;
	int r;

	t->klass = CLASS_SERVE;
	argv_init(&a, d);
	argv_add(&a, "serve");
	argv_add(&a, "--listen");
	argv_add(&a, d->o->listen);
	if (d->o->archs) {
		argv_add(&a, "--arch");
		argv_add(&a, d->o->archs);
	}
	rt.argv = a.v;
	rt.data = t;	/* its messages go to our stderr */
	r = run_pool_submit(d->pool, &rt);
	if (r) {
		log_err("dashboard: cannot start 'lorebot serve': %s", strerror(-r));
		task_free(t);
		d->serve_ms = util_now_ms() + SERVE_RESTART_MS;
		return;
	}
	d->serving = true;
	log_info("dashboard on http://%s/ (lorebot serve)", d->o->listen);
}

/* patchwork: a child posts the checks that are due (lorebot patchwork) */
static void notify_start(struct daemon *d)
{
	struct task *t = xcalloc(1, sizeof(*t));
	struct run_task rt = { .res = { .klass = CLASS_NOTIFY, .timeout_ms = 30 * 60000 } };
	struct argv a;
	int r;

	t->klass = CLASS_NOTIFY;
	argv_init(&a, d);
	argv_add(&a, "patchwork");
	if (d->o->archs) {
		argv_add(&a, "--arch");
		argv_add(&a, d->o->archs);
	}
	rt.argv = a.v;
	rt.data = t;	/* its messages go to our stderr */
	r = run_pool_submit(d->pool, &rt);
	if (r) {
		log_err("patchwork: cannot start 'lorebot patchwork': %s", strerror(-r));
		task_free(t);
		return;
	}
	d->notifying = true;
	if (!run_pool_count(d->pool, CLASS_LIGHT) && !run_pool_count(d->pool, CLASS_HEAVY))
		d->notify_idle++;
}

static void notify(struct daemon *d)
{
	uint64_t ms = util_now_ms();

	if (d->stop || d->notifying || ms < d->notify_ms || !patchwork_enabled(d->cfg))
		return;
	d->notify_ms = ms + NOTIFY_MS;
	if (patchwork_due(&d->st, time(NULL)) > 0)
		notify_start(d);
}

static void notify_ended(struct daemon *d, const struct run_done *rd)
{
	d->notifying = false;
	if (rd->status)
		log_warn("patchwork: 'lorebot patchwork' ended with status %d", rd->status);
}

static void serve_ended(struct daemon *d, const struct run_done *rd)
{
	d->serving = false;
	if (d->stop)
		return;
	log_warn("dashboard: 'lorebot serve' ended with status %d; started again in %ds",
		 rd->status, SERVE_RESTART_MS / 1000);
	d->serve_ms = util_now_ms() + SERVE_RESTART_MS;
}

static void ended(void *ctx, const struct run_done *rd)
{
	struct daemon *d = ctx;
	struct task *t = rd->data;

	if (t->klass == CLASS_FETCH)
		fetch_ended(d, t, rd);
	else if (t->klass == CLASS_SERVE)
		serve_ended(d, rd);
	else if (t->klass == CLASS_NOTIFY)
		notify_ended(d, rd);
	else
		job_ended(d, t, rd);
	task_free(t);
}

/* housekeeping */

static void progress_one(void *ctx, void *data, uint64_t ms)
{
	struct task *t = data;
	uint64_t s = ms / 1000;

	(void)ctx;
	if (t->what && s >= PROGRESS_MS / 1000)
		log_info("job %lld: %s still running (%llum%02llus)", (long long)t->job,
			 t->what, (unsigned long long)s / 60, (unsigned long long)s % 60);
}

/* Kernel builds take minutes: say what is still running now and then */
static void report_progress(struct daemon *d)
{
	uint64_t now = util_now_ms();

	if (now - d->progress_ms < PROGRESS_MS)
		return;
	d->progress_ms = now;
	run_pool_each(d->pool, progress_one, d);
}

struct running_ids {
	int64_t *v;
	size_t nr, alloc;
};

static void collect_id(void *ctx, void *data, uint64_t ms)
{
	struct running_ids *ids = ctx;
	struct task *t = data;

	(void)ms;
	if (t->klass == CLASS_LIGHT || t->klass == CLASS_HEAVY) {
		ALLOC_GROW(ids->v, ids->nr + 1, ids->alloc);
		ids->v[ids->nr++] = t->job;
	}
}

/*
 * Jobs the database says run but the pool does not have (a settle that
 * failed to write): settled as a runner that went away.
 */
static void reconcile(struct daemon *d)
{
	struct running_ids ids = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct job *jobs;
	size_t nr, i, k;
	uint64_t now = util_now_ms();

	if (now - d->reconcile_ms < RECONCILE_MS)
		return;
	d->reconcile_ms = now;
	if (queue_running(d->st.db, &jobs, &nr, &err)) {
		strbuf_release(&err);
		return;
	}
	run_pool_each(d->pool, collect_id, &ids);
	for (i = 0; i < nr; i++) {
		struct task t = { .job = jobs[i].id, .what = "" };
		struct run_done rd = { .data = &t, .status = -1 };

		for (k = 0; k < ids.nr && ids.v[k] != jobs[i].id; k++)
			;
		if (k == ids.nr)
			job_ended(d, &t, &rd);
	}
	queue_free_jobs(jobs, nr);
	free(ids.v);
	strbuf_release(&err);
}

static void node_one(void *ctx, void *data, uint64_t ms)
{
	struct daemon *d = ctx;
	struct task *t = data;
	struct strbuf err = STRBUF_INIT;
	const char *node;

	(void)ms;
	if (!t->remote)
		return;
	node = run_pool_node(d->pool, t);
	if (!node || (t->node && !strcmp(t->node, node)))
		return;
	free(t->node);
	t->node = xstrdup(node);
	if (queue_set_where(d->st.db, t->job, t->remote_id, node, &err))
		log_err("job %lld: %s", (long long)t->job, err.buf);
	log_info("job %lld: %s runs on %s (%s job %ld)", (long long)t->job, t->what, node,
		 exec_name(&d->ex), t->remote_id);
	strbuf_release(&err);
}

/* Where each job of the cluster runs, in the jobs table as it becomes known */
static void track_nodes(struct daemon *d)
{
	if (d->ex.x)
		run_pool_each(d->pool, node_one, d);
}

static void housekeeping(struct daemon *d)
{
	struct strbuf err = STRBUF_INIT;
	int64_t now = time(NULL);
	uint64_t ms = util_now_ms();

	/* versions whose completeness window ended since the last look */
	if (pipeline_plan_window(&d->st, &d->pc, d->window_to, now, &err) < 0)
		log_err("%s", err.buf);
	else
		d->window_to = now;
	if (ms - d->optimize_ms >= OPTIMIZE_MS) {
		d->optimize_ms = ms;
		db_optimize(d->st.db);
	}
	if (d->o->listen && !d->serving && ms >= d->serve_ms && !d->stop)
		serve_start(d);
	notify(d);
	replan(d);
	plan_backlog(d);
	track_nodes(d);
	reconcile(d);
	report_progress(d);
	strbuf_release(&err);
}

static bool idle(struct daemon *d)
{
	int64_t counts[JOB_STATE_NR];
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (run_pool_count(d->pool, CLASS_LIGHT) || run_pool_count(d->pool, CLASS_HEAVY) ||
	    run_pool_count(d->pool, CLASS_FETCH) || d->replan.nr || d->backlog.nr)
		return false;
	for (i = 0; i < d->nr_lists; i++)
		if (!d->lists[i].polled || d->lists[i].more)
			return false;
	if (queue_counts(d->st.db, counts, &err)) {
		strbuf_release(&err);
		return false;
	}
	if (counts[JOB_QUEUED] || counts[JOB_RUNNING])
		return false;
	/* the checks due now get their passes; a retry later waits for the next run */
	if (d->notifying)
		return false;
	return !patchwork_enabled(d->cfg) || d->notify_idle >= NOTIFY_IDLE_PASSES ||
		patchwork_due(&d->st, time(NULL)) <= 0;
}

static int setup_signals(struct daemon *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	return d->sigfd < 0 ? -errno : 0;
}

static int next_wake(struct daemon *d)
{
	uint64_t now = util_now_ms(), wait = TICK_MS;
	size_t i;

	if (d->ex.x && run_pool_count(d->pool, -1))
		wait = REMOTE_TICK_MS;
	for (i = 0; i < d->nr_lists; i++) {
		uint64_t w = d->lists[i].next_ms > now ? d->lists[i].next_ms - now : 0;

		if (!d->lists[i].running)
			wait = MIN(wait, w);
	}
	return (int)wait;
}

static char *self_path(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup("lorebot");
	buf[n] = '\0';
	return xstrdup(buf);
}

/*
 * The jobs an earlier daemon left on the cluster: taken over, not
 * submitted again.  Their ids into keep (caller frees).
 */
static void reattach(struct daemon *d, int64_t **keep, size_t *nr)
{
	struct strbuf err = STRBUF_INIT;
	struct job *jobs;
	size_t n, i;

	*keep = NULL;
	*nr = 0;
	if (!d->ex.x || queue_running(d->st.db, &jobs, &n, &err)) {
		strbuf_release(&err);
		return;
	}
	*keep = xcalloc(n + 1, sizeof(**keep));
	for (i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		enum task_class klass = stages[j->kind]->heavy ? CLASS_HEAVY : CLASS_LIGHT;
		struct run_res res = { .klass = klass };
		struct task *t;
		int r;

		if (!exec_owns(&d->ex, j->handle))
			continue;
		t = job_task(j, klass);
		t->remote = true;
		t->remote_id = exec_task_id(&d->ex, j->handle);
		t->node = xstrdup_or_null(j->node);
		r = run_pool_reattach(d->pool, d->ex.x, j->handle, &res, t);
		if (r) {
			log_warn("job %lld: %s: %s job %ld cannot be taken over (%s)",
				 (long long)j->id, t->what, exec_name(&d->ex), t->remote_id,
				 r == -ENOENT ? "no longer known" : strerror(-r));
			task_free(t);
			continue;
		}
		(*keep)[(*nr)++] = j->id;
		log_info("job %lld: %s: reattached to %s job %ld", (long long)j->id, t->what,
			 exec_name(&d->ex), t->remote_id);
	}
	queue_free_jobs(jobs, n);
	strbuf_release(&err);
}

static int start(struct daemon *d, struct strbuf *err)
{
	int64_t *keep;
	size_t nr_keep;
	int r;

	reattach(d, &keep, &nr_keep);
	r = queue_recover_except(d->st.db, MAX_INTERRUPTS, keep, nr_keep, err);
	free(keep);
	if (r < 0)
		return -1;
	if (r)
		log_info("%d interrupted jobs queued again (or failed after %d interruptions)",
			 r, MAX_INTERRUPTS);
	/*
	 * whatever the last run left unfinished, derived from what is stored;
	 * planned by the loop, a slice a turn
	 */
	if (pipeline_pending(&d->st, &d->pc, time(NULL), &d->backlog, err))
		return -1;
	d->window_to = time(NULL);
	return 0;
}

static void run(struct daemon *d)
{
	while (!stopping(d)) {
		struct pollfd pfd = { .fd = d->sigfd, .events = POLLIN };

		if (d->reload)
			reload(d);
		run_pool_poll(d->pool, ended, d);
		if (stopping(d))
			break;
		poll_lists(d);
		housekeeping(d);
		if (stopping(d))
			break;
		start_jobs(d);
		if (d->o->once && idle(d)) {
			log_info("nothing pending: done");
			break;
		}
		/* a signal read in this turn no longer wakes the poll */
		if (!d->stop)
			poll(&pfd, 1, next_wake(d));
	}
}

int daemon_run(struct ctx *ctx, const struct daemon_opts *o)
{
	struct daemon d = { .ctx = ctx, .o = o, .cfg = ctx->cfg, .sigfd = -1 };
	struct strbuf err = STRBUF_INIT;
	char *self = self_path(), *statedir = NULL, *config = NULL, *repo = NULL;
	char *dbpath = NULL, *outbox = NULL, *cache = NULL;
	int ret = EXIT_OK;

	log_set_timestamps(true);
	if (config_v(ctx->cfg)->core_syslog)
		log_use_syslog("lorebot");
	ret = cmd_open_store(ctx, &d.st, true);
	if (ret)
		goto out_free;
	/*
	 * the states the dashboard filters on, for the archs the daemon
	 * tests: derived again when they were for others (or never)
	 */
	report_states_attach(&d.st, ctx->cfg, o->archs);
	if (report_states_flush(&d.st, STATES_TAKE, &err)) {
		log_err("%s", err.buf);
		store_close(&d.st);
		ret = EXIT_INFRA;
		goto out_free;
	}
	/* the loop does not wait long for the write lock: it plans again later */
	db_set_busy_wait(d.st.db, busy_ms, &d);
	/* the children run elsewhere: give them absolute paths */
	dbpath = util_path_absolute(db_path(d.st.db));
	statedir = util_path_dirname(dbpath);
	config = util_path_absolute(ctx->config_path);
	repo = util_path_absolute(o->repo ? o->repo : config_v(ctx->cfg)->git_repo);
	outbox = util_path_absolute(o->outbox);
	d.dbpath = dbpath;
	d.env.self = self;
	d.env.config = config;
	d.env.repo = repo;
	d.env.statedir = statedir;
	d.env.outbox = outbox;
	d.env.cache = cache = config_cachedir(ctx->cfg);
	if (!d.env.repo) {
		log_err("no kernel repository: give --repo or set git.repo");
		ret = EXIT_USAGE;
		goto out;
	}
	ret = setup_executor(&d);
	if (ret)
		goto out;
	setup_limits(&d);
	if (setup_lists(&d)) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (setup_signals(&d)) {
		log_err("cannot set up signals: %s", strerror(errno));
		ret = EXIT_INFRA;
		goto out;
	}
	d.pool = run_pool_new(NULL);
	d.optimize_ms = util_now_ms();
	if (start(&d, &err)) {
		log_err("%s", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	log_info("following %zu list(s), repository '%s', archs %zu, %d build(s) and "
		 "%d light job(s) at once, executor %s", d.nr_lists, d.env.repo,
		 d.pc.nr_archs, d.max_heavy, d.max_light,
		 exec_name(&d.ex));
	run(&d);
	if (run_pool_count(d.pool, -1)) {
		log_info("stopping %zu children", run_pool_count(d.pool, -1));
		d.stop = true;
		run_pool_stop(d.pool, STOP_GRACE_MS, ended, &d);
	}
	log_info("stopped");
out:
	run_pool_free(d.pool);
	exec_close(&d.ex);
	if (d.sigfd >= 0)
		close(d.sigfd);
	pipeline_cfg_release(&d.pc);
	lists_release(&d);
	while (d.replan.nr)
		free(d.replan.v[--d.replan.nr]);
	free(d.replan.v);
	pipeline_ids_release(&d.backlog);
	store_close(&d.st);
out_free:
	strbuf_release(&err);
	free(self);
	free(config);
	free(repo);
	free(dbpath);
	free(statedir);
	free(outbox);
	free(cache);
	return ret;
}
