// SPDX-License-Identifier: GPL-2.0
/*
 * What a sandboxed child can do, tried from inside: the sandbox of
 * run_cmd(), as the job runner gives it to apply and check (as root:
 * root's uid, no capability) and as the builds and boots get it (as
 * root: the build user).  Each probe is an attack a hostile patch, or a
 * parser bug it exploits, would try; and what the stages need of the
 * host (the programs, the loader, the name service) is there.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
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
/* a tree bound as a whole, with a hidden and a read-only part inside */
static char tree_dir[] = "/var/tmp/lorebot-t-sandbox-tree-XXXXXX";
static char *tree_state, *tree_db, *tree_ro;
static const char *bind_rw[2];		/* bound read-write, or NULL */
static const char *hide_more[2];	/* hidden too, or NULL */
/* outside the allowlist, not hidden: a root-only file no sandbox may see */
static char outside_dir[] = "/var/tmp/lorebot-t-sandbox-outside-XXXXXX";
static char *outside_file;
static char *interp;		/* this program's dynamic loader (PT_INTERP) */
static char self[4096];		/* this program */

static void tree_rm(const char *name)
{
	char *path = xasprintf("%s/%s", tree_dir, name);

	unlink(path);
	free(path);
}

/* Run a shell probe in the sandbox; its exit status, its output in out */
static int probe(const char *script, uid_t uid, gid_t gid, struct strbuf *out)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	const char *argv[] = { "sh", "-c", script, NULL };
	const char *hide[] = { secret_dir, hide_more[0], NULL };
	int status;

	cmd.argv = argv;
	cmd.clean_env = true;
	cmd.merge_stderr = true;
	cmd.limits.timeout_ms = 60000;
	cmd.limits.nproc = 64;
	cmd.sandbox.enabled = true;
	cmd.sandbox.hide = hide;
	cmd.sandbox.ro = bind_back;
	cmd.sandbox.rw = bind_rw;
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

__attribute__((format(printf, 2, 7)))
static void check(const char *who, const char *what, const char *script,
		  int want, uid_t uid, gid_t gid, ...)
{
	struct strbuf out = STRBUF_INIT, name = STRBUF_INIT;
	int st = probe(script, uid, gid, &out);
	va_list ap;

	va_start(ap, gid);
	strbuf_vaddf(&name, what, ap);
	va_end(ap);
	ok(st == want, "%s: %s", who, name.buf);
	strbuf_release(&name);
	if (st != want)
		printf("# exit %d, wanted %d: %s\n", st, want, out.buf);
	strbuf_release(&out);
}

/* The dynamic loader this program names (its PT_INTERP), or NULL */
static char *read_interp(void)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	char buf[4096];
	char *ret = NULL;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), i;

	if (fd < 0)
		return NULL;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		ssize_t n;

		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_INTERP || !ph.p_filesz || ph.p_filesz > sizeof(buf))
			continue;
		n = pread(fd, buf, ph.p_filesz, ph.p_offset);
		if (n == (ssize_t)ph.p_filesz && !buf[n - 1])
			ret = xstrdup(buf);
		break;
	}
out:
	close(fd);
	return ret;
}

