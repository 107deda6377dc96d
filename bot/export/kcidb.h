/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KernelCI's common reporting database (KCIDB), I/O schema v5.3
 * (tests/fixtures/kcidb/kcidb.v5.3.json): a series version as one
 * checkout, a build per arch, and tests per boot:
 *
 *	checkout  <origin>:<version id>: the base commit (git_commit_hash,
 *	          git_repository_branch, git_repository_url from git.url), the
 *	          patches (patchset_files: their raw mails on the list's
 *	          archive; patchset_hash: sha256 over the newline-terminated
 *	          sha256 of each, in order, as the schema defines it),
 *	          message_id, valid (false when a patch did not apply)
 *	build     <checkout id>:<arch>: architecture, config_name, compiler,
 *	          command (the make lines), status PASS (built; new warnings
 *	          counted in misc), FAIL (new errors), MISS (infrastructure)
 *	test      <build id>:<path>: "boot" (PASS booted, FAIL did not, MISS
 *	          infrastructure), "kselftest.mm.<name>" per kselftest (pass,
 *	          fail, skip as PASS, FAIL, SKIP; flaky, a failure that passed
 *	          when run again, as PASS with misc.flaky: the schema has no
 *	          such status and lorebot does not count it a failure),
 *	          "boot.kernel_report" per kernel report (FAIL, its text)
 *
 * Which stages' results are builds and which are tests is the
 * descriptors' (struct stage_ops kcidb, bot/results/plan.h): build's are
 * builds, boot's tests of the build (a new stage of tests has the test
 * named after it, and its reports under that name too).  Only what
 * ended is written: a stage still to run has no object.
 */
#ifndef LOREBOT_KCIDB_H
#define LOREBOT_KCIDB_H

#include <json-c/json.h>

#include "bot/report/report.h"

#define KCIDB_MAJOR 5
#define KCIDB_MINOR 3

/* {"version": {"major": 5, "minor": 3}, "checkouts": [], "builds": [], "tests": []} */
json_object *kcidb_doc_new(void);

/*
 * Add version v's objects to doc (kcidb_doc_new()); the raw patches are
 * read from st for the patchset hash.  0, or -1 with err (a bad
 * kcidb.origin, the database).
 */
int kcidb_add_version(struct store *st, const struct report_version *v,
		      const struct report_opts *o, json_object *doc, struct strbuf *err);

/*
 * Every live version with a result recorded since `since` (unix seconds;
 * 0: any), or only those of series or version `only` (NULL: all), into
 * doc.  The number of versions, or -1 with err.
 */
int kcidb_export(struct store *st, const struct report_opts *o, int64_t since,
		 const char *only, json_object *doc, struct strbuf *err);

/* Is kcidb.dir or kcidb.url set? */
bool kcidb_enabled(const struct config *cfg);

/*
 * When version's pipeline ended (its reply job): its document written to
 * kcidb.dir/<version>.json (atomically) and POSTed to kcidb.url with
 * "Authorization: Bearer <kcidb.tokenfile>" (up to 3 attempts over
 * transient failures).  What was done is appended to log; 0, or -1 with
 * err.
 */
int kcidb_publish(struct store *st, const struct report_opts *o, const char *version,
		  struct strbuf *log, struct strbuf *err);

/* Is s a valid origin (^[a-z0-9_]+$)? */
bool kcidb_origin_valid(const char *s);

#endif
