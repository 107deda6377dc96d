// SPDX-License-Identifier: GPL-2.0
/*
 * Console analysis: split the serial log into lines, hand the init's
 * lines to ktap.c and find the kernel's reports in the rest.  See
 * console.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "ci/console.h"

#define MAX_REPORT_LINES 400
#define MAX_HEAD_LINES 60	/* lines before a call trace, if any comes */
#define MAX_LINE 4096

/* How a report begins: the first matching row wins */
struct trigger {
	const char *match;	/* substring of the (time-stamp free) line */
	bool at_start;		/* must start the line */
	const char *kind;
	const char *title;	/* title prefix; NULL: from the line */
};

static const struct trigger triggers[] = {
	{ "WARNING: ", true, "warning", "WARNING" },
	{ "BUG: KASAN: ", true, "kasan", NULL },
	{ "BUG: KFENCE: ", true, "kfence", NULL },
	{ "BUG: KMSAN: ", true, "kmsan", NULL },
	{ "kernel BUG at ", true, "bug", "kernel BUG" },
	{ "BUG: kernel NULL pointer dereference", true, "oops", NULL },
	{ "BUG: unable to handle ", true, "oops", NULL },
	{ "Unable to handle kernel ", true, "oops", NULL },
	{ "general protection fault", false, "oops", "general protection fault" },
	{ "Internal error: Oops", true, "oops", "Oops" },
	{ "Oops: ", true, "oops", "Oops" },
	{ "Oops - ", true, "oops", "Oops" },
	{ "BUG: soft lockup", false, "soft-lockup", "BUG: soft lockup" },
	{ "Kernel panic - not syncing: ", true, "panic", NULL },
	{ "INFO: task ", true, "hung-task", "INFO: task hung" },
	{ " detected stalls on CPUs", false, "rcu-stall", "INFO: rcu detected stall" },
	{ " self-detected stall on CPU", false, "rcu-stall", "INFO: rcu detected stall" },
	{ "UBSAN: ", true, "ubsan", NULL },
	{ "BUG: ", true, "bug", NULL },
};

/* Frames that say how a report was printed, not where it came from */
static const char *const boring_frames[] = {
	"dump_stack", "dump_stack_lvl", "show_stack", "dump_backtrace",
	"__dump_stack", "show_regs", "__warn", "warn_slowpath_fmt",
	"report_bug", "handle_bug", "exc_invalid_op", "asm_exc_invalid_op",
	"do_trap", "die", "bug_handler", "brk_handler", "do_debug_exception",
	"el1_dbg", "el1h_64_sync_handler", "el1h_64_sync", "call_break_hook",
	"handle_break", "do_trap_break", "panic", "vpanic", "kasan_report",
	"print_report", "__schedule", "schedule", "schedule_timeout",
	"schedule_preempt_disabled", "io_schedule", "__switch_to",
	"__switch_to_asm", "ret_from_fork", "ret_from_fork_asm",
	"ret_from_exception", "handle_exception", "__mutex_lock",
	"mutex_lock", "rwsem_down_read_slowpath", "rwsem_down_write_slowpath",
	"msleep", "do_nanosleep", "hrtimer_nanosleep", "common_nsleep",
};

static bool boring(const char *fn, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(boring_frames); i++)
		if (strlen(boring_frames[i]) == len &&
		    !strncmp(boring_frames[i], fn, len))
			return true;
	return false;
}

void console_init(struct console *c)
{
	memset(c, 0, sizeof(*c));
	c->planned = -1;
	c->partial = (struct strbuf)STRBUF_INIT;
}

void console_release(struct console *c)
{
	size_t i;

	for (i = 0; i < c->tests_nr; i++) {
		free(c->tests[i].name);
		free(c->tests[i].reason);
		strbuf_release(&c->tests[i].output);
	}
	free(c->tests);
	for (i = 0; i < c->splats_nr; i++) {
		free(c->splats[i].title);
		free(c->splats[i].where);
		free(c->splats[i].first);
		free(c->splats[i].test);
		strbuf_release(&c->splats[i].report);
	}
	free(c->splats);
	free(c->running);
	strbuf_release(&c->partial);
	memset(c, 0, sizeof(*c));
}

/* Length of a printk time stamp "[   12.345678] " at s, or 0 */
static size_t stamp_len(const char *s)
{
	const char *p = s;

	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ']')
		return 0;
	if (*p == ' ')
		p++;
	return p - s;
}

