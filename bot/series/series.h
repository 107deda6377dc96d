/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Series assembly: messages -> sends -> series, the way a maintainer
 * reads a list.
 *
 * A "send" is one posting of one version: a cover letter and patches
 * threaded to it (or to patch 1), or, where threading is broken,
 * patches grouped by sender, version, count and time.  Sends of the
 * same sender (or of a trusted one) with the same change-id, the same
 * normalised title, or a lore link from a cover letter to an earlier
 * version form a series: another sender copying a change-id starts a
 * series of their own.
 * Within a series, a later complete send of a version supersedes an
 * earlier one (a resend or an interrupted send), and a newer version
 * supersedes older ones.  Replies are kept apart from patches; the
 * trailers they give are attached to the patch replied to, or to every
 * patch when given on the cover letter.
 *
 * Memory: a struct msg holds only what assembly needs (no bodies), and
 * the messages an assembly parses itself live in its strpool with their
 * strings interned (names, addresses, Message-IDs and trailers recur all
 * over a list); msg->offset/size say where to find a message again.
 */
#ifndef LOREBOT_SERIES_H
#define LOREBOT_SERIES_H

#include <stdint.h>

#include "bot/mail/patch.h"
#include "lib/strmap.h"
#include "lib/strpool.h"
#include "bot/mail/subject.h"

#define MSG_MAX_REFS 16
#define MSG_MAX_LINKS 16

enum msg_kind {
	MSG_OTHER,	/* discussion that is not a reply to a patch */
	MSG_PATCH,
	MSG_COVER,
	MSG_REPLY,
};

struct send;
struct scratch;
struct problems_block;

/* bot/store/store-msg.c keeps these in the database: add new fields there too */
struct msg {
	struct strpool *pool;	/* its strings and arrays live there
				 * (strings interned: never modify them),
				 * the msg in an assembly's msg_structs;
				 * NULL: all malloc'ed */
	char *msgid;
	char *parent;		/* In-Reply-To, else the last reference */
	char **refs;		/* the root and the nearest ancestors */
	size_t nr_refs;
	char *subject;		/* as in the header */
	struct subject subj;
	char *title;		/* commit title: tags removed, in-body Subject: wins */
	char *sender_name;	/* header From: */
	char *sender_email;
	char *author_name;	/* in-body From: wins (patches, covers) */
	char *author_email;
	int64_t date;
	int tz;
	bool has_diff;
	bool has_diffstat;	/* a cover letter's "N files changed" */
	char *base_commit;
	char *change_id;
	char *diff_hash;	/* a patch's patch_diff_hash(), else NULL */
	struct trailers trailers;	/* a reply's given ones; a patch's own
					 * until assembly moves them to its send */
	char **links;		/* Message-IDs of lore links in a cover letter */
	size_t nr_links;
	struct strbuf warnings;	/* non-fatal problems, one per line (moved to
				 * assembly->problems by series_add_raw) */

	/* where it came from */
	size_t index;
	uint64_t offset, size;
	int64_t rowid;		/* in the database, or 0 */

	/* filled by assembly */
	enum msg_kind kind;
	size_t slot;		/* in assembly->msgs and ->state */
	bool unthreaded;	/* grouped by sender, version and time (series_group_fallback) */
};

/*
 * What assembly finds out about a message, apart from the message: its
 * passes over every message write these, and past series.memory a page
 * of the scratch file holds 170 of them against five messages, so a
 * pass maps back in a thirtieth of the pages it would.
 */
struct msg_state {
	struct send *send;
	struct msg *target;	/* replies: the patch or cover replied to */
	bool target_known;	/* target found (NULL: there is none) */
	bool climbing;		/* on the reply chain being followed */
	bool cover_matched;	/* a cover letter a patch of its version replies to */
	bool cover_taken;	/* ...else, given the version of one that does */
	bool own_patches;	/* a cover letter its sender's patches reply to */
};

