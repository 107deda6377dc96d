/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of HTML the dashboard's pages share with the stages'
 * page_details() and page_links() (bot/stage/stage.h), below both: a badge
 * coloured by status word (title: its tooltip, default the word; label:
 * what it shows, default the word); a finding as an item of a list, its
 * id and whether an answer dismissed it; the link to the log a result
 * names (nothing without one, or without r).
 */
#ifndef LOREBOT_HTML_H
#define LOREBOT_HTML_H

#include <json-c/json.h>

#include "bot/report/report.h"

/* The CSS class of a status word's colour ("s-good", ...; "s-mute" unknown) */
const char *html_status_class(const char *word);
void html_badge_label(struct strbuf *sb, const char *word, const char *label,
		      const char *title);
void html_badge(struct strbuf *sb, const char *word, const char *title);
void html_finding_li(struct strbuf *sb, const struct report_version *v, enum stage stage,
		     json_object *f, const char *arch);
void html_log_link(struct strbuf *sb, const struct result *r);

#endif
