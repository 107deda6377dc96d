// SPDX-License-Identifier: GPL-2.0
/*
 * lib/jail: what a jailed helper can do, tried from inside (the attacks
 * a parser bug taken over by a mail would try: the database's file and
 * descriptor, the network, another process, a fork, an exec, writing
 * anywhere, gaining a capability), what it still needs (iconv's
 * modules), and how its caller survives it: an error answer, a crash, a
 * hang, an oversized answer and an oversized request each cost one call,
 * and the next call gets a new helper.  As the user running the tests
 * and, when that is root, as nobody.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <iconv.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/jail.h"
#include "tests/unit/tap.h"

#define BIG (64 << 10)

static char secret[] = "/var/tmp/lorebot-t-jail-XXXXXX";
static int secret_fd = -1;

static pid_t test_pid;

/* What a probe got: "allowed", or its errno's name (r < 0: errno set) */
static const char *outcome(long r)
{
	return r >= 0 ? "allowed" : strerrorname_np(errno);
}

/* In the helper: every probe, "name=outcome" a line */
static void probes(struct strbuf *r)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	char *const argv[] = { "true", NULL };
	iconv_t cd;
	long x;

	x = open(secret, O_RDONLY);
	strbuf_addf(r, "secret=%s\n", outcome(x));
	x = fcntl(secret_fd, F_GETFD);
	strbuf_addf(r, "secret_fd=%s\n", outcome(x));
	x = socket(AF_INET, SOCK_STREAM, 0);
	strbuf_addf(r, "inet=%s\n", outcome(x));
	x = socket(AF_UNIX, SOCK_STREAM, 0);
	strbuf_addf(r, "unix=%s\n", outcome(x));
	x = fork();
	if (!x)
		_exit(0);
	strbuf_addf(r, "fork=%s\n", outcome(x));
	x = execv("/usr/bin/true", argv);
	strbuf_addf(r, "exec=%s\n", outcome(x));
	x = kill(test_pid, 0);
	strbuf_addf(r, "kill_parent=%s\n", outcome(x));
	strbuf_addf(r, "pid=%d\n", (int)getpid());
	memset(d, 0xff, sizeof(d));
	x = syscall(SYS_capget, &h, d);
	strbuf_addf(r, "caps=%s\n", x ? "error" : d[0].effective || d[0].permitted ||
		    d[1].effective || d[1].permitted ? "some" : "none");
	x = mkdir("/x", 0755);
	strbuf_addf(r, "mkdir_root=%s\n", outcome(x));
	x = open("/usr/lorebot-t-jail", O_CREAT | O_WRONLY, 0644);
	strbuf_addf(r, "write_usr=%s\n", outcome(x));
	x = access("/etc/passwd", F_OK);
	strbuf_addf(r, "passwd=%s\n", outcome(x));
	x = access("/proc/self", F_OK);
	strbuf_addf(r, "proc=%s\n", outcome(x));
	x = access("/tmp", F_OK);
	strbuf_addf(r, "tmp=%s\n", outcome(x));
	cd = iconv_open("UTF-8", "KOI8-R");
	strbuf_addf(r, "iconv=%s\n", cd == (iconv_t)-1 ? "missing" : "ok");
	if (cd != (iconv_t)-1)
		iconv_close(cd);
}

static int helper(void *ctx, const char *req, size_t len, struct strbuf *resp)
{
	(void)ctx;
	(void)len;
	if (!strncmp(req, "echo:", 5)) {
		strbuf_addstr(resp, req + 5);
		return 0;
	}
	if (!strcmp(req, "fail")) {
		strbuf_addstr(resp, "cannot read that");
		return 1;
	}
	if (!strcmp(req, "crash"))
		__builtin_trap();
	if (!strcmp(req, "hang"))
		for (;;)
			pause();
	if (!strcmp(req, "big")) {
		strbuf_grow(resp, BIG + 1);
		memset(resp->buf, 'x', BIG + 1);
		strbuf_setlen(resp, BIG + 1);
		return 0;
	}
	if (!strcmp(req, "warn")) {
		/* a library's warning: written or refused, never fatal */
		fprintf(stderr, "# a warning from inside the jail\n");
		fflush(stderr);
		strbuf_addstr(resp, "warned");
		return 0;
	}
	if (!strcmp(req, "probe")) {
		probes(resp);
		return 0;
	}
	strbuf_addstr(resp, "?");
	return 1;
}

static const char *const expected[] = {
	"secret=ENOENT",	/* the database's file is not there */
	"secret_fd=EBADF",	/* nor its descriptor */
	"inet=EPERM", "unix=EPERM",	/* no socket at all */
	"fork=EPERM", "exec=EPERM",
	"kill_parent=ESRCH",	/* no other process to name */
	"pid=1",
	"caps=none",
	"mkdir_root=EROFS", "write_usr=EROFS",
	"passwd=ENOENT", "proc=ENOENT", "tmp=ENOENT",
	"iconv=ok",		/* what GMime needs of /usr */
};