/* Where a time stamp starts inside s (after position 0), or NULL */
static const char *inner_stamp(const char *s)
{
	const char *p = s + 1;

	if (!*s)
		return NULL;
	while ((p = strchr(p, '[')) != NULL) {
		if (stamp_len(p))
			return p;
		p++;
	}
	return NULL;
}

/* "func+0x12/0x34" somewhere after s: the name without .part.N etc. */
static char *frame_function(const char *s)
{
	const char *plus, *start;

	for (plus = strstr(s, "+0x"); plus; plus = strstr(plus + 1, "+0x")) {
		size_t len;

		start = plus;
		while (start > s && (isalnum((unsigned char)start[-1]) ||
				     start[-1] == '_' || start[-1] == '.'))
			start--;
		len = plus - start;
		if (!len)
			continue;
		/* gcc's clones: do_madvise.part.0, foo.isra.0 */
		if (memchr(start, '.', len))
			len = (const char *)memchr(start, '.', len) - start;
		return xstrndup(start, len);
	}
	return NULL;
}

/* A call trace line: " func+0x..", " ? func+0x..", "[<addr>] func+0x.." */
static char *trace_frame(const char *line)
{
	const char *p = line, *plus;

	while (*p == ' ' || *p == '\t')
		p++;
	if (p[0] == '?' && p[1] == ' ')
		return NULL;	/* unreliable x86 frame */
	if (p[0] == '[' && p[1] == '<') {
		p = strstr(p, "] ");
		if (!p)
			return NULL;
		p += 2;
	}
	if (!isalpha((unsigned char)*p) && *p != '_')
		return NULL;
	plus = strstr(p, "+0x");
	if (!plus || plus > strchrnul(p, ' '))
		return NULL;
	return frame_function(p);
}

/* The function a report happened in */
static char *report_function(const struct splat *s)
{
	const char *p = s->report.buf, *line_end;
	char *fn = NULL, *pc = NULL;
	bool in_trace = false;

	for (; *p; p = *line_end ? line_end + 1 : line_end) {
		char *line, *f;
		const char *rest;

		line_end = strchrnul(p, '\n');
		line = xstrndup(p, line_end - p);
		if (strstr(line, "Call Trace:") || strstr(line, "Call trace:")) {
			in_trace = true;
			free(line);
			continue;
		}
		/* riscv prints frames as "[<addr>] fn+0x.." without a header */
		if (util_starts_with(line, "[<"))
			in_trace = true;
		if (!pc && (util_skip_prefix(line, "RIP: ", &rest) ||
				   util_skip_prefix(line, "pc : ", &rest) ||
				   util_skip_prefix(line, "epc : ", &rest))) {
			if (util_starts_with(rest, "0010:"))
				rest += 5;
			pc = frame_function(rest);
		} else if (in_trace && !fn) {
			f = trace_frame(line);
			if (f && !boring(f, strlen(f)))
				fn = f;
			else
				free(f);
		}
		free(line);
	}
	/* where the CPU was, unless the report was printed from there */
	if (pc && !boring(pc, strlen(pc))) {
		free(fn);
		return pc;
	}
	free(pc);
	return fn;
}

/* The kernel's top-level source directories */
static const char *const top_dirs[] = {
	"arch", "block", "certs", "crypto", "drivers", "fs", "include", "init",
	"io_uring", "ipc", "kernel", "lib", "mm", "net", "rust", "samples",
	"scripts", "security", "sound", "virt",
};

static bool top_dir(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(top_dirs); i++)
		if (strlen(top_dirs[i]) == len && !memcmp(top_dirs[i], p, len))
			return true;
	return false;
}

/*
 * A source path as the tree names it.  With O= and ccache's base_dir the
 * kernel's __FILE__ can be "../src/mm/madvise.c" or absolute: from the
 * first top-level directory on ("mm/madvise.c").
 */
static char *source_path(const char *p, size_t len)
{
	const char *end = p + len, *q = p;

	if (*p != '/' && strncmp(p, "../", 3))
		return xstrndup(p, len);
	while (q < end) {
		const char *slash = memchr(q, '/', end - q);

		if (!slash)
			break;
		if (top_dir(q, slash - q))
			return xstrndup(q, end - q);
		q = slash + 1;
	}
	return xstrndup(p, len);
}

/* "WARNING: CPU: 0 PID: 1 at mm/madvise.c:12 fn+0x1/0x2": file and function */
static void warning_site(struct splat *s, char **fn)
{
	const char *at = strstr(s->first, " at "), *end;

	if (!at)
		return;
	at += 4;
	end = strchrnul(at, ' ');
	if (memchr(at, ':', end - at))
		s->where = source_path(at, end - at);
	if (*end)
		*fn = frame_function(end);
}

