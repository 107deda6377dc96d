/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "git mailinfo" reads from a mail, as lorebot reads it and as git
 * itself does, and the comparison of the two.
 *
 * lorebot's side (mailinfo.c) is its patch extraction (bot/mail/patch.h): the
 * very fields "lorebot apply" commits.  git's side (mailinfo-git.c) runs
 * "git mailinfo" on the mail as git am hands it over (CR of CRLF
 * removed, as git mailsplit does) and "git var" for the date as git am
 * would parse it.  The comparison (mailinfo-diff.c) names every field
 * that differs and, when the difference is one lorebot makes on purpose,
 * the documented class it belongs to (lorebot mailinfo --differences
 * lists them; README "Mail parsing" explains them).
 */
#ifndef LOREBOT_MAILINFO_H
#define LOREBOT_MAILINFO_H

#include <stdint.h>

#include "lib/strbuf.h"

enum mailinfo_field {
	MI_AUTHOR,
	MI_EMAIL,
	MI_SUBJECT,
	MI_DATE,
	MI_MESSAGE,
	MI_PATCH,
	MI_NR
};

/* Fields as git mailinfo prints and writes them ("" when absent) */
struct mailinfo {
	char *author;
	char *email;
	char *subject;
	char *date_text;	/* git: the Date: line; lorebot: formatted */
	bool has_date;		/* date/tz hold the date as git am takes it */
	int64_t date;
	int tz;
	bool date_refused;	/* git: git am would refuse this date */
	struct strbuf message;	/* the commit message, stripspace'd */
	struct strbuf patch;	/* the patch file */
	/* lorebot's side: what its reading of the MIME structure found */
	char *charset;		/* the body's, when not UTF-8 */
	bool multipart;
	unsigned int skipped_parts;
	bool mime_broken;
};

#define MAILINFO_INIT { .message = STRBUF_INIT, .patch = STRBUF_INIT }

/* Flags: PATCH_SCISSORS, PATCH_KEEP_NON_PATCH (git's --scissors, -b) */

/* lorebot's reading of raw.  0, or -1 when it is not a mail (err says) */
int mailinfo_lorebot(const char *raw, size_t len, unsigned int flags,
		     struct mailinfo *mi, struct strbuf *err);
/*
 * git's reading of raw.  0; 1 when git mailinfo refused the mail (err
 * has its message); -1 when git could not be run.
 */
int mailinfo_git(const char *raw, size_t len, unsigned int flags,
		 struct mailinfo *mi, struct strbuf *err);
void mailinfo_release(struct mailinfo *mi);

/* The info git mailinfo prints: Author:, Email:, Subject:, Date: */
void mailinfo_format(const struct mailinfo *mi, struct strbuf *sb);
const char *mailinfo_field_name(enum mailinfo_field f);

/* A deliberate difference: mailinfo-diff.c holds the table */
struct mailinfo_class {
	const char *name;
	const char *what;	/* one line: what lorebot does, and git */
};

const struct mailinfo_class *mailinfo_classes(size_t *nr);

struct mailinfo_cmp {
	bool git_refused;	/* git mailinfo failed: nothing to compare */
	struct strbuf git_error;
	bool differs[MI_NR];
	/* the class of each difference; NULL: undocumented */
	const struct mailinfo_class *cls[MI_NR];
	struct mailinfo ours, git;
};

#define MAILINFO_CMP_INIT { .git_error = STRBUF_INIT, \
	.ours = MAILINFO_INIT, .git = MAILINFO_INIT }

/*
 * Read raw both ways and compare.  0 when compared (see cmp), -1 when
 * it could not be (not a mail, git missing: err says).
 */
int mailinfo_compare(const char *raw, size_t len, unsigned int flags,
		     struct mailinfo_cmp *cmp, struct strbuf *err);
/* How many differences have no documented class */
int mailinfo_undocumented(const struct mailinfo_cmp *cmp);
void mailinfo_cmp_release(struct mailinfo_cmp *cmp);

#endif