struct send_patch {
	struct msg *msg;	/* NULL when missing */
	struct trailers trailers;	/* own + from replies (+ cover replies) */
};

struct send {
	char *id;		/* Message-ID of the cover, else of the first patch */
	struct msg *cover;
	struct send_patch *patches;	/* [0 .. total-1] for 1/N .. N/N */
	int total, have;
	int version;
	bool rfc;
	bool resend;
	bool complete;
	char *tree;
	char *title;
	char *author_name;
	char *author_email;
	char *sender_email;
	int64_t date;
	char *base_commit;
	char *change_id;
	int replies;
	struct trailers cover_trailers;	/* given in replies to the cover */
	int reroll_from;	/* a partial resend completed from this
				 * version (b4's partial reroll); 0: none */
	struct send *superseded_by;
	struct series *series;
	bool fallback;		/* grouped without threading */
};

struct series {
	char *id;		/* stable: hash of the series key */
	struct send **sends;	/* by version, then date */
	size_t nr, alloc;
};

struct assembly {
	struct msg **msgs;
	size_t nr, alloc;
	size_t nr_malloced;	/* msgs not in pool */
	struct msg_state *state;	/* [m->slot]: made by series_build() */
	/*
	 * [m->slot]: m->kind, for the passes that look at one kind:
	 * reading it from each message would map every page of a scratch
	 * file back in (series_kind_set() keeps both)
	 */
	unsigned char *kinds;
	size_t alloc_kinds;
	size_t maybe_covers;	/* has_diffstat: cover letters without 0/N? */
	struct strmap by_id;
	struct strmap roots;	/* send by the Message-ID of its root */
	struct send **sends;
	size_t nr_sends, alloc_sends;
	struct series **series;
	size_t nr_series, alloc_series;
	struct strbuf problems;	/* "message 3 <id>: what" lines */
	size_t errors;		/* messages that could not be used */
	size_t max_size;	/* mail.maxsize */
	struct strpool pool;	/* the msgs parsed by series_add_raw() */
	/*
	 * Their struct msg, side by side: the passes over every message
	 * read these, and past series.memory a pass then maps back in
	 * the pages of the structs, not those of every string too.
	 */
	struct strpool msg_structs;
	/*
	 * Past this many bytes of messages held (0: never), what the
	 * assembly holds moves to a scratch file, of which at most this
	 * much is mapped in at a time (lib/scratch.h): memory stays flat
	 * however large the mbox.
	 */
	size_t spill_after;
	struct scratch *scratch;
	bool msgs_mapped, sends_mapped, series_mapped, state_mapped;	/* in scratch */
	struct problems_block *moved, *moved_last;	/* problems, in scratch */
	struct strbuf fatal;	/* why the assembly could not go on */
	/*
	 * Senders who may continue anyone's series (series.trust: a
	 * maintainer resending): the array is the assembly's, the strings
	 * are borrowed.  Everyone else's change-id, lore link or title
	 * joins only their own sends.
	 */
	const char **trusted;
	size_t nr_trusted;
};

void series_init(struct assembly *a, size_t max_size);
/*
 * a->spill_after for a series.memory (or --memory) the user set: 0 there
 * would mean never, and means the smallest budget, one message
 */
static inline size_t series_budget(uint64_t memory)
{
	return memory ? (size_t)memory : 1;
}
/* Who may continue anyone's series: takes the array (config_list_copy()'s) */
void series_trust_senders(struct assembly *a, const char **senders, size_t nr);
void series_release(struct assembly *a);

/*
 * Parse one raw message and add it.  Problems are recorded in
 * a->problems (naming the message by index and Message-ID); returns the
 * msg, or NULL when the message could not be used at all.
 */
struct msg *series_add_raw(struct assembly *a, const char *raw, size_t len,
			   size_t index, uint64_t offset);
/*
 * Room for a struct msg that lives as long as a (its strings go to
 * a->pool): in a->msg_structs, where the others are
 */
