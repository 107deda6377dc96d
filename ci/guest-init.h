/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest init (ci/initramfs/init.c) travels inside lorebot: its
 * source is embedded at build time and compiled for an arch, with that
 * arch's cross gcc and -static, the first time a boot needs it.  The
 * binary is cached per arch and source (cachedir/init-<arch>-<hash>).
 */
#ifndef LOREBOT_CI_GUEST_INIT_H
#define LOREBOT_CI_GUEST_INIT_H

#include "lib/strbuf.h"
#include "bot/base/arch.h"

/* The embedded source and its hash (16 hex digits) */
const char *guest_init_source(size_t *len);
const char *guest_init_hash(void);

/*
 * Path of the static init for arch a (caller frees), built if needed.
 * NULL with err set when the cross compiler is missing or fails.
 */
char *guest_init_binary(const struct arch *a, const char *cachedir,
			struct strbuf *err);

#endif
