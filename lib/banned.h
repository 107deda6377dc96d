/* SPDX-License-Identifier: GPL-2.0 */
/* Functions that are easy to misuse; as git's banned.h. */
#ifndef LOREBOT_BANNED_H
#define LOREBOT_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef gmtime
#define gmtime(t) BANNED(gmtime)

#endif
