// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the console parser.  A kernel built from an
 * untrusted patch writes whatever it likes to the serial console.  The
 * input is fed in two chunks split at its first byte's value, so that
 * partial lines across chunks are exercised too.
 */
#include <stdlib.h>

#include "ci/console.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct console c;
	struct strbuf tail = STRBUF_INIT;
	size_t cut = size ? data[0] % (size + 1) : 0;

	console_init(&c);
	console_feed(&c, (const char *)data, cut);
	console_feed(&c, (const char *)data + cut, size - cut);
	console_finish(&c);
	console_tail((const char *)data, size, 5, &tail);
	console_release(&c);
	strbuf_release(&tail);
	return 0;
}
