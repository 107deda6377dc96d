/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Logging with levels, to stderr (default) or syslog.  Messages are
 * lowercase, without a full stop, with the subject quoted.
 */
#ifndef LOREBOT_LOG_H
#define LOREBOT_LOG_H

#include "lib/util.h"

enum log_level {
	LOG_LVL_ERR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
int log_parse_level(const char *s, enum log_level *out);
void log_use_syslog(const char *ident);
/* Prefix each line with a timestamp (the daemon does) */
void log_set_timestamps(bool on);

void log_msg(enum log_level level, const char *fmt, ...) PRINTF(2, 3);

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Progress for long work, on stderr, only when stderr is a terminal or forced */
void log_progress(const char *fmt, ...) PRINTF(1, 2);
void log_progress_force(bool on);

#endif
