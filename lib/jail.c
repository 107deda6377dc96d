// SPDX-License-Identifier: GPL-2.0
/*
 * A helper in a jail (lib/jail.h): the jail is made by hand, with the
 * system calls bubblewrap uses, because the helper must also start
 * inside a bubblewrap sandbox (the daemon's fetch pass), where another
 * bubblewrap cannot map its uid.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/jail.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#define DEFAULT_TIMEOUT_MS	30000
#define DEFAULT_MAX_REQUEST	(64ULL << 20)
#define DEFAULT_MAX_RESPONSE	(16ULL << 20)
#define DEFAULT_MEM		(1ULL << 30)
#define DEFAULT_CPU_S		600
/* how long a helper that closed its socket has to be seen exiting */
#define REAP_MS			1000

#define NORETURN __attribute__((noreturn))

struct jail {
	struct jail_opts o;
	pid_t pid;		/* the helper's first process, or 0 */
	int fd;			/* our end of its socket */
	unsigned int started, lost;
};

struct jail *jail_new(const struct jail_opts *o)
{
	struct jail *j = xcalloc(1, sizeof(*j));

	j->o = *o;
	if (!j->o.timeout_ms)
		j->o.timeout_ms = DEFAULT_TIMEOUT_MS;
	if (!j->o.max_request)
		j->o.max_request = DEFAULT_MAX_REQUEST;
	if (!j->o.max_response)
		j->o.max_response = DEFAULT_MAX_RESPONSE;
	if (!j->o.mem_bytes)
		j->o.mem_bytes = DEFAULT_MEM;
	if (!j->o.cpu_s)
		j->o.cpu_s = DEFAULT_CPU_S;
	j->fd = -1;
	return j;
}

pid_t jail_pid(const struct jail *j)
{
	return j->pid;
}

void jail_counts(const struct jail *j, unsigned int *started, unsigned int *lost)
{
	*started = j->started;
	*lost = j->lost;
}

/* the helper's side */

static void NORETURN helper_fail(int fd, const char *what)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "E%s: %s", what, strerror(errno));

	if (n > 0)
		send(fd, msg, MIN((size_t)n, sizeof(msg) - 1), MSG_NOSIGNAL);
	_exit(126);
}

static int write_proc(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s))
		e = -1;
	close(fd);
	return e;
}

/* The flags a bind's remount must keep (they are locked from outside) */
static unsigned long locked_flags(const char *path)
{
	static const struct { unsigned long st, ms; } map[] = {
		{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV }, { ST_NOEXEC, MS_NOEXEC },
		{ ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	struct statvfs sv;
	unsigned long f = 0;
	size_t i;

	if (statvfs(path, &sv))
		return 0;
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (sv.f_flag & map[i].st)
			f |= map[i].ms;
	return f;
}

/* A root of its own: an empty read-only tmpfs, /usr bound read-only */
static void enter_root(int fd)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		helper_fail(fd, "making the mounts private");
	if (mount("jail", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "size=65536,mode=0755"))
		helper_fail(fd, "mounting its root");
	if (mkdir("/tmp/usr", 0755) || mkdir("/tmp/old", 0755))
		helper_fail(fd, "making its root");
	if (mount("/usr", "/tmp/usr", NULL, MS_BIND | MS_REC, NULL) ||
	    mount(NULL, "/tmp/usr", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
		  locked_flags("/tmp/usr"), NULL))
		helper_fail(fd, "binding /usr read-only");
	if (syscall(SYS_pivot_root, "/tmp", "/tmp/old") || chdir("/"))
		helper_fail(fd, "pivot_root");
	if (umount2("/old", MNT_DETACH) || rmdir("/old"))
		helper_fail(fd, "leaving the host's root");
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL))
		helper_fail(fd, "making its root read-only");
}

