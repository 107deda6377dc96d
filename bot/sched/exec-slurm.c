// SPDX-License-Identifier: GPL-2.0
/*
 * The Slurm executor: a task is a batch job (sbatch), its state what
 * squeue says (one call per slurm.pollinterval for every job tracked),
 * and once the batch script has left the command's exit status, or
 * squeue lists it in a final state or no more, scontrol says how it
 * ended.  Without accounting storage (no slurmdbd)
 * Slurm forgets a job MinJobAge after its end; the batch script
 * therefore leaves the command's exit status in the task's directory
 * (slurm-exit), which is what a daemon that restarts after that finds.
 *
 * Handles are "slurm:ID:DIR": the job id and the task's directory.
 *
 * The task's directory is the executor's: what runs in the task's own
 * sandbox writes elsewhere (bot/sched/job.c: work/), and whatever is there is
 * still never followed nor waited on: the batch script is written beside
 * and renamed into place, the exit status read beneath the directory as
 * a regular file, and the script leaves it with noclobber, through a
 * name it removed first (issue 38: a link planted at job.sbatch had the
 * daemon write the next attempt's script through it, one at
 * slurm-exit.tmp the script, and a FIFO at slurm-exit blocked the
 * daemon's loop).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/sched/exec.h"
#include "lib/log.h"

#define EXIT_FILE "slurm-exit"
#define SCRIPT_FILE "job.sbatch"
#define SNAP_MAX_OUTPUT (16 << 20)
#define SLACK_MS (5 * 60000ULL)	/* a job's limit beyond daemon.jobtimeout */

static const struct slurm_state_def slurm_states[] = {
	{ .name = "PENDING" },
	{ .name = "CONFIGURING" },
	{ .name = "RUNNING" },
	{ .name = "COMPLETING" },
	{ .name = "SUSPENDED" },
	{ .name = "REQUEUED" },
	{ .name = "REQUEUE_HOLD" },
	{ .name = "REQUEUE_FED" },
	{ .name = "RESIZING" },
	{ .name = "SIGNALING" },
	{ .name = "STAGE_OUT" },
	{ .name = "STOPPED" },
	{ .name = "RESV_DEL_HOLD" },
	{ .name = "COMPLETED", .ended = true },
	{ .name = "FAILED", .ended = true },
	{ .name = "CANCELLED", .ended = true },
	{ .name = "TIMEOUT", .ended = true, .timed_out = true },
	{ .name = "DEADLINE", .ended = true, .timed_out = true },
	{ .name = "OUT_OF_MEMORY", .ended = true },
	{ .name = "PREEMPTED", .ended = true, .lost = true },
	{ .name = "NODE_FAIL", .ended = true, .lost = true },
	{ .name = "BOOT_FAIL", .ended = true, .lost = true },
	{ .name = "REVOKED", .ended = true, .lost = true },
	{ .name = "SPECIAL_EXIT", .ended = true },
};

const struct slurm_state_def *exec_slurm_state_lookup(const char *name)
{
	size_t i, n = strcspn(name, " +");	/* "CANCELLED by 0", "CANCELLED+" */

	for (i = 0; i < ARRAY_SIZE(slurm_states); i++)
		if (strlen(slurm_states[i].name) == n &&
		    !strncmp(slurm_states[i].name, name, n))
			return &slurm_states[i];
	return NULL;
}

int exec_slurm_parse_sbatch(const char *out, long *id)
{
	char *end;
	long v;

	while (*out == ' ' || *out == '\n')
		out++;
	v = strtol(out, &end, 10);
	if (end == out || v <= 0 || (*end && *end != ';' && *end != '\n'))
		return -EINVAL;
	*id = v;
	return 0;
}

