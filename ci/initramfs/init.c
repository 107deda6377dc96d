// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot's guest init: PID 1 of the initramfs that boots a kernel under
 * test.  Built per architecture with that architecture's cross gcc and
 * -static; it needs nothing else in the image (no shell, no busybox).
 *
 * It mounts proc, sys, devtmpfs, tmpfs and hugetlbfs, reserves huge
 * pages, runs the tests listed in /lorebot/plan one after another, each
 * with its own time limit and in its own process group, prints the
 * results as KTAP on the console and reboots (qemu runs with -no-reboot,
 * so that ends the virtual machine).
 *
 * /lorebot/plan, one directive a line:
 *	hugepages N		reserve N default-size huge pages
 *	thp MODE		write MODE to transparent_hugepage/enabled
 *	retry N			run a failing test up to N more times, while
 *				it keeps failing (an attempt during which the
 *				kernel printed a report counts as failing)
 *	runs N			run each test after this line N times, whatever
 *				each gives (the host bisecting and confirming: it
 *				reads each attempt's exit line); 0: retry
 * A test that timed out is run twice at most: its limit is long.
 *	test NAME TIMEOUT_S HUGEPAGES BINARY [ARG...]
 *				run ./BINARY [ARG...] in /lorebot/bin (as
 *				run_vmtests.sh does), report it as NAME, with
 *				HUGEPAGES reserved for it ("-": the default)
 *
 * The console protocol (parsed by ci/ktap.c on the host):
 *	KTAP version 1
 *	# lorebot: init uptime ms T
 *	1..N
 *	# lorebot: run NAME attempt A
 *	    <the test's stdout and stderr, each line indented by 4 spaces>
 *	# lorebot: exit NAME attempt A status S ms T [timeout] [report]
 *	ok|not ok I NAME [# SKIP|# TIMEOUT ...]
 *	# lorebot: done
 * Kernel messages interleave with these lines; the host tells them apart
 * by their printk time stamps.  Before every attempt after a test's first,
 * the init writes debugfs's clear_warn_once, so that a WARN_ON_ONCE the
 * first attempt hit can show again: the host counts in how many attempts
 * a report came.  "report" on an exit line says the init saw one in
 * /dev/kmsg during the attempt (only what decides a rerun: the host reads
 * the reports from the console).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLAN_PATH	"/lorebot/plan"
#define BIN_DIR		"/lorebot/bin"
#define MAX_TESTS	256
#define MAX_ARGS	32
#define MAX_OUTPUT	(512 * 1024)	/* bytes of one attempt shown */
#define KSFT_SKIP	4
#define KILL_WAIT_S	10	/* for a killed test to go */

struct test {
	char *name;
	char *bin;
	long hugepages;		/* -1: the plan's */
	unsigned int timeout_s;
	int runs;		/* > 0: this many times (the plan's "runs") */
	char arg0[128];
	char *argv[MAX_ARGS + 2];
};

struct plan {
	struct test tests[MAX_TESTS];
	int nr;
	long hugepages;
	char thp[32];
	int retries;
	int runs;		/* > 0: every test this many times */
};

static struct plan plan;

/* One write() per line keeps lines whole on the console. */
static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		return;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Time since the kernel started: how long the boot took */
static unsigned long long uptime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void do_mount(const char *src, const char *dst, const char *type,
		     const char *opts)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, opts) && errno != EBUSY)
		say("# lorebot: cannot mount %s on %s: %s", type, dst,
		    strerror(errno));
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void setup_console(void)
{
	int fd;

	/* the kernel opens /dev/console for us when the initramfs has it */
	if (fcntl(1, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

static void setup_mounts(void)
{
	do_mount("proc", "/proc", "proc", NULL);
	do_mount("sysfs", "/sys", "sysfs", NULL);
	do_mount("devtmpfs", "/dev", "devtmpfs", NULL);
	do_mount("tmpfs", "/tmp", "tmpfs", "mode=1777");
	do_mount("tmpfs", "/dev/shm", "tmpfs", "mode=1777");
	do_mount("hugetlbfs", "/dev/hugepages", "hugetlbfs", NULL);
	/* optional: gup_test and friends live there */
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
}

/* Reserve n huge pages; returns how many the kernel gave */
static long set_hugepages(long n)
{
	char buf[64];
	ssize_t r;
	int fd;

	snprintf(buf, sizeof(buf), "%ld", n);
	if (write_str("/proc/sys/vm/nr_hugepages", buf))
		return -1;
	fd = open("/proc/sys/vm/nr_hugepages", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	return strtol(buf, NULL, 10);
}

static void setup_memory(void)
{
	if (plan.hugepages > 0)
		say("# lorebot: hugepages %ld of %ld reserved",
		    set_hugepages(plan.hugepages), plan.hugepages);
	if (plan.thp[0] &&
	    write_str("/sys/kernel/mm/transparent_hugepage/enabled", plan.thp))
		say("# lorebot: cannot set transparent_hugepage to %s",
		    plan.thp);
}

static char *next_word(char **p)
{
	char *s = *p, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

static int parse_test(char *rest)
{
	struct test *t = &plan.tests[plan.nr];
	char *name = next_word(&rest), *timeout = next_word(&rest);
	char *huge = next_word(&rest), *bin = next_word(&rest), *w;
	int argc = 0;

	if (!name || !timeout || !huge || !bin || plan.nr == MAX_TESTS)
		return -1;
	t->name = name;
	t->bin = bin;
	t->timeout_s = strtoul(timeout, NULL, 10);
	t->runs = plan.runs;
	t->hugepages = strcmp(huge, "-") ? strtol(huge, NULL, 10) : -1;
	snprintf(t->arg0, sizeof(t->arg0), "./%s", bin);
	t->argv[argc++] = t->arg0;
	while ((w = next_word(&rest)) && argc <= MAX_ARGS)
		t->argv[argc++] = w;
	t->argv[argc] = NULL;
	plan.nr++;
	return 0;
}

static int read_plan(void)
{
	static char text[64 * 1024];
	char *line, *save = NULL;
	ssize_t n;
	int fd = open(PLAN_PATH, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return -1;
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *rest = line, *key = next_word(&rest), *val;

		if (!key || key[0] == '#')
			continue;
		if (!strcmp(key, "test")) {
			if (parse_test(rest))
				say("# lorebot: bad plan line: test %s", rest);
			continue;
		}
		val = next_word(&rest);
		if (!val)
			continue;
		if (!strcmp(key, "hugepages"))
			plan.hugepages = strtol(val, NULL, 10);
		else if (!strcmp(key, "thp"))
			snprintf(plan.thp, sizeof(plan.thp), "%s", val);
		else if (!strcmp(key, "retry"))
			plan.retries = atoi(val);
		else if (!strcmp(key, "runs"))
			plan.runs = atoi(val);
	}
	return 0;
}

/* Show one line of test output, indented as a KTAP subtest. */
static void emit_line(const char *s, size_t len)
{
	char buf[4 + 1024 + 1];

	if (len > 1024)
		len = 1024;
	memcpy(buf, "    ", 4);
	memcpy(buf + 4, s, len);
	buf[4 + len] = '\n';
	if (write(1, buf, len + 5) < 0)
		return;
}

struct outbuf {
	char line[1024];
	size_t len;
	size_t shown;
	int dropped;
};

static void out_feed(struct outbuf *o, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (o->shown >= MAX_OUTPUT) {
			o->dropped = 1;
			continue;
		}
		if (p[i] == '\n' || o->len == sizeof(o->line)) {
			emit_line(o->line, o->len);
			o->shown += o->len + 1;
			o->len = 0;
			if (p[i] == '\n')
				continue;
		}
		if (p[i] != '\r')
			o->line[o->len++] = p[i];
	}
}

static void out_flush(struct outbuf *o)
{
	if (o->len)
		emit_line(o->line, o->len);
	o->len = 0;
	if (o->dropped)
		say("# lorebot: output beyond %d bytes dropped", MAX_OUTPUT);
}

enum outcome { PASS, FAIL, SKIP, TIMEOUT };

/* Wait for pid, at most KILL_WAIT_S; 1 when it was reaped */
static int reap(pid_t pid, int *wstatus)
{
	int i;

	for (i = 0; i < KILL_WAIT_S * 10; i++) {
		if (waitpid(pid, wstatus, WNOHANG) == pid)
			return 1;
		usleep(100000);
	}
	return 0;
}

/*
 * The kernel's log, read from the end before each attempt: did it print a
 * report during the attempt?  The starts of the reports the host's parser
 * (ci/console.c) knows; only a rerun depends on it.
 */
static int kmsg_fd = -1;

static const char *const report_starts[] = {
	"WARNING: ", "BUG: ", "kernel BUG at ", "Unable to handle kernel ",
	"general protection fault", "Internal error: Oops", "Oops: ",
	"Oops - ", "Kernel panic - not syncing: ", "INFO: task ", "UBSAN: ",
};

static void kmsg_skip(void)
{
	if (kmsg_fd < 0)
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
}

static int kmsg_report(void)
{
	static char rec[8192];
	int found = 0;
	size_t i;

	while (kmsg_fd >= 0) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: the next one */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg++)
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		for (i = 0; i < sizeof(report_starts) / sizeof(*report_starts); i++)
			if (!strncmp(msg, report_starts[i], strlen(report_starts[i])))
				found = 1;
		if (strstr(msg, " detected stalls on CPUs") ||
		    strstr(msg, " self-detected stall on CPU"))
			found = 1;
	}
	return found;
}

/* WARN_ON_ONCE and friends may fire again (CONFIG_DEBUG_FS) */
static void clear_warn_once(void)
{
	write_str("/sys/kernel/debug/clear_warn_once", "1");
}

/*
 * Run one attempt: the test in its own session and process group with
 * stdout and stderr on a pipe, killed (the whole group) at its deadline.
 * *reported: the kernel printed a report meanwhile.
 */
static enum outcome run_attempt(const struct test *t, int attempt, int *status,
				int *reported)
{
	unsigned long long start = now_ms(), deadline;
	struct outbuf out = { .len = 0 };
	int pfd[2], wstatus = 0, timed_out = 0, exited = 0;
	char path[256];
	pid_t pid;

	say("# lorebot: run %s attempt %d", t->name, attempt);
	*reported = 0;
	kmsg_skip();
	snprintf(path, sizeof(path), "%s/%s", BIN_DIR, t->bin);
	if (pipe(pfd)) {
		say("# lorebot: pipe: %s", strerror(errno));
		*status = -1;
		return FAIL;
	}
	pid = fork();
	if (pid < 0) {
		say("# lorebot: fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		*status = -1;
		return FAIL;
	}
	if (!pid) {
		static char *const envp[] = {
			"PATH=/lorebot/bin:/bin", "HOME=/tmp", "TERM=dumb",
			"LANG=C", NULL,
		};
		int null = open("/dev/null", O_RDONLY);

		setsid();
		dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (chdir(BIN_DIR))
			_exit(126);
		execve(path, t->argv, envp);
		dprintf(2, "cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	deadline = start + t->timeout_s * 1000ULL;
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		unsigned long long now = now_ms();
		char buf[4096];
		ssize_t n;
		int r, wait_ms;

		if (!exited && waitpid(pid, &wstatus, WNOHANG) == pid) {
			exited = 1;
			/* what it left behind may still write, briefly */
			if (deadline > now + 2000)
				deadline = now + 2000;
		}
		if (now >= deadline) {
			timed_out = !exited;
			break;
		}
		wait_ms = exited ? (int)(deadline - now) : 100;
		if (wait_ms > (int)(deadline - now))
			wait_ms = (int)(deadline - now);
		r = poll(&p, 1, wait_ms);
		if (r <= 0)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		out_feed(&out, buf, n);
	}
	/* the test, or what it left behind, goes with its process group */
	kill(-pid, SIGKILL);
	close(pfd[0]);
	out_flush(&out);
	if (!exited && !reap(pid, &wstatus)) {
		/* stuck in the kernel: go on with the next test */
		say("# lorebot: %s did not die %d s after SIGKILL", t->name,
		    KILL_WAIT_S);
		wstatus = SIGKILL;
	}
	*status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) :
		128 + WTERMSIG(wstatus);
	*reported = kmsg_report();
	say("# lorebot: exit %s attempt %d status %d ms %llu%s%s", t->name,
	    attempt, *status, now_ms() - start, timed_out ? " timeout" : "",
	    *reported ? " report" : "");
	if (timed_out)
		return TIMEOUT;
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == KSFT_SKIP)
		return SKIP;
	return WIFEXITED(wstatus) && !WEXITSTATUS(wstatus) ? PASS : FAIL;
}

static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static void run_test(int i, const struct test *t)
{
	char path[256];
	enum outcome o, worst = PASS;
	int status, attempt = 1, reported, worst_status = 0;

	snprintf(path, sizeof(path), "%s/%s", BIN_DIR, t->bin);
	if (access(path, X_OK)) {
		say("ok %d %s # SKIP not in the initramfs", i, t->name);
		return;
	}
	if (t->hugepages >= 0) {
		long got = set_hugepages(t->hugepages);

		if (got != t->hugepages)
			say("# lorebot: hugepages %ld of %ld reserved", got,
			    t->hugepages);
	}
	o = run_attempt(t, attempt, &status, &reported);
	for (;;) {
		int failed = o == FAIL || o == TIMEOUT;

		if (failed) {
			worst = o;
			worst_status = status;
		}
		if (o == SKIP || (o == TIMEOUT && attempt >= 2) ||
		    (t->runs > 0 ? attempt >= t->runs :
		     (!failed && !reported) || attempt > plan.retries))
			break;
		reap_orphans();
		clear_warn_once();
		o = run_attempt(t, ++attempt, &status, &reported);
	}
	reap_orphans();
	/* several runs asked: one that failed is what the line says */
	if (t->runs > 0 && worst != PASS) {
		o = worst;
		status = worst_status;
	}
	if (t->hugepages >= 0)
		set_hugepages(plan.hugepages > 0 ? plan.hugepages : 0);
	switch (o) {
	case PASS:
		say("ok %d %s", i, t->name);
		break;
	case SKIP:
		say("ok %d %s # SKIP", i, t->name);
		break;
	case TIMEOUT:
		say("not ok %d %s # TIMEOUT after %u s", i, t->name,
		    t->timeout_s);
		break;
	case FAIL:
		say("not ok %d %s # exit status %d", i, t->name, status);
		break;
	}
}

int main(void)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned long long start;
	int i;

	setup_console();
	setup_mounts();
	say("KTAP version 1");
	say("# lorebot: init uptime ms %llu", uptime_ms());
	if (read_plan()) {
		say("# lorebot: cannot read %s: %s", PLAN_PATH, strerror(errno));
		say("1..0");
		goto out;
	}
	setup_memory();
	setrlimit(RLIMIT_MEMLOCK, &rl);
	say("1..%d", plan.nr);
	start = now_ms();
	for (i = 0; i < plan.nr; i++)
		run_test(i + 1, &plan.tests[i]);
	say("# lorebot: done ms %llu", now_ms() - start);
out:
	sync();
	reboot(RB_AUTOBOOT);
	/* reboot failed: nothing else to do, and PID 1 must not exit */
	for (;;)
		pause();
}
