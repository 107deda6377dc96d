/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A patch mail taken apart the way "git mailinfo" does: in-body From:,
 * Date: and Subject: overrides, the commit message with its trailers,
 * the "---" separator, notes and diffstat, the diff (byte-exact), the
 * base-commit:/prerequisite-patch-id:/change-id: lines and the signature.
 * Replies are scanned for the trailers reviewers give (Reviewed-by: ...).
 */
#ifndef LOREBOT_PATCH_H
#define LOREBOT_PATCH_H

#include <stdint.h>

#include "bot/mail.h"
#include "bot/strpool.h"
#include "bot/subject.h"

struct trailer {
	char *name;		/* as written: "Reviewed-by" */
	char *value;		/* "Dev Jain <dev.jain@arm.com>" */
};

struct trailers {
	struct trailer *t;
	size_t nr, alloc;
	struct strpool *pool;	/* the array and the strings (interned) live
				 * there; NULL: each is malloc'ed */
};

struct patch {
	char *author_name;	/* in-body From: wins over the header */
	char *author_email;
	int64_t date;		/* in-body Date: wins */
	int tz;
	char *subject;		/* in-body Subject: wins; tags removed */
	char *message;		/* the commit message body (no subject line) */
	struct trailers trailers;	/* those in the commit message */
	char *notes;		/* between "---" and the diff (diffstat too) */
	char *diff;		/* from the first "diff --git" on, exact */
	size_t diff_len;
	char *base_commit;	/* NULL when absent */
	char **prereq_ids;	/* prerequisite-patch-id: lines */
	size_t nr_prereq;
	char *change_id;	/* b4's "change-id:" line */
	char *signature;	/* after "-- " */
};

#define PATCH_INIT { 0 }

/* Take m apart; never fails (a message without a diff has diff == NULL). */
void patch_extract(const struct mail *m, const struct subject *s,
		   struct patch *p);
/*
 * PATCH_HEAD: only what comes before the "---" (author, date, subject,
 * message, trailers) and base-commit:/change-id:; notes, diff,
 * prerequisites and signature stay NULL.  What series assembly needs.
 */
#define PATCH_HEAD 0x1
void patch_extract_flags(const struct mail *m, const struct subject *s,
			 unsigned int flags, struct patch *p);
void patch_release(struct patch *p);

/* The commit message as git am would write it: subject, body, trailers */
void patch_commit_message(const struct patch *p, struct strbuf *sb);

/* Does this body contain a diff? */
bool body_has_diff(const char *body, size_t len);

/*
 * Trailers a reviewer gives in a reply: unquoted "Name-by: Someone
 * <addr>" lines (and Fixes:), as b4 collects them.  Only trailers naming
 * the sender count unless sloppy.
 */
void reply_trailers(const struct mail *m, bool sloppy, struct trailers *out);

/* base-commit: of any body (cover letters carry it too), or NULL */
char *find_base_commit(const char *body);
char *find_change_id(const char *body);

void trailers_add(struct trailers *t, const char *name, const char *value);
bool trailers_has(const struct trailers *t, const char *name, const char *value);
void trailers_release(struct trailers *t);

/* Split "Name <addr>" into parts (either may be NULL); caller frees */
void split_name_addr(const char *v, char **name, char **addr);

#endif
