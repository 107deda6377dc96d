/* SPDX-License-Identifier: GPL-2.0 */
/* Series as JSON (the contract scripts rely on) and as text for people */
#ifndef LOREBOT_SERIES_OUT_H
#define LOREBOT_SERIES_OUT_H

#include <json-c/json.h>
#include <stdio.h>

#include "bot/series/series.h"

struct jsonw;

/* One series version (send) as a JSON object (the "series" items) */
void series_send_write_json(struct jsonw *w, const struct send *s);
/*
 * {"series": [...], "messages": N, "problems": [...]} for a whole
 * assembly, written one version at a time (flat memory for large input)
 */
void series_print_json(const struct assembly *a, FILE *f);
void series_send_to_text(const struct send *s, struct strbuf *sb);
void series_print_text(const struct assembly *a, FILE *f);

#endif
