/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A whole thread from lore into an mbox file, for the commands that take
 * --msgid (apply, check): the inbox is --url, or the first configured
 * [list] (list.<name>.url).
 */
#ifndef LOREBOT_THREAD_H
#define LOREBOT_THREAD_H

#include "bot/conf/config.h"

/*
 * Write the thread of msgid (<> optional) to a new temporary file;
 * *path gets its name (caller unlinks and frees).  0, or -1 with the
 * reason in err (unknown message, no inbox configured, network).
 */
int thread_to_mbox(const struct config *cfg, const char *url, const char *msgid,
		   char **path, struct strbuf *err);

#endif
