/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subject tags as kernel developers write them: "[PATCH]",
 * "[PATCH v7 2/5]", "[PATCH mm-new v7 2/5]", "[RFC PATCH v2 0/3]",
 * "[PATCH RESEND v2 1/2]", "[PATCH net-next 03/12]", with "Re:",
 * "Fwd:" and friends in front, several bracket groups, any case.
 */
#ifndef LOREBOT_SUBJECT_H
#define LOREBOT_SUBJECT_H

#include "lib/strbuf.h"

struct subject {
	bool reply;		/* "Re:", "Aw:", "Antw:" ... in front */
	bool forward;		/* "Fwd:", "Fw:" in front */
	bool patch;		/* a PATCH (or RFC, or a n/m counter) tag */
	bool rfc;
	bool resend;
	int version;		/* 1 when absent */
	int n, total;		/* 1/1 when absent; 0/M for a cover letter */
	bool counted;		/* "n/m" was present */
	bool past_count;	/* n > m: one more after the series
				 * ("[PATCH 4/3]"); total is n */
	char *tree;		/* "mm-new", "mm-unstable", "mm-hotfixes", other
				 * tree-like words such as "net-next"; or NULL */
	char *prefixes;		/* every other word of the tags, space-separated */
	char *title;		/* the subject without prefixes and tags */
};

#define SUBJECT_INIT { .version = 1, .n = 1, .total = 1 }

/* Never fails; anything unrecognised stays in title */
void subject_parse(const char *s, struct subject *out);
void subject_release(struct subject *s);

/* Title normalised for matching versions: lowercase, single spaces */
char *subject_normalise_title(const char *title);

#endif
