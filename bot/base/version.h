/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build's version (git describe --dirty), from the one object the
 * Makefile compiles again whenever it changes: every other object may
 * be older than the last describe, and a version compiled into each
 * would differ between them after an incremental build.
 */
#ifndef LOREBOT_VERSION_H
#define LOREBOT_VERSION_H

const char *version_string(void);

#endif
