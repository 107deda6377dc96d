// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/strbuf.h"

static enum log_level cur_level = LOG_LVL_INFO;
static bool to_syslog;
static bool timestamps;
static int progress_mode = -1;	/* -1: stderr is a tty */

static const struct {
	const char *name;
	int prio;
} levels[] = {
	[LOG_LVL_ERR] = { "error", LOG_ERR },
	[LOG_LVL_WARN] = { "warning", LOG_WARNING },
	[LOG_LVL_INFO] = { "info", LOG_INFO },
	[LOG_LVL_DEBUG] = { "debug", LOG_DEBUG },
};

void log_set_level(enum log_level level)
{
	cur_level = level;
}

enum log_level log_get_level(void)
{
	return cur_level;
}

int log_parse_level(const char *s, enum log_level *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		if (!strcasecmp(s, levels[i].name)) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

void log_use_syslog(const char *ident)
{
	openlog(ident, LOG_PID, LOG_DAEMON);
	to_syslog = true;
}

void log_set_timestamps(bool on)
{
	timestamps = on;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (level > cur_level)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (to_syslog) {
		syslog(levels[level].prio, "%s", sb.buf);
	} else {
		char ts[32] = "";

		if (timestamps) {
			time_t t = time(NULL);
			struct tm tm;

			gmtime_r(&t, &tm);
			strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ ", &tm);
		}
		fprintf(stderr, "%slorebot: %s%s%s\n", ts,
			level == LOG_LVL_INFO ? "" : levels[level].name,
			level == LOG_LVL_INFO ? "" : ": ", sb.buf);
	}
	strbuf_release(&sb);
}

void log_progress_force(bool on)
{
	progress_mode = on;
}

void log_progress(const char *fmt, ...)
{
	va_list ap;

	if (progress_mode < 0)
		progress_mode = isatty(2);
	if (!progress_mode)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