/* "kernel BUG at mm/foo.c:12!" */
static void bug_site(struct splat *s)
{
	const char *at = strstr(s->first, " at ");
	size_t len;

	if (!at)
		return;
	at += 4;
	len = strcspn(at, "! ");
	if (len)
		s->where = source_path(at, len);
}

/* Words that start the details of a report's first line */
static const char *const detail_words[] = {
	"in", "at", "for", "on", "by", "of", "from", "-",
};

static bool detail_word(const char *w, size_t len)
{
	size_t i;

	if (isdigit((unsigned char)w[0]) || w[0] == '(' || w[0] == '[')
		return true;
	for (i = 0; i < ARRAY_SIZE(detail_words); i++)
		if (strlen(detail_words[i]) == len &&
		    !strncmp(detail_words[i], w, len))
			return true;
	/* "mm:00000000a1b2" but not "KASAN:" */
	for (i = 0; i + 1 < len; i++)
		if (w[i] == ':' || w[i] == '=')
			return true;
	return false;
}

/*
 * A title from the first line: its words up to the first detail
 * ("BUG: Bad rss-counter state mm:0000 type:1" -> "BUG: Bad rss-counter
 * state"), so that the same report in two builds has the same title.
 */
static char *line_title(const char *first)
{
	const char *p = first, *end = first;

	while (*p) {
		const char *w = p;
		size_t len = strcspn(w, " ,!");

		if (!len || (w != first && detail_word(w, len)))
			break;
		end = w + len;
		p = end;
		if (*p != ' ')
			break;
		p++;
	}
	while (end > first && end[-1] == ':')
		end--;
	return xstrndup(first, end - first);
}

static void title_splat(struct splat *s, const struct trigger *t)
{
	char *fn = NULL, *base;

	if (!strcmp(s->kind, "warning"))
		warning_site(s, &fn);
	else if (!strcmp(s->kind, "bug") && util_starts_with(s->first, "kernel BUG"))
		bug_site(s);
	if (!strcmp(s->kind, "kasan") || !strcmp(s->kind, "kfence") ||
	    !strcmp(s->kind, "kmsan") || !strcmp(s->kind, "ubsan")) {
		const char *in = strstr(s->first, " in ");

		if (in && !fn)
			fn = frame_function(in);
	}
	if (!strcmp(s->kind, "panic")) {
		const char *msg = s->first + strlen("Kernel panic - not syncing: ");

		s->title = xasprintf("Kernel panic: %.*s",
				     (int)strcspn(msg, "\n"), msg);
		return;
	}
	if (!fn)
		fn = report_function(s);
	base = t->title ? xstrdup(t->title) : line_title(s->first);
	s->title = fn ? xasprintf("%s in %s", base, fn) : xstrdup(base);
	free(base);
	free(fn);
}

enum {
	REP_HEAD,	/* before the call trace */
	REP_TRACE,	/* in "Call Trace:" */
	REP_TASK,	/* between <TASK> and </TASK> */
};

static void close_report(struct console *c)
{
	struct splat *s = c->open;
	size_t i;

	if (!s)
		return;
	c->open = NULL;
	for (i = 0; i < ARRAY_SIZE(triggers); i++)
		if (!strcmp(triggers[i].kind, s->kind) &&
		    strstr(s->first, triggers[i].match))
			break;
	title_splat(s, &triggers[i < ARRAY_SIZE(triggers) ? i : 0]);
}

static const struct trigger *find_trigger(const char *line)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(triggers); i++) {
		const struct trigger *t = &triggers[i];

		if (t->at_start ? util_starts_with(line, t->match) :
		    strstr(line, t->match) != NULL) {
			/* "INFO: task x:1 blocked for more than 30 seconds." */
			if (!strcmp(t->kind, "hung-task") &&
			    !strstr(line, "blocked for more than"))
				continue;
			return t;
		}
	}
	return NULL;
}

static void open_report(struct console *c, const struct trigger *t,
			const char *line)
{
	struct splat *s;

	ALLOC_GROW(c->splats, c->splats_nr + 1, c->splats_alloc);
	s = &c->splats[c->splats_nr++];
	memset(s, 0, sizeof(*s));
	s->kind = t->kind;
	s->first = xstrdup(line);
	s->report = (struct strbuf)STRBUF_INIT;
	s->test = xstrdup_or_null(c->running);
	s->attempt = c->running ? c->running_attempt : 0;
	s->line = c->lines;
	strbuf_addstr(&s->report, line);
	strbuf_addch(&s->report, '\n');
	c->open = s;
	c->open_state = REP_HEAD;
}

