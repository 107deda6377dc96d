// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: one raw message through MIME parsing and extraction */
#include "bot/series.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct msg m;

	if (!msg_from_raw((const char *)data, size, &m, &err))
		msg_release(&m);
	strbuf_release(&err);
	return 0;
}
