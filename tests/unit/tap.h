/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP for C unit tests, run by prove:
 *	ok(cond, "name %d", i); is_int(a, b, "name"); is_str(a, b, "name");
 *	return done_testing();
 * LOREBOT_SRC points at the source tree (fixtures), set by the runner.
 */
#ifndef LOREBOT_TAP_H
#define LOREBOT_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3)))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define is_int(got, want, ...) do {					\
	long long g_ = (got), w_ = (want);				\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#   got: %lld\n#   expected: %lld\n", g_, w_);	\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = (!g_ && !w_) || (g_ && w_ && !strcmp(g_, w_));	\
	if (!ok(same_, __VA_ARGS__))					\
		printf("#   got: '%s'\n#   expected: '%s'\n",		\
		       g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

static inline const char *tap_src(void)
{
	const char *s = getenv("LOREBOT_SRC");

	return s ? s : ".";
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
