/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Apply results as JSON (the contract scripts rely on) and as text for
 * people, with diagnostics in compiler format for the failing hunks.
 *
 * JSON: {"base": {"name", "ref", "sha", "reason", "base_commit",
 * "base_commit_unknown"}, "attempts": [{"name", "origin", "sha",
 * "applied", "outcome"}], "branch" (or null), "applied", "tip", "tree",
 * "patches": [{"n", "total", "subject", "msgid", "status" (applied,
 * failed, skipped), "method" (exact, offset, fuzz, 3way, binary; null
 * unless applied), "commit", "file", "hunk", "message" (the first
 * failure; null when applied), "summary", "failures": [{"file", "hunk",
 * "message", "line", "excerpt", "tree": {"found", "start", "end",
 * "matched", "total", "lines": [{"kind", "line", "text"}]}}], "hunks":
 * [{"file", "hunk", "index", "applied", "method", "line", "offset"}],
 * "would_apply_alone" (skipped patches: true, false; else null),
 * "alone_failures": [{"file", "hunk", "message"}]}]}
 */
#ifndef LOREBOT_APPLY_OUT_H
#define LOREBOT_APPLY_OUT_H

#include <json-c/json.h>

#include "bot/apply/apply.h"

json_object *apply_result_to_json(const struct apply_result *res,
				  const char *base_commit);
void apply_result_to_text(const struct apply_result *res, struct strbuf *sb);

#endif
