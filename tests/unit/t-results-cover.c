// SPDX-License-Identifier: GPL-2.0
/*
 * bot/results/results-cover.c: the changed lines compiled on at least one arch,
 * from the arch objects of a build: a line only one arch left out is
 * compiled, a line every arch left out is not, with each arch's reason;
 * an arch that did not measure does not count; the line for people.
 */
#include <stdlib.h>

#include "lib/jsonx.h"
#include "bot/results/results.h"
#include "tests/unit/tap.h"

static json_object *arch(const char *name, const char *cover)
{
	char *text = xasprintf("{\"arch\": \"%s\", \"status\": \"ok\", \"coverage\": %s}",
			       name, cover);
	json_object *o = json_tokener_parse(text);

	free(text);
	return o;
}

int main(void)
{
	json_object *a[4];
	struct results_cover c;
	struct strbuf sb = STRBUF_INIT;

	/* x86_64 left out 10-12 and 20 of mm/a.c; arm64 11-12 and 30 */
	a[0] = arch("x86_64", "{\"measured\": true, \"changed\": 40, \"compiled\": 36,"
		    "\"uncompiled\": ["
		    "{\"patch\": 1, \"file\": \"mm/a.c\", \"from\": 10, \"to\": 12, \"spans\": \"10-12\","
		    " \"reason\": \"inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA\"},"
		    "{\"patch\": 1, \"file\": \"mm/a.c\", \"from\": 20, \"to\": 20, \"spans\": \"20\","
		    " \"reason\": \"inside #ifdef CONFIG_X\"}]}");
	a[1] = arch("arm64", "{\"measured\": true, \"changed\": 40, \"compiled\": 37,"
		    "\"uncompiled\": ["
		    "{\"patch\": 1, \"file\": \"mm/a.c\", \"from\": 11, \"to\": 12, \"spans\": \"11-12\","
		    " \"reason\": \"inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA\"},"
		    "{\"patch\": 1, \"file\": \"mm/a.c\", \"from\": 30, \"to\": 30, \"spans\": \"30\","
		    " \"reason\": \"r\"}]}");
	/* riscv did not measure: it does not count */
	a[2] = arch("riscv", "{\"measured\": false, \"changed\": 40, \"compiled\": 0}");
	a[3] = arch("old", "null");
	results_cover_union(a, 4, &c);
	is_int(c.archs, 2, "two archs measured");
	is_int(c.changed, 40, "40 changed lines");
	is_int(c.missed, 2, "11 and 12: left out by both");
	is_int(c.compiled, 38, "38 compiled on at least one arch");
	is_int(json_object_array_length(c.uncompiled), 1, "one range");
	is_str(jx_strz(json_object_array_get_idx(c.uncompiled, 0), "spans"), "11-12", "its lines");
	is_str(jx_strz(jx_object(json_object_array_get_idx(c.uncompiled, 0), "reasons"), "arm64"),
	       "inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA", "arm64's reason");
	results_cover_line(&c, &sb, 3);
	is_str(sb.buf, "compiled 38 of 40 changed lines (95%) on at least one arch; not compiled: "
	       "mm/a.c:11-12 (inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA)",
	       "the line: one reason when the archs agree");
	results_cover_release(&c);

	/* one arch alone: all it left out; reasons differ per arch when two disagree */
	strbuf_reset(&sb);
	results_cover_union(a + 1, 1, &c);
	is_int(c.missed, 3, "arm64 alone: 3 lines");
	is_int(json_object_array_length(c.uncompiled), 2, "two ranges");
	results_cover_line(&c, &sb, 1);
	is_str(sb.buf, "compiled 37 of 40 changed lines (92%) on at least one arch; not compiled: "
	       "mm/a.c:11-12 (inside #ifdef CONFIG_NUMA: needs CONFIG_NUMA); and 1 more range",
	       "rounded down, at most max ranges");
	results_cover_release(&c);
	strbuf_reset(&sb);
	results_cover_union(a + 2, 2, &c);
	results_cover_line(&c, &sb, 3);
	is_str(sb.buf, "the changed lines compiled were not measured", "nothing measured");
	results_cover_release(&c);

	/*
	 * riscv alone: x86 code (lorebot builds x86_64, not this time) is
	 * excused from the verdict; powerpc code (never built) is not
	 */
	json_object_put(a[2]);
	a[2] = arch("riscv", "{\"measured\": true, \"changed\": 10, \"compiled\": 6,"
		    "\"uncompiled\": ["
		    "{\"patch\": 1, \"file\": \"arch/x86/mm/a.c\", \"from\": 1, \"to\": 3,"
		    " \"spans\": \"1-3\", \"reason\": \"arch/x86 code\", \"arch\": true,"
		    " \"arches\": [\"x86\"]},"
		    "{\"patch\": 1, \"file\": \"mm/b.c\", \"from\": 5, \"to\": 5, \"spans\": \"5\","
		    " \"reason\": \"powerpc's\", \"arch\": true, \"arches\": [\"powerpc\"]}]}");
	strbuf_reset(&sb);
	results_cover_union(a + 2, 1, &c);
	is_int(c.excused, 3, "the 3 lines of x86 code are excused");
	ok(!results_cover_below(&c, 85), "6 of 7 (85 percent): not below 85");
	ok(results_cover_below(&c, 90), "but below 90: the powerpc line counts");
	results_cover_line(&c, &sb, 0);
	is_str(sb.buf, "compiled 6 of 10 changed lines (60%) on at least one arch; "
	       "3 not compiled are x86 code, an arch not built here", "the line says so");
	results_cover_release(&c);

	json_object_put(a[0]);
	json_object_put(a[1]);
	json_object_put(a[2]);
	json_object_put(a[3]);
	strbuf_release(&sb);
	return done_testing();
}
