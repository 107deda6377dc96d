/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replies on the patch thread: which are due for a series version (one
 * per outcome kind), and their text, composed like a reviewer's mail
 * (threaded under the patch concerned, or the cover letter for results
 * about the whole series) with the body from templates/reply-<kind>.txt
 * in the structure of the kernel test robot's reports.
 *
 * Sending, policies and the reply state machine are in reply.h; this
 * part only reads the database.
 */
#ifndef LOREBOT_REPORT_H
#define LOREBOT_REPORT_H

#include <json-c/json.h>

#include "bot/conf/config.h"
#include "bot/mail/mail-out.h"
#include "bot/results/results.h"
#include "bot/store/store-replies.h"
#include "bot/store/store-results.h"

enum reply_kind {
	REPLY_APPLY,		/* the series does not apply */
	REPLY_BUILD,		/* build errors or new warnings */
	REPLY_CHECK,		/* checker errors or warnings */
	REPLY_BOOT,		/* new kselftest failures, kernel splats, no boot */
	REPLY_BASE,		/* base-commit unknown (only with reply.baseunknown) */
	REPLY_CLEAN,		/* everything passed (only with reply.clean) */
	REPLY_FINDINGS,		/* findings of the stages with no kind of their own */
	REPLY_KIND_NR,
};

const char *report_kind_name(enum reply_kind kind);
/*
 * The kind as the replies table keeps it: "boot", and "boot (retest 2)"
 * for a reply after the second retest (each round has its own replies)
 */
void report_kind_round(struct strbuf *sb, enum reply_kind kind, int round);
int report_kind_parse(const char *name, enum reply_kind *kind);

/* A finding or a rule dismissed for a series by an answer (reply-answers.c) */
struct report_dismissal {
	char *kind;		/* "finding" or "rule" */
	char *target;		/* the finding's id, or the rule */
	char *who, *why;	/* why may be NULL */
	int64_t when;
};

/* A version and what a reply about it needs */
struct report_version {
	char *id;		/* version id: cover letter (or patch 1) Message-ID */
	char *series_id;
	char *title;
	char *author_name, *author_email;
	char *cover;		/* Message-ID or NULL */
	char *base_commit;	/* from the mails, or NULL */
	char *tree;		/* subject tag ("mm-new") or NULL */
	char *superseded_by;
	int version, total, have;
	bool rfc, complete, resend, gone;
	int64_t date;
	char *list;		/* the list it arrived on, or NULL */
	char *list_url;		/* that list's inbox URL, or NULL */
	json_object *json;	/* as `lorebot series --json` prints it */
	struct results results;
	struct report_dismissal *dismissals;	/* of its series */
	size_t nr_dismissals;
	int retests;		/* times it was tested again on request */
	char *retest_by;	/* who asked the last time */
};

/* The dismissal of f (a finding of stage s of v), or NULL */
const struct report_dismissal *report_dismissed(const struct report_version *v,
						enum stage s, json_object *f);

enum report_load_flags {
	REPORT_LIGHT = 1 << 0,	/* no JSON: enough for report_state() and counts */
};

/* Load version id; 1 found, 0 unknown, -1 error (err) */
int report_version_load(struct store *st, const char *id, unsigned int flags,
			struct report_version *v, struct strbuf *err);
void report_version_release(struct report_version *v);

/* The version JSON of patch n (1-based), or NULL */
json_object *report_patch(const struct report_version *v, int n);

struct report_opts {
	const struct config *cfg;
	const char *const *archs;	/* built and booted; NULL: build.arch or all */
	size_t nr_archs;
	bool boot;			/* boots expected (boot.enable) */
	const char *repo;		/* kernel repository for source excerpts, or NULL */
	const char *templates;		/* directory */
	int64_t now;
	int64_t mincoverage;		/* build.mincoverage: kept when cfg is dropped */
};

/* Fill o from configuration (archs from build.arch, else the arch table) */
void report_opts_init(struct report_opts *o, const struct config *cfg);
void report_opts_release(struct report_opts *o);
/* The archs of a comma-separated list instead ("" for none: no builds) */
void report_opts_set_archs(struct report_opts *o, const char *list);

