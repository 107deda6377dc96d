/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages as data, below the store: which stages there are
 * (STAGE_LIST(), enum stage), the statuses of their results (enum
 * status), their names, and the plan, what a version still needs of
 * each, derived from its stored results alone (plan_make()).
 *
 * The descriptors themselves, struct stage_ops, are the stage layer's
 * (bot/stage/stage.h, bot/stage/stage-<name>.c: doc/technical/stage.md), above the
 * store, the reports and the replies: this header only defines their
 * type, the interface the layers below read them through.  The stage
 * layer registers its table once, before anything reads it
 * (stage_register(): main() and the unit tests that need stages), and
 * plan_stage() gives a stage's descriptor; so the store records a
 * result and a reply reads a stage's fields and hooks without calling
 * up into the code that defines them.
 */
#ifndef LOREBOT_PLAN_H
#define LOREBOT_PLAN_H

#include <stdint.h>

#include "lib/util.h"

struct json_object;
struct pchecks;
struct report_ctx;
struct report_opts;
struct report_version;
struct result;
struct strbuf;

/*
 * The table: one row X(CONSTANT, name) per stage, in the order they are
 * planned (a stage after the one it follows), the reply last.  A row
 * makes the constant STAGE_<CONSTANT> and names the stage's descriptor,
 * struct stage_ops stage_<name>, which bot/stage/stage-<name>.c defines.
 */
#define STAGE_LIST(X)							\
	X(APPLY, apply)							\
	X(CHECK, check)							\
	X(BUILD, build)							\
	X(BOOT, boot)							\
	X(REPLY, reply)

#define STAGE_ENUM_(c, n) STAGE_##c,
enum stage {
	STAGE_LIST(STAGE_ENUM_)
	STAGE_NR,
};
#undef STAGE_ENUM_

/* The stages before this one (every one but the reply) record a result document */
#define STAGE_RESULTS STAGE_REPLY
#define STAGE_NONE STAGE_NR

/* What a stage's result says, over all stages */
enum status {
	STATUS_NONE,		/* no result (or one this lorebot cannot read) */
	STATUS_APPLIED,		/* apply */
	STATUS_FAILED,
	STATUS_CLEAN,		/* check */
	STATUS_NOTES,
	STATUS_WARNINGS,	/* check and build */
	STATUS_ERRORS,
	STATUS_OK,		/* build and boot */
	STATUS_REGRESSIONS,	/* boot */
	STATUS_BOOT_FAILURE,
	STATUS_INFRA,		/* any: the infrastructure failed, not the series */
	STATUS_PARTIAL,		/* build: nothing new, but not enough of the change compiled */
	STATUS_NR,
};

#define ST(s) (1u << (STATUS_##s))

/* What the job runner gives the stage's command */
enum stage_input {
	STAGE_IN_MBOX,		/* the version's mail (--mbox, --series ID) */
	STAGE_IN_BRANCH,	/* the branch and base apply made (--series, --base, --arch) */
	STAGE_IN_NONE,		/* runs in the runner itself */
};

/* What a stage's results are in KCIDB (bot/export/kcidb.c) */
enum stage_kcidb {
	STAGE_KCIDB_NONE,	/* nothing */
	STAGE_KCIDB_BUILD,	/* a build per arch (build) */
	STAGE_KCIDB_TESTS,	/* tests of the build of the stage it follows (boot) */
};

/*
 * A stage: what plans it and runs it, what its result is, and what
 * replies and the dashboard show of it (doc/technical/stage.md).  A
 * hook left NULL, a flag left false, is the default each comment says.
 */
struct stage_ops {
	/* the plan (plan_make()) and the queue */
	const char *name;	/* jobs.kind, results.stage */
	bool per_arch;
	bool heavy;		/* builds and boots: daemon.builds */
	enum stage after;	/* STAGE_NONE: the first */
	unsigned int after_on;	/* statuses of `after` it runs on (0: any) */
	bool boot_enable;	/* planned only with boot.enable */
	bool last;		/* after every other stage ended (the reply) */

