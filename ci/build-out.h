/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build results as JSON (the contract: {"archs": [{"arch", "status",
 * "findings": [{"patch", "file", "line", "severity", "message", "new",
 * ...}], ...}], ...}) and as text for people, diagnostics in compiler
 * format.
 */
#ifndef LOREBOT_CI_BUILD_OUT_H
#define LOREBOT_CI_BUILD_OUT_H

#include <json-c/json.h>

#include "ci/buildjob.h"

json_object *build_job_to_json(const struct build_job *job);
void build_job_to_text(const struct build_job *job, struct strbuf *sb);
/* The worst status over all archs, for the exit code */
enum build_status build_job_status(const struct build_job *job);
/*
 * Did its archs together compile less of the change than
 * build.mincoverage (or an arch measure nothing)?  Whatever the status
 * says: warnings come before partial there.
 */
bool build_job_compiled_too_little(const struct build_job *job);

#endif