static void copy_field(char *dst, size_t size, const char *s, size_t n)
{
	n = MIN(n, size - 1);
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static void state_init(struct slurm_state *st)
{
	memset(st, 0, sizeof(*st));
	st->exit_code = st->exit_signal = -1;
}

size_t exec_slurm_parse_squeue(const char *out, struct slurm_state **v)
{
	size_t nr = 0, alloc = 0;
	const char *line, *next;

	*v = NULL;
	for (line = out; *line; line = next) {
		const char *f[4], *end = strchrnul(line, '\n'), *p = line;
		struct slurm_state st;
		size_t k;
		char *e;

		next = *end ? end + 1 : end;
		for (k = 0; k < ARRAY_SIZE(f) && p <= end; k++) {
			f[k] = p;
			p = memchr(p, '|', end - p);
			if (!p) {
				p = end + 1;
				k++;
				break;
			}
			p++;
		}
		if (k < 3)
			continue;	/* a message, not a job */
		state_init(&st);
		st.id = strtol(f[0], &e, 10);
		if (e == f[0] || *e != '|' || st.id <= 0)
			continue;
		copy_field(st.state, sizeof(st.state), f[1], strcspn(f[1], "|\n"));
		copy_field(st.node, sizeof(st.node), f[2], strcspn(f[2], "|\n"));
		if (k > 3)
			copy_field(st.reason, sizeof(st.reason), f[3], strcspn(f[3], "|\n"));
		if (!strcmp(st.node, "(null)"))
			st.node[0] = '\0';
		ALLOC_GROW(*v, nr + 1, alloc);
		(*v)[nr++] = st;
	}
	return nr;
}

/* The value of " KEY=" in one scontrol -o line, its length in *n */
static const char *sc_value(const char *out, const char *key, size_t *n)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = out; (p = strstr(p, key)); p += klen) {
		if ((p == out || p[-1] == ' ' || p[-1] == '\n') && p[klen] == '=') {
			p += klen + 1;
			*n = strcspn(p, " \n");
			return p;
		}
	}
	return NULL;
}

int exec_slurm_parse_scontrol(const char *out, struct slurm_state *st)
{
	const char *v;
	size_t n;

	state_init(st);
	v = sc_value(out, "JobId", &n);
	if (!v)
		return -ENOENT;
	st->id = strtol(v, NULL, 10);
	v = sc_value(out, "JobState", &n);
	if (v)
		copy_field(st->state, sizeof(st->state), v, n);
	v = sc_value(out, "NodeList", &n);
	if (v && strncmp(v, "(null)", n))
		copy_field(st->node, sizeof(st->node), v, n);
	v = sc_value(out, "Reason", &n);
	if (v)
		copy_field(st->reason, sizeof(st->reason), v, n);
	v = sc_value(out, "ExitCode", &n);
	if (v && sscanf(v, "%d:%d", &st->exit_code, &st->exit_signal) != 2)
		st->exit_code = st->exit_signal = -1;
	return 0;
}

/* argument vectors */

struct vec {
	char **v;
	size_t nr, alloc;
};

static void vec_push(struct vec *a, char *s)
{
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = s;
	a->v[a->nr] = NULL;
}

