// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: an mbox split, parsed and assembled into series.
 * The split is done twice, in place (mbox_set_view) and copying, and
 * the two must give the same messages byte for byte.  The assembly is
 * done twice too, in memory and in a scratch file (as past
 * series.memory, with a window of one byte: emptied at every look),
 * and the two must print the same JSON.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bot/mail/mbox.h"
#include "bot/series/series.h"
#include "bot/series/series-out.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mbox_reader r, c;
	struct mbox_msg mm = MBOX_MSG_INIT, mc = MBOX_MSG_INIT;
	struct assembly a, d;
	char *ja = NULL, *jd = NULL;
	size_t la = 0, ld = 0;
	FILE *f;
	int rr, rc;

	series_init(&a, 64 << 10);
	series_init(&d, 64 << 10);
	d.spill_after = 1;	/* in a scratch file from the first message */
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
		if (!mm.too_big) {
			series_add_raw(&a, mm.data, mm.len, mm.index, mm.offset);
			series_add_raw(&d, mm.data, mm.len, mm.index, mm.offset);
		}
	}
	mbox_msg_release(&mm);
	mbox_msg_release(&mc);
	mbox_close(&r);
	mbox_close(&c);
	series_build(&a);
	series_build(&d);
	f = open_memstream(&ja, &la);
	series_print_json(&a, f);
	fclose(f);
	f = open_memstream(&jd, &ld);
	series_print_json(&d, f);
	fclose(f);
	/* a full $TMPDIR is not a finding; anything else that differs is */
	if (!series_failed(&d) && (la != ld || memcmp(ja, jd, la))) {
		fprintf(stderr, "in memory:\n%s\nin a scratch file:\n%s\n", ja, jd);
		abort();
	}
	free(ja);
	free(jd);
	series_release(&a);
	series_release(&d);
	return 0;
}
