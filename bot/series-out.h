/* SPDX-License-Identifier: GPL-2.0 */
/* Series as JSON (the contract scripts rely on) and as text for people */
#ifndef LOREBOT_SERIES_OUT_H
#define LOREBOT_SERIES_OUT_H

#include <json-c/json.h>

#include "bot/series.h"

/* One series version (send) as a JSON object */
json_object *send_to_json(const struct send *s);
/* {"series": [...], "problems": [...]} for a whole assembly */
json_object *assembly_to_json(const struct assembly *a);
void assembly_to_text(const struct assembly *a, struct strbuf *sb);

/* Print a JSON object to stdout, pretty, with a newline */
void json_print(json_object *o);

#endif