/* The parts of a reply, in the order of severity a reply gives them */
enum report_section {
	SECTION_APPLY,		/* does not apply (onto a known base) */
	SECTION_BUILD_ERRORS,
	SECTION_BOOT,		/* boot regressions, splats, no boot */
	SECTION_BUILD_WARNINGS,	/* new warnings */
	SECTION_CHECK,		/* review findings the noise policy mails */
	SECTION_FINDINGS,	/* new findings of the other stages (stage_ops.reply) */
	SECTION_NR,
};

struct reply_due {
	enum reply_kind kind;	/* the headline: the worst section's kind */
	int patch;		/* replied to: patch n, 0 the cover (series-wide) */
	bool sections[SECTION_NR];	/* what the reply holds */
	bool untested;		/* base-commit unknown: not built or booted */
};

/*
 * The one reply due for v: once every stage of the version has ended,
 * to the cover letter (or the single patch), with a section per kind of
 * problem found and the headline from the worst.  1 when one is due (in
 * *due), 0 when nothing is to be mailed (yet).
 */
int report_due(const struct report_version *v, const struct report_opts *o,
	       struct reply_due *due);

/*
 * The states kept in the database (version_states, bot/report/report-states.c):
 * report_state() of every live version, derived again for the versions
 * the triggers marked dirty.  report_states_attach() gives a store the
 * options it derives with (build.arch or archs, boot.enable of cfg), and
 * its hook (struct store_hook): every store_commit() and
 * store_results_insert() then flushes; a store without them leaves
 * versions dirty.  Detach releases them (store_close() does).
 */
void report_states_attach(struct store *st, const struct config *cfg, const char *archs);
void report_states_detach(struct store *st);
/* The options attached to st, or NULL */
const struct report_opts *report_states_opts(const struct store *st);
enum states_flush {
	STATES_DIRTY,	/* the dirty versions, when derived with st's options */
	STATES_TAKE,	/* ... and every version when derived with others */
	STATES_ALL,	/* every version (db rebuild) */
};
/*
 * Derive versions again, in the current transaction or one of its own;
 * 0 or -1.  A table derived with other options (the daemon's --arch) is
 * left to them unless how says otherwise (the daemon's start takes it).
 */
int report_states_flush(struct store *st, enum states_flush how, struct strbuf *err);
/* May a reader with options o trust the table (derived for o, nothing dirty)? */
bool report_states_valid(struct db *db, const struct report_opts *o);
/* "archs=x86_64,arm64 boot=1": what the table was derived for */
void report_states_key(const struct report_opts *o, struct strbuf *sb);
/*
 * Compare the table with report_state() of every live version (the
 * dirty ones aside: no reader trusts them); a line per difference into
 * out.  The number of differences, or -1 (err).
 */
int report_states_check(struct store *st, const struct report_opts *o, struct strbuf *out,
			struct strbuf *err);

/* Does v's base-commit name a commit the tree lacks (apply used another)? */
bool report_base_unknown(const struct report_version *v);

/*
 * The noise policy (reply.style): a checker finding is mailed (an mm
 * rule with a location), style (checkpatch, codespell, series hygiene:
 * the dashboard and `lorebot check`, one line in the mail) or dropped
 * (notes, findings without a location).
 */
enum report_class {
	REPORT_MAIL,
	REPORT_STYLE,
	REPORT_DROP,
	REPORT_DISMISSED,	/* mailed before: an answer said it is wrong */
	REPORT_CLASS_NR,
};

enum report_class report_finding_class(const struct report_opts *o, json_object *f);
/* The same for a check finding of v, REPORT_DISMISSED when it is */
enum report_class report_check_class(const struct report_version *v,
				     const struct report_opts *o, json_object *f);
/*
 * Is build finding f a style one the policy keeps off the list (a
 * Coccinelle style rule's); how many new ones v has, each once over
 * the arches
 */
bool report_build_style(const struct report_opts *o, json_object *f);
int report_build_style_count(const struct report_version *v, const struct report_opts *o);
/* The check findings of v by class */
void report_check_count(const struct report_version *v, const struct report_opts *o,
			int count[REPORT_CLASS_NR]);

/* A file of a report's permanent record (gzip): "config-<arch>" */