	/* the job runner (bot/sched/job.c) */
	const char *command;	/* the lorebot command it runs, NULL: in process */
	enum stage_input input;
	bool sandbox;		/* the runner sandboxes the command (mail readers) */
	/*
	 * ... and shows it the cache, read-only: check reads the trusted
	 * checkpatch.pl copies, the call index and the fallback mm.git there
	 */
	bool reads_cache;
	/*
	 * What else its command is given: the thread around the version's
	 * mail (apply: the trailers of the replies); a quarantine for the
	 * objects it writes, which the runner takes in (--quarantine:
	 * apply); the repository's remotes fetched by the runner first, the
	 * sandbox having no network (--no-fetch: apply); why the tree may
	 * lack commits the series names (--stale-tree: check); a directory
	 * for its make logs (--log-dir: build); the first of the arches the
	 * daemon tests, whose repair the others' complement (--first-arch:
	 * build)
	 */
	bool mbox_thread, quarantine, fetches, stale_tree, log_dir, first_arch;
	/*
	 * The version its document says it is about, which must be the
	 * job's (NULL: the document does not say; the mail readers do)
	 */
	const char *(*doc_version)(struct json_object *doc);

	/* its result, and the version's state (report_state()) */
	unsigned int statuses;	/* ST() the result may have */
	/* the version's state when the result has one of these statuses */
	const char *fails;	/* "apply-failed", ... or NULL */
	unsigned int fail_on;	/* statuses that fail the version */
	unsigned int fail_on_findings;	/* ... when it counted findings */
	bool findings;		/* its findings make the state "findings" */

	/*
	 * Its document (lorebot <command> --json), as the results table
	 * keeps it (bot/results/results.h), one per arch when per_arch: the keys
	 * the contract asks of it, checked before summarise() (a per-arch
	 * document must name its "arch"), and whether it must say its
	 * status (one of statuses; "infra" ends the checks, with the
	 * document's "infra" or "message" as the reason).
	 */
	const struct stage_key *keys;	/* ends with { NULL } */
	bool status_required;
	/*
	 * The result's status, one line for people and the count of what a
	 * reply would report, from a document that passed the checks; 0, or
	 * -1 with what is wrong in err (results_bad()).  NULL: the status
	 * the document says, and its new findings counted
	 * (results_summarise_findings()).
	 */
	int (*summarise)(struct json_object *doc, struct result *r, struct strbuf *err);

	/*
	 * Its findings (the document's "findings" list, bot/results/contract.h), as
	 * replies, answers and the dashboard read them.  old_findings: its
	 * findings include what the base has too ("new": false), which
	 * count for nothing.  finding_rule(): the rule an answer "lorebot:
	 * ignore RULE" names (NULL: the finding's "rule").  finding_id():
	 * the text report_finding_id() hashes, what makes a finding the
	 * same in another version (NULL: report_id_text() of its rule).
	 */
	bool old_findings;
	const char *(*finding_rule)(struct json_object *f);
	void (*finding_id)(struct json_object *f, struct strbuf *sb);

	/*
	 * What the dashboard shows of it (bot/web/dash-html.c), with dash set:
	 * its result's badge, the summary as its title, in the index's
	 * apply column, or for a per-arch stage beside each arch; on the
	 * series page a line of its own with the summary, or a column of
	 * the archs' table with what page_details() adds (boot: the tests
	 * that failed), and in the table's last column the links to its
	 * logs, or what page_links() gives instead (build: the compiler
	 * and the .config too).  Its findings, with findings set, are
	 * listed under the patches they are about.
	 */
	bool dash;
	void (*page_details)(struct strbuf *sb, const struct report_version *v,
			     const struct result *r);
	void (*page_links)(struct strbuf *sb, const struct result *r);

	/*
	 * What a reply shows of it.  apply, check, build and boot have
	 * sections of their own (bot/report/report-body.c), in the reply's order
	 * of severity; a stage with reply set earns the section "findings"
	 * of the reply (templates/reply-findings.txt) when a result of it
	 * counts findings (summarise()) and one is new and dismissed by no
	 * answer: under the result's summary, a line for each such finding
	 * (report_finding_line(), with its id), and the command that does
	 * it again.
	 */
	bool reply;
	/*
	 * apply, check, build and boot: the variables of the reply their
	 * kind heads (templates/reply-<name>.txt), and of their section
	 * after another's (bot/report/report-body.c)
	 */
	void (*section_vars)(struct report_ctx *c);