static void drop_privileges(int fd)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int c;

	for (c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			helper_fail(fd, "dropping the bounding set");
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		helper_fail(fd, "dropping capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		helper_fail(fd, "no_new_privs");
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static void set_limit(int fd, int res, uint64_t v)
{
	struct rlimit rl = { (rlim_t)v, (rlim_t)v };

	/*
	 * Valgrind keeps the hard limit on open files for itself (it
	 * refuses to change it: EPERM) and keeps the soft one in its own
	 * books: under a profiler the helper has the soft limit only
	 * (bench/, jail_profiled())
	 */
	if (res == RLIMIT_NOFILE && RUNNING_ON_VALGRIND && !getrlimit(res, &rl))
		rl.rlim_cur = MIN((rlim_t)v, rl.rlim_max);
	if (setrlimit(res, &rl))
		helper_fail(fd, "setrlimit");
}

#if defined(__x86_64__)
#define JAIL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define JAIL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define JAIL_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

/* What the helper may never do, whatever it was made to run */
static const long denied_syscalls[] = {
#ifdef __NR_fork
	__NR_fork,
#endif
#ifdef __NR_vfork
	__NR_vfork,
#endif
	__NR_clone, __NR_clone3, __NR_execve, __NR_execveat,
	__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
	__NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen,
	__NR_accept, __NR_accept4,
	__NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_unshare,
	__NR_setns, __NR_open_by_handle_at, __NR_name_to_handle_at,
	__NR_keyctl, __NR_add_key, __NR_request_key, __NR_bpf,
	__NR_perf_event_open, __NR_userfaultfd, __NR_io_uring_setup,
	__NR_kexec_load, __NR_init_module, __NR_finit_module,
	__NR_delete_module, __NR_reboot, __NR_swapon, __NR_swapoff,
	__NR_personality,
};

static void install_filter(int fd)
{
#ifdef JAIL_AUDIT_ARCH
	struct sock_filter f[8 + 2 * ARRAY_SIZE(denied_syscalls)];
	struct sock_fprog prog;
	size_t n = 0, i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_AUDIT_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* the x32 calls (bit 30) would pass every test below */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < ARRAY_SIZE(denied_syscalls); i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned int)denied_syscalls[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						      SECCOMP_RET_ERRNO | EPERM);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	prog.filter = f;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0))
		helper_fail(fd, "installing the seccomp filter");
#else
	(void)fd;
#endif
}

/*
 * The frames both sides send: a header whose last 8 bytes are the length
 * of the body that follows (a request: just that; an answer: a status
 * byte first).  A frame goes out in one sendmsg(), so that the peer
 * wakes once for it; reads take what is there, up to a frame (the peer
 * sends nothing more before it is answered).  deadline 0: block.
 * 1 done, 0 the deadline passed, -1 the peer is gone, -2 a body larger
 * than max (or than the header said).
 */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int r;

	for (;;) {
		now = util_now_ms();
		if (now >= deadline)
			return 0;
		r = poll(&p, 1, (int)MIN(deadline - now, (uint64_t)INT32_MAX));
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -1 : r;
	}
}

static int send_frame(int fd, const void *hdr, size_t hlen, const void *body,
		      size_t blen, uint64_t deadline)
{
	struct iovec iov[2] = { { (void *)hdr, hlen }, { (void *)body, blen } };
	struct msghdr mh = { 0 };
	ssize_t n;
	size_t i, k;
	int r;

	while (iov[0].iov_len + iov[1].iov_len) {
		mh.msg_iov = iov[0].iov_len ? iov : iov + 1;
		mh.msg_iovlen = iov[0].iov_len ? 2 : 1;
		n = sendmsg(fd, &mh, MSG_NOSIGNAL | (deadline ? MSG_DONTWAIT : 0));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && deadline) {
			r = wait_fd(fd, POLLOUT, deadline);
			if (r <= 0)
				return r;
			continue;
		}
		if (n <= 0)
			return -1;
		for (i = 0; i < 2 && n; i++) {
			k = MIN((size_t)n, iov[i].iov_len);
			iov[i].iov_base = (char *)iov[i].iov_base + k;
			iov[i].iov_len -= k;
			n -= k;
		}
	}
	return 1;
}

static ssize_t recv_some(int fd, void *buf, size_t len, uint64_t deadline)
{
	ssize_t n;
	int r;

	for (;;) {
		n = recv(fd, buf, len, deadline ? MSG_DONTWAIT : 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && deadline) {
			r = wait_fd(fd, POLLIN, deadline);
			if (r <= 0)
				return r ? -1 : -3;
			continue;
		}
		return n > 0 ? n : -1;
	}
}

