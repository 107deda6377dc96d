// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: an mbox split, parsed and assembled into series */
#include "bot/mbox.h"
#include "bot/series.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	struct assembly a;

	assembly_init(&a, 64 << 10);
	mbox_open_mem(&r, (const char *)data, size, 64 << 10);
	while (mbox_next(&r, &mm) > 0)
		if (!mm.too_big)
			assembly_add_raw(&a, mm.raw.buf, mm.raw.len, mm.index, mm.offset);
	mbox_msg_release(&mm);
	mbox_close(&r);
	assembly_build(&a);
	assembly_release(&a);
	return 0;
}
