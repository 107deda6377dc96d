// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/run.h"
#include "lib/run-int.h"

#define KILL_GRACE_MS 3000
#define DEFAULT_MAX_OUTPUT (1 << 20)

extern char **environ;

void run_argv_push(struct argv_vec *a, const char *s)
{
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = s;
	a->v[a->nr] = NULL;
}

bool run_have_program(const char *name)
{
	const char *path = getenv("PATH");
	char *dup, *dir, *save = NULL;
	bool found = false;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/bin:/bin";
	dup = xstrdup(path);
	for (dir = strtok_r(dup, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, name);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(dup);
	return found;
}

static void set_limit(int resource, uint64_t value)
{
	struct rlimit rl;

	if (!value)
		return;
	rl.rlim_cur = rl.rlim_max = value;
	setrlimit(resource, &rl);
}

/* Build the environment: inherit (or a clean base), then apply cmd->env. */
static char **make_env(const struct run_cmd *cmd)
{
	static const char *const clean[] = {
		"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
		"LANG=C", "LC_ALL=C", NULL,
	};
	struct argv_vec e = { 0 };
	const char *const *src = cmd->clean_env ? clean : (const char *const *)environ;
	const char *const *p;
	size_t i;

	for (p = src; p && *p; p++)
		run_argv_push(&e, *p);
	if (cmd->clean_env) {
		const char *home = getenv("HOME");

		run_argv_push(&e, xasprintf("HOME=%s", home ? home : "/"));
	}
	for (p = cmd->env; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		size_t klen = eq ? (size_t)(eq - *p) : strlen(*p);

		for (i = 0; i < e.nr; i++) {
			if (!strncmp(e.v[i], *p, klen) && e.v[i][klen] == '=') {
				memmove(e.v + i, e.v + i + 1,
					(e.nr - i) * sizeof(*e.v));
				e.nr--;
				i--;
			}
		}
		if (eq)
			run_argv_push(&e, *p);
	}
	return (char **)e.v;
}

static void child_fail(int fd, const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "lorebot: %s: %s\n", what,
			 strerror(errno));

	if (n > 0 && write(fd, msg, n) < 0)
		_exit(127);
	_exit(127);
}

