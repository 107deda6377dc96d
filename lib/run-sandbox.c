// SPDX-License-Identifier: GPL-2.0
/*
 * The sandbox of lib/run.h: the bubblewrap command line, and the paths
 * no sandbox of this process may see (run_hide_always()).
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/run-int.h"

/*
 * The sizes of the sandbox's own tmpfs mounts: /tmp for a compiler's
 * temporary files, /dev/shm for semaphores, and the empty ones that
 * cover what it must not see (only the mount points of binds go there)
 */
#define SANDBOX_TMP_BYTES	(512ULL << 20)
#define SANDBOX_SHM_BYTES	(64ULL << 20)
#define SANDBOX_HIDE_BYTES	(1ULL << 20)

#define MAX_PRIVATE 16
static char *private_paths[MAX_PRIVATE];
static size_t nr_private;

void run_hide_always(const char *path)
{
	char *abs;
	size_t i;

	if (!path || !*path)
		return;
	abs = realpath(path, NULL);
	if (!abs) {
		/* one that is still to come (SQLite's -wal): its directory's */
		char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *d;

		if (slash)
			*slash = '\0';
		d = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
		if (d)
			abs = xasprintf("%s/%s", strcmp(d, "/") ? d : "",
					slash ? slash + 1 : path);
		free(d);
		free(dir);
		if (!abs)
			return;
	}
	for (i = 0; i < nr_private; i++)
		if (!strcmp(private_paths[i], abs))
			break;
	if (i < nr_private || nr_private == MAX_PRIVATE || !strcmp(abs, "/"))
		free(abs);
	else
		private_paths[nr_private++] = abs;
}

static void tmpfs_argv(struct argv_vec *a, const char *dir, unsigned long long size)
{
	run_argv_push(a, "--size");
	run_argv_push(a, xasprintf("%llu", size));
	run_argv_push(a, "--tmpfs");
	run_argv_push(a, dir);
}

/*
 * What a sandbox sees of the host, read-only, before the caller's own
 * binds: the programs and libraries, what of /etc they read to start and
 * to run, and the running program's own tree.  Nothing else: not /root,
 * /home, /var, /srv, /opt, /mnt, /media, /boot, nor the rest of /etc
 * (shadow, the ssh and ssl keys, munge.key, sudoers, the host's
 * gitconfig, whose credential settings are the host's).
 */
static const char *const usr_links[] = {
	/* merged /usr (Debian 12): links, recreated as links; else binds */
	"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", NULL,
};

static const char *const etc_allow[] = {
	/* the dynamic loader's cache; cc, gcc, python3, awk are links in alternatives/ */
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
	/* users and groups by name (id, git, perl's getpwuid) */
	"passwd", "group", "nsswitch.conf",
	/* loopback's names: the network is its own, with lo only */
	"hosts", "host.conf", "gai.conf", "services", "protocols",
	/* the time zone, the interpreters' own settings */
	"localtime", "timezone", "mime.types", "xattr.conf", "perl",
	/* Coccinelle's rules with OCaml scripts find its runtime through it */
	"ocamlfind.conf",
	/* the public certificates (libgit2 loads them) and OpenSSL's settings */
	"ssl/certs", "ssl/openssl.cnf", "ccache.conf",
	NULL,
};

static void bind_argv(struct argv_vec *a, const char *opt, const char *src,
		      const char *dst)
{
	run_argv_push(a, opt);
	run_argv_push(a, src);
	run_argv_push(a, dst);
}

/*
 * The host's path as it is: a link is made again (its target resolves
 * inside, among what the sandbox sees), a directory or a file is bound
 * read-only, what does not exist is left out.  The strings are not freed:
 * this runs in the child, before exec.
 */
static void host_path_argv(struct argv_vec *a, const char *path)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (lstat(path, &st))
		return;
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			return;
		target[n] = '\0';
		bind_argv(a, "--symlink", xstrdup(target), path);
	} else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) {
		bind_argv(a, "--ro-bind", path, path);
	}
}

