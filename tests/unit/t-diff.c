// SPDX-License-Identifier: GPL-2.0
/* The diff model's hunks: the blocks of changed lines (diff_hunk_block()) */
#include "bot/git/diff.h"
#include "tests/unit/tap.h"

/*
 * The block around line k of a hunk whose lines are of the kinds given
 * (" --+ + ": context, two removed, one added, ...), as "first-end",
 * or "none at first-end" when there is none
 */
static const char *block(const char *kinds, size_t k)
{
	static char buf[64];
	struct diff_line lines[32];
	struct diff_hunk h = { .lines = lines, .nr = strlen(kinds) };
	size_t i, first = 99, end = 99;
	bool found;

	for (i = 0; i < h.nr; i++)
		lines[i] = (struct diff_line){ .kind = kinds[i], .text = "", .len = 0 };
	found = diff_hunk_block(&h, k, &first, &end);
	if (found != (first < end))
		return "a return that does not match the block";
	snprintf(buf, sizeof(buf), "%s%zu-%zu", found ? "" : "none at ", first, end);
	return buf;
}

static void test_blocks(void)
{
	const char *h = " --+ + ";

	is_str(block(h, 0), "none at 0-0", "context line: no block");
	is_str(block(h, 1), "1-4", "first removed line: the whole -/+ run");
	is_str(block(h, 2), "1-4", "inner removed line: the same run");
	is_str(block(h, 3), "1-4", "added line after the removals: the same run");
	is_str(block(h, 4), "none at 4-4", "context between runs: no block");
	is_str(block(h, 5), "5-6", "lone added line: a block of one");
	is_str(block(h, 6), "none at 6-6", "trailing context: no block");
	is_str(block(h, 7), "none at 7-7", "past the end: no block");
	is_str(block(h, 100), "none at 100-100", "far past the end: no block");
}

static void test_edges(void)
{
	is_str(block("-+-+", 0), "0-4", "block at the hunk's start runs to its end");
	is_str(block("-+-+", 3), "0-4", "block at the hunk's end runs back to its start");
	is_str(block("++ --+", 1), "0-2", "additions at the start stop at the context");
	is_str(block("++ --+", 3), "3-6", "the run after the context is its own");
	is_str(block("+", 0), "0-1", "a hunk of one added line");
	is_str(block("", 0), "none at 0-0", "an empty hunk has no block");
}

int main(void)
{
	test_blocks();
	test_edges();
	return done_testing();
}
