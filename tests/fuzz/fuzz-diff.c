// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a patch's diff through libgit2's parser and ours
 * (diff_parse), as apply, check and the reply's excerpts read it.  The
 * seed nul-line.diff has a NUL byte in an added line.
 */
#include <stdlib.h>

#include "bot/git/diff.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct diff d = DIFF_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!diff_parse((const char *)data, size, &d, &err))
		diff_release(&d);
	strbuf_release(&err);
	return 0;
}