static void etc_argv(struct argv_vec *a, bool net)
{
	const char *const *p;
	struct dirent *de;
	char *resolv;
	DIR *d;

	run_argv_push(a, "--perms");
	run_argv_push(a, "0755");
	run_argv_push(a, "--dir");
	run_argv_push(a, "/etc");
	for (p = etc_allow; *p; p++) {
		const char *slash = strchr(*p, '/');

		/* a directory on the way, as the host has it (not bwrap's 0700) */
		if (slash && !access(xasprintf("/etc/%.*s", (int)(slash - *p), *p), F_OK)) {
			run_argv_push(a, "--perms");
			run_argv_push(a, "0755");
			run_argv_push(a, "--dir");
			run_argv_push(a, xasprintf("/etc/%.*s", (int)(slash - *p), *p));
		}
		host_path_argv(a, xasprintf("/etc/%s", *p));
	}
	/* python3 and python3.<minor>: sitecustomize.py */
	d = opendir("/etc");
	while (d && (de = readdir(d)))
		if (util_starts_with(de->d_name, "python3"))
			host_path_argv(a, xasprintf("/etc/%s", de->d_name));
	if (d)
		closedir(d);
	/*
	 * With the host's network, its resolver's settings: the file they
	 * name (often a link into /run, which no sandbox sees)
	 */
	resolv = net ? realpath("/etc/resolv.conf", NULL) : NULL;
	if (resolv)
		bind_argv(a, "--ro-bind", resolv, "/etc/resolv.conf");
}

/* How many names deep path is: "/" 0, "/tmp" 1, "/work/lorebot" 2 */
static int depth(const char *path)
{
	int n = 0;

	for (; *path; path++)
		if (*path == '/' && path[1])
			n++;
	return n;
}

/*
 * The mounts a sandbox gets over its base (what it sees of the host's
 * programs): the running program's tree, what no sandbox may see, and
 * the caller's hidden, read-only and read-write paths.  They are made
 * parents first, whatever the order they were asked in: a bind of a
 * directory made after the cover of a path inside it would show that
 * path again (the state directory inside a bound cache), and a
 * read-write directory bound after a read-only one inside it would make
 * that one writable.  At the same path a cover comes first, so that a
 * bind puts back what the sandbox needs of it (the configuration).
 */
enum mount_kind { M_HIDE, M_NULL, M_RO, M_RW };

struct mount_op {
	enum mount_kind kind;
	const char *path;
	int depth;
	size_t seq;
};

struct mount_list {
	struct mount_op *v;
	size_t nr, alloc;
};

static void mount_add(struct mount_list *m, enum mount_kind kind, const char *path)
{
	struct mount_op *op;

	ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	op = &m->v[m->nr];
	op->kind = kind;
	op->path = path;
	op->depth = depth(path);
	op->seq = m->nr++;
}

static int mount_cmp(const void *a, const void *b)
{
	const struct mount_op *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void mounts_argv(struct argv_vec *a, struct mount_list *m)
{
	size_t i;

	qsort(m->v, m->nr, sizeof(*m->v), mount_cmp);
	for (i = 0; i < m->nr; i++) {
		const struct mount_op *op = &m->v[i];

		switch (op->kind) {
		case M_HIDE:
			tmpfs_argv(a, op->path, SANDBOX_HIDE_BYTES);
			break;
		case M_NULL:
			bind_argv(a, "--ro-bind", "/dev/null", op->path);
			break;
		case M_RO:
			bind_argv(a, "--ro-bind", op->path, op->path);
			break;
		case M_RW:
			bind_argv(a, "--bind", op->path, op->path);
			break;
		}
	}
}

/*
 * The running program: it runs itself again inside, and reads its data
 * beside it (lib/template.c, ci/profile.c): the binary itself, and of
 * its tree only that data, templates/ and config/fragments/ of a build
 * tree or share/lorebot/ of an installation; nothing more for one under
 * /usr.  Never the tree itself: a checkout may hold anything, the state
 * directory first (make demo keeps demo-state there; issue 38: a build
 * read the database through it).  And the suppressions file that
 * LSAN_OPTIONS names, for a sanitizer build to start in there.
 */
static const char *const self_data[] = {
	"templates", "config/fragments", "share/lorebot", NULL,
};

static void self_mounts(struct mount_list *m)
{
	char exe[PATH_MAX], *slash;
	const char *const *p;
	const char *lsan = getenv("LSAN_OPTIONS"), *supp;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (n <= 0)
		return;
	exe[n] = '\0';
	/* relinked while it runs (make in a checkout): the file now there */
	if (util_ends_with(exe, " (deleted)"))
		exe[n - strlen(" (deleted)")] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || slash == exe || util_path_within(exe, "/usr"))
		return;
	mount_add(m, M_RO, xstrdup(exe));
	*slash = '\0';
	slash = strrchr(exe, '/');
	if (slash && slash != exe) {
		*slash = '\0';
		for (p = self_data; *p; p++) {
			char *dir = xasprintf("%s/%s", exe, *p);

			if (!stat(dir, &st) && S_ISDIR(st.st_mode))
				mount_add(m, M_RO, dir);
			else
				free(dir);
		}
	}
	supp = lsan ? strstr(lsan, "suppressions=") : NULL;
	if (supp && (supp == lsan || supp[-1] == ':')) {
		char *path = xstrndup(supp + 13, strcspn(supp + 13, ":"));

		if (*path == '/' && !stat(path, &st) && S_ISREG(st.st_mode))
			mount_add(m, M_RO, path);
		else
			free(path);
	}
}

