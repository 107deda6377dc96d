/* SPDX-License-Identifier: GPL-2.0 */
#ifndef LOREBOT_VERSION_H
#define LOREBOT_VERSION_H

#ifndef LOREBOT_VERSION
#define LOREBOT_VERSION "0.1"
#endif

#endif
