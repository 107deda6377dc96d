// SPDX-License-Identifier: GPL-2.0
/* qemu command lines and the KVM probe; see qemu.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib/run.h"
#include "lib/text.h"
#include "ci/qemu.h"

/* What each arch adds to the kernel command line */
static const struct {
	const char *arch;
	const char *cmdline;
} arch_cmdline[] = {
	/* the SBI console shows what happens before the UART driver */
	{ "riscv", "earlycon=sbi" },
	{ "arm64", "earlycon" },
};

/* The host machine names KVM can run each arch on */
static const struct {
	const char *arch;
	const char *machine;	/* uname -m */
	bool probe;		/* we have a probe firmware for it */
} kvm_hosts[] = {
	{ "x86_64", "x86_64", true },
	{ "arm64", "aarch64", false },
	{ "riscv", "riscv64", false },
};

struct argv_list {
	char **v;
	size_t nr, alloc;
};

static void push(struct argv_list *a, const char *s)
{
	ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = xstrdup(s);
	a->v[a->nr] = NULL;
}

/*
 * The host's TSC rate in kHz, measured (0 when not an x86_64 host).  An
 * x86_64 guest under TCG reads the host's TSC; a tinyconfig kernel has
 * no HPET or ACPI PM timer to calibrate it against, falls back to
 * jiffies, and its clock then runs slow whenever the host is busy.
 */
static unsigned long host_tsc_khz(void)
{
#if defined(__x86_64__)
	static unsigned long khz;
	struct timespec a, b;
	unsigned long long c0, c1, ns;

	if (khz)
		return khz;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	c0 = __builtin_ia32_rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		ns = (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
	} while (ns < 20000000);
	c1 = __builtin_ia32_rdtsc();
	khz = (unsigned long)((c1 - c0) * 1000000ULL / ns);
	return khz;
#else
	return 0;
#endif
}

void qemu_cmdline(const struct qemu_opts *o, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "console=%s panic=-1 printk.time=1", o->arch->console);
	for (i = 0; i < ARRAY_SIZE(arch_cmdline); i++)
		if (!strcmp(arch_cmdline[i].arch, o->arch->name))
			strbuf_addf(sb, " %s", arch_cmdline[i].cmdline);
	if (!o->kvm && !strcmp(o->arch->name, "x86_64") && host_tsc_khz())
		strbuf_addf(sb, " tsc_early_khz=%lu tsc=reliable", host_tsc_khz());
	if (o->cmdline && *o->cmdline)
		strbuf_addf(sb, " %s", o->cmdline);
}