static void child_setup(const struct run_cmd *cmd, pid_t parent, int in_fd, int out_fd,
			int err_fd)
{
	struct argv_vec a = { 0 };
	const char *const *argv = cmd->argv;
	sigset_t none;
	char **env;

	setpgid(0, 0);
	/* a parent waiting on a signalfd blocks them: the child must not */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/*
	 * No child outlives lorebot: a job runner killed with the daemon
	 * takes its build (and, through bwrap --die-with-parent, make) along.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the parent died before that: nobody would send it (an orphan bwrap) */
	if (getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(127);
	/*
	 * Only those three: what lorebot's own parent left open without
	 * close-on-exec (a service manager's, a shell's redirection) must
	 * not reach a sandboxed build of somebody's patch
	 */
	close_range(3, ~0U, 0);
	if (cmd->cwd && !cmd->sandbox.enabled && chdir(cmd->cwd))
		child_fail(2, cmd->cwd);
	if (cmd->sandbox.enabled) {
		/*
		 * What to hide and to bind is looked at with the caller's
		 * eyes: a path the user cannot see is still hidden (or its
		 * bind fails), never silently left out
		 */
		run_sandbox_argv(cmd, &a);
		argv = a.v;
		if (geteuid() == 0 && cmd->sandbox.uid) {
			if (setgroups(0, NULL) || setgid(cmd->sandbox.gid) ||
			    setuid(cmd->sandbox.uid))
				child_fail(2, "cannot drop privileges");
		}
	}
	env = make_env(cmd);
	/*
	 * The limits come last, with nothing left to allocate: under
	 * RLIMIT_AS an allocation could fail here (ASan, whose address
	 * space is far beyond any limit, dies with "Failed to mmap"), and
	 * that would look like the command failing.
	 */
	set_limit(RLIMIT_CPU, cmd->limits.cpu_s);
	set_limit(RLIMIT_AS, cmd->limits.mem_bytes);
	set_limit(RLIMIT_FSIZE, cmd->limits.fsize_bytes);
	set_limit(RLIMIT_NPROC, cmd->limits.nproc);
	set_limit(RLIMIT_CORE, 0);
	execvpe(argv[0], (char *const *)argv, env);
	child_fail(2, argv[0]);
}

static void keep(struct run_cmd *cmd, struct strbuf *sb, const char *buf,
		 size_t n, FILE *log, size_t *logged)
{
	size_t max = cmd->limits.max_output ? cmd->limits.max_output :
		DEFAULT_MAX_OUTPUT;
	size_t room = sb->len < max ? max - sb->len : 0;

	if (n > room) {
		cmd->truncated = true;
		strbuf_add(sb, buf, room);
	} else {
		strbuf_add(sb, buf, n);
	}
	if (log && *logged < max) {
		size_t w = MIN(n, max - *logged);

		fwrite(buf, 1, w, log);
		*logged += w;
	}
}

/* A descriptor that polls readable once pid exits, or -1 (old kernels) */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

int run_cmd(struct run_cmd *cmd)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	int pidfd;
	struct pollfd pfd[4];
	size_t in_off = 0, logged = 0;
	uint64_t start = util_now_ms(), kill_at = 0;
	bool exited = false;
	FILE *log = NULL;
	int wstatus = 0, ret = 0;
	pid_t pid, parent;

	cmd->status = -1;
	cmd->timed_out = cmd->truncated = false;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    (!cmd->merge_stderr && !cmd->pass_stderr && pipe2(err, O_CLOEXEC))) {
		ret = -errno;
		goto close_fds;
	}
	if (cmd->log_path) {
		/*
		 * a log is a file: a link planted where it goes is not
		 * followed, a FIFO not waited on (util_open_regular())
		 */
		int fd = util_open_regular(cmd->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		log = fd < 0 ? NULL : fdopen(fd, "we");
		if (!log) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			goto close_fds;
		}
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto close_fds;
	}
	if (!pid) {
		int e = cmd->merge_stderr ? out[1] :
			cmd->pass_stderr ? 2 : err[1];

		if (!cmd->in) {
			int null = open("/dev/null", O_RDONLY);

			if (null >= 0)
				in[0] = null;
		}
		child_setup(cmd, parent, in[0], out[1], e);
	}
	setpgid(pid, pid);
	/* without it, a child that closed its output is seen 100 ms late */
	pidfd = open_pidfd(pid);
	close(in[0]);
	close(out[1]);
	if (err[1] >= 0)
		close(err[1]);
	in[0] = out[1] = err[1] = -1;
	if (!cmd->in || !cmd->in_len) {
		close(in[1]);
		in[1] = -1;
	} else {
		fcntl(in[1], F_SETFL, O_NONBLOCK);
	}

	for (;;) {
		int nfds = 0, timeout = -1, n, i;
		uint64_t now = util_now_ms();

		if (cmd->limits.timeout_ms && !kill_at &&
		    now - start >= cmd->limits.timeout_ms) {
			cmd->timed_out = true;
			kill(-pid, SIGTERM);
			kill_at = now + KILL_GRACE_MS;
		}
		if (kill_at && now >= kill_at) {
			kill(-pid, SIGKILL);
			kill_at = UINT64_MAX;
		}
		if (!exited && waitpid(pid, &wstatus, WNOHANG) == pid) {
			exited = true;
			/* children that kept the pipes open get a grace period */
			if (!kill_at)
				kill_at = now + KILL_GRACE_MS;
		}
		if (out[0] >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = out[0], .events = POLLIN };
		if (err[0] >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = err[0], .events = POLLIN };
		if (in[1] >= 0)
			pfd[nfds++] = (struct pollfd){ .fd = in[1], .events = POLLOUT };
		if (pidfd >= 0 && !exited)
			pfd[nfds++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		if (!nfds && exited)
			break;
		if (exited && kill_at == UINT64_MAX)
			break;
		timeout = 100;
		n = poll(pfd, nfds, timeout);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			kill(-pid, SIGKILL);
			break;
		}
		for (i = 0; i < nfds && n > 0; i++) {
			char buf[65536];
			ssize_t r;

			if (!pfd[i].revents || pfd[i].fd == pidfd)
				continue;
			if (pfd[i].fd == in[1]) {
				r = write(in[1], cmd->in + in_off,
					  cmd->in_len - in_off);
				if (r > 0)
					in_off += r;
				if ((r < 0 && errno != EAGAIN) ||
				    in_off == cmd->in_len) {
					close(in[1]);
					in[1] = -1;
				}
				continue;
			}
			r = read(pfd[i].fd, buf, sizeof(buf));
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				if (pfd[i].fd == out[0])
					out[0] = -1;
				else
					err[0] = -1;
				close(pfd[i].fd);
				continue;
			}
			keep(cmd, pfd[i].fd == out[0] ? &cmd->out : &cmd->err,
			     buf, r, log, &logged);
		}
	}
	if (!exited) {
		kill(-pid, SIGKILL);
		waitpid(pid, &wstatus, 0);
	}
	/* whatever is left of the process group goes too */
	kill(-pid, SIGKILL);
	if (WIFEXITED(wstatus))
		cmd->status = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		cmd->status = 128 + WTERMSIG(wstatus);
	cmd->elapsed_ms = util_now_ms() - start;
	if (pidfd >= 0)
		close(pidfd);