void exec_slurm_argv_free(char **argv)
{
	char **p;

	for (p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* Slurm's [days-]hours:minutes:seconds, rounded up to a second */
static char *slurm_time(uint64_t ms)
{
	uint64_t s = (ms + 999) / 1000;

	return xasprintf("--time=%llu-%02llu:%02llu:%02llu",
			 (unsigned long long)s / 86400, (unsigned long long)s / 3600 % 24,
			 (unsigned long long)s / 60 % 60, (unsigned long long)s % 60);
}

void exec_slurm_sbatch_argv(const struct slurm_cfg *c, const struct run_task *t,
			    const char *script, char ***argv)
{
	struct vec a = { 0 };
	const char *const *f;
	size_t i;

	vec_push(&a, xstrdup("sbatch"));
	vec_push(&a, xstrdup("--parsable"));
	if (t->name)
		vec_push(&a, xasprintf("--job-name=%s", t->name));
	if (t->workdir)
		vec_push(&a, xasprintf("--chdir=%s", t->workdir));
	/* the runner's output, after what earlier attempts wrote */
	vec_push(&a, xasprintf("--output=%s", t->log_path ? t->log_path : "/dev/null"));
	vec_push(&a, xstrdup("--open-mode=append"));
	/* retries are the daemon's (daemon.attempts), not Slurm's */
	vec_push(&a, xstrdup("--no-requeue"));
	vec_push(&a, xstrdup("--nodes=1"));
	vec_push(&a, xstrdup("--ntasks=1"));
	vec_push(&a, xasprintf("--cpus-per-task=%u", t->res.cpus ? t->res.cpus : 1));
	if (t->res.mem_bytes)
		vec_push(&a, xasprintf("--mem=%lluM", (unsigned long long)
				       ((t->res.mem_bytes + (1 << 20) - 1) >> 20)));
	if (t->res.limit_ms)
		vec_push(&a, slurm_time(t->res.limit_ms));
	if (c->partition && *c->partition)
		vec_push(&a, xasprintf("--partition=%s", c->partition));
	if (c->account && *c->account)
		vec_push(&a, xasprintf("--account=%s", c->account));
	for (i = 0; i < c->nr_flags; i++)
		vec_push(&a, xstrdup(c->flags[i]));
	for (f = t->res.flags; f && *f; f++)
		vec_push(&a, xstrdup(*f));
	vec_push(&a, xstrdup(script));
	*argv = a.v;
}

static void shell_quote(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void exec_slurm_script(const struct run_task *t, struct strbuf *sb)
{
	const char *const *p;

	strbuf_addstr(sb, "#!/bin/sh\n");
	strbuf_addf(sb, "# %s: written by lorebot for sbatch\n", t->name ? t->name : "task");
	for (p = t->argv; *p; p++) {
		if (p != t->argv)
			strbuf_addch(sb, ' ');
		shell_quote(sb, *p);
	}
	strbuf_addstr(sb, " </dev/null\n");
	/* the exit status outlives Slurm's memory of the job */
	strbuf_addstr(sb, "s=$?\nrm -f " EXIT_FILE ".tmp && (set -C; echo \"$s\" >" EXIT_FILE
		      ".tmp) && mv -f " EXIT_FILE ".tmp " EXIT_FILE "\nexit \"$s\"\n");
}

/* the executor */

struct sjob {
	long id;
	char *dir;
	struct slurm_state st;	/* what Slurm said last */
	bool ended;
	bool cancel_sent;
};

struct slurm_x {
	struct run_executor x;	/* first: the ops get this */
	struct slurm_cfg c;
	struct sjob **jobs;	/* tracked */
	size_t nr, alloc;
	struct slurm_state *snap;	/* the last squeue */
	size_t nr_snap;
	uint64_t snap_ms;
	bool snap_ok;
};

static struct slurm_x *sx(struct run_executor *x)
{
	return (struct slurm_x *)x;
}

/* Run a Slurm client; 0 when it ran and exited 0, -1 otherwise (logged) */
static int slurm_run(struct slurm_x *s, const char *const *argv, struct strbuf *out)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf how = STRBUF_INIT;
	int ret = 0;

	cmd.argv = argv;
	cmd.limits.timeout_ms = s->c.cmd_timeout_ms ? s->c.cmd_timeout_ms : 30000;
	cmd.limits.max_output = SNAP_MAX_OUTPUT;
	if (run_cmd(&cmd) < 0 || cmd.timed_out || cmd.status) {
		run_describe(&cmd, &how);
		log_debug("slurm: '%s' failed: %s: %.*s", argv[0], how.buf,
			  (int)strcspn(cmd.err.buf, "\n"), cmd.err.buf);
		ret = -1;
	}
	if (out)
		strbuf_add(out, cmd.out.buf, cmd.out.len);
	strbuf_release(&how);
	run_cmd_release(&cmd);
	return ret;
}

static void refresh(struct slurm_x *s, bool force)
{
	static const char *const argv[] = { "squeue", "--me", "--noheader", "--states=all",
					    "--format=%i|%T|%N|%r", NULL };
	struct strbuf out = STRBUF_INIT;
	uint64_t now = util_now_ms();

	if (!force && s->snap_ms && now - s->snap_ms < s->c.poll_ms)
		return;
	s->snap_ms = now ? now : 1;
	free(s->snap);
	s->snap = NULL;
	s->nr_snap = 0;
	s->snap_ok = !slurm_run(s, argv, &out);
	if (s->snap_ok)
		s->nr_snap = exec_slurm_parse_squeue(out.buf, &s->snap);
	strbuf_release(&out);
}

static const struct slurm_state *snap_find(struct slurm_x *s, long id)
{
	size_t i;

	for (i = 0; i < s->nr_snap; i++)
		if (s->snap[i].id == id)
			return &s->snap[i];
	return NULL;
}

/* scontrol's account of one job: 0, or -ENOENT when Slurm forgot it */
static int ask_scontrol(struct slurm_x *s, long id, struct slurm_state *st)
{
	char ids[32];
	const char *argv[] = { "scontrol", "-o", "show", "job", ids, NULL };
	struct strbuf out = STRBUF_INIT;
	int r;

	snprintf(ids, sizeof(ids), "%ld", id);
	r = slurm_run(s, argv, &out);
	r = r ? -ENOENT : exec_slurm_parse_scontrol(out.buf, st);
	strbuf_release(&out);
	return r;
}

/* The exit status the batch script left, or -1 */
static int exit_file(const struct sjob *j)
{
	char *path = xasprintf("%s/" EXIT_FILE, j->dir), *buf = NULL, *end;
	size_t len;
	long v = -1;

	if (!util_read_file_beneath(j->dir, path, &buf, &len, 64)) {
		v = strtol(buf, &end, 10);
		if (end == buf || v < 0 || v > 255)
			v = -1;
	}
	free(buf);
	free(path);
	return (int)v;
}

static struct sjob *track(struct slurm_x *s, long id, const char *dir)
{
	struct sjob *j = xcalloc(1, sizeof(*j));

	j->id = id;
	j->dir = xstrdup(dir);
	state_init(&j->st);
	j->st.id = id;
	ALLOC_GROW(s->jobs, s->nr + 1, s->alloc);
	s->jobs[s->nr++] = j;
	return j;
}

/* The script written beside and renamed into place: a link there is replaced */
static int write_script(const char *dir, const char *script, const struct strbuf *sb)
{
	char *tmp = xasprintf("%s.tmp", script);
	int r;

	unlink(tmp);
	r = util_write_file_beneath(dir, tmp, sb->buf, sb->len);
	if (!r && rename(tmp, script))
		r = -errno;
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}

static int slurm_submit(struct run_executor *x, const struct run_task *t, void **job,
			char **handle)
{
	struct slurm_x *s = sx(x);
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	char *script, *stale, **argv = NULL;
	long id;
	int r;

	if (!t->workdir)
		return -EINVAL;
	script = xasprintf("%s/" SCRIPT_FILE, t->workdir);
	stale = xasprintf("%s/" EXIT_FILE, t->workdir);
	unlink(stale);
	exec_slurm_script(t, &sb);
	r = write_script(t->workdir, script, &sb);
	if (r)
		goto out;
	exec_slurm_sbatch_argv(&s->c, t, script, &argv);
	r = slurm_run(s, (const char *const *)argv, &out) ? -EIO : 0;
	if (!r)
		r = exec_slurm_parse_sbatch(out.buf, &id);
	if (r)
		goto out;
	*job = track(s, id, t->workdir);
	*handle = xasprintf("slurm:%ld:%s", id, t->workdir);
	/* the next poll asks squeue, whatever the interval */
	s->snap_ms = 0;
out:
	exec_slurm_argv_free(argv);
	strbuf_release(&sb);
	strbuf_release(&out);
	free(script);
	free(stale);
	return r;
}

/* How the job ended, in d */
static void ended(struct slurm_x *s, struct sjob *j, struct run_done *d)
{
	const struct slurm_state_def *def;
	struct slurm_state st;
	int code = exit_file(j);

	if (!ask_scontrol(s, j->id, &st)) {
		if (!*st.node)
			memcpy(st.node, j->st.node, sizeof(st.node));
		j->st = st;
	}
	def = exec_slurm_state_lookup(j->st.state);
	if (code < 0 && j->st.exit_code >= 0)
		code = j->st.exit_signal > 0 ? 128 + j->st.exit_signal : j->st.exit_code;
	d->status = code;
	d->timed_out = def && def->timed_out;
	if (code >= 0 && *j->st.state && (!def || !def->ended))
		/* the script is done, Slurm still completes the job */
		snprintf(d->detail, sizeof(d->detail), "slurm job %ld ended (exit %d)%s%s",
			 j->id, code, *j->st.node ? " on " : "", j->st.node);
	else
		snprintf(d->detail, sizeof(d->detail), "slurm job %ld %s%s%s", j->id,
			 *j->st.state ? j->st.state : "forgotten by Slurm",
			 *j->st.node ? " on " : "", j->st.node);
	j->ended = true;
}

static int slurm_poll(struct run_executor *x, void *job, struct run_done *d)
{
	struct slurm_x *s = sx(x);
	struct sjob *j = job;
	const struct slurm_state_def *def;
	const struct slurm_state *st;

	if (j->ended)
		return 0;
	/*
	 * The batch script's exit status says the command is over before
	 * squeue does (it is asked once per slurm.pollinterval, and Slurm
	 * still lists the job while it completes): a stat per look
	 */
	if (exit_file(j) >= 0) {
		ended(s, j, d);
		return 0;
	}
	refresh(s, false);
	if (!s->snap_ok)
		return 1;	/* Slurm does not answer: ask again later */
	st = snap_find(s, j->id);
	if (st) {
		if (*st->node)
			memcpy(j->st.node, st->node, sizeof(j->st.node));
		memcpy(j->st.state, st->state, sizeof(j->st.state));
		memcpy(j->st.reason, st->reason, sizeof(j->st.reason));
		def = exec_slurm_state_lookup(st->state);
		if (!def || !def->ended)
			return 1;
	}
	/* over, or no longer listed (forgotten, or lost) */
	ended(s, j, d);
	return 0;
}

static void slurm_signal(struct run_executor *x, void *job, int sig)
{
	struct sjob *j = job;
	char ids[32];
	const char *argv[] = { "scancel", ids, NULL };

	/* scancel sends SIGTERM, then SIGKILL after KillWait: once is enough */
	if (j->cancel_sent || j->ended || (sig != SIGTERM && sig != SIGKILL))
		return;
	snprintf(ids, sizeof(ids), "%ld", j->id);
	if (!slurm_run(sx(x), argv, NULL))
		j->cancel_sent = true;
	sx(x)->snap_ms = 0;
}

static int slurm_reattach(struct run_executor *x, const char *handle, void **job)
{
	struct slurm_x *s = sx(x);
	struct slurm_state st;
	const char *p;
	char *end;
	struct sjob probe = { 0 };
	long id;

	if (!util_skip_prefix(handle, "slurm:", &p))
		return -ENOENT;
	id = strtol(p, &end, 10);
	if (end == p || *end != ':' || id <= 0 || !end[1])
		return -ENOENT;
	probe.dir = end + 1;
	refresh(s, true);
	if (!s->snap_ok)
		return -EAGAIN;
	if (!snap_find(s, id) && exit_file(&probe) < 0 && ask_scontrol(s, id, &st))
		return -ENOENT;
	*job = track(s, id, end + 1);
	return 0;
}

static void slurm_release(struct run_executor *x, void *job)
{
	struct slurm_x *s = sx(x);
	struct sjob *j = job;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->jobs[i] == j) {
			s->jobs[i] = s->jobs[--s->nr];
			break;
		}
	}
	free(j->dir);
	free(j);
}

