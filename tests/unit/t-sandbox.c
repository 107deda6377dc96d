// SPDX-License-Identifier: GPL-2.0
/*
 * What a sandboxed child can do, tried from inside: the sandbox of
 * run_cmd(), as the job runner gives it to apply and check (as root:
 * root's uid, no capability) and as the builds and boots get it (as
 * root: the build user).  Each probe is an attack a hostile patch, or a
 * parser bug it exploits, would try.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/run.h"
#include "tests/unit/tap.h"

static char secret_dir[] = "/var/tmp/lorebot-t-sandbox-XXXXXX";
static char sock_path[108];
static char db_file[] = "/var/tmp/lorebot-t-sandbox-db-XXXXXX";
static const char *bind_back[2];	/* bound read-only again, or NULL */

/* Run a shell probe in the sandbox; its exit status, its output in out */
static int probe(const char *script, uid_t uid, gid_t gid, struct strbuf *out)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *argv[] = { "sh", "-c", script, NULL };
	const char *hide[] = { secret_dir, NULL };
	int status;

	cmd.argv = argv;
	cmd.clean_env = true;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = 60000;
	cmd.limits.nproc = 64;
	cmd.sandbox.enabled = true;
	cmd.sandbox.hide = hide;
	cmd.sandbox.ro = bind_back;
	cmd.sandbox.uid = uid;
	cmd.sandbox.gid = gid;
	if (run_cmd(&cmd) < 0) {
		strbuf_addstr(out, "cannot run");
		run_cmd_release(&cmd);
		return -1;
	}
	status = cmd.timed_out ? -2 : cmd.status;
	strbuf_addbuf(out, &cmd.out);
	run_cmd_release(&cmd);
	return status;
}

static void check(const char *who, const char *what, const char *script,
		  int want, uid_t uid, gid_t gid)
{
	struct strbuf out = STRBUF_INIT;
	int st = probe(script, uid, gid, &out);

	ok(st == want, "%s: %s", who, what);
	if (st != want)
		printf("# exit %d, wanted %d: %s\n", st, want, out.buf);
	strbuf_release(&out);
}

static void probes(const char *who, uid_t uid, gid_t gid)
{
	char *s;

	check(who, "no capability (CapEff 0)",
	      "grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status", 0,
	      uid, gid);
	check(who, "the root file system cannot be remounted read-write",
	      "mount -o remount,bind,rw / 2>/dev/null || exit 3", 3, uid, gid);
	check(who, "nor written", "touch /usr/lorebot-probe 2>/dev/null || exit 3",
	      3, uid, gid);
	s = xasprintf("test -e %s/secret && exit 0; ls -A %s | grep -q . && exit 0; exit 3",
		      secret_dir, secret_dir);
	check(who, "a hidden directory is empty", s, 3, uid, gid);
	free(s);
	s = xasprintf("grep -q SQLite %s && exit 0; exit 3", db_file);
	check(who, "the database (run_hide_always) reads as empty", s, 3, uid, gid);
	bind_back[0] = db_file;
	check(who, "unless the sandbox binds it back", s, 0, uid, gid);
	bind_back[0] = NULL;
	free(s);
	s = xasprintf("test -e %s && exit 0; exit 3", sock_path);
	check(who, "a host socket in /run is out of sight", s, 3, uid, gid);
	free(s);
	check(who, "/tmp is private and bounded (600 MiB do not fit)",
	      "head -c 629145600 /dev/zero >/tmp/fill 2>/dev/null && exit 0; "
	      "test -s /tmp/fill || exit 4; exit 3", 3, uid, gid);
	check(who, "/dev/shm is bounded too",
	      "head -c 134217728 /dev/zero >/dev/shm/fill 2>/dev/null || exit 3", 3,
	      uid, gid);
	check(who, "no network but loopback",
	      "test \"$(grep -c : /proc/net/dev)\" = 1 || exit 0; exit 3", 3, uid, gid);
}

int main(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct passwd *pw;
	char *f;
	FILE *fp;
	int fd;

	if (!run_have_program("bwrap")) {
		printf("1..0 # SKIP no bwrap (bubblewrap)\n");
		return 0;
	}
	if (!mkdtemp(secret_dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	f = xasprintf("%s/secret", secret_dir);
	fp = fopen(f, "w");
	if (fp)
		fclose(fp);
	fd = mkstemp(db_file);
	if (fd < 0 || write(fd, "SQLite format 3", 15) != 15) {
		printf("Bail out! %s: %s\n", db_file, strerror(errno));
		return 1;
	}
	close(fd);
	chmod(db_file, 0644);	/* readable to the build user: only hiding stops it */
	run_hide_always(db_file);
	snprintf(sock_path, sizeof(sock_path), "/run/lorebot-t-sandbox-%d.sock",
		 (int)getpid());
	memcpy(sa.sun_path, sock_path, sizeof(sock_path));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1))
		sock_path[0] = '\0';

	probes(geteuid() == 0 ? "as root" : "as a user", 0, 0);
	pw = getpwnam("nobody");
	if (geteuid() == 0 && pw) {
		probes("as root, the build user", pw->pw_uid, pw->pw_gid);
		/* RLIMIT_NPROC holds for the build user (root is exempt) */
		check("as root, the build user", "a fork bomb is refused",
		      "(i=0; while [ $i -lt 100 ]; do sleep 5 & i=$((i + 1)); done) "
		      "2>/dev/null || exit 3; exit 0", 3, pw->pw_uid, pw->pw_gid);
	}

	if (sock_path[0])
		unlink(sock_path);
	if (fd >= 0)
		close(fd);
	unlink(f);
	unlink(db_file);
	rmdir(secret_dir);
	free(f);
	return done_testing();
}
