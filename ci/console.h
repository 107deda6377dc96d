/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a guest's serial console says: the KTAP results the guest init
 * printed (ci/initramfs/init.c, parsed by ci/ktap.c) and the kernel's
 * own reports (WARNING, BUG, Oops, panic, hung task, KASAN, ...), each
 * with its call trace and the test that was running when it came.
 *
 * Lines are told apart by their form: kernel lines carry printk time
 * stamps ("[    1.234567] ", CONFIG_PRINTK_TIME), the init's protocol
 * lines start with "KTAP", "1..", "ok", "not ok" or "# lorebot:", and a
 * test's own output is indented by four spaces.  A kernel message that
 * lands in the middle of a test's line is split off at its time stamp.
 *
 * Ownership: struct console owns every string in it; console_release()
 * frees them.  The console text itself is not kept.
 */
#ifndef LOREBOT_CI_CONSOLE_H
#define LOREBOT_CI_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/strbuf.h"

enum kst_result {
	KST_NOTRUN,	/* planned, never started (the guest died first) */
	KST_PASS,
	KST_FAIL,
	KST_SKIP,
	KST_FLAKY,	/* failed, then passed when run again */
};

const char *ktap_result_name(enum kst_result r);

/* One test as the guest ran it (possibly several attempts) */
struct kst_run {
	char *name;
	enum kst_result result;
	char *reason;		/* "exit status 1", "TIMEOUT after 60 s", ... */
	struct strbuf output;	/* the test's own lines, all attempts */
	int attempts;
	int runs;		/* attempts that ended (an exit line) */
	int fails;		/* ... failing: a status other than 0 and skip, or a timeout */
	int reported;		/* ... during which the init saw a kernel report */
	int first_status;	/* exit status of the first attempt */
	uint64_t ms;		/* all attempts */
	bool timeout;		/* an attempt hit its time limit */
	bool finished;		/* its ok / not ok line was seen */
};

/* A kernel report */
struct splat {
	const char *kind;	/* "warning", "bug", "oops", "panic", ... */
	char *title;		/* "WARNING in madvise_walk_vmas": stable across builds */
	char *where;		/* "mm/madvise.c:1234" when the report says, or NULL */
	char *first;		/* its first line, as printed */
	struct strbuf report;	/* all its lines, time stamps removed */
	char *test;		/* the test running then, NULL before or after */
	int attempt;		/* ... and its attempt */
	size_t line;		/* 1-based line in the console log */
};

struct console {
	struct kst_run *tests;
	size_t tests_nr, tests_alloc;
	struct splat *splats;
	size_t splats_nr, splats_alloc;
	int planned;		/* N of "1..N", -1 before */
	bool kernel;		/* the kernel printed: its banner or a time stamp */
	bool userspace;		/* the init ran ("KTAP version" seen) */
	bool done;		/* the init finished its plan */
	uint64_t init_uptime_ms; /* guest uptime when the init started */
	uint64_t tests_ms;	/* the init's time for the whole plan */
	char *running;		/* the test running when the log ended */
	int running_attempt;	/* its attempt */
	size_t lines;

	/* parser state */
	struct splat *open;	/* report still collecting lines */
	unsigned int open_state;
	struct strbuf partial;	/* bytes after the last newline */
};

void console_init(struct console *c);
void console_release(struct console *c);

/* Feed console bytes (any chunking); console_finish() after the last */
void console_feed(struct console *c, const char *buf, size_t len);
void console_finish(struct console *c);
/* Both at once */
void console_parse(struct console *c, const char *buf, size_t len);

/* The last n lines of text (for hangs and boot failures) */
void console_tail(const char *buf, size_t len, size_t n, struct strbuf *out);

/* The test of that name, or NULL */
struct kst_run *ktap_test(const struct console *c, const char *name);

/* Internal: ci/ktap.c handles the protocol lines; true if it took the line */
struct kst_run *ktap_add_test(struct console *c, const char *name);
bool ktap_line(struct console *c, const char *line);

#endif