/* bubblewrap in front of argv; see struct run_sandbox */
void run_sandbox_argv(const struct run_cmd *cmd, struct argv_vec *a)
{
	struct mount_list m = { 0 };
	const char *const *p;
	size_t i;

	run_argv_push(a, "bwrap");
	run_argv_push(a, "--die-with-parent");
	run_argv_push(a, "--new-session");
	run_argv_push(a, "--unshare-ipc");
	run_argv_push(a, "--unshare-pid");
	run_argv_push(a, "--unshare-uts");
	run_argv_push(a, "--unshare-cgroup-try");
	if (!cmd->sandbox.allow_net)
		run_argv_push(a, "--unshare-net");
	/*
	 * A user namespace of its own and no capability in it, root or
	 * not: the read-only binds stay read-only (they are locked to the
	 * namespace: no remount) and nothing overrides a file's mode.
	 */
	run_argv_push(a, "--unshare-user");
	if (cmd->sandbox.uid_inside) {
		run_argv_push(a, "--uid");
		run_argv_push(a, xasprintf("%u", (unsigned int)cmd->sandbox.uid_inside));
		run_argv_push(a, "--gid");
		run_argv_push(a, xasprintf("%u", (unsigned int)cmd->sandbox.uid_inside));
	}
	run_argv_push(a, "--cap-drop");
	run_argv_push(a, "ALL");
	/*
	 * A root of its own, read-only once everything is mounted on it:
	 * /dev, /proc, a memory-backed and bounded /tmp and /dev/shm, then
	 * what it sees of the host (which may be under /tmp)
	 */
	run_argv_push(a, "--dev");
	run_argv_push(a, "/dev");
	run_argv_push(a, "--proc");
	run_argv_push(a, "/proc");
	tmpfs_argv(a, "/tmp", SANDBOX_TMP_BYTES);
	tmpfs_argv(a, "/dev/shm", SANDBOX_SHM_BYTES);
	if (!access("/usr", F_OK))
		bind_argv(a, "--ro-bind", "/usr", "/usr");
	for (p = usr_links; *p; p++)
		host_path_argv(a, *p);
	etc_argv(a, cmd->sandbox.allow_net);
	self_mounts(&m);
	for (i = 0; i < nr_private; i++) {
		struct stat st;

		if (!stat(private_paths[i], &st))
			mount_add(&m, S_ISDIR(st.st_mode) ? M_HIDE : M_NULL, private_paths[i]);
	}
	for (p = cmd->sandbox.hide; p && *p; p++)
		mount_add(&m, M_HIDE, *p);
	for (p = cmd->sandbox.ro; p && *p; p++)
		mount_add(&m, M_RO, *p);
	for (p = cmd->sandbox.rw; p && *p; p++)
		mount_add(&m, M_RW, *p);
	mounts_argv(a, &m);
	/*
	 * The root bwrap makes is a tmpfs without a size: nothing may be
	 * written there (its mount points are all made by now), nor in /dev
	 * (the devices and /dev/shm are mounts of their own)
	 */
	run_argv_push(a, "--remount-ro");
	run_argv_push(a, "/dev");
	run_argv_push(a, "--remount-ro");
	run_argv_push(a, "/");
	if (cmd->cwd) {
		run_argv_push(a, "--chdir");
		run_argv_push(a, cmd->cwd);
	}
	run_argv_push(a, "--");
	for (p = cmd->argv; *p; p++)
		run_argv_push(a, *p);
}
