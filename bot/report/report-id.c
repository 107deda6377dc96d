// SPDX-License-Identifier: GPL-2.0
/* Finding ids that stay the same across versions of a series; see report.h */
#include <ctype.h>
#include <stdio.h>

#include "bot/results/contract.h"
#include "bot/report/report.h"

/* text with its white space runs as one space; digit runs as '#' if asked */
static void add_normal(struct strbuf *sb, const char *s, bool digits)
{
	bool space = false;

	for (; s && *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = true;
			continue;
		}
		if (space && sb->len && sb->buf[sb->len - 1] != '\n')
			strbuf_addch(sb, ' ');
		space = false;
		if (digits && isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)s[1]))
				s++;
			strbuf_addch(sb, '#');
			continue;
		}
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\n');
}

void report_id_text(struct strbuf *sb, const char *key, json_object *f)
{
	strbuf_addf(sb, "%s\n%s\n%s\n", key, rd_finding_file_z(f), rd_finding_function_z(f));
	if (rd_finding_quote(f))
		add_normal(sb, rd_finding_quote(f), false);
	else
		add_normal(sb, rd_finding_message(f), true);
}

void report_id_add(struct strbuf *sb, const char *text)
{
	add_normal(sb, text, true);
}

void report_finding_id(enum stage stage, json_object *f, char id[REPORT_ID_LEN + 1])
{
	struct strbuf sb = STRBUF_INIT;
	char hex[17];

	if (stage < STAGE_NR && plan_stage(stage)->finding_id)
		plan_stage(stage)->finding_id(f, &sb);
	else
		report_id_text(&sb, rd_finding_rule_z(f), f);
	util_hash_hex(sb.buf, sb.len, hex);
	memcpy(id, hex, REPORT_ID_LEN);
	id[REPORT_ID_LEN] = '\0';
	strbuf_release(&sb);
}

const char *report_finding_rule(enum stage stage, json_object *f)
{
	if (stage < STAGE_NR && plan_stage(stage)->finding_rule)
		return plan_stage(stage)->finding_rule(f);
	return rd_finding_rule(f);
}