static int recv_frame(int fd, void *hdr, size_t hlen, struct strbuf *body,
		      size_t max, uint64_t deadline)
{
	char buf[65536];
	size_t have = 0, extra;
	uint64_t len;
	ssize_t n;

	while (have < hlen) {
		n = recv_some(fd, buf + have, sizeof(buf) - have, deadline);
		if (n < 0)
			return n == -3 ? 0 : -1;
		have += n;
	}
	memcpy(hdr, buf, hlen);
	memcpy(&len, buf + hlen - sizeof(len), sizeof(len));
	extra = have - hlen;
	if (len > max || extra > len)
		return -2;
	strbuf_grow(body, len);
	strbuf_add(body, buf + hlen, extra);
	while (extra < len) {
		n = recv_some(fd, body->buf + body->len, len - extra, deadline);
		if (n < 0)
			return n == -3 ? 0 : -1;
		strbuf_setlen(body, body->len + n);
		extra += n;
	}
	return 1;
}

static void NORETURN serve(const struct jail *j, int fd)
{
	struct strbuf req = STRBUF_INIT, resp = STRBUF_INIT;
	unsigned char hdr[1 + sizeof(uint64_t)];
	uint64_t len;
	int r;

	if (send_frame(fd, "R", 1, NULL, 0, 0) != 1)
		_exit(1);
	for (;;) {
		strbuf_reset(&req);
		r = recv_frame(fd, &len, sizeof(len), &req, j->o.max_request, 0);
		if (r != 1)
			_exit(r == -1 ? 0 : 2);
		strbuf_reset(&resp);
		hdr[0] = j->o.fn(j->o.ctx, req.buf, req.len, &resp) ? 1 : 0;
		len = resp.len;
		memcpy(hdr + 1, &len, sizeof(len));
		if (send_frame(fd, hdr, sizeof(hdr), resp.buf, resp.len, 0) != 1)
			_exit(1);
	}
}

/*
 * The fork: its namespaces, then a second fork, which is PID 1 of its
 * own PID namespace and the helper (so that no other process can be
 * named, let alone signalled or traced); this one only waits for it and
 * exits as it did (128 + the signal that killed it).
 */
static void NORETURN helper_main(const struct jail *j, int fd, pid_t parent)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	pid_t pid;
	int st;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/*
	 * /proc/self is ours to write only while dumpable, which a process
	 * that changed its uid (setuid() from root) is not
	 */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET |
		    CLONE_NEWIPC | CLONE_NEWUTS))
		helper_fail(fd, "unshare");
	if (write_proc("/proc/self/setgroups", "deny") && errno != ENOENT)
		helper_fail(fd, "setgroups");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)uid, (unsigned int)uid);
	if (write_proc("/proc/self/uid_map", map))
		helper_fail(fd, "uid_map");
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)gid, (unsigned int)gid);
	if (write_proc("/proc/self/gid_map", map))
		helper_fail(fd, "gid_map");
	pid = fork();
	if (pid < 0)
		helper_fail(fd, "fork");
	if (pid) {
		close_range(0, ~0U, 0);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				_exit(125);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the socket becomes 3; all else but stderr goes (the database's too) */
	if (fd != 3 && (dup2(fd, 3) < 0 || close(fd)))
		helper_fail(fd, "dup2");
	fd = 3;
	close(0);
	close(1);
	close_range(4, ~0U, 0);
	enter_root(fd);
	drop_privileges(fd);
#ifndef __SANITIZE_ADDRESS__
	set_limit(fd, RLIMIT_AS, j->o.mem_bytes);
#endif
	set_limit(fd, RLIMIT_CPU, j->o.cpu_s);
	/*
	 * No file to write: a library's warning on stderr, when that is a
	 * log file, then fails (EFBIG) instead of killing it (SIGXFSZ)
	 */
	signal(SIGXFSZ, SIG_IGN);
	set_limit(fd, RLIMIT_FSIZE, 0);
	set_limit(fd, RLIMIT_NOFILE, 32);
	set_limit(fd, RLIMIT_CORE, 0);
	set_limit(fd, RLIMIT_NPROC, 0);
	install_filter(fd);
	serve(j, fd);
}

/* the caller's side */

/* Reap the helper (killed first unless it is seen ending); how it ended */
static void reap(struct jail *j, bool kill_first, struct strbuf *how)
{
	uint64_t until = util_now_ms() + REAP_MS;
	int st = 0;
	pid_t r;

	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	if (!j->pid)
		return;
	if (!kill_first) {
		while ((r = waitpid(j->pid, &st, WNOHANG)) == 0 && util_now_ms() < until)
			usleep(5000);
		if (r == j->pid)
			goto done;
	}
	kill(j->pid, SIGKILL);
	while ((r = waitpid(j->pid, &st, 0)) < 0 && errno == EINTR)
		;
	if (kill_first || r != j->pid) {
		j->pid = 0;
		return;
	}
done:
	j->pid = 0;
	if (!how)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) > 128)
		strbuf_addf(how, "killed by signal %d (%s)", WEXITSTATUS(st) - 128,
			    strsignal(WEXITSTATUS(st) - 128));
	else if (WIFEXITED(st))
		strbuf_addf(how, "exited with status %d", WEXITSTATUS(st));
	else
		strbuf_addf(how, "killed by signal %d", WTERMSIG(st));
}

