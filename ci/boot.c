// SPDX-License-Identifier: GPL-2.0
/* One boot of one kernel: selftests, initramfs, qemu, console; see boot.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/run.h"
#include "ci/boot.h"
#include "ci/guest-init.h"
#include "ci/initramfs.h"
#include "ci/qemu.h"

#define CONSOLE_MAX (32u << 20)
#define TAIL_LINES 40

static const char *const end_names[] = {
	[BOOT_DONE] = "done",
	[BOOT_NO_INIT] = "no-init",
	[BOOT_DIED] = "died",
	[BOOT_HUNG] = "hung",
	[BOOT_INFRA] = "infra",
};

const char *boot_end_name(enum boot_end e)
{
	return end_names[e];
}

void boot_result_init(struct boot_result *r)
{
	memset(r, 0, sizeof(*r));
	console_init(&r->con);
	r->tail = (struct strbuf)STRBUF_INIT;
	r->infra = (struct strbuf)STRBUF_INIT;
}

void boot_result_release(struct boot_result *r)
{
	console_release(&r->con);
	kselftest_plan_release(&r->plan);
	strbuf_release(&r->tail);
	strbuf_release(&r->infra);
	free(r->log_path);
	free(r->accel);
	free(r->qemu);
	free(r->cmdline);
	free(r->first_log);
	memset(r, 0, sizeof(*r));
}

/* Hold an exclusive lock on path while a cache entry is made */
static int lock_path(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void unlock_path(int fd)
{
	if (fd >= 0)
		close(fd);
}

static bool all_built(const char *bindir, const struct kst_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nr; i++) {
		const struct kst_def *d = plan->tests[i];
		char *p = xasprintf("%s/%s", bindir, d->bin ? d->bin : d->name);
		bool ok = !access(p, X_OK);

		free(p);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * A directory of this run for an untrusted kernel's selftest build: new,
 * so that nothing another build left is in it, and searchable by the
 * build user
 */
static char *scratch_dir(const struct boot_opts *o, const struct arch *a,
			 const struct boot_kernel *k, struct boot_result *r)
{
	char *tmpl = xasprintf("%s/kst-%s-%s.XXXXXX", o->workdir, k->label,
			       a->name);
	int ret = util_mkdir_p(o->workdir, 0755);

	if (ret || !mkdtemp(tmpl) || chmod(tmpl, 0755)) {
		strbuf_addf(&r->infra, "cannot create '%s': %s", tmpl,
			    strerror(ret ? -ret : errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

int boot_selftests(const struct boot_opts *o, const struct arch *a,
		   const struct boot_kernel *k, struct boot_result *r,
		   char **bindir, char **scratch)
{
	const char *id = k->kst_id ? k->kst_id : k->id;
	struct kst_build b = { .arch = a, .objdir = k->objdir };
	char key[17], *dir, *lockp, *objdir = NULL;
	int ret = 0, lock;

	*scratch = NULL;
	util_hash_hex(id, strlen(id), key);
	dir = xasprintf("%s/boot/kst/%s/%s", o->cachedir, a->name, key);
	*bindir = xasprintf("%s/bin", dir);
	ret = util_mkdir_p(dir, 0755);
	if (ret) {
		strbuf_addf(&r->infra, "cannot create '%s': %s", dir,
			    strerror(-ret));
		goto out;
	}
	lockp = xasprintf("%s.lock", dir);
	lock = lock_path(lockp);
	free(lockp);
	/* what is there, only a trusted build made */
	if (all_built(*bindir, &r->plan))
		goto unlock;
	if (!k->trusted) {
		/* the cache is the trusted builds': build in a place of its own */
		unlock_path(lock);
		lock = -1;
		free(dir);
		free(*bindir);
		*bindir = NULL;
		dir = scratch_dir(o, a, k, r);
		if (!dir) {
			ret = -EIO;
			goto out;
		}
		*scratch = xstrdup(dir);
		*bindir = xasprintf("%s/bin", dir);
		b.objdir = objdir = xasprintf("%s/obj", dir);
	}
	if (k->prepare) {
		ret = k->prepare(k->data, BOOT_NEED_SOURCE, &r->infra);
		if (ret)
			goto unlock;
	}
	b.srcdir = k->srcdir;
	b.hdrdir = xasprintf("%s/hdr", dir);
	b.outdir = *bindir;
	b.log = xasprintf("%s/build.log", dir);
	b.jobs = o->jobs;
	b.timeout_ms = o->build_timeout_ms;
	b.nproc = o->nproc;
	b.sandbox = o->sandbox;
	if (o->sandbox && geteuid() == 0) {
		b.uid = o->uid;
		b.gid = o->gid;
	}
	log_progress("building the %s mm kselftests for %s%s", a->name, k->label,
		     k->trusted ? "" : " (a tree of its own: not cached)");
	ret = kselftest_build(&b, &r->plan, &r->infra);
	free((char *)b.hdrdir);
	free((char *)b.log);
unlock:
	unlock_path(lock);
out:
	free(objdir);
	free(dir);
	return ret;
}

static void plan_text(const struct boot_opts *o, const struct kst_plan *plan,
		      struct strbuf *sb)
{
	unsigned int def = (unsigned int)(o->test_timeout_ms / 1000), runs = 0;
	size_t i;

	strbuf_addf(sb, "hugepages %u\nretry %u\n", o->hugepages, o->retries);
	for (i = 0; i < plan->nr; i++) {
		const struct kst_def *d = plan->tests[i];
		unsigned int r = o->runs;
		size_t j;

		/* a test that timed out runs twice at most: its limit is long */
		for (j = 0; r && o->short_runs && o->short_runs[j]; j++)
			if (!strcmp(o->short_runs[j], d->name))
				r = MIN(r, 2u);
		if (r != runs)
			strbuf_addf(sb, "runs %u\n", r);
		runs = r;

		strbuf_addf(sb, "test %s %u ", d->name,
			    d->timeout_s ? d->timeout_s : (def ? def : 60));
		if (d->hugepages)
			strbuf_addf(sb, "%u", d->hugepages);
		else
			strbuf_addch(sb, '-');
		strbuf_addf(sb, " %s%s%s\n", d->bin ? d->bin : d->name,
			    d->args ? " " : "", d->args ? d->args : "");
	}
}

static int make_initramfs(const struct boot_opts *o, const char *init,
			  const char *bindir, const struct kst_plan *plan,
			  const char *path, struct strbuf *err)
{
	static const char *const dirs[] = {
		"dev", "proc", "sys", "tmp", "lorebot", "lorebot/bin",
	};
	struct initramfs ir = INITRAMFS_INIT;
	struct strbuf text = STRBUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		initramfs_add_dir(&ir, dirs[i], 0755);
	initramfs_add_chardev(&ir, "dev/console", 0600, 5, 1);
	ret = initramfs_add_path(&ir, "init", 0755, NULL, init, err);
	plan_text(o, plan, &text);
	initramfs_add_file(&ir, "lorebot/plan", 0644, text.buf, text.len);
	for (i = 0; !ret && i < plan->nr; i++) {
		const struct kst_def *d = plan->tests[i];
		const char *bin = d->bin ? d->bin : d->name;
		char *src = xasprintf("%s/%s", bindir, bin);
		char *dst = xasprintf("lorebot/bin/%s", bin);
		size_t j;

		/* a binary run with several argument sets goes in once */
		for (j = 0; j < i; j++) {
			const struct kst_def *e = plan->tests[j];

			if (!strcmp(e->bin ? e->bin : e->name, bin))
				break;
		}
		if (j == i)
			ret = initramfs_add_path(&ir, dst, 0755, bindir, src, err);
		free(src);
		free(dst);
	}
	if (!ret)
		ret = initramfs_write(&ir, path, o->gzip, err);
	initramfs_release(&ir);
	strbuf_release(&text);
	return ret;
}

static bool use_kvm(const struct boot_opts *o, const struct arch *a,
		    struct boot_result *r)
{
	struct strbuf why = STRBUF_INIT;
	char *dir;
	bool kvm;

	free(r->accel);
	if (o->kvm == BOOT_KVM_OFF) {
		r->accel = xstrdup("TCG: boot.kvm is off");
		return false;
	}
	if (o->kvm == BOOT_KVM_ON) {
		r->accel = xstrdup("kvm: boot.kvm is on (not probed)");
		return true;
	}
	dir = xasprintf("%s/boot", o->cachedir);
	kvm = qemu_kvm_works(a, dir, &why);
	free(dir);
	r->accel = strbuf_detach(&why, NULL);
	return kvm;
}

void boot_analyze(struct boot_result *r, const char *log, size_t len,
		  const char *qemu_err)
{
	const struct console *c = &r->con;

	console_parse(&r->con, log, len);
	if (c->done)
		r->end = BOOT_DONE;
	else if (r->timed_out)
		r->end = BOOT_HUNG;
	else if (!c->userspace)
		r->end = BOOT_NO_INIT;
	else
		r->end = BOOT_DIED;
	/* qemu itself failed: nothing came on the console */
	if (!r->timed_out && r->qemu_status && !c->lines) {
		r->end = BOOT_INFRA;
		strbuf_addf(&r->infra, "qemu failed (exit %d)", r->qemu_status);
		if (qemu_err && *qemu_err)
			strbuf_addf(&r->infra, ": %s", qemu_err);
		strbuf_rtrim(&r->infra);
	}
	if (r->end != BOOT_DONE)
		console_tail(log, len, TAIL_LINES, &r->tail);
}

/* Boot image with initrd; the console goes to log */
static int run_qemu(const struct boot_opts *o, const struct arch *a,
		    const char *image, const char *initrd, const char *log,
		    struct boot_result *r)
{
	struct qemu_opts q = {
		.arch = a, .kernel = image, .initrd = initrd,
		.cmdline = o->cmdline, .mem_mb = o->mem_mb, .smp = o->smp,
	};
	struct run_cmd cmd = RUN_CMD_INIT;
	char *imgdir = xstrdup(image), *slash;
	const char *rw[3];
	char **argv;
	int ret = 0;

	q.kvm = use_kvm(o, a, r);
	slash = strrchr(imgdir, '/');
	if (slash && slash != imgdir)
		*slash = '\0';
	rw[0] = imgdir;
	rw[1] = o->workdir;
	rw[2] = NULL;
	argv = qemu_argv(&q);
	{
		struct strbuf sb = STRBUF_INIT;

		qemu_recipe(&q, "build", &sb);
		free(r->qemu);
		r->qemu = strbuf_detach(&sb, NULL);
		qemu_cmdline(&q, &sb);
		free(r->cmdline);
		r->cmdline = strbuf_detach(&sb, NULL);
	}
	cmd.argv = (const char *const *)argv;
	cmd.clean_env = true;
	cmd.log_path = log;
	cmd.limits.timeout_ms = o->timeout_ms;
	cmd.limits.max_output = CONSOLE_MAX;
	cmd.limits.nproc = o->nproc;
	cmd.sandbox.enabled = o->sandbox;
	cmd.sandbox.rw = rw;
	if (o->sandbox && geteuid() == 0 && o->uid) {
		if (!util_path_readable_by(image, o->uid) || !util_path_readable_by(initrd, o->uid)) {
			strbuf_addf(&r->infra, "'%s' or '%s' cannot be read by "
				    "uid %d (build.user): choose a work "
				    "directory it can read", image, initrd,
				    (int)o->uid);
			r->end = BOOT_INFRA;
			ret = -EACCES;
			goto out;
		}
		cmd.sandbox.uid = o->uid;
		cmd.sandbox.gid = o->gid;
	}
	log_debug("boot %s: %s", a->name, argv[0]);
	if (run_cmd(&cmd)) {
		strbuf_addf(&r->infra, "cannot run %s", a->qemu);
		r->end = BOOT_INFRA;
		ret = -ENOEXEC;
		goto out;
	}
	r->total_ms = cmd.elapsed_ms;
	r->timed_out = cmd.timed_out;
	r->qemu_status = cmd.status;
	boot_analyze(r, cmd.out.buf, cmd.out.len, cmd.err.buf);
	if (r->end == BOOT_INFRA)
		ret = -EIO;
out:
	run_cmd_release(&cmd);
	qemu_argv_free(argv);
	free(imgdir);
	return ret;
}

/*
 * A guest stopped at the time limit before the kernel printed anything
 * (its banner, a time-stamped line) hung in the firmware or in qemu,
 * not in anything the kernel ran: seen with TCG riscv guests on a
 * loaded host, OpenSBI's banner and then nothing.  Such a boot runs
 * once more before it counts; the first console log is kept beside the
 * second.
 */
static bool silent_hang(const struct boot_result *r)
{
	return r->end == BOOT_HUNG && !r->con.kernel && !r->con.userspace;
}

static int boot_twice_if_silent(const struct boot_opts *o,
				const struct arch *a, const char *image,
				const char *initrd, struct boot_result *r)
{
	int ret = run_qemu(o, a, image, initrd, r->log_path, r);

	r->boots = 1;
	if (ret || !silent_hang(r))
		return ret;
	free(r->first_log);
	r->first_log = xasprintf("%s.1", r->log_path);
	if (rename(r->log_path, r->first_log)) {
		free(r->first_log);
		r->first_log = NULL;
	}
	log_warn("boot %s: no kernel output in %.0f s; booting once more",
		 a->name, r->total_ms / 1000.0);
	console_release(&r->con);
	console_init(&r->con);
	strbuf_reset(&r->tail);
	r->boots = 2;
	return run_qemu(o, a, image, initrd, r->log_path, r);
}

int boot_kernel(const struct boot_opts *o, const struct arch *a,
		const struct boot_kernel *k, struct boot_result *r)
{
	struct strbuf err = STRBUF_INIT;
	char *bindir = NULL, *scratch = NULL, *init = NULL, *initrd = NULL;
	char *bootdir = xasprintf("%s/boot", o->cachedir);
	uint64_t start = util_now_ms();
	int ret;

	r->end = BOOT_INFRA;
	/* before anything is built: the tools */
	if (!run_have_program(a->qemu)) {
		strbuf_addf(&r->infra, "%s not found (Debian package %s)",
			    a->qemu, a->qemu_package);
		ret = -ENOENT;
		goto out;
	}
	{
		char *gcc = xasprintf("%sgcc", a->cross_compile);
		bool have = run_have_program(gcc);

		if (!have)
			strbuf_addf(&r->infra, "%s not found (Debian package %s)",
				    gcc, a->gcc_package);
		free(gcc);
		if (!have) {
			ret = -ENOENT;
			goto out;
		}
	}
	if (k->prepare) {
		ret = k->prepare(k->data, BOOT_NEED_IMAGE, &r->infra);
		if (ret)
			goto out;
	}
	if (!k->image || access(k->image, R_OK)) {
		strbuf_addf(&r->infra, "no kernel image '%s': %s",
			    k->image ? k->image : "", strerror(errno));
		ret = -ENOENT;
		goto out;
	}
	ret = kselftest_select(a, o->tests, o->tests_nr, &r->plan, &r->infra);
	if (ret)
		goto out;
	ret = boot_selftests(o, a, k, r, &bindir, &scratch);
	if (ret)
		goto out;
	init = guest_init_binary(a, bootdir, &r->infra);
	if (!init) {
		ret = -ENOENT;
		goto out;
	}
	ret = util_mkdir_p(o->workdir, 0755);
	if (ret) {
		strbuf_addf(&r->infra, "cannot create '%s': %s", o->workdir,
			    strerror(-ret));
		goto out;
	}
	initrd = xasprintf("%s/%s-%s.cpio%s", o->workdir, k->label, a->name,
			   o->gzip ? ".gz" : "");
	ret = make_initramfs(o, init, bindir, &r->plan, initrd, &r->infra);
	/* a private build is for this boot only: it is in the initramfs now */
	if (scratch) {
		util_remove_tree(scratch);
		free(scratch);
		scratch = NULL;
	}
	if (ret)
		goto out;
	r->build_ms = util_now_ms() - start;
	free(r->log_path);
	r->log_path = xasprintf("%s/%s-%s.console.log", o->workdir, k->label,
				a->name);
	log_progress("booting %s %s (%zu tests)", a->name, k->label, r->plan.nr);
	ret = boot_twice_if_silent(o, a, k->image, initrd, r);
	/* tens of MB: the console log is what is kept */
	unlink(initrd);
out:
	if (scratch)
		util_remove_tree(scratch);
	strbuf_release(&err);
	free(bindir);
	free(scratch);
	free(init);
	free(initrd);
	free(bootdir);
	return ret;
}
