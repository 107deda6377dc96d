// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include <strings.h>

#include "lib/util.h"
#include "bot/base/arch.h"

static const char *const x86_64_qemu[] = { "-M", "pc", NULL };
static const char *const arm64_qemu[] = { "-M", "virt", "-cpu", "cortex-a57", NULL };
static const char *const riscv_qemu[] = { "-M", "virt", NULL };

const struct arch arches[] = {
	{
		.name = "x86_64",
		.kernel_arch = "x86_64",
		.src_arch = "x86",
		.cross_compile = "",
		.gcc_package = "gcc",
		.image = "bzImage",
		.image_path = "arch/x86/boot/bzImage",
		.qemu = "qemu-system-x86_64",
		.qemu_package = "qemu-system-x86",
		.qemu_args = x86_64_qemu,
		.console = "ttyS0",
	},
	{
		.name = "arm64",
		.kernel_arch = "arm64",
		.src_arch = "arm64",
		.cross_compile = "aarch64-linux-gnu-",
		.gcc_package = "gcc-aarch64-linux-gnu",
		.image = "Image",
		.image_path = "arch/arm64/boot/Image",
		.qemu = "qemu-system-aarch64",
		.qemu_package = "qemu-system-arm",
		.qemu_args = arm64_qemu,
		.console = "ttyAMA0",
	},
	{
		.name = "riscv",
		.kernel_arch = "riscv",
		.src_arch = "riscv",
		.cross_compile = "riscv64-linux-gnu-",
		.gcc_package = "gcc-riscv64-linux-gnu",
		.image = "Image",
		.image_path = "arch/riscv/boot/Image",
		.qemu = "qemu-system-riscv64",
		.qemu_package = "qemu-system-misc",
		.qemu_args = riscv_qemu,
		.console = "ttyS0",
	},
};

const size_t arches_nr = ARRAY_SIZE(arches);

const struct arch *arch_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < arches_nr; i++)
		if (!strcasecmp(arches[i].name, name))
			return &arches[i];
	/* the names people also use */
	if (!strcasecmp(name, "aarch64"))
		return &arches[1];
	if (!strcasecmp(name, "riscv64") || !strcasecmp(name, "rv64"))
		return &arches[2];
	if (!strcasecmp(name, "x86") || !strcasecmp(name, "amd64"))
		return &arches[0];
	return NULL;
}
