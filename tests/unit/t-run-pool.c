// SPDX-License-Identifier: GPL-2.0
/*
 * run_pool: tasks submitted with their class and timeout, polled without
 * blocking, killed past their time, cancelled, stopped; how each ended
 * is reported once, with the caller's data.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/run.h"
#include "tests/unit/tap.h"

struct seen {
	struct run_done d[8];
	size_t nr;
};

static void ended(void *ctx, const struct run_done *d)
{
	struct seen *s = ctx;

	if (s->nr < ARRAY_SIZE(s->d))
		s->d[s->nr++] = *d;
}

/* poll until n tasks have ended (bounded: a hang fails, not blocks) */
static void wait_for(struct run_pool *p, struct seen *s, size_t n)
{
	int i;

	for (i = 0; i < 3000 && s->nr < n; i++) {
		run_pool_poll(p, ended, s);
		if (s->nr < n)
			poll(NULL, 0, 10);
	}
}

static const struct run_done *find(const struct seen *s, void *data)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->d[i].data == data)
			return &s->d[i];
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/t-run-pool.XXXXXX";
	const char *exit3[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	const char *hang[] = { "sleep", "60", NULL };
	int a, b, c;
	struct seen s = { 0 };
	struct run_pool *p = run_pool_new(NULL);
	struct run_task t = { 0 };
	const struct run_done *d;
	char *out, *log, *buf = NULL;
	size_t len;

	if (!mkdtemp(dir))
		return 1;
	out = xasprintf("%s/out", dir);
	log = xasprintf("%s/log", dir);

	t.argv = exit3;
	t.out_path = out;
	t.log_path = log;
	t.res.klass = 1;
	t.data = &a;
	is_int(run_pool_submit(p, &t), 0, "a task is submitted");
	ok(run_pool_handle(p, &a) != NULL, "it has a handle");
	t.argv = hang;
	t.out_path = NULL;
	t.res.klass = 2;
	t.res.timeout_ms = 100;
	t.data = &b;
	is_int(run_pool_submit(p, &t), 0, "a task that hangs is submitted");
	t.res.timeout_ms = 0;
	t.data = &c;
	run_pool_submit(p, &t);
	is_int(run_pool_count(p, 1), 1, "one task of class 1");
	is_int(run_pool_count(p, 2), 2, "two of class 2");
	is_int(run_pool_count(p, -1), 3, "three in all");

	wait_for(p, &s, 2);
	d = find(&s, &a);
	ok(d && d->status == 3 && !d->timed_out && !d->cancelled,
	   "the first ended with its exit status, 3");
	d = find(&s, &b);
	ok(d && d->timed_out && d->status == 128 + SIGTERM,
	   "the one past its timeout was killed (SIGTERM) and says so");
	ok(!find(&s, &c), "the one without a timeout still runs");
	ok(!util_read_file(out, &buf, &len, 1 << 20) && !strcmp(buf, "out\n"),
	   "stdout went to out_path");
	free(buf);
	buf = NULL;
	ok(!util_read_file(log, &buf, &len, 1 << 20) && !strcmp(buf, "err\n"),
	   "stderr went to log_path");
	free(buf);

	run_pool_cancel(p, &c, SIGTERM);
	wait_for(p, &s, 3);
	d = find(&s, &c);
	ok(d && d->cancelled && !d->timed_out, "a cancelled task ends cancelled");
	is_int(run_pool_count(p, -1), 0, "nothing runs");

	/* stop: everything still running is cancelled and reported */
	s.nr = 0;
	t.data = &a;
	run_pool_submit(p, &t);
	run_pool_stop(p, 1000, ended, &s);
	ok(s.nr == 1 && s.d[0].data == &a && s.d[0].cancelled,
	   "run_pool_stop reports the running task as cancelled");
	is_int(run_pool_count(p, -1), 0, "and the pool is empty");
	ok(run_pool_reattach(p, NULL, "local:1", &t.res, &b) < 0,
	   "a local task cannot be reattached");

	run_pool_free(p);
	unlink(out);
	unlink(log);
	rmdir(dir);
	free(out);
	free(log);
	return done_testing();
}