char **qemu_argv(const struct qemu_opts *o)
{
	struct argv_list a = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const char *const *p;

	push(&a, o->arch->qemu);
	for (p = o->arch->qemu_args; p && *p; p++) {
		/* -cpu host is what KVM needs; TCG keeps the table's model */
		if (o->kvm && !strcmp(*p, "-cpu") && p[1]) {
			p++;
			continue;
		}
		push(&a, *p);
	}
	push(&a, "-accel");
	push(&a, o->kvm ? "kvm" : "tcg");
	if (o->kvm) {
		push(&a, "-cpu");
		push(&a, "host");
	}
	strbuf_addf(&sb, "%u", o->mem_mb ? o->mem_mb : 1024);
	push(&a, "-m");
	push(&a, sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%u", o->smp ? o->smp : 2);
	push(&a, "-smp");
	push(&a, sb.buf);
	strbuf_reset(&sb);
	push(&a, "-nodefaults");
	push(&a, "-nic");
	push(&a, "none");
	push(&a, "-display");
	push(&a, "none");
	push(&a, "-monitor");
	push(&a, "none");
	push(&a, "-serial");
	push(&a, "stdio");
	push(&a, "-no-reboot");
	push(&a, "-kernel");
	push(&a, o->kernel);
	if (o->initrd) {
		push(&a, "-initrd");
		push(&a, o->initrd);
	}
	qemu_cmdline(o, &sb);
	push(&a, "-append");
	push(&a, sb.buf);
	strbuf_release(&sb);
	return a.v;
}

void qemu_recipe(const struct qemu_opts *o, const char *obj, struct strbuf *sb)
{
	struct qemu_opts r = *o;
	char *kernel = xasprintf("%s/%s", obj, o->arch->image_path);
	const char *slash = o->initrd ? strrchr(o->initrd, '/') : NULL;
	char **argv, **p;

	r.kernel = kernel;
	r.initrd = slash ? slash + 1 : o->initrd;
	argv = qemu_argv(&r);
	for (p = argv; *p; p++) {
		if (p != argv)
			strbuf_addch(sb, ' ');
		text_shell_quote(sb, *p);
	}
	qemu_argv_free(argv);
	free(kernel);
}

void qemu_argv_free(char **argv)
{
	char **p;

	for (p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/*
 * 64 KiB of firmware whose reset vector (F000:FFF0) writes 'K' to COM1
 * and 0x10 to isa-debug-exit: qemu exits with status (0x10 << 1) | 1.
 */
static const unsigned char probe_code[] = {
	0xba, 0xf8, 0x03,	/* mov dx, 0x3f8 */
	0xb0, 0x4b,		/* mov al, 'K' */
	0xee,			/* out dx, al */
	0xba, 0xf4, 0x00,	/* mov dx, 0xf4 */
	0xb0, 0x10,		/* mov al, 0x10 */
	0xee,			/* out dx, al */
	0xf4,			/* hlt */
};
#define PROBE_EXIT 33

static bool run_probe(const struct arch *a, const char *dir,
		      struct strbuf *why)
{
	const char *argv[] = {
		a->qemu, "-accel", "kvm", "-cpu", "host", "-M", "pc",
		"-nodefaults", "-display", "none", "-monitor", "none",
		"-serial", "stdio", "-bios", NULL,
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", NULL,
	};
	struct run_cmd cmd = RUN_CMD_INIT;
	char *bios = xasprintf("%s/kvm-probe.bin", dir);
	unsigned char *img = xcalloc(1, 65536);
	bool ok = false;

	memcpy(img + 0xfff0, probe_code, sizeof(probe_code));
	if (util_write_file(bios, img, 65536)) {
		strbuf_addf(why, "cannot write '%s'", bios);
		goto out;
	}
	argv[15] = bios;
	cmd.argv = argv;
	cmd.limits.timeout_ms = 10000;
	cmd.limits.max_output = 4096;
	if (run_cmd(&cmd)) {
		strbuf_addf(why, "cannot run %s", a->qemu);
		goto out;
	}
	ok = cmd.status == PROBE_EXIT && strchr(cmd.out.buf, 'K');
	if (!ok) {
		strbuf_addstr(why, "qemu -accel kvm -cpu host failed (");
		run_describe(&cmd, why);
		strbuf_rtrim(&cmd.err);
		if (cmd.err.len) {
			const char *last = strrchr(cmd.err.buf, '\n');

			strbuf_addf(why, ": %s", last ? last + 1 : cmd.err.buf);
		}
		strbuf_addch(why, ')');
	}
out:
	unlink(bios);
	run_cmd_release(&cmd);
	free(bios);
	free(img);
	return ok;
}

/* The cache key: host kernel, and which qemu binary */
static char *probe_cache_path(const struct arch *a, const char *dir)
{
	struct strbuf key = STRBUF_INIT;
	struct utsname u;
	char hex[17];
	const char *path = getenv("PATH");
	char *p = NULL;

	uname(&u);
	strbuf_addf(&key, "%s %s %s", u.release, u.version, a->qemu);
	/* the binary's identity: size and mtime of the first one in PATH */
	if (path) {
		char *dup = xstrdup(path), *save = NULL, *d;

		for (d = strtok_r(dup, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			struct stat st;
			char *f = xasprintf("%s/%s", d, a->qemu);

			if (!stat(f, &st)) {
				strbuf_addf(&key, " %lld %lld", (long long)st.st_size,
					    (long long)st.st_mtime);
				free(f);
				break;
			}
			free(f);
		}
		free(dup);
	}
	util_hash_hex(key.buf, key.len, hex);
	p = xasprintf("%s/kvm-%s-%s", dir, a->name, hex);
	strbuf_release(&key);
	return p;
}

bool qemu_kvm_works(const struct arch *a, const char *cachedir,
		    struct strbuf *why)
{
	struct utsname u;
	char *cache = NULL, *buf = NULL;
	size_t i, len;
	bool ok = false;
	int fd;

	uname(&u);
	for (i = 0; i < ARRAY_SIZE(kvm_hosts); i++)
		if (!strcmp(kvm_hosts[i].arch, a->name))
			break;
	if (i == ARRAY_SIZE(kvm_hosts) || strcmp(kvm_hosts[i].machine, u.machine)) {
		strbuf_addf(why, "TCG: %s guest on a %s host", a->name, u.machine);
		return false;
	}
	if (!kvm_hosts[i].probe) {
		strbuf_addf(why, "TCG: no KVM probe for %s", a->name);
		return false;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(why, "TCG: cannot open /dev/kvm: %s", strerror(errno));
		return false;
	}
	close(fd);
	if (cachedir && !util_mkdir_p(cachedir, 0755)) {
		cache = probe_cache_path(a, cachedir);
		if (!util_read_file(cache, &buf, &len, 4096)) {
			ok = util_starts_with(buf, "kvm");
			strbuf_addstr(why, buf);
			strbuf_rtrim(why);
			strbuf_addstr(why, " (cached)");
			goto out;
		}
	}
	ok = run_probe(a, cachedir ? cachedir : "/tmp", why);
	if (ok) {
		strbuf_addstr(why, "kvm: the probe ran");
	} else {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addf(&msg, "TCG: %s", why->buf);
		strbuf_reset(why);
		strbuf_addbuf(why, &msg);
		strbuf_release(&msg);
	}
	if (cache) {
		struct strbuf line = STRBUF_INIT;

		strbuf_addf(&line, "%s\n", why->buf);
		util_write_file(cache, line.buf, line.len);
		strbuf_release(&line);
	}
out:
	free(buf);
	free(cache);
	return ok;
}