/* The calls; each a TAP line when tap, else a count of failures */
static int run(const char *who, bool tap)
{
	struct jail_opts o = { .fn = helper, .timeout_ms = 2000, .max_response = BIG,
			       .max_request = 1 << 20 };
	struct jail *j = jail_new(&o);
	struct strbuf resp = STRBUF_INIT, err = STRBUF_INIT;
	unsigned int started, lost;
	int bad = 0, r;
	bool failed;
	size_t i;
	char *big;

#define CHECK(cond, ...) do {						\
	if (tap)							\
		ok((cond), __VA_ARGS__);				\
	else if (!(cond)) {						\
		bad++;							\
		printf("# %s: failed: ", who);				\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

	CHECK(!jail_call(j, "echo:hello", 10, &resp, &failed, &err) && !failed &&
	      !strcmp(resp.buf, "hello"), "%s: an answer (%s)", who, err.buf);
	strbuf_reset(&resp);
	strbuf_reset(&err);
	CHECK(!jail_call(j, "probe", 5, &resp, &failed, &err), "%s: probes ran (%s)",
	      who, err.buf);
	for (i = 0; i < ARRAY_SIZE(expected); i++) {
		char *line = xasprintf("%s\n", expected[i]);

		CHECK(strstr(resp.buf, line) != NULL, "%s: inside, %s", who, expected[i]);
		if (!strstr(resp.buf, line))
			printf("# got:\n# %s\n", resp.buf);
		free(line);
	}
	strbuf_reset(&resp);
	CHECK(!jail_call(j, "warn", 4, &resp, &failed, &err) && !strcmp(resp.buf, "warned"),
	      "%s: a warning on stderr does not kill it (%s)", who, err.buf);
	strbuf_reset(&resp);
	CHECK(!jail_call(j, "fail", 4, &resp, &failed, &err) && failed &&
	      !strcmp(resp.buf, "cannot read that"), "%s: the helper's own error", who);
	CHECK(jail_pid(j) != 0, "%s: the same helper goes on", who);
	strbuf_reset(&resp);
	r = jail_call(j, "crash", 5, &resp, &failed, &err);
	CHECK(r && strstr(err.buf, "died on this request: killed by signal"),
	      "%s: a crash is an error: %s", who, err.buf);
	CHECK(jail_pid(j) == 0, "%s: ... and the helper is gone", who);
	strbuf_reset(&err);
	CHECK(!jail_call(j, "echo:again", 10, &resp, &failed, &err) &&
	      !strcmp(resp.buf, "again"), "%s: the next call gets a new helper", who);
	strbuf_reset(&resp);
	r = jail_call(j, "hang", 4, &resp, &failed, &err);
	CHECK(r && strstr(err.buf, "gave no answer within 2000 ms"),
	      "%s: a hang is killed: %s", who, err.buf);
	strbuf_reset(&err);
	r = jail_call(j, "big", 3, &resp, &failed, &err);
	CHECK(r && strstr(err.buf, "broke the protocol"), "%s: an answer too large: %s",
	      who, err.buf);
	strbuf_reset(&err);
	big = xcalloc(1, (1 << 20) + 1);
	r = jail_call(j, big, (1 << 20) + 1, &resp, &failed, &err);
	CHECK(r && strstr(err.buf, "more than the"), "%s: a request too large, refused: %s",
	      who, err.buf);
	free(big);
	strbuf_reset(&err);
	strbuf_reset(&resp);
	CHECK(!jail_call(j, "echo:last", 9, &resp, &failed, &err) &&
	      !strcmp(resp.buf, "last"), "%s: and still answers", who);
	jail_counts(j, &started, &lost);
	CHECK(started == 4 && lost == 3, "%s: 4 helpers started, 3 lost (%u, %u)", who,
	      started, lost);
	jail_free(j);
	strbuf_release(&resp);
	strbuf_release(&err);
	return bad;
}

int main(void)
{
	int fd = mkstemp(secret), st;
	pid_t pid;

	if (fd < 0)
		return 1;
	if (write(fd, "secret\n", 7) != 7)
		return 1;
	fchmod(fd, 0644);
	/* an open descriptor the helper must not keep (not its socket's 3) */
	secret_fd = dup2(fd, 40);
	test_pid = getpid();
	signal(SIGPIPE, SIG_IGN);
	run(getuid() ? "user" : "root", true);
	if (!geteuid()) {
		fflush(stdout);
		pid = fork();
		if (!pid) {
			if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
				_exit(2);
			_exit(run("nobody", false) ? 1 : 0);
		}
		waitpid(pid, &st, 0);
		ok(WIFEXITED(st) && !WEXITSTATUS(st), "as nobody: every check above holds");
	}
	unlink(secret);
	return done_testing();
}