static const char *slurm_node(struct run_executor *x, void *job)
{
	struct sjob *j = job;

	(void)x;
	return *j->st.node ? j->st.node : NULL;
}

struct run_executor *exec_slurm_new_cfg(const struct slurm_cfg *c)
{
	struct slurm_x *s = xcalloc(1, sizeof(*s));
	size_t i;

	s->x = (struct run_executor){
		.name = "slurm",
		.submit = slurm_submit,
		.poll = slurm_poll,
		.signal = slurm_signal,
		.reattach = slurm_reattach,
		.release = slurm_release,
		.node = slurm_node,
		.persistent = true,
	};
	s->c.partition = xstrdup_or_null(c->partition);
	s->c.account = xstrdup_or_null(c->account);
	s->c.flags = xcalloc(c->nr_flags + 1, sizeof(*s->c.flags));
	for (i = 0; i < c->nr_flags; i++)
		s->c.flags[i] = xstrdup(c->flags[i]);
	s->c.nr_flags = c->nr_flags;
	s->c.poll_ms = c->poll_ms;
	s->c.cmd_timeout_ms = c->cmd_timeout_ms;
	return &s->x;
}

struct run_executor *exec_slurm_create(const struct config *cfg)
{
	struct slurm_cfg c = { 0 };
	struct run_executor *x;