close_fds:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	if (log)
		fclose(log);
	return ret;
}

void run_cmd_release(struct run_cmd *cmd)
{
	strbuf_release(&cmd->out);
	strbuf_release(&cmd->err);
}

void run_describe(const struct run_cmd *cmd, struct strbuf *sb)
{
	if (cmd->timed_out)
		strbuf_addf(sb, "timed out after %llu s",
			    (unsigned long long)cmd->limits.timeout_ms / 1000);
	else if (cmd->status > 128)
		strbuf_addf(sb, "killed by signal %d", cmd->status - 128);
	else if (cmd->status == 127)
		strbuf_addstr(sb, "could not run");
	else
		strbuf_addf(sb, "exit %d", cmd->status);
}

int run_bg_start(struct run_bg *bg, const char *const *argv,
		 const char *const *env, const char *log_path,
		 uint64_t timeout_ms)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	int fd;
	pid_t pid, parent;

	memset(bg, 0, sizeof(*bg));
	bg->status = -1;
	fd = log_path ? util_open_regular(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644) :
		open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	cmd.argv = argv;
	cmd.env = env;
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		child_setup(&cmd, parent, null, fd, fd);
	}
	setpgid(pid, pid);
	close(fd);
	bg->pid = pid;
	bg->started_ms = util_now_ms();
	bg->timeout_ms = timeout_ms;
	return 0;
}

void run_bg_kill(struct run_bg *bg, int sig)
{
	if (bg->pid > 0)
		kill(-bg->pid, sig);
}

int run_bg_poll(struct run_bg *bg)
{
	uint64_t now = util_now_ms();
	int wstatus;
	pid_t r;

	if (bg->pid <= 0)
		return 0;
	r = waitpid(bg->pid, &wstatus, WNOHANG);
	if (r == bg->pid) {
		if (WIFEXITED(wstatus))
			bg->status = WEXITSTATUS(wstatus);
		else
			bg->status = 128 + WTERMSIG(wstatus);
		kill(-bg->pid, SIGKILL);
		bg->pid = 0;
		return 0;
	}
	if (r < 0 && errno == ECHILD) {
		bg->pid = 0;
		return 0;
	}
	if (bg->timeout_ms && now - bg->started_ms >= bg->timeout_ms) {
		if (!bg->kill_sent_ms) {
			bg->timed_out = true;
			kill(-bg->pid, SIGTERM);
			bg->kill_sent_ms = now;
		} else if (now - bg->kill_sent_ms >= KILL_GRACE_MS) {
			kill(-bg->pid, SIGKILL);
		}
	}
	return 1;
}

/* the pool's local executor: fork and exec here */

struct local_job {
	pid_t pid;
};