static inline struct msg *series_msg_alloc(struct assembly *a)
{
	return strpool_alloc(&a->msg_structs, sizeof(struct msg));
}

/*
 * Add a message parsed elsewhere (the database keeps them parsed); takes
 * ownership of m (allocated with malloc, or series_msg_alloc()) and
 * records the same problems as series_add_raw().  NULL when m was a
 * duplicate (and is freed).  Past a->spill_after, m's pool must be
 * a->pool.
 */
struct msg *series_add_msg(struct assembly *a, struct msg *m);
/* Add every message of an mbox; 0 or -errno (file could not be read) */
int series_add_mbox(struct assembly *a, const char *path);
/* Record a message that was skipped before parsing (too large...) */
void series_problem(struct assembly *a, size_t index, const char *msgid,
		    const char *fmt, ...) PRINTF(4, 5);

/*
 * Once per unit of work (a message, a send): past a->spill_after, into
 * the scratch file; once there, keep to its window.  Callers that walk
 * a large assembly call it too.
 */
void series_tick(struct assembly *a);

/* Group into sends and series.  Call once, after adding everything. */
void series_build(struct assembly *a);
/* 0, or -1 when the scratch file failed (a->fatal says why) */
static inline int series_failed(const struct assembly *a)
{
	return a->fatal.len ? -1 : 0;
}

/* After series_build(): messages read (duplicates not counted) */
size_t series_nr_msgs(const struct assembly *a);
/* Each send, series by series in order, versions in order */
void series_each_send(const struct assembly *a,
		      void (*fn)(const struct send *s, void *ctx), void *ctx);
/* Each line of a->problems (without its newline) */
void series_each_problem(const struct assembly *a,
			 void (*fn)(const char *line, size_t len, void *ctx),
			 void *ctx);

/*
 * The keys by which assembly may relate m to other messages, each as
 * "kind:value": "m:" its Message-ID, parent and references, and a
 * cover letter's lore links (the thread, the links between versions);
 * for a message that can be part of a send (a patch, a cover letter, a
 * letter with a diffstat) "st:" its sender and normalised title (the
 * series key without a change-id), "f:" its version, count and sender
 * (the sends an unthreaded patch may join; only for counts over 1, the
 * only ones left unplaced), "c:" its change-id (whose first sender owns
 * it) and "t:" its normalised title (what series.trust joins by).  Two messages that share no chain of keys never change each
 * other's series: bot/store/store-update.c re-assembles only what is connected
 * to new messages.  Keep this in step with every rule that relates
 * messages (series.c, series-fallback.c, series-link.c).
 */
void series_msg_each_key(struct msg *m, void (*fn)(const char *key, void *ctx), void *ctx);
/*
 * After assembly, the key of a patch threading did not place ("u:" and
 * the "f:" key's text: series_group_fallback() looks at every send of its
 * sender, version and count), or NULL.  Incremental assembly follows an
 * "f:" key only from such patches (store-update.c).  The caller frees.
 */
char *series_msg_unthreaded_key(const struct msg *m);

/* Parse a raw message into a msg; on failure nothing is left to release */
int series_msg_from_raw(const char *raw, size_t len, struct msg *m, struct strbuf *err);
/* The same with the strings in pool (NULL: malloc'ed) */
int series_msg_from_raw_pool(const char *raw, size_t len, struct strpool *pool,
			     struct msg *m, struct strbuf *err);
/* A string of m's: in its pool (interned), or malloc'ed without one */
char *series_msg_keep(struct msg *m, const char *s);
/* Move what subject_parse() malloc'ed into m's pool */
void series_msg_subject_to_pool(struct msg *m);
void series_msg_release(struct msg *m);
/* series_msg_release(), then the msg itself unless its pool holds it */
void series_msg_free(struct msg *m);
/* A message without Message-ID gets a stable one made from its bytes */
#define MSG_MISSING_ID_DOMAIN "missing-message-id.invalid"
void series_msg_set_missing_id(struct msg *m, const char *raw, size_t len);

#endif
