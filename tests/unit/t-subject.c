// SPDX-License-Identifier: GPL-2.0
/* Subject tag parsing: the forms seen on linux-mm and friends */
#include <stdlib.h>
#include <string.h>

#include "bot/mail/patch.h"
#include "bot/mail/subject.h"
#include "tests/unit/tap.h"

/* git's cleanup_subject() (git am, mailinfo): each with and without -b */
static const struct {
	const char *in, *plain, *keep;
} clean_cases[] = {
	{ "[PATCH v2 1/3] mm: x", "mm: x", "mm: x" },
	{ "Re: [PATCH] re: RE:x", "x", "x" },
	{ "[mm] [PATCH] y", "y", "[mm] y" },
	{ "[foo]  Re: [PATCH 2/2]::: z  z ", "z z", "[foo] z z" },
	{ "::: [PATCH", "[PATCH", "[PATCH" },
	{ "re:", "re:", "re:" },
	{ "[PATCH] [x] [y]\tt", "t", "[x] [y] t" },
	{ "", "", "" },
};

static void clean(const char *in, unsigned int flags, struct strbuf *out)
{
	strbuf_reset(out);
	patch_clean_subject(in, flags, out);
}

static const struct {
	const char *in;
	bool reply, patch, rfc, resend;
	int version, n, total;
	const char *tree, *title;
} cases[] = {
	{ "[PATCH] mm: fix foo", false, true, false, false, 1, 1, 1, NULL, "mm: fix foo" },
	{ "[PATCH v7 2/5] mm: x", false, true, false, false, 7, 2, 5, NULL, "mm: x" },
	{ "[PATCH mm-new v7 2/5] mm: khugepaged: refine scan progress number",
	  false, true, false, false, 7, 2, 5, "mm-new",
	  "mm: khugepaged: refine scan progress number" },
	{ "[RFC PATCH v2 0/3] mm: cover", false, true, true, false, 2, 0, 3, NULL, "mm: cover" },
	{ "[PATCH RESEND v2 1/2] mm/vmscan: y", false, true, false, true, 2, 1, 2, NULL, "mm/vmscan: y" },
	{ "Re: [PATCH v3 2/4] mm: Support tlbbatch flush for a range of PTEs",
	  true, true, false, false, 3, 2, 4, NULL, "mm: Support tlbbatch flush for a range of PTEs" },
	{ "RE: Re: AW: [PATCH 1/9] mm/mglru: add", true, true, false, false, 1, 1, 9, NULL, "mm/mglru: add" },
	{ "Fwd: [PATCH] z", false, true, false, false, 1, 1, 1, NULL, "z" },
	{ "[PATCH v2 net-next 03/12] net: a", false, true, false, false, 2, 3, 12, "net-next", "net: a" },
	{ "[PATCH mm-hotfixes] mm: hot", false, true, false, false, 1, 1, 1, "mm-hotfixes", "mm: hot" },
	{ "[PATCH mm-unstable v2] mm: u", false, true, false, false, 2, 1, 1, "mm-unstable", "mm: u" },
	{ "[PATCHv3 1/2] mm: old style", false, true, false, false, 3, 1, 2, NULL, "mm: old style" },
	{ "[RFC] [PATCH 0/2] two groups", false, true, true, false, 1, 0, 2, NULL, "two groups" },
	{ "mm: no tags at all", false, false, false, false, 1, 1, 1, NULL, "mm: no tags at all" },
	{ "[linux-mm] [PATCH v2 1/2] mm: listed", false, true, false, false, 2, 1, 2, NULL,
	  "mm: listed" },
	{ "[list] Re: [PATCH v3 2/4] mm: r", true, true, false, false, 3, 2, 4, NULL, "mm: r" },
	{ "Re: [ext] [PATCH 0/3] c", true, true, false, false, 1, 0, 3, NULL, "c" },
	{ "[PATCH 1/2] [mm] after the tags", false, true, false, false, 1, 1, 2, NULL,
	  "[mm] after the tags" },
	{ "[mm] not a tag group", false, false, false, false, 1, 1, 1, NULL, "[mm] not a tag group" },
	{ "Re[2]: [PATCH] r", true, true, false, false, 1, 1, 1, NULL, "r" },
	{ "[PATCH 6.12.y] stable: s", false, true, false, false, 1, 1, 1, "6.12.y", "stable: s" },
	/* one more after the series, as b4 counts it (linux-xfs, 20230413151907.GW360889@frogsfrogsfrogs) */
	{ "[RFC PATCH 7/6] one after", false, true, true, false, 1, 7, 7, NULL, "one after" },
	/* PATCH* is a patch tag, as for b4 (linux-xfs, Darrick Wong's stgit covers) */
	{ "[PATCHSET v2 0/4] fstests: filesystem population fixes", false, true, false, false,
	  2, 0, 4, NULL, "fstests: filesystem population fixes" },
	{ "[PATCHSET v2] xfs: no counter", false, true, false, false, 2, 1, 1, NULL,
	  "xfs: no counter" },
	{ "[NYE PATCHRIVER 1/4] xfs: the rest", false, true, false, false, 1, 1, 4, NULL,
	  "xfs: the rest" },
	{ "", false, false, false, false, 1, 1, 1, NULL, "" },
	{ "[PATCH v0 1/1] v0 is not a version", false, true, false, false, 1, 1, 1, NULL,
	  "v0 is not a version" },
	{ "[PATCH unterminated", false, false, false, false, 1, 1, 1, NULL, "[PATCH unterminated" },
};