/* path opened for appending; NULL: our own stderr */
static int open_append(const char *path)
{
	if (!path)
		return fcntl(2, F_DUPFD_CLOEXEC, 3);
	return util_open_regular(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
}

static int local_submit(struct run_executor *x, const struct run_task *t, void **job,
			char **handle)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	int log = open_append(t->log_path), out = -1, e;
	struct local_job *lj;
	pid_t pid, parent;

	(void)x;
	if (log < 0)
		return -errno;
	out = t->out_path ? open_append(t->out_path) : fcntl(log, F_DUPFD_CLOEXEC, 3);
	if (out < 0) {
		e = -errno;
		close(log);
		return e;
	}
	cmd.argv = t->argv;
	cmd.env = t->env;
	if (t->sandbox)
		cmd.sandbox = *t->sandbox;
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(log);
		close(out);
		return e;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		child_setup(&cmd, parent, null, out, log);
	}
	setpgid(pid, pid);
	close(log);
	close(out);
	lj = xcalloc(1, sizeof(*lj));
	lj->pid = pid;
	*job = lj;
	*handle = xasprintf("local:%d", (int)pid);
	return 0;
}

static int local_poll(struct run_executor *x, void *job, struct run_done *d)
{
	struct local_job *lj = job;
	int wstatus;
	pid_t r;

	(void)x;
	r = waitpid(lj->pid, &wstatus, WNOHANG);
	if (r == 0 || (r < 0 && errno == EINTR))
		return 1;
	if (r == lj->pid)
		d->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
			128 + WTERMSIG(wstatus);
	else
		d->status = -1;
	/* whatever is left of its process group goes too */
	kill(-lj->pid, SIGKILL);
	return 0;
}

static void local_signal(struct run_executor *x, void *job, int sig)
{
	struct local_job *lj = job;

	(void)x;
	kill(-lj->pid, sig);
}

static int local_reattach(struct run_executor *x, const char *handle, void **job)
{
	(void)x;
	(void)handle;
	(void)job;
	return -ENOENT;		/* local tasks die with their parent */
}

static void local_release(struct run_executor *x, void *job)
{
	(void)x;
	free(job);
}

static struct run_executor local_executor = {
	.name = "local",
	.submit = local_submit,
	.poll = local_poll,
	.signal = local_signal,
	.reattach = local_reattach,
	.release = local_release,
};

/* the pool */

struct pool_task {
	struct run_executor *x;
	void *job;		/* the executor's */
	char *handle;
	struct run_res res;
	void *data;
	uint64_t started_ms;
	uint64_t term_ms;	/* when SIGTERM was sent; 0: not yet */
	uint64_t grace_ms;	/* SIGKILL this long after it */
	bool timed_out, cancelled;
};

struct run_pool {
	struct run_executor *x;
	struct pool_task *v;
	size_t nr, alloc;
};

struct run_pool *run_pool_new(struct run_executor *x)
{
	struct run_pool *p = xcalloc(1, sizeof(*p));

	p->x = x ? x : &local_executor;
	return p;
}

void run_pool_free(struct run_pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++) {
		p->v[i].x->release(p->v[i].x, p->v[i].job);
		free(p->v[i].handle);
	}
	free(p->v);
	free(p);
}

static void pool_add(struct run_pool *p, struct run_executor *x, void *job, char *handle,
		     const struct run_res *res, void *data)
{
	struct pool_task *t;

	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	t = &p->v[p->nr++];
	memset(t, 0, sizeof(*t));
	t->x = x;
	t->job = job;
	t->handle = handle;
	t->res = *res;
	t->data = data;
	t->started_ms = util_now_ms();
}

int run_pool_submit(struct run_pool *p, const struct run_task *t)
{
	struct run_executor *x = t->x ? t->x : p->x;
	char *handle = NULL;
	void *job = NULL;
	int r = x->submit(x, t, &job, &handle);

	if (r)
		return r;
	pool_add(p, x, job, handle, &t->res, t->data);
	return 0;
}

int run_pool_reattach(struct run_pool *p, struct run_executor *x, const char *handle,
		      const struct run_res *res, void *data)
{
	void *job = NULL;
	int r;

	x = x ? x : p->x;
	r = x->reattach(x, handle, &job);
	if (r)
		return r;
	pool_add(p, x, job, xstrdup(handle), res, data);
	return 0;
}

static struct pool_task *find_task(const struct run_pool *p, void *data)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->v[i].data == data)
			return &p->v[i];
	return NULL;
}

static void term(struct run_pool *p, struct pool_task *t, uint64_t now, uint64_t grace)
{
	if (t->term_ms)
		return;
	t->x->signal(t->x, t->job, SIGTERM);
	t->term_ms = now ? now : 1;
	t->grace_ms = grace;
}

