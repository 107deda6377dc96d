/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architectures lorebot builds and boots, in one table: kbuild's
 * ARCH, the cross compiler, the bootable image, how qemu runs it, and
 * the Debian packages that provide the tools (named in error messages).
 * Configuration (arch.<name>.*) may override the kbuild fields.
 */
#ifndef LOREBOT_CI_ARCH_H
#define LOREBOT_CI_ARCH_H

#include <stddef.h>

struct arch {
	const char *name;		/* x86_64, arm64, riscv */
	const char *kernel_arch;	/* ARCH= */
	const char *src_arch;		/* its directory under arch/ (SRCARCH) */
	const char *cross_compile;	/* CROSS_COMPILE= ("" for native) */
	const char *gcc_package;	/* Debian package of the compiler */
	const char *image;		/* make target: bzImage, Image */
	const char *image_path;		/* in O=: arch/x86/boot/bzImage */
	const char *qemu;		/* qemu-system-x86_64 ... */
	const char *qemu_package;
	const char *const *qemu_args;	/* machine, cpu: NULL-terminated */
	const char *console;		/* ttyS0, ttyAMA0 */
};

extern const struct arch arches[];
extern const size_t arches_nr;

const struct arch *arch_lookup(const char *name);

#endif
