/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys of the stage documents (lorebot apply, check, build and boot
 * --json) and of the version objects of `lorebot series --json`, written
 * down once.  Producers add members under the rk_* names, readers read
 * them through the rd_* accessors, so a key renamed here is a compile
 * error in every file that writes or reads it.
 *
 * CONTRACT_KEYS(X) lists X(object, member, "key", TYPE):
 *	STR	const char *rd_<object>_<member>(o), NULL when absent;
 *		rd_<object>_<member>_z(o) "" when absent
 *	INT	int64_t rd_<object>_<member>(o, def)
 *	BOOL	bool rd_<object>_<member>(o, def)
 *	ARR	json_object *rd_<object>_<member>(o) (an array or NULL),
 *		size_t rd_<object>_<member>_len(o)
 *	OBJ	json_object *rd_<object>_<member>(o) (an object or NULL)
 *	ANY	json_object *rd_<object>_<member>(o) (any value or NULL)
 * Values are read as jsonx.h reads them: a key of the wrong type reads
 * as absent.
 *
 * Objects: doc (a stage document; for build and boot the stored arch
 * object, which has the document's other top-level keys copied in),
 * base (apply's chosen base), patch (apply's per-patch result), hunk (a
 * hunk that failed), tree and line (what the tree has where it failed),
 * try (a base apply tried), finding (check, build and boot findings),
 * test (a kselftest), culprit (the patch bisection found for a boot
 * finding), confirm and runs (how often it showed on the tip and the
 * base), ver (a series version), vpatch (its patches), person (an
 * author); fetch (what lorebot fetch --json prints for the daemon), flist
 * (a list's fetch), fver (a version it changed), answer (an answer to
 * lorebot's mail it read).
 */
#ifndef LOREBOT_CONTRACT_H
#define LOREBOT_CONTRACT_H

#include "lib/jsonx.h"

#define CONTRACT_KEYS(X)						\
	/* the stage documents */					\
	X(doc, send, "send", STR)	/* apply: the version id it is about */ \
	X(doc, sends, "series", ARR)	/* check: the versions checked */ \
	X(doc, base, "base", OBJ)	/* apply: the base chosen */	\
	X(doc, base_rev, "base", STR)	/* check: the tree it read */	\
	X(doc, branch, "branch", STR)					\
	X(doc, tip, "tip", STR)		/* apply: the branch's commit */	\
	X(doc, patches, "patches", ARR)					\
	X(doc, attempts, "attempts", ARR)				\
	X(doc, applied, "applied", BOOL)				\
	X(doc, findings, "findings", ARR)				\
	X(doc, archs, "archs", ARR)					\
	X(doc, arch, "arch", STR)					\
	X(doc, status, "status", STR)					\
	X(doc, message, "message", STR)	/* boot, apply and check: why infra */ \
	X(doc, infra, "infra", STR)	/* build: why infra */		\
	X(doc, tests, "tests", ARR)					\
	X(doc, compiler, "compiler", ANY)	/* a string or {name} */	\
	X(doc, config, "config", ANY)					\
	X(doc, profile, "profile", ANY)					\
	X(doc, log, "log", STR)						\
	X(doc, log_path, "log_path", STR)				\
	X(doc, logfile, "logfile", STR)					\
	X(doc, config_file, "config_file", STR)	/* build: its .config */ \
	X(doc, make, "make", ARR)	/* build: make lines without lorebot */ \
	X(doc, make_checks, "make_checks", ARR)	/* build: then W=1's, the checkers' */ \
	X(doc, qemu, "qemu", STR)	/* boot: its qemu command line */ \
	X(doc, cmdline, "cmdline", STR)	/* boot: the kernel command line */ \
	X(doc, flaky, "flaky", ARR)	/* boot: what was not confirmed */ \
	X(base, name, "name", STR)					\
	X(base, sha, "sha", STR)					\
	X(base, reason, "reason", STR)					\
	X(base, commit_unknown, "base_commit_unknown", BOOL)		\
	X(patch, n, "n", INT)						\
	X(patch, total, "total", INT)					\
	X(patch, subject, "subject", STR)				\
	X(patch, msgid, "msgid", STR)					\
	X(patch, status, "status", STR)					\
	X(patch, method, "method", STR)					\
	X(patch, commit, "commit", STR)					\
	X(patch, file, "file", STR)					\
	X(patch, hunk, "hunk", STR)					\
	X(patch, message, "message", STR)				\
	X(patch, failures, "failures", ARR)				\
	X(patch, alone, "would_apply_alone", ANY)	/* true, false or null */ \
	X(hunk, file, "file", STR)					\
	X(hunk, header, "hunk", STR)					\
	X(hunk, line, "line", INT)					\
	X(hunk, message, "message", STR)				\
	X(hunk, excerpt, "excerpt", STR)				\
	X(hunk, tree, "tree", OBJ)					\
	X(tree, lines, "lines", ARR)					\
	X(tree, matched, "matched", INT)	/* hunk lines found there */	\
	X(tree, total, "total", INT)		/* of the hunk's lines */	\
	X(line, kind, "kind", STR)					\
	X(line, no, "line", INT)					\
	X(line, text, "text", STR)					\
	X(try, name, "name", STR)					\
	X(try, sha, "sha", STR)						\
	X(try, outcome, "outcome", STR)					\
	X(finding, rule, "rule", STR)					\
	X(finding, severity, "severity", STR)				\
	X(finding, patch, "patch", INT)					\
	X(finding, file, "file", STR)					\
	X(finding, line, "line", INT)					\
	X(finding, column, "column", INT)				\
	X(finding, message, "message", STR)				\
	X(finding, suggestion, "suggestion", STR)			\
	X(finding, quote, "quote", STR)					\
	X(finding, is_new, "new", BOOL)					\
	X(finding, raw, "raw", STR)					\
	X(finding, output, "output", STR)				\
	X(finding, kind, "kind", STR)					\
	X(finding, trace, "trace", STR)					\
	X(finding, log, "log", STR)					\
	X(finding, test, "test", STR)					\
	X(finding, function, "function", STR)	/* check, build */	\
	X(finding, option, "option", STR)	/* build: -Wfoo */	\
	X(finding, style, "style", BOOL)	/* build: a style rule's */ \
	X(finding, title, "title", STR)	/* boot: a report's title */	\
	X(finding, culprit, "culprit", OBJ)	/* boot: bisection */	\
	X(finding, confirm, "confirm", OBJ)	/* boot: {tip, base, runs} */ \
	X(finding, why, "why", STR)	/* boot, flaky: why not counted */ \
	X(culprit, patch, "patch", INT)					\
	X(culprit, subject, "subject", STR)				\
	X(culprit, suspect, "suspect", BOOL)				\
	X(culprit, boots, "boots", INT)					\
	X(culprit, why, "why", STR)					\
	X(confirm, tip, "tip", OBJ)					\
	X(confirm, base, "base", OBJ)					\
	X(runs, runs, "runs", INT)					\
	X(runs, bad, "bad", INT)					\
	X(test, name, "name", STR)					\
	X(test, result, "result", STR)					\
	X(test, is_new, "new", BOOL)					\
	/* the version objects of lorebot series --json */		\
	X(ver, patches, "patches", ARR)					\
	X(vpatch, n, "n", INT)						\
	X(vpatch, msgid, "msgid", STR)					\
	X(vpatch, subject, "subject", STR)				\
	X(vpatch, title, "title", STR)					\
	X(vpatch, author, "author", OBJ)				\
	X(person, name, "name", STR)					\
	X(person, email, "email", STR)					\
	X(named, name, "name", STR)	/* {name: ...} of compiler, config */ \
	/* lorebot fetch --json, which the daemon's fetch pass reads */ \
	X(fetch, lists, "lists", ARR)	/* a flist per list fetched */	\
	X(fetch, versions, "versions", ARR)	/* fver: new or changed */ \
	X(fetch, answers, "answers", ARR)				\
	X(flist, status, "status", STR)	/* fetch_status_name() */	\
	X(flist, added, "new", INT)	/* messages new to the store */	\
	X(flist, failures, "failures", INT)	/* failed polls in a row */ \
	X(flist, next_poll, "next_poll", INT)	/* unix seconds, or null */ \
	X(flist, error, "error", STR)					\
	X(fver, id, "id", STR)						\
	X(answer, msgid, "msgid", STR)	/* a reply to lorebot's mail */	\
	X(answer, from, "from", STR)					\
	X(answer, command, "command", STR)				\
	X(answer, outcome, "outcome", STR)	/* RD_ANSWER_* */	\
	X(answer, why, "why", STR)					\
	/* build: the changed lines compiled (ci/cover-run.h) */	\
	X(doc, coverage, "coverage", OBJ)				\
	X(cover, changed, "changed", INT)				\
	X(cover, compiled, "compiled", INT)				\
	X(cover, other_arch, "other_arch", INT)				\
	X(cover, measured, "measured", BOOL)				\
	X(cover, mincoverage, "mincoverage", INT)			\
	X(cover, error, "error", STR)					\
	X(cover, uncompiled, "uncompiled", ARR)				\
	X(cover, repair, "repair", OBJ)					\
	X(cover, files, "files", ARR)					\
	X(range, patch, "patch", INT)					\
	X(range, file, "file", STR)					\
	X(range, from, "from", INT)					\
	X(range, to, "to", INT)						\
	X(range, lines, "lines", INT)					\
	X(range, spans, "spans", STR)	/* the counted lines: "3-5,9" */ \
	X(range, reason, "reason", STR)					\
	X(range, needs, "needs", ARR)					\
	X(range, arch, "arch", BOOL)	/* another arch's code */	\
	X(range, arches, "arches", ARR)	/* ... of these (arch/ dirs) */	\
	X(repair, used, "used", BOOL)					\
	X(repair, profile, "profile", STR)				\
	X(repair, config, "config", ARR)				\
	X(repair, failed, "failed", ARR)				\
	X(repair, note, "note", STR)					\
	X(rfail, symbol, "symbol", STR)					\
	X(rfail, reason, "reason", STR)					\
	X(rfail, arch, "arch", BOOL)					\
	X(rfail, off, "off", BOOL)	/* asked off, stayed on */

/* Values of the keys above that readers compare against */
#define RD_PATCH_APPLIED	"applied"	/* patch.status */
#define RD_PATCH_FAILED		"failed"
#define RD_PATCH_SKIPPED	"skipped"
#define RD_SEV_ERROR		"error"		/* finding.severity */
#define RD_SEV_FATAL		"fatal error"
#define RD_SEV_WARNING		"warning"
#define RD_SEV_NOTE		"note"
#define RD_TEST_PASS		"pass"		/* test.result */
#define RD_TEST_FAIL		"fail"
#define RD_TEST_FLAKY		"flaky"
#define RD_ANSWER_DONE		"done"		/* answer.outcome */
#define RD_ANSWER_IGNORED	"ignored"

#define RK_(obj, m) rk_##obj##_##m
#define RD_(obj, m) rd_##obj##_##m

#define RD_DECL_STR(obj, m)						\
	static inline const char *RD_(obj, m)(json_object *o)		\
	{ return jx_str(o, RK_(obj, m)); }				\
	static inline const char *rd_##obj##_##m##_z(json_object *o)	\
	{ return jx_strz(o, RK_(obj, m)); }
#define RD_DECL_INT(obj, m)						\
	static inline int64_t RD_(obj, m)(json_object *o, int64_t def)	\
	{ return jx_int(o, RK_(obj, m), def); }
#define RD_DECL_BOOL(obj, m)						\
	static inline bool RD_(obj, m)(json_object *o, bool def)	\
	{ return jx_bool(o, RK_(obj, m), def); }
#define RD_DECL_ARR(obj, m)						\
	static inline json_object *RD_(obj, m)(json_object *o)		\
	{ return jx_array(o, RK_(obj, m)); }				\
	static inline size_t rd_##obj##_##m##_len(json_object *o)	\
	{ return jx_len(o, RK_(obj, m)); }
#define RD_DECL_OBJ(obj, m)						\
	static inline json_object *RD_(obj, m)(json_object *o)		\
	{ return jx_object(o, RK_(obj, m)); }
#define RD_DECL_ANY(obj, m)						\
	static inline json_object *RD_(obj, m)(json_object *o)		\
	{ return jx_get(o, RK_(obj, m)); }

#define RD_DECL(obj, m, key, type)					\
	static const char RK_(obj, m)[] = key;				\
	RD_DECL_##type(obj, m)

CONTRACT_KEYS(RD_DECL)

/* The i-th item of an array value (NULL past its end) */
static inline json_object *rd_at(json_object *arr, size_t i)
{
	return arr && i < json_object_array_length(arr) ?
		json_object_array_get_idx(arr, i) : NULL;
}

/* A member that is a string, or an object with a "name" (compiler, config) */
static inline const char *rd_name_of(json_object *v)
{
	if (v && json_object_is_type(v, json_type_object))
		return rd_named_name(v);
	return v && json_object_is_type(v, json_type_string) ?
		json_object_get_string(v) : NULL;
}

#endif