size_t run_pool_poll(struct run_pool *p, run_pool_fn *fn, void *ctx)
{
	struct run_done *done = NULL;
	size_t nr = 0, alloc = 0, i = 0;
	uint64_t now = util_now_ms();

	while (i < p->nr) {
		struct pool_task *t = &p->v[i];
		struct run_done d = { .data = t->data, .status = -1 };
		const char *node;

		if (t->x->poll(t->x, t->job, &d)) {
			if (t->res.timeout_ms && now - t->started_ms >= t->res.timeout_ms &&
			    !t->term_ms) {
				t->timed_out = true;
				term(p, t, now, KILL_GRACE_MS);
			} else if (t->term_ms && now - t->term_ms >= t->grace_ms) {
				t->x->signal(t->x, t->job, SIGKILL);
			}
			i++;
			continue;
		}
		d.timed_out = t->timed_out;
		d.cancelled = t->cancelled;
		d.elapsed_ms = now - t->started_ms;
		/* a job that ended between two looks at where it runs */
		node = t->x->node ? t->x->node(t->x, t->job) : NULL;
		if (node)
			snprintf(d.node, sizeof(d.node), "%s", node);
		ALLOC_GROW(done, nr + 1, alloc);
		done[nr++] = d;
		t->x->release(t->x, t->job);
		free(t->handle);
		p->v[i] = p->v[--p->nr];
	}
	/* after the loop: fn may submit more */
	for (i = 0; i < nr; i++)
		fn(ctx, &done[i]);
	free(done);
	return nr;
}

void run_pool_cancel(struct run_pool *p, void *data, int sig)
{
	struct pool_task *t = find_task(p, data);

	if (!t)
		return;
	t->cancelled = true;
	if (sig == SIGTERM)
		term(p, t, util_now_ms(), KILL_GRACE_MS);
	else
		t->x->signal(t->x, t->job, sig);
}

size_t run_pool_count(const struct run_pool *p, int klass)
{
	size_t i, n = 0;

	for (i = 0; i < p->nr; i++)
		n += klass < 0 || p->v[i].res.klass == klass;
	return n;
}

const char *run_pool_handle(const struct run_pool *p, void *data)
{
	struct pool_task *t = find_task(p, data);

	return t ? t->handle : NULL;
}

const char *run_pool_node(const struct run_pool *p, void *data)
{
	struct pool_task *t = find_task(p, data);

	return t && t->x->node ? t->x->node(t->x, t->job) : NULL;
}

void run_pool_each(const struct run_pool *p,
		   void (*fn)(void *ctx, void *data, uint64_t running_ms), void *ctx)
{
	uint64_t now = util_now_ms();
	size_t i;

	for (i = 0; i < p->nr; i++)
		fn(ctx, p->v[i].data, now - p->v[i].started_ms);
}

void run_pool_stop(struct run_pool *p, uint64_t grace_ms, run_pool_fn *fn, void *ctx)
{
	/* SIGKILL after grace_ms (run_pool_poll() sends it); then give up on them */
	uint64_t until = util_now_ms() + grace_ms + KILL_GRACE_MS;
	size_t i = 0;

	/* a scheduler's jobs go on without us: a later start reattaches them */
	while (i < p->nr) {
		struct pool_task *t = &p->v[i];
		struct run_done d = { .data = t->data, .status = -1, .detached = true,
				      .elapsed_ms = util_now_ms() - t->started_ms };

		if (!t->x->persistent) {
			i++;
			continue;
		}
		t->x->release(t->x, t->job);
		free(t->handle);
		p->v[i] = p->v[--p->nr];
		fn(ctx, &d);
	}
	for (i = 0; i < p->nr; i++) {
		p->v[i].cancelled = true;
		term(p, &p->v[i], util_now_ms(), grace_ms);
	}
	while (p->nr && util_now_ms() < until) {
		run_pool_poll(p, fn, ctx);
		if (p->nr)
			poll(NULL, 0, 20);
	}
	while (p->nr) {
		struct pool_task *t = &p->v[--p->nr];
		struct run_done d = { .data = t->data, .status = -1, .cancelled = true,
				      .elapsed_ms = util_now_ms() - t->started_ms };

		t->x->release(t->x, t->job);
		free(t->handle);
		fn(ctx, &d);
	}
}