	c.partition = (char *)config_v(cfg)->slurm_partition;
	c.account = (char *)config_v(cfg)->slurm_account;
	c.flags = config_v(cfg)->slurm_flags.v;
	c.nr_flags = config_v(cfg)->slurm_flags.nr;
	c.poll_ms = config_v(cfg)->slurm_pollinterval;
	c.cmd_timeout_ms = config_v(cfg)->slurm_timeout;
	x = exec_slurm_new_cfg(&c);
	return x;
}

void exec_slurm_destroy(struct run_executor *x)
{
	struct slurm_x *s = sx(x);
	size_t i;

	while (s->nr)
		slurm_release(x, s->jobs[s->nr - 1]);
	free(s->jobs);
	free(s->snap);
	for (i = 0; i < s->c.nr_flags; i++)
		free((char *)s->c.flags[i]);
	free(s->c.flags);
	free(s->c.partition);
	free(s->c.account);
	free(s);
}

void exec_slurm_configure(struct exec *e, const struct config *cfg)
{
	const char *const *v = config_v(cfg)->slurm_stages.v;
	size_t n = config_v(cfg)->slurm_stages.nr, i;
	enum stage st;

	for (i = 0; i < n; i++) {
		if (plan_stage_parse(v[i], &st) || !stages[st]->command)
			log_warn("slurm.stages: '%s' cannot run on Slurm", v[i]);
		else
			e->stage[st] = true;
	}
	for (i = 0; !n && i < STAGE_NR; i++)
		e->stage[i] = stages[i]->heavy && stages[i]->command;
	for (i = 0; i < STAGE_NR; i++)
		if (e->stage[i] && stages[i]->heavy)
			e->max_jobs = MAX(1, config_v(cfg)->slurm_maxjobs);
}

