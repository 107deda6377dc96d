// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "bot/daemon.h"
#include "bot/dash.h"
#include "bot/fetch.h"
#include "bot/job.h"
#include "bot/log.h"
#include "bot/pipeline.h"
#include "bot/run.h"

#define TICK_MS 1000
#define STOP_GRACE_MS 10000
#define PROGRESS_MS 30000	/* how often long jobs are reported */

struct dlist {
	char *name;
	char *url;
	struct fetch_cfg c;
	uint64_t next_ms;	/* monotonic */
	bool polled;		/* at least one pass since start */
	bool more;		/* the last pass stopped with more to fetch */
};

struct child {
	int64_t id;
	bool heavy;
	char *what;		/* "build arm64 of <id>" for the log */
	struct run_bg bg;
};

struct daemon {
	struct ctx *ctx;
	const struct daemon_opts *o;
	struct config *cfg;
	struct store st;
	struct pipeline_cfg pc;
	struct job_env env;
	char *gitdir;
	const char *dbpath;	/* absolute */
	struct dlist *lists;
	size_t nr_lists;
	struct child *kids;
	size_t nr_kids, alloc_kids;
	int max_heavy, max_light, attempts;
	int sigfd;
	bool stop, reload;
	struct dash *dash;
	uint64_t progress_ms;	/* when long jobs were last reported */
};

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

static void add_list(struct daemon *d, const char *name, const char *url,
		     const struct fetch_cfg *c)
{
	struct dlist *l;

	d->lists = xrealloc(d->lists, (d->nr_lists + 1) * sizeof(*d->lists));
	l = &d->lists[d->nr_lists++];
	memset(l, 0, sizeof(*l));
	l->name = xstrdup(name);
	l->url = xstrdup(url);
	l->c = *c;
	l->c.name = l->name;
	l->c.url = l->url;
	l->c.gitdir = d->gitdir;
}

/* The lists to follow: --url, or every enabled [list "NAME"] */
static int setup_lists(struct daemon *d)
{
	struct fetch_cfg c;
	char **names = NULL;
	size_t nr, i;
	int ret = 0;

	lists_release(d);
	if (d->o->url) {
		char *name = fetch_name_from_url(d->o->url);
		struct strbuf err = STRBUF_INIT;

		/* a [list "NAME"] section still sets its poll interval, query... */
		if (fetch_cfg_list(&c, d->cfg, name, &err) < 0) {
			log_err("%s", err.buf);
			ret = -1;
		}
		add_list(d, name, d->o->url, &c);
		strbuf_release(&err);
		free(name);
		return ret;
	}
	nr = config_subsections(d->cfg, "list", &names);
	for (i = 0; i < nr; i++) {
		struct strbuf err = STRBUF_INIT;
		int r = fetch_cfg_list(&c, d->cfg, names[i], &err);

		if (r < 0) {
			log_err("%s", err.buf);
			ret = -1;
		} else if (r) {
			add_list(d, names[i], c.url, &c);
		}
		strbuf_release(&err);
		free(names[i]);
	}
	free(names);
	if (!d->nr_lists && !ret)
		log_warn("no list to follow: give --url or configure [list \"NAME\"]");
	return ret;
}

static void setup_limits(struct daemon *d)
{
	const char *level = config_get(d->cfg, "core.loglevel");
	enum log_level lvl;

	d->max_heavy = MAX(1, config_get_int(d->cfg, "daemon.builds"));
	d->max_light = MAX(1, config_get_int(d->cfg, "daemon.light"));
	d->attempts = MAX(1, config_get_int(d->cfg, "daemon.attempts"));
	d->env.timeout_ms = config_get_ms(d->cfg, "daemon.jobtimeout");
	d->env.sandbox = config_get_bool(d->cfg, "build.sandbox");
	if (level && !log_parse_level(level, &lvl) && log_get_level() != LOG_LVL_DEBUG)
		log_set_level(lvl);
	pipeline_cfg_release(&d->pc);
	pipeline_cfg_init(&d->pc, d->cfg, d->o->archs);
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
	if (config_load_file(&fresh, d->ctx->config_path, &err)) {
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
		default:	/* SIGCHLD: reaped below */
			break;
		}
	}
}