/* What the sandbox shows of the host: the allowlist and nothing else */
static void fs_probes(const char *who, uid_t uid, gid_t gid)
{
	char *s;

	check(who, "/etc/shadow and /etc/gshadow are not there",
	      "test -e /etc/shadow || test -e /etc/gshadow || exit 3", 3, uid, gid);
	if (strncmp(self, "/root/", 6))
		check(who, "/root is not there", "test -e /root || exit 3", 3, uid, gid);
	s = xasprintf("test -e %s || test -e %s || exit 3", outside_file, outside_dir);
	check(who, "a root-only file outside the allowlist (/var/tmp) is not there",
	      s, 3, uid, gid);
	free(s);
	check(who, "nor /home, /srv, /mnt, /media, /boot, /opt, /var/lib, /var/log",
	      "for d in /home /srv /mnt /media /boot /opt /var/lib /var/log /var/spool; do "
	      "test -e $d && echo $d; done | grep -q . || exit 3", 3, uid, gid);
	check(who, "nor the host's secrets in /etc (ssh, ssl/private, sudoers)",
	      "ls -A /etc/ssh /etc/ssl/private /etc/sudoers /etc/munge 2>/dev/null | "
	      "grep -q . || exit 3", 3, uid, gid);
	check(who, "the sandbox's root is read-only too",
	      "touch /lorebot-probe 2>/dev/null || mkdir /etc/lorebot-probe 2>/dev/null || "
	      "exit 3", 3, uid, gid);
	check(who, "/bin/sh, /usr/bin/perl and python3 run",
	      "/bin/sh -c : && /usr/bin/perl -MPOSIX -e 1 && "
	      "{ ! command -v python3 >/dev/null || python3 -c 'import json'; }", 0,
	      uid, gid);
	if (interp) {
		s = xasprintf("test -e %s && %s /usr/bin/true", interp, interp);
		check(who, "the dynamic loader (%s) is where programs name it", s, 0, uid, gid,
		      interp);
		free(s);
	}
	check(who, "/etc/passwd and the name service work",
	      "grep -q '^root:' /etc/passwd && id -un >/dev/null", 0, uid, gid);
	if (!access("/usr/bin/cc", X_OK))
		check(who, "cc (through /etc/alternatives) runs", "cc --version >/dev/null",
		      0, uid, gid);
	s = xasprintf("test -x %s", self);
	check(who, "the running program's own tree is there", s, 0, uid, gid);
	free(s);
}

static void probes(const char *who, uid_t uid, gid_t gid)
{
	char *s;

	fs_probes(who, uid, gid);

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
	/*
	 * Mounts are made parents first, whatever the order asked: a bound
	 * tree does not show again what is hidden inside it (a state
	 * directory in a bound cache), a read-write one does not make
	 * writable what is bound read-only inside it
	 */
	s = xasprintf("grep -q SQLite %s && exit 0; exit 3", tree_db);
	hide_more[0] = tree_state;
	bind_back[0] = tree_dir;
	check(who, "a hidden directory inside a bound tree stays hidden", s, 3, uid, gid);
	free(s);
	hide_more[0] = NULL;
	bind_back[0] = tree_ro;
	bind_rw[0] = tree_dir;
	s = xasprintf("touch %s/rw-%d || exit 4; touch %s/x-%d 2>/dev/null || exit 3",
		      tree_dir, (int)uid, tree_ro, (int)uid);
	check(who, "a read-only bind inside a read-write tree stays read-only", s, 3,
	      uid, gid);
	free(s);
	bind_back[0] = NULL;
	bind_rw[0] = NULL;
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
	if (!mkdtemp(outside_dir) || chmod(outside_dir, 0755)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	outside_file = xasprintf("%s/root-only", outside_dir);
	fd = open(outside_file, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, "secret\n", 7) != 7) {
		printf("Bail out! %s: %s\n", outside_file, strerror(errno));
		return 1;
	}
	close(fd);
	interp = read_interp();
	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		snprintf(self, sizeof(self), "/proc/self/exe");
	chmod(db_file, 0644);	/* readable to the build user: only hiding stops it */
	/* open to every uid: only the mounts decide */
	if (!mkdtemp(tree_dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	tree_state = xasprintf("%s/state", tree_dir);
	tree_db = xasprintf("%s/lorebot.db", tree_state);
	tree_ro = xasprintf("%s/ro", tree_dir);
	if (chmod(tree_dir, 0777) || mkdir(tree_state, 0755) ||
	    mkdir(tree_ro, 0777) || chmod(tree_ro, 0777) ||
	    util_write_file(tree_db, "SQLite format 3", 15) || chmod(tree_db, 0644)) {
		printf("Bail out! %s: %s\n", tree_dir, strerror(errno));
		return 1;
	}
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
	unlink(outside_file);
	rmdir(outside_dir);
	unlink(tree_db);
	rmdir(tree_state);
	rmdir(tree_ro);
	tree_rm("rw-0");
	tree_rm("ro/x-0");	/* only there when the test failed */
	if (pw) {
		char name[32];

		snprintf(name, sizeof(name), "rw-%d", (int)pw->pw_uid);
		tree_rm(name);
		snprintf(name, sizeof(name), "ro/x-%d", (int)pw->pw_uid);
		tree_rm(name);
	}
	rmdir(tree_dir);
	free(tree_db);
	free(tree_state);
	free(tree_ro);
	free(outside_file);
	free(interp);
	free(f);
	return done_testing();
}
