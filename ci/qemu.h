/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The qemu command line for one boot, and whether KVM really works.
 *
 * Every boot: no network (-nodefaults, -nic none), no display, the
 * serial console on stdout, -no-reboot (the guest init's reboot ends
 * the machine, and so does panic=-1).
 */
#ifndef LOREBOT_CI_QEMU_H
#define LOREBOT_CI_QEMU_H

#include <stdbool.h>

#include "lib/strbuf.h"
#include "bot/base/arch.h"

struct qemu_opts {
	const struct arch *arch;
	const char *kernel;
	const char *initrd;
	const char *cmdline;	/* appended to the standard command line */
	unsigned int mem_mb;
	unsigned int smp;
	bool kvm;
};

/* A NULL-terminated argv; free with qemu_argv_free() */
char **qemu_argv(const struct qemu_opts *o);
void qemu_argv_free(char **argv);

/*
 * qemu_argv() as one shell line a developer can run without lorebot:
 * the kernel is the image in their O= directory obj ("build/arch/arm64/
 * boot/Image"), the initrd its file name alone
 */
void qemu_recipe(const struct qemu_opts *o, const char *obj, struct strbuf *sb);

/* The kernel command line qemu_argv() passes */
void qemu_cmdline(const struct qemu_opts *o, struct strbuf *sb);

/*
 * Can this arch be booted with KVM here?  Only when the host is that
 * arch, /dev/kvm opens, and qemu with -accel kvm -cpu host runs a
 * 16-byte firmware that writes to the serial port and exits through
 * isa-debug-exit (x86_64; other hosts are not probed and use TCG).  The
 * answer is cached in cachedir (per qemu binary and host kernel) when
 * cachedir is not NULL.  why says what was decided and why.
 */
bool qemu_kvm_works(const struct arch *a, const char *cachedir,
		    struct strbuf *why);

#endif
