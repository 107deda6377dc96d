// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: subject tag parsing */
#include <stdlib.h>

#include "bot/mail/subject.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct subject subj;
	char *n;

	subject_parse(s, &subj);
	n = subject_normalise_title(subj.title);
	free(n);
	subject_release(&subj);
	free(s);
	return 0;
}