static void poll_lists(struct daemon *d)
{
	uint64_t now = now_ms();
	size_t i;

	for (i = 0; i < d->nr_lists && !d->stop; i++) {
		struct dlist *l = &d->lists[i];
		struct fetch_result r = FETCH_RESULT_INIT;
		struct strbuf err = STRBUF_INIT;
		int rc;

		if (now < l->next_ms)
			continue;
		l->c.force = !l->polled;	/* the first pass is not held back */
		rc = fetch_list(&d->st, &l->c, &r);
		l->polled = true;
		l->more = r.status == FETCH_MORE;
		if (rc < 0 || r.status == FETCH_FAILED)
			log_warn("%s: fetch failed (%d in a row): %s; backing off, "
				 "next attempt in %llds", l->name, r.failures,
				 r.error.len ? r.error.buf : "unknown error",
				 (long long)MAX(r.next_poll - time(NULL), 0));
		else if (r.added || r.changes.nr)
			log_info("%s: %llu new messages, %zu versions new or changed",
				 l->name, (unsigned long long)r.added, r.changes.nr);
		if (l->more)
			l->next_ms = now;	/* catch up, one window per turn */
		else if (r.next_poll > time(NULL))
			l->next_ms = now + (r.next_poll - time(NULL)) * 1000;
		else
			l->next_ms = now + MAX(l->c.poll_interval_ms, (uint64_t)1000);
		fetch_result_release(&r);
		if (pipeline_sweep(&d->st, &d->pc, time(NULL), &err) < 0)
			log_err("%s", err.buf);
		strbuf_release(&err);
	}
}

static int spawn(struct daemon *d, struct job *j, bool heavy)
{
	const char *argv[16];
	char id[32];
	char *dir = job_dir(&d->env, j->id), *log = xasprintf("%s/job.log", dir);
	struct child *k;
	int n = 0, ret;

	snprintf(id, sizeof(id), "%lld", (long long)j->id);
	argv[n++] = d->env.self;
	argv[n++] = "--db";
	argv[n++] = d->dbpath;
	if (d->env.config) {
		argv[n++] = "--config";
		argv[n++] = d->env.config;
	}
	argv[n++] = "job";
	argv[n++] = "run";
	argv[n++] = id;
	argv[n++] = "--repo";
	argv[n++] = d->env.repo;
	if (d->env.outbox) {
		argv[n++] = "--outbox";
		argv[n++] = d->env.outbox;
	}
	argv[n] = NULL;
	ALLOC_GROW(d->kids, d->nr_kids + 1, d->alloc_kids);
	k = &d->kids[d->nr_kids];
	/* the runner has its own limits; this one catches a hung runner */
	ret = run_bg_start(&k->bg, argv, NULL, log,
			   d->env.timeout_ms ? d->env.timeout_ms + 60000 : 0);
	if (ret) {
		struct strbuf err = STRBUF_INIT;

		log_err("job %lld: cannot start: %s", (long long)j->id, strerror(-ret));
		queue_requeue(d->st.db, j->id, "cannot start the job runner", &err);
		strbuf_release(&err);
	} else {
		k->id = j->id;
		k->heavy = heavy;
		k->what = xasprintf("%s%s%s of <%s>", job_kind_name(j->kind),
				    *j->arch ? " " : "", j->arch, j->version);
		d->nr_kids++;
		log_info("job %lld: %s%s%s of <%s> started (attempt %d)",
			 (long long)j->id, job_kind_name(j->kind), *j->arch ? " " : "",
			 j->arch, j->version, j->attempts);
	}
	free(dir);
	free(log);
	return ret;
}

static int running(struct daemon *d, bool heavy)
{
	size_t i;
	int n = 0;

	for (i = 0; i < d->nr_kids; i++)
		n += d->kids[i].heavy == heavy;
	return n;
}

static void start_jobs(struct daemon *d)
{
	static const bool classes[] = { true, false };
	size_t c;

	for (c = 0; c < ARRAY_SIZE(classes) && !d->stop; c++) {
		int max = classes[c] ? d->max_heavy : d->max_light;

		while (running(d, classes[c]) < max) {
			struct strbuf err = STRBUF_INIT;
			struct job j;
			int r = queue_claim(d->st.db, classes[c], &j, &err);

			if (r < 0)
				log_err("%s", err.buf);
			strbuf_release(&err);
			if (r <= 0)
				break;
			spawn(d, &j, classes[c]);
			job_release(&j);
		}
	}
}