/* The helper broke down: gone, and err says how */
static int lost(struct jail *j, int r, uint64_t timeout_ms, const char *doing,
		struct strbuf *err)
{
	struct strbuf how = STRBUF_INIT;

	j->lost++;
	if (r == 0) {
		reap(j, true, NULL);
		strbuf_addf(err, "the jailed helper gave no answer within %llu ms %s; killed",
			    (unsigned long long)timeout_ms, doing);
	} else {
		reap(j, false, &how);
		strbuf_addf(err, "the jailed helper died %s%s%s", doing,
			    how.len ? ": " : "", how.buf);
	}
	strbuf_release(&how);
	return -1;
}

static int start(struct jail *j, struct strbuf *err)
{
	char why[256];
	pid_t parent = getpid(), pid;
	int sv[2], r;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		strbuf_addf(err, "cannot start the jailed helper: socketpair: %s",
			    strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot start the jailed helper: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (!pid) {
		close(sv[0]);
		helper_main(j, sv[1], parent);
	}
	close(sv[1]);
	j->pid = pid;
	j->fd = sv[0];
	j->started++;
	/* "R" once in its jail, or "E" and what failed */
	n = recv_some(j->fd, why, 1, util_now_ms() + j->o.timeout_ms);
	r = n == 1 ? 1 : n == -3 ? 0 : -1;
	if (r == 1 && why[0] == 'R')
		return 0;
	if (r == 1 && why[0] == 'E') {
		n = recv(j->fd, why, sizeof(why) - 1, 0);
		why[n > 0 ? n : 0] = '\0';
		reap(j, true, NULL);
		j->lost++;
		strbuf_addf(err, "cannot make the jail: %s", why);
		return -1;
	}
	return lost(j, r, j->o.timeout_ms, "while making its jail", err);
}

int jail_start(struct jail *j, struct strbuf *err)
{
	return j->pid ? 0 : start(j, err);
}

int jail_call(struct jail *j, const char *req, size_t len, struct strbuf *resp,
	      bool *failed, struct strbuf *err)
{
	return jail_call_within(j, req, len, 0, resp, failed, err);
}

int jail_call_within(struct jail *j, const char *req, size_t len, uint64_t timeout_ms,
		     struct strbuf *resp, bool *failed, struct strbuf *err)
{
	unsigned char hdr[1 + sizeof(uint64_t)];
	uint64_t n = len, deadline;
	int r;

	if (!timeout_ms)
		timeout_ms = j->o.timeout_ms;
	*failed = false;
	if (len > j->o.max_request) {
		strbuf_addf(err, "a request of %zu bytes, more than the %zu allowed", len,
			    j->o.max_request);
		return -1;
	}
	if (jail_start(j, err))
		return -1;
	deadline = util_now_ms() + timeout_ms;
	r = send_frame(j->fd, &n, sizeof(n), req, len, deadline);
	if (r == 1)
		r = recv_frame(j->fd, hdr, sizeof(hdr), resp, j->o.max_response, deadline);
	if (r == -2 || (r == 1 && hdr[0] > 1)) {
		reap(j, true, NULL);
		j->lost++;
		strbuf_addf(err, "the jailed helper broke the protocol (%s)",
			    r == -2 ? "an answer too large" : "a bad status");
		return -1;
	}
	if (r != 1)
		return lost(j, r, timeout_ms, "on this request", err);
	*failed = hdr[0] == 1;
	return 0;
}

void jail_free(struct jail *j)
{
	if (!j)
		return;
	/* EOF on its socket: it exits */
	reap(j, false, NULL);
	free(j);
}
