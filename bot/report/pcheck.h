/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A version's results as one verdict per patch and context, the shape
 * patchwork's checks and b4's review checks take:
 *
 *	lorebot-apply		does the patch apply onto the base
 *	lorebot-review		what the review rules mail about it
 *	lorebot-build-<arch>	does the tree build at this patch, new diagnostics
 *	lorebot-boot-<arch>	the series' boot and kselftests (on its last patch:
 *				the tip is what was booted)
 *
 * States are patchwork's: pending (not tested yet), success, warning,
 * fail.  A stage that did not test (an infrastructure failure, a patch
 * not applied) says "not ..." with a warning, never a success: a verdict
 * says what was checked.  Derived from the stored results alone, so
 * every caller (the patchwork poster, lorebot b4-check, the dashboard's
 * /api/checks) gives the same answer.
 */
#ifndef LOREBOT_PCHECK_H
#define LOREBOT_PCHECK_H

#include "bot/report/report.h"

enum pcheck_state {
	PCHECK_PENDING,
	PCHECK_SUCCESS,
	PCHECK_WARNING,
	PCHECK_FAIL,
};

struct pcheck {
	int patch;		/* n, 1-based */
	char *msgid;		/* the patch's Message-ID, without <> */
	char *context;		/* a slug: lorebot-build-arm64 */
	enum pcheck_state state;
	char *description;	/* one line, at most PCHECK_DESC_MAX bytes */
};

#define PCHECK_DESC_MAX 160

struct pchecks {
	struct pcheck *v;
	size_t nr, alloc;
};

enum pcheck_flags {
	/* contexts whose stage is still to run, as pending */
	PCHECK_WITH_PENDING = 1 << 0,
};

/* The checks of v (for o's archs and boots), in patch then context order */
void pcheck_derive(const struct report_version *v, const struct report_opts *o,
		   unsigned int flags, struct pchecks *out);
void pcheck_release(struct pchecks *cs);

/*
 * What one stage's result gives (struct stage_ops' pchecks, named by
 * the stage): added to out, each context the stage's pcheck_context
 */
void pcheck_apply(const struct report_version *v, const struct report_opts *o,
		  const struct result *r, struct pchecks *out);
void pcheck_check(const struct report_version *v, const struct report_opts *o,
		  const struct result *r, struct pchecks *out);
void pcheck_build(const struct report_version *v, const struct report_opts *o,
		  const struct result *r, struct pchecks *out);
void pcheck_boot(const struct report_version *v, const struct report_opts *o,
		 const struct result *r, struct pchecks *out);

const char *pcheck_state_name(enum pcheck_state s);

/*
 * The lorebot-review verdict of patch n from a check document's findings:
 * what the noise policy mails (lorebot's mm rules) counts, style findings
 * (checkpatch, codespell, series hygiene) are only counted in desc
 */
enum pcheck_state pcheck_review(const struct report_opts *o, json_object *findings, int n,
				struct strbuf *desc);

/*
 * Where a check links: the version on the dashboard,
 * <core.dashboardurl>series/<series id>#v<N>, at most max bytes (else
 * nothing: patchwork allows 200)
 */
void pcheck_url(const struct config *cfg, const struct report_version *v, size_t max,
		struct strbuf *sb);

#endif
