// SPDX-License-Identifier: GPL-2.0
/* qemu command lines per arch, and the selection of kselftests */
#include <errno.h>

#include "ci/kselftest.h"
#include "ci/qemu.h"
#include "tests/unit/tap.h"

static char *joined(char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	char **p;

	for (p = argv; *p; p++)
		strbuf_addf(&sb, "%s%s", p == argv ? "" : " ", *p);
	return strbuf_detach(&sb, NULL);
}

static void test_argv(void)
{
	struct qemu_opts o = {
		.arch = arch_lookup("arm64"), .kernel = "/k/Image",
		.initrd = "/w/initrd", .cmdline = "x=1", .mem_mb = 512, .smp = 2,
	};
	char **argv = qemu_argv(&o), *s = joined(argv);

	is_str(argv[0], "qemu-system-aarch64", "arm64: its qemu");
	ok(strstr(s, "-M virt -cpu cortex-a57 -accel tcg -m 512 -smp 2") != NULL,
	   "arm64: machine, cpu, TCG, memory, cpus");
	ok(strstr(s, "-nodefaults -nic none") != NULL, "no network");
	ok(strstr(s, "-serial stdio -no-reboot") != NULL, "console on stdout, no reboot");
	ok(strstr(s, "-kernel /k/Image -initrd /w/initrd") != NULL, "kernel and initrd");
	ok(strstr(s, "-append console=ttyAMA0 panic=-1 printk.time=1 earlycon x=1") != NULL,
	   "command line: console, panic reboots, time stamps, extra");
	qemu_argv_free(argv);
	free(s);

	o.arch = arch_lookup("arm64");
	o.kvm = true;
	argv = qemu_argv(&o);
	s = joined(argv);
	ok(strstr(s, "-accel kvm -cpu host") && !strstr(s, "cortex-a57"),
	   "kvm: -cpu host replaces the table's model");
	qemu_argv_free(argv);
	free(s);

	o.arch = arch_lookup("riscv");
	o.kvm = false;
	o.cmdline = NULL;
	argv = qemu_argv(&o);
	s = joined(argv);
	ok(strstr(s, "console=ttyS0 panic=-1 printk.time=1 earlycon=sbi") != NULL,
	   "riscv: the SBI early console");
	qemu_argv_free(argv);
	free(s);
}

/* The line a developer runs without lorebot: the kernel in their O= */
static void test_recipe(void)
{
	struct qemu_opts o = {
		.arch = arch_lookup("riscv"),
		.kernel = "/var/cache/lorebot/obj/arch/riscv/boot/Image",
		.initrd = "/var/lib/lorebot/jobs/9/initramfs.cpio", .cmdline = "x=1",
	};
	struct strbuf sb = STRBUF_INIT;

	qemu_recipe(&o, "build", &sb);
	ok(util_starts_with(sb.buf, "qemu-system-riscv64 -M virt -accel tcg -m 1024 -smp 2 "),
	   "recipe: the qemu, machine, accel, memory and cpus of the boot");
	ok(strstr(sb.buf, " -kernel build/arch/riscv/boot/Image -initrd initramfs.cpio ") != NULL,
	   "recipe: the kernel as built in O=build, the initrd by its name");
	ok(strstr(sb.buf, "/var/") == NULL, "recipe: no path of the bot's");
	ok(util_ends_with(sb.buf,
			 " -append 'console=ttyS0 panic=-1 printk.time=1 earlycon=sbi x=1'"),
	   "recipe: the kernel command line, quoted for the shell");
	strbuf_release(&sb);
}

static bool planned(const struct kst_plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (!strcmp(p->tests[i]->name, name))
			return true;
	return false;
}

static const char *skip_reason(const struct kst_plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->skipped_nr; i++)
		if (!strcmp(p->skipped[i].name, name))
			return p->skipped[i].reason;
	return NULL;
}

static void test_select(void)
{
	struct kst_plan p = KST_PLAN_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *names[] = { "mm/cow", "soft-dirty", "cow" };
	const char *bad[] = { "cow", "nope" };
	size_t i, dflt = 0;

	ok(kselftest_select(arch_lookup("x86_64"), NULL, 0, &p, &err) == 0, "default list");
	for (i = 0; i < kst_catalog_nr; i++)
		dflt += kst_catalog[i].dflt;
	is_int(p.nr, dflt, "x86_64 runs the whole default list");
	is_int(p.nr + p.skipped_nr, kst_catalog_nr, "every catalog test is planned or skipped");
	is_str(skip_reason(&p, "khugepaged"), "does not build in 6.12 (KSFT_SKIP undeclared)",
	       "skipped with the catalog's reason");
	kselftest_plan_release(&p);

	ok(kselftest_select(arch_lookup("arm64"), NULL, 0, &p, &err) == 0, "arm64 default list");
	ok(!planned(&p, "soft-dirty"), "arm64: no soft-dirty");
	is_str(skip_reason(&p, "soft-dirty"), "not built for arm64 (only x86_64 riscv)",
	       "arm64: says why");
	kselftest_plan_release(&p);

	ok(kselftest_select(arch_lookup("riscv"), names, 3, &p, &err) == 0, "named tests");
	is_int(p.nr, 2, "mm/ prefix accepted, duplicates once");
	ok(planned(&p, "cow") && planned(&p, "soft-dirty"), "the named ones");
	is_str(skip_reason(&p, "mkdirty"), "not in the selected list", "others: not selected");
	kselftest_plan_release(&p);

	ok(kselftest_select(arch_lookup("riscv"), bad, 2, &p, &err) == -EINVAL, "unknown test");
	is_str(err.buf, "unknown mm kselftest 'nope'", "named in the error");
	kselftest_plan_release(&p);
	strbuf_release(&err);
}

int main(void)
{
	test_argv();
	test_recipe();
	test_select();
	return done_testing();
}
