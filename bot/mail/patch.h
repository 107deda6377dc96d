/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A patch mail taken apart the way "git mailinfo" does (and git am after
 * it): the author, date and title from the in-body From:, Date: and
 * Subject: when the mail holds a patch, else from its headers; the
 * commit message up to where the patch starts, with its trailers; then
 * the notes and diffstat after "---", the diff (byte-exact), the
 * base-commit:/prerequisite-patch-id:/change-id: lines and the signature.
 * README "Mail parsing" lists where it deliberately differs from git.
 * Replies are scanned for the trailers reviewers give (Reviewed-by: ...).
 */
#ifndef LOREBOT_PATCH_H
#define LOREBOT_PATCH_H

#include <stdint.h>

#include "bot/mail/mail.h"
#include "lib/strpool.h"
#include "bot/mail/subject.h"

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
	char *author_name;	/* in-body From: wins over the header; NULL:
				 * no From: at all */
	char *author_email;
	int64_t date;		/* in-body Date: wins */
	int tz;
	char *subject;		/* in-body Subject: wins; tags removed */
	char *message;		/* the commit message body (no subject line) */
	char *patch;		/* what git mailinfo writes to its patch file:
				 * from the line the patch starts with on; NULL
				 * without one (or with PATCH_HEAD) */
	size_t patch_len;
	struct trailers trailers;	/* those in the commit message */
	char *notes;		/* between "---" and the diff (diffstat too) */
	char *diff;		/* from the first "diff --git" on, exact */
	size_t diff_len;
	char *base_commit;	/* NULL when absent */
	char **prereq_ids;	/* prerequisite-patch-id: lines */
	size_t nr_prereq;
	char *change_id;	/* b4's "change-id:" line */
	char *signature;	/* after "-- " */
	/*
	 * the mail's body had NUL bytes, and the diff has U+FFFD where the
	 * mail reader put one: the diff is not the one mailed
	 */
	bool diff_nul;
};

#define PATCH_INIT { 0 }

/* Take m apart; never fails (a message without a diff has diff == NULL). */
void patch_extract(const struct mail *m, struct patch *p);
/*
 * PATCH_HEAD: only what comes before the "---" (author, date, subject,
 * message, trailers) and base-commit:/change-id:; notes, diff,
 * prerequisites and signature stay NULL.  What series assembly needs.
 */
#define PATCH_HEAD 0x1
/* Cut the message at scissors ("-- >8 --"), as git am --scissors */
#define PATCH_SCISSORS 0x2
/* Keep "[...]" groups without "PATCH" in the title (git am -b) */
#define PATCH_KEEP_NON_PATCH 0x4
/*
 * An in-body From:, Subject: or Date: (its folded lines included) longer
 * than this is read as one and not used: the mail's own header stands
 * (git takes it whatever its size)
 */
#define PATCH_INBODY_MAX (64 << 10)
void patch_extract_flags(const struct mail *m, unsigned int flags,
			 struct patch *p);
void patch_release(struct patch *p);

/* The commit message as git am would write it: subject, body, trailers */
void patch_commit_message(const struct patch *p, struct strbuf *sb);
/*
 * The same with trailers added as b4 adds those collected from replies:
 * after the message's own trailers, in order, those it does not have.
 */
void patch_commit_message_with(const struct patch *p, const struct trailers *add,
			       struct strbuf *sb);

/* Does this body contain a diff? */
bool patch_body_has_diff(const char *body, size_t len);
/* A diffstat ("3 files changed, 8 insertions(+)"), as cover letters have */
bool patch_body_has_diffstat(const char *body, size_t len);

/*
 * The hash patchwork gives the patch in body (b4 0.12 carries trailers
 * by it from one version of a patch to the next): the lines that begin
 * with '-', '+' or ' ' (the diff, and the diffstat and any indented line
 * of the message), file names without their first directory and hunk
 * headers without line numbers.  util_hash128_hex() where patchwork has
 * SHA-1: only equality matters, and it is fast; reviews are carried only
 * between patches of one sender, who gains nothing by a crafted collision
 * (bot/mail/patch-hash.c).
 */
#define PATCH_HASH_HEX 33
void patch_diff_hash(const char *body, size_t len, char hex[PATCH_HASH_HEX]);

/*
 * Trailers a reviewer gives in a reply: unquoted "Name-by: Someone
 * <addr>" lines (and Fixes:), as b4 collects them: from m->text_sent
 * when there is one (the lines as sent).  Only trailers naming the sender
 * count unless sloppy.
 */
void patch_reply_trailers(const struct mail *m, bool sloppy, struct trailers *out);

/* base-commit: of any body (cover letters carry it too), or NULL */
char *patch_find_base_commit(const char *body);
char *patch_find_change_id(const char *body);

void patch_trailers_add(struct trailers *t, const char *name, const char *value);
/*
 * The same for name and value interned in pool: when that is t's pool,
 * they are kept as they are, with no lookup (which in a scratch file
 * maps a page back in)
 */
void patch_trailers_add_interned(struct trailers *t, const char *name,
				 const char *value, const struct strpool *pool);
bool patch_trailers_has(const struct trailers *t, const char *name, const char *value);
void patch_trailers_release(struct trailers *t);

/* Split "Name <addr>" into parts (either may be NULL); caller frees */
void patch_split_name_addr(const char *v, char **name, char **addr);

/*
 * The message part of a body as git mailinfo reads it (bot/mail/patch-head.c):
 * in-body headers, the message lines up to where the patch starts.
 */
struct patch_head {
	char *from, *subject, *date;	/* in-body, decoded; NULL: absent */
	struct strbuf log;		/* the message lines, as they are */
	size_t patch_start;		/* offset of the line the patch starts
					 * with (len when none) */
	bool has_patch;
};

void patch_head_read(const char *body, size_t len, unsigned int flags,
		     struct patch_head *h);
void patch_head_release(struct patch_head *h);
/* Does a patch start with this line ("---", "--- file", "diff -"...)? */
bool patch_break(const char *p, size_t len, bool nl);
/* A Subject: as git mailinfo cleans it ("Re:" and "[...]" removed) */
void patch_clean_subject(const char *subject, unsigned int flags,
			 struct strbuf *out);
/*
 * Author name and address from a From: text as git mailinfo reads them
 * (no name, or one over 60 bytes, is replaced by the address); both
 * NULL when text is NULL, "" when it holds no address.  Caller frees.
 */
void patch_author(const char *text, char **name, char **email);

#endif