/* A runner ended: settle its job (it may have died) and move on */
static void settle(struct daemon *d, struct child *k)
{
	struct strbuf err = STRBUF_INIT;
	struct job j;

	if (queue_get(d->st.db, k->id, &j, &err)) {
		log_err("%s", err.buf);
		strbuf_release(&err);
		return;
	}
	if (j.state == JOB_RUNNING) {
		/* the runner died, was killed, or hung past its limit */
		char *why = k->bg.timed_out ?
			xstrdup("the job runner hung and was killed") :
			xasprintf("the job runner ended with status %d", k->bg.status);

		if (j.attempts >= d->attempts) {
			queue_finish(d->st.db, j.id, JOB_FAILED, why, &err);
			j.state = JOB_FAILED;
		} else {
			queue_requeue(d->st.db, j.id, why, &err);
			j.state = JOB_QUEUED;
		}
		log_warn("job %lld: %s; %s", (long long)j.id, why,
			 j.state == JOB_FAILED ? "failed" : "queued again");
		free(why);
	} else {
		log_info("job %lld: %s%s%s of <%s> %s%s%s", (long long)j.id,
			 job_kind_name(j.kind), *j.arch ? " " : "", j.arch, j.version,
			 job_state_name(j.state), j.error ? ": " : "",
			 j.error ? j.error : "");
	}
	if ((j.state == JOB_DONE || j.state == JOB_FAILED) &&
	    pipeline_advance(&d->st, &d->pc, &j, &err))
		log_err("%s", err.buf);
	job_release(&j);
	strbuf_release(&err);
}

static void reap(struct daemon *d)
{
	size_t i = 0;

	while (i < d->nr_kids) {
		if (run_bg_poll(&d->kids[i].bg)) {
			i++;
			continue;
		}
		settle(d, &d->kids[i]);
		free(d->kids[i].what);
		d->kids[i] = d->kids[--d->nr_kids];
	}
}

/* Kernel builds take minutes: say what is still running now and then */
static void report_progress(struct daemon *d)
{
	uint64_t now = now_ms();
	size_t i;

	if (!d->nr_kids || now - d->progress_ms < PROGRESS_MS)
		return;
	d->progress_ms = now;
	for (i = 0; i < d->nr_kids; i++) {
		uint64_t s = (now - d->kids[i].bg.started_ms) / 1000;

		if (s >= PROGRESS_MS / 1000)
			log_info("job %lld: %s still running (%llum%02llus)",
				 (long long)d->kids[i].id, d->kids[i].what,
				 (unsigned long long)s / 60, (unsigned long long)s % 60);
	}
}

static bool idle(struct daemon *d)
{
	int64_t counts[JOB_STATE_NR];
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (d->nr_kids)
		return false;
	for (i = 0; i < d->nr_lists; i++)
		if (!d->lists[i].polled || d->lists[i].more)
			return false;
	if (queue_counts(d->st.db, counts, &err)) {
		strbuf_release(&err);
		return false;
	}
	return !counts[JOB_QUEUED] && !counts[JOB_RUNNING];
}

