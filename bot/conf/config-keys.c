// SPDX-License-Identifier: GPL-2.0
/*
 * The key table, made from bot/conf/config-keys.h (the one list of keys): the
 * docs, "lorebot config --list-keys" and "--check" read it.
 */
#include "bot/conf/config.h"

const struct cfg_key cfg_keys[] = {
#define CFG_KEY(id_, name_, type_, def_, choices_, help_) \
	{ .name = name_, .type = CFG_##type_, .def = def_, .choices = choices_, \
	  .help = help_ },
#define CFG_SUBKEY CFG_KEY
#include "bot/conf/config-keys.h"
};

const size_t cfg_keys_nr = ARRAY_SIZE(cfg_keys);
