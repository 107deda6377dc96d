// SPDX-License-Identifier: GPL-2.0
/*
 * report_finding_id(): the same finding in another version has the
 * same id (its line moved, its quote re-indented); another rule, file,
 * function or code has another.
 */
#include "bot/report/report.h"
#include "bot/stage/stage.h"
#include "tests/unit/tap.h"

static void id_of(enum stage s, const char *json, char id[REPORT_ID_LEN + 1])
{
	json_object *f = json_tokener_parse(json);

	report_finding_id(s, f, id);
	json_object_put(f);
}

int main(void)
{
	char a[REPORT_ID_LEN + 1], b[REPORT_ID_LEN + 1];

	stage_register();
	id_of(STAGE_CHECK, "{\"rule\": \"atomic-sleep\", \"file\": \"mm/a.c\", \"line\": 62,"
	      " \"function\": \"walk\", \"quote\": \"\\t\\tcond_resched();\","
	      " \"message\": \"may sleep at line 60\"}", a);
	is_int((long long)strlen(a), 8, "8 hex digits");
	id_of(STAGE_CHECK, "{\"rule\": \"atomic-sleep\", \"file\": \"mm/a.c\", \"line\": 75,"
	      " \"function\": \"walk\", \"quote\": \"    cond_resched();\","
	      " \"message\": \"may sleep at line 73\"}", b);
	is_str(b, a, "another line, another indentation: the same id");
	id_of(STAGE_CHECK, "{\"rule\": \"atomic-sleep\", \"file\": \"mm/a.c\", \"line\": 62,"
	      " \"function\": \"other\", \"quote\": \"\\t\\tcond_resched();\"}", b);
	ok(strcmp(a, b), "another function: another id");
	id_of(STAGE_CHECK, "{\"rule\": \"atomic-sleep\", \"file\": \"mm/b.c\", \"line\": 62,"
	      " \"function\": \"walk\", \"quote\": \"\\t\\tcond_resched();\"}", b);
	ok(strcmp(a, b), "another file: another id");
	id_of(STAGE_CHECK, "{\"rule\": \"lock-assert\", \"file\": \"mm/a.c\", \"line\": 62,"
	      " \"function\": \"walk\", \"quote\": \"\\t\\tcond_resched();\"}", b);
	ok(strcmp(a, b), "another rule: another id");
	id_of(STAGE_CHECK, "{\"rule\": \"atomic-sleep\", \"file\": \"mm/a.c\", \"line\": 62,"
	      " \"function\": \"walk\", \"quote\": \"\\t\\tschedule();\"}", b);
	ok(strcmp(a, b), "other code: another id");

	id_of(STAGE_CHECK, "{\"rule\": \"codespell\", \"patch\": 2, \"line\": 6,"
	      " \"message\": \"'sigle' may be a typo\"}", a);
	id_of(STAGE_CHECK, "{\"rule\": \"codespell\", \"patch\": 2, \"line\": 9,"
	      " \"message\": \"'sigle' may be a typo\"}", b);
	is_str(b, a, "no quote: the message, and no line in it");

	id_of(STAGE_BUILD, "{\"severity\": \"warning\", \"option\": \"-Wunused-variable\","
	      " \"file\": \"mm/a.c\", \"line\": 3, \"function\": \"f\","
	      " \"message\": \"unused variable 'x'\"}", a);
	id_of(STAGE_BUILD, "{\"severity\": \"warning\", \"option\": \"-Wunused-variable\","
	      " \"file\": \"mm/a.c\", \"line\": 30, \"function\": \"f\","
	      " \"message\": \"unused variable 'x'\"}", b);
	is_str(b, a, "a build warning moved: the same id");

	id_of(STAGE_BOOT, "{\"kind\": \"kernel-warning\", \"test\": \"mm/madv_populate\","
	      " \"title\": \"WARNING in madvise_populate\","
	      " \"message\": \"new kernel warning: ... (mm/madvise.c:959)\"}", a);
	id_of(STAGE_BOOT, "{\"kind\": \"kernel-warning\", \"test\": \"mm/madv_populate\","
	      " \"title\": \"WARNING in madvise_populate\","
	      " \"message\": \"new kernel warning: ... (mm/madvise.c:961)\"}", b);
	is_str(b, a, "a boot report: by kind, title and test, not its line");
	id_of(STAGE_BOOT, "{\"kind\": \"kernel-warning\", \"test\": \"mm/cow\","
	      " \"title\": \"WARNING in madvise_populate\"}", b);
	ok(strcmp(a, b), "the same report during another test: another id");
	return done_testing();
}
