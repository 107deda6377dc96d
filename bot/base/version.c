// SPDX-License-Identifier: GPL-2.0
/* The build's version: see version.h */
#include "bot/base/version.h"

#ifndef LOREBOT_VERSION
#define LOREBOT_VERSION "0.1"
#endif

const char *version_string(void)
{
	return LOREBOT_VERSION;
}