void exec_slurm_res(const struct config *cfg, enum stage kind, struct run_res *res)
{
	const struct config_values *cv = config_v(cfg);
	const struct { enum stage stage; int64_t cpus; } cpus_from[] = {
		{ STAGE_BUILD, cv->build_jobs }, { STAGE_BOOT, cv->boot_smp },
	};
	const char *name = plan_stage_name(kind);
	uint64_t timeout_ms = cv->daemon_jobtimeout;
	const char **v;
	char **flags;
	size_t nf, i;

	res->cpus = 1;
	if (config_sub(cfg, CFG_SUB_slurm_cpus, name))
		res->cpus = (unsigned int)MAX(1, config_sub_int(cfg, CFG_SUB_slurm_cpus, name));
	for (i = 0; !config_sub(cfg, CFG_SUB_slurm_cpus, name) && i < ARRAY_SIZE(cpus_from);
	     i++)
		if (cpus_from[i].stage == kind)
			res->cpus = (unsigned int)MAX(1, cpus_from[i].cpus);
	res->mem_bytes = config_sub_size(cfg, CFG_SUB_slurm_mem, name);
	/* Slurm enforces it: time queued does not count */
	res->limit_ms = config_sub(cfg, CFG_SUB_slurm_time, name) ?
		config_sub_ms(cfg, CFG_SUB_slurm_time, name) :
		timeout_ms ? timeout_ms + SLACK_MS : 0;
	nf = config_sub_all(cfg, CFG_SUB_slurm_flags, name, &v);
	flags = xcalloc(nf + 1, sizeof(*flags));
	for (i = 0; i < nf; i++)
		flags[i] = (char *)v[i];
	free(v);
	res->flags = (const char *const *)flags;
}

long exec_slurm_task_id(const char *handle)
{
	const char *p;

	return util_skip_prefix(handle, "slurm:", &p) ? strtol(p, NULL, 10) : 0;
}