static size_t report_lines(const struct splat *s)
{
	size_t n = 0;
	const char *p;

	for (p = s->report.buf; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	return n;
}

/* Does a kernel line continue the open report?  Adds it if so. */
static bool continue_report(struct console *c, const char *line,
			    const struct trigger *t)
{
	struct splat *s = c->open;
	bool take = false, end = false;
	const char *trim = line + strspn(line, " ");

	if (report_lines(s) >= MAX_REPORT_LINES)
		return false;
	if (util_starts_with(line, "---[ end ")) {
		take = end = true;
	} else if (c->open_state == REP_TASK) {
		take = true;
		if (util_starts_with(trim, "</TASK>") || util_starts_with(trim, "</IRQ>"))
			c->open_state = REP_TRACE;
	} else if (util_starts_with(trim, "<TASK>") || util_starts_with(trim, "<IRQ>")) {
		take = true;
		c->open_state = REP_TASK;
	} else if (c->open_state == REP_HEAD) {
		/* a new report, except an Oops explaining the fault above */
		take = !t || (!strcmp(t->kind, "oops") && !strcmp(s->kind, "oops"));
		/* reports without a trace ("BUG: Bad rss-counter state") */
		if (report_lines(s) >= MAX_HEAD_LINES)
			take = false;
		if (strstr(line, "Call Trace:") || strstr(line, "Call trace:") ||
		    util_starts_with(line, "[<"))
			c->open_state = REP_TRACE;
	} else {
		take = !t && (line[0] == ' ' || util_starts_with(line, "[<"));
	}
	if (take) {
		strbuf_addstr(&s->report, line);
		strbuf_addch(&s->report, '\n');
	}
	if (end || !take)
		close_report(c);
	return take;
}

static void kernel_line(struct console *c, const char *line)
{
	const struct trigger *t = find_trigger(line);

	if (!c->kernel && util_starts_with(line, "Linux version "))
		c->kernel = true;
	if (c->open && continue_report(c, line, t))
		return;
	if (t)
		open_report(c, t, line);
}

static void one_line(struct console *c, char *line)
{
	size_t st = stamp_len(line);
	const char *inner;

	c->lines++;
	if (st) {
		c->kernel = true;
		kernel_line(c, line + st);
		return;
	}
	/* a kernel message that interrupted a line of the init or a test */
	inner = inner_stamp(line);
	if (inner) {
		char *head = xstrndup(line, inner - line);

		if (!ktap_line(c, head))
			kernel_line(c, head);
		free(head);
		kernel_line(c, inner + stamp_len(inner));
		return;
	}
	if (ktap_line(c, line))
		return;
	/* kernel lines without time stamps (early boot, firmware) */
	kernel_line(c, line);
}

void console_feed(struct console *c, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char ch = buf[i];

		if (ch == '\n' || c->partial.len >= MAX_LINE) {
			one_line(c, c->partial.buf);
			strbuf_reset(&c->partial);
			if (ch == '\n')
				continue;
		}
		if (ch == '\r' || ch == '\0')
			continue;
		strbuf_addch(&c->partial, ch);
	}
}

void console_finish(struct console *c)
{
	size_t i;

	if (c->partial.len) {
		one_line(c, c->partial.buf);
		strbuf_reset(&c->partial);
	}
	close_report(c);
	/* results for tests whose result line never came */
	for (i = 0; i < c->tests_nr; i++) {
		struct kst_run *t = &c->tests[i];

		if (t->finished)
			continue;
		t->result = KST_FAIL;
		free(t->reason);
		t->reason = xstrdup("did not finish: the guest stopped");
	}
}

void console_parse(struct console *c, const char *buf, size_t len)
{
	console_feed(c, buf, len);
	console_finish(c);
}

void console_tail(const char *buf, size_t len, size_t n, struct strbuf *out)
{
	size_t i = len;

	/* ignore a final newline, then find the start of the last n lines */
	if (i && buf[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (buf[i - 1] == '\n' && !--n)
			break;
		i--;
	}
	for (; i < len; i++)
		if (buf[i] != '\r')
			strbuf_addch(out, buf[i]);
	strbuf_complete_line(out);
}