int main(void)
{
	size_t i;
	char *norm;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct subject s;

		subject_parse(cases[i].in, &s);
		ok(s.reply == cases[i].reply && s.patch == cases[i].patch &&
		   s.rfc == cases[i].rfc && s.resend == cases[i].resend,
		   "flags of '%s'", cases[i].in);
		ok(s.version == cases[i].version && s.n == cases[i].n &&
		   s.total == cases[i].total, "v%d %d/%d of '%s'", s.version,
		   s.n, s.total, cases[i].in);
		is_str(s.tree, cases[i].tree, "tree of '%s'", cases[i].in);
		is_str(s.title, cases[i].title, "title of '%s'", cases[i].in);
		is_int(s.past_count, s.counted && strstr(cases[i].in, "7/6") != NULL,
		       "numbered past its count: '%s'", cases[i].in);
		subject_release(&s);
	}
	{
		struct strbuf out = STRBUF_INIT;
		size_t k, n = 2400 * 1024;
		char *big = malloc(n + 32);

		for (k = 0; k < ARRAY_SIZE(clean_cases); k++) {
			clean(clean_cases[k].in, 0, &out);
			is_str(out.buf, clean_cases[k].plain, "cleaned '%s'", clean_cases[k].in);
			clean(clean_cases[k].in, PATCH_KEEP_NON_PATCH, &out);
			is_str(out.buf, clean_cases[k].keep, "cleaned with -b '%s'",
			       clean_cases[k].in);
		}
		/*
		 * issue 38: 2.4 MB of ':' after "[PATCH 1/2]" took 85 s (a
		 * memmove per character); the result is the same, in one pass
		 */
		memcpy(big, "[PATCH 1/2]", 11);
		memset(big + 11, ':', n);
		memcpy(big + 11 + n, " mm: title", 11);
		clean(big, 0, &out);
		is_str(out.buf, "mm: title", "2.4 MB of ':' stripped");
		for (k = 0; k + 3 <= n; k += 3)
			memcpy(big + 11 + k, "Re:", 3);
		clean(big, PATCH_KEEP_NON_PATCH, &out);
		is_str(out.buf, "mm: title", "and of 'Re:'");
		free(big);
		strbuf_release(&out);
	}
	norm = subject_normalise_title("  Mm:  Fix\tFOO ");
	is_str(norm, "mm: fix foo", "normalised title");
	free(norm);
	return done_testing();
}
