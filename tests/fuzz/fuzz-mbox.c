// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: an mbox split, parsed and assembled into series.
 * The split is done twice, in place (mbox_set_view) and copying, and
 * the two must give the same messages byte for byte.
 */
#include <stdlib.h>

#include "bot/mbox.h"
#include "bot/series.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mbox_reader r, c;
	struct mbox_msg mm = MBOX_MSG_INIT, mc = MBOX_MSG_INIT;
	struct assembly a;
	int rr, rc;

	assembly_init(&a, 64 << 10);
	mbox_open_mem(&r, (const char *)data, size, 64 << 10);
	mbox_open_mem(&c, (const char *)data, size, 64 << 10);
	mbox_set_view(&r, true);
	for (;;) {
		rr = mbox_next(&r, &mm);
		rc = mbox_next(&c, &mc);
		if (rr != rc || (rr > 0 && (mm.too_big != mc.too_big ||
		    mm.len != mc.len || mm.offset != mc.offset ||
		    memcmp(mm.data, mc.data, mm.len))))
			abort();	/* the view differs from the copy */
		if (rr <= 0)
			break;
		if (!mm.too_big)
			assembly_add_raw(&a, mm.data, mm.len, mm.index, mm.offset);
	}
	mbox_msg_release(&mm);
	mbox_msg_release(&mc);
	mbox_close(&r);
	mbox_close(&c);
	assembly_build(&a);
	assembly_release(&a);
	return 0;
}