/* Stop the runners and give their jobs back to the queue */
static void stop_children(struct daemon *d)
{
	uint64_t until = now_ms() + STOP_GRACE_MS;
	size_t i;

	for (i = 0; i < d->nr_kids; i++)
		run_bg_kill(&d->kids[i].bg, SIGTERM);
	while (d->nr_kids && now_ms() < until) {
		for (i = 0; i < d->nr_kids; ) {
			if (run_bg_poll(&d->kids[i].bg)) {
				i++;
				continue;
			}
			free(d->kids[i].what);
			d->kids[i] = d->kids[--d->nr_kids];
		}
		if (d->nr_kids)
			poll(NULL, 0, 100);
	}
	for (i = 0; i < d->nr_kids; i++) {
		run_bg_kill(&d->kids[i].bg, SIGKILL);
		while (run_bg_poll(&d->kids[i].bg))
			poll(NULL, 0, 10);
		free(d->kids[i].what);
	}
	d->nr_kids = 0;
	/* whatever was running goes back, without counting the attempt */
	{
		struct db_stmt *q = db_prepare(d->st.db,
			"SELECT id FROM jobs WHERE state = 'running'");
		int64_t ids[256];
		size_t n = 0;
		struct strbuf err = STRBUF_INIT;

		while (q && n < ARRAY_SIZE(ids) && db_step(q) > 0)
			ids[n++] = db_column_int(q, 0);
		if (q)
			db_reset(q);
		for (i = 0; i < n; i++)
			queue_release(d->st.db, ids[i], &err);
		strbuf_release(&err);
	}
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

static uint64_t next_wake(struct daemon *d)
{
	uint64_t now = now_ms(), wait = TICK_MS;
	size_t i;

	for (i = 0; i < d->nr_lists; i++) {
		uint64_t w = d->lists[i].next_ms > now ? d->lists[i].next_ms - now : 0;

		wait = MIN(wait, w);
	}
	return wait;
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

int daemon_run(struct ctx *ctx, const struct daemon_opts *o)
{
	struct daemon d = { .ctx = ctx, .o = o, .cfg = ctx->cfg, .sigfd = -1 };
	struct strbuf err = STRBUF_INIT;
	char *self = self_path(), *statedir = NULL, *config = NULL, *repo = NULL;
	char *dbpath = NULL, *outbox = NULL;
	int ret = EXIT_OK, r;

	log_set_timestamps(true);
	if (config_get_bool(ctx->cfg, "core.syslog"))
		log_use_syslog("lorebot");
	ret = cmd_open_store(ctx, &d.st, true);
	if (ret)
		goto out_free;
	/* the runners and stages run elsewhere: give them absolute paths */
	dbpath = path_absolute(db_path(d.st.db));
	statedir = path_dirname(dbpath);
	d.dbpath = dbpath;
	d.env.self = self;
	config = path_absolute(ctx->config_path);
	repo = path_absolute(o->repo ? o->repo : config_get(ctx->cfg, "git.repo"));
	d.env.config = config;
	d.env.repo = repo;
	d.env.statedir = statedir;
	outbox = path_absolute(o->outbox);
	d.env.outbox = outbox;
	d.gitdir = config_get(ctx->cfg, "lore.gitdir") ?
		xstrdup(config_get(ctx->cfg, "lore.gitdir")) :
		xasprintf("%s.lore", dbpath);
	if (!d.env.repo) {
		log_err("no kernel repository: give --repo or set git.repo");
		ret = EXIT_USAGE;
		goto out;
	}
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
	r = queue_recover(d.st.db, d.attempts, &err);
	if (r < 0) {
		log_err("%s", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	if (r)
		log_info("%d interrupted jobs queued again (or failed after %d attempts)",
			 r, d.attempts);
	if (o->listen) {
		struct dash_opts dopts = { .db_path = dbpath, .cfg = ctx->cfg,
					   .listen = o->listen, .archs = o->archs };

		if (dash_start(&d.dash, &dopts, &err)) {
			log_err("dashboard: %s", err.buf);
			ret = EXIT_INFRA;
			goto out;
		}
		log_info("dashboard on http://%s/", o->listen);
	}
	log_info("following %zu list(s), repository '%s', archs %zu, %d build(s) and "
		 "%d light job(s) at once", d.nr_lists, d.env.repo, d.pc.nr_archs,
		 d.max_heavy, d.max_light);

	while (!d.stop) {
		struct pollfd pfd = { .fd = d.sigfd, .events = POLLIN };

		handle_signals(&d);
		if (d.reload)
			reload(&d);
		if (d.stop)
			break;
		poll_lists(&d);
		strbuf_reset(&err);
		if (pipeline_sweep(&d.st, &d.pc, time(NULL), &err) < 0)
			log_err("%s", err.buf);
		reap(&d);
		start_jobs(&d);
		report_progress(&d);
		if (o->once && idle(&d)) {
			log_info("nothing pending: done");
			break;
		}
		poll(&pfd, 1, next_wake(&d));
	}
	if (d.nr_kids)
		stop_children(&d);
out:
	if (d.dash)
		dash_stop(d.dash);
	if (d.sigfd >= 0)
		close(d.sigfd);
	pipeline_cfg_release(&d.pc);
	lists_release(&d);
	free(d.kids);
	free(d.gitdir);
	free(statedir);
	store_close(&d.st);
out_free:
	strbuf_release(&err);
	free(self);
	free(config);
	free(repo);
	free(dbpath);
	free(outbox);
	return ret;
}