	/*
	 * Its verdicts per patch, as patchwork's checks and b4 read them
	 * (bot/report/pcheck.h): the context's name ("lorebot-review";
	 * a per-arch stage's ends in "-<arch>"), and what pcheck_derive()
	 * makes of a result, the pcheck_*() of bot/report/pcheck.h.  NULL:
	 * the stage has no check.  pcheck_tip: while it is still to run,
	 * only the last patch's check is pending (boot: the tip is what is
	 * booted), not every patch's.
	 */
	const char *pcheck_context;
	void (*pchecks)(const struct report_version *v, const struct report_opts *o,
			const struct result *r, struct pchecks *out);
	bool pcheck_tip;

	/*
	 * What a reply's permanent record (bot/report/report-snap.c) keeps
	 * of a result.  snap_findings() adds to out, a JSON array, an entry
	 * for each thing of r the reply being composed mails (a finding of
	 * the document as report_snap_finding() writes it), and says whether
	 * the reply is about r (it added one; boot: or the kernel did not
	 * boot), which for a per-arch stage records the arch's entry.
	 * NULL: with reply set, the new findings of the section "findings".
	 * snap_arch() adds to the arch's entry, o, what r says of how it was
	 * done (build: config, compiler, make; boot: qemu, cmdline), after
	 * the status of each per-arch stage; NULL: nothing.
	 */
	bool (*snap_findings)(const struct report_ctx *c, const struct result *r,
			      struct json_object *out);
	void (*snap_arch)(struct json_object *o, const struct result *r);

	/* what its results are in KCIDB (STAGE_KCIDB_NONE: nothing) */
	enum stage_kcidb kcidb;
};

/* A top-level key of a stage's document, as the contract has it */
enum stage_key_type {
	STAGE_KEY_LIST,		/* a list of objects */
	STAGE_KEY_STR,
	STAGE_KEY_OBJ,
};

struct stage_key {
	const char *key;	/* RK_() of bot/results/contract.h */
	enum stage_key_type type;
	bool required;		/* unless the status is "infra" */
};

/*
 * The stage layer's table, by enum stage: registered once, before the
 * first plan_stage() (stage_register()).  t is kept, not copied.
 */
void plan_register(const struct stage_ops *const *t);
/* The descriptor of stage s (< STAGE_NR); aborts when none was registered */
const struct stage_ops *plan_stage(enum stage s);

const char *plan_stage_name(enum stage s);
/* 0, or -1 for a name that is not a stage */
int plan_stage_parse(const char *name, enum stage *s);
/* Is s recorded per architecture? */
static inline bool plan_per_arch(enum stage s)
{
	return s < STAGE_NR && plan_stage(s)->per_arch;
}

const char *plan_status_name(enum status s);
/* STATUS_NONE for an unknown word */
enum status plan_status_parse(const char *word);
/* May a result of stage s have status st? */
bool plan_has_status(enum stage s, enum status st);

/*
 * The plan: what each stage (per arch where it is per arch) of a version
 * needs, derived from the version's results.
 */
#define PLAN_MAX_ARCHS 8

enum need {
	NEED_WAIT,		/* what it follows has not ended */
	NEED_RUN,		/* may run now */
	NEED_DONE,		/* its result is recorded */
	NEED_SKIP,		/* not for this version (what it follows rules it out) */
};

struct plan_cfg {
	const char *const *archs;	/* built and booted */
	size_t nr_archs;		/* at most PLAN_MAX_ARCHS are planned */
	bool boot;			/* boot.enable */
};

/* One recorded result, as the plan needs it */
struct plan_result {
	enum stage stage;
	const char *arch;	/* "" when not per arch */
	enum status status;
	int findings;
};

struct plan {
	enum need need[STAGE_NR][PLAN_MAX_ARCHS];	/* [s][0] when not per arch */
	size_t nr_archs;
	bool ended;		/* every stage but the reply done or skipped */
	bool started;		/* some result is recorded */
};

void plan_make(const struct plan_result *rs, size_t nr, const struct plan_cfg *c,
	       struct plan *p);
/* Does stage s (for arch index a) need anything more?  (done or skipped) */
static inline bool plan_ended(const struct plan *p, enum stage s, size_t a)
{
	enum need n = p->need[s][plan_per_arch(s) ? a : 0];

	return n == NEED_DONE || n == NEED_SKIP;
}
/* Has every arch of s ended? */
bool plan_all_ended(const struct plan *p, enum stage s);

#endif