/*
 * A finding's id: 8 hex digits of a hash of what makes it the same
 * finding in another version of the series: its rule (for build and
 * boot findings "build:" and the option or severity, "boot:" and the
 * kind), file, function and the code it quotes (without a quote, its
 * message with numbers left out; for a boot finding, the report's title
 * and the test): the stage's finding_id() says (bot/stage/stage.h).  Not its line: the line moves with the patches around
 * it.  Replies and the dashboard show it; an answer "lorebot: invalid
 * <id>" names it.
 */
#define REPORT_ID_LEN 8
void report_finding_id(enum stage stage, json_object *f, char id[REPORT_ID_LEN + 1]);
/*
 * For a stage's finding_id(): key (its rule), file and function, then
 * the quoted code, else the message with numbers left out; and text
 * added as the message would be
 */
void report_id_text(struct strbuf *sb, const char *key, json_object *f);
void report_id_add(struct strbuf *sb, const char *text);
/* The rule of f, a finding of stage (struct stage_ops' finding_rule()) */
const char *report_finding_rule(enum stage stage, json_object *f);

/* A composed reply */
struct reply_mail {
	enum reply_kind kind;
	int patch;
	int round;		/* the version's retests when it was composed */
	char *msgid;		/* new, unique; without <> */
	char *in_reply_to;	/* without <> */
	char *subject;		/* "Re: ..." as UTF-8 */
	struct mail_addrs to, cc;
	struct strbuf text;	/* the whole message: headers, blank line, body */
	struct strbuf body;	/* the body alone */
	/* its permanent record (report-snap.c), stored with it */
	char *report_id;	/* the Message-ID up to "-lorebot@" */
	char *snapshot;		/* JSON text */
	struct report_file *files;
	size_t nr_files, alloc_files;
};

/*
 * Reports have permanent pages (/r/<id>): the id of a reply's
 * Message-ID ("20260101120000.abcdefghijkl" of
 * "20260101120000.abcdefghijkl-lorebot@host", NULL when it has no '@';
 * caller frees), whether a string is one (what a URL may carry), and the
 * page's URL under core.dashboardurl (nothing when that is empty).
 */
char *report_id_of(const char *msgid);
bool report_id_valid(const char *id);
void report_url(const struct config *cfg, const char *id, struct strbuf *sb);

void report_mail_init(struct reply_mail *m);
void report_mail_release(struct reply_mail *m);

/*
 * Compose the reply d about v: recipients (reply.to, reply.ignore),
 * threading headers from the message replied to, body from the kind's
 * template.  0, or -1 with the reason in err (missing template, unknown
 * variable, message replied to not in the database).
 */
int report_compose(struct store *st, const struct report_version *v,
		   const struct reply_due *d, const struct report_opts *o,
		   struct reply_mail *m, struct strbuf *err);

/*
 * Where a version stands, in one word (lists, filters, metrics):
 * superseded, incomplete (parts missing, nothing tested), pending
 * (nothing tested yet), testing, apply-failed, build-failed, boot-failed,
 * findings (checker findings or new build warnings), infra (a stage
 * failed for reasons outside the series), base-unknown (it did not
 * apply, and its base-commit is not in the tree: not the author's
 * fault), partial (built without findings, but less of the change
 * compiled than build.mincoverage), passed.
 */
const char *report_state(const struct report_version *v, const struct report_opts *o);
/*
 * Did the builds compile less of the change than build.mincoverage: an
 * arch "partial", or too few lines compiled on any arch?
 */
bool report_partial(const struct report_version *v, const struct report_opts *o);
/* What v still needs (bot/results/plan.h), for o's archs and boots */
void report_plan(const struct report_version *v, const struct report_opts *o,
		 struct plan *p);
#define REPORT_STATES_NR 12
extern const char *const report_states[REPORT_STATES_NR + 1];	/* all of them, NULL-terminated */

/* Is an address on reply.ignore (an address or an "@domain")? */
bool report_ignored(const struct config *cfg, const char *email);

/* A finding as a reply gives it: "mark" then "file:line:col: severity: message [rule]\n" */
void report_finding_line(struct strbuf *sb, const char *mark, enum stage stage,
			 json_object *f);

/* The lore link of a Message-ID: the list's URL, else lore.kernel.org/r/ */
void report_lore_link(struct strbuf *sb, const struct report_version *v, const char *msgid);

#endif
