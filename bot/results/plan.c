// SPDX-License-Identifier: GPL-2.0
/* The stages as data: their names and statuses, the registered table, the plan */
#include <stdio.h>
#include <stdlib.h>

#include "bot/results/plan.h"

static const struct stage_ops *const *table;

void plan_register(const struct stage_ops *const *t)
{
	table = t;
}

const struct stage_ops *plan_stage(enum stage s)
{
	if (!table) {
		/* a bug, as a failed allocation is: nothing sensible to do */
		fputs("lorebot: no stage table registered (stage_register())\n", stderr);
		abort();
	}
	return table[s];
}

static const char *const status_names[STATUS_NR] = {
	[STATUS_NONE] = "none",
	[STATUS_APPLIED] = "applied",
	[STATUS_FAILED] = "failed",
	[STATUS_CLEAN] = "clean",
	[STATUS_NOTES] = "notes",
	[STATUS_WARNINGS] = "warnings",
	[STATUS_ERRORS] = "errors",
	[STATUS_OK] = "ok",
	[STATUS_REGRESSIONS] = "regressions",
	[STATUS_BOOT_FAILURE] = "boot-failure",
	[STATUS_INFRA] = "infra",
	[STATUS_PARTIAL] = "partial",
};

const char *plan_stage_name(enum stage s)
{
	return s < STAGE_NR ? plan_stage(s)->name : "?";
}

int plan_stage_parse(const char *name, enum stage *s)
{
	int i;

	for (i = 0; name && i < STAGE_NR; i++) {
		if (!strcmp(name, plan_stage(i)->name)) {
			*s = i;
			return 0;
		}
	}
	return -1;
}

const char *plan_status_name(enum status s)
{
	return s < STATUS_NR ? status_names[s] : "?";
}

enum status plan_status_parse(const char *word)
{
	int i;

	for (i = STATUS_NONE + 1; word && i < STATUS_NR; i++)
		if (!strcmp(word, status_names[i]))
			return i;
	return STATUS_NONE;
}

bool plan_has_status(enum stage s, enum status st)
{
	return s < STAGE_NR && st < STATUS_NR && (plan_stage(s)->statuses & (1u << st));
}

static bool enabled(enum stage s, const struct plan_cfg *c)
{
	return !plan_stage(s)->boot_enable || c->boot;
}

static const struct plan_result *find(const struct plan_result *rs, size_t nr,
				      enum stage s, const char *arch)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (rs[i].stage == s && !strcmp(rs[i].arch, plan_stage(s)->per_arch ? arch : ""))
			return &rs[i];
	return NULL;
}

/* What stage s needs for arch a, the stages it follows planned already */
static enum need need_of(const struct plan_result *rs, size_t nr,
			 const struct plan_cfg *c, const struct plan *p,
			 enum stage s, size_t a)
{
	const struct stage_ops *d = plan_stage(s);
	const char *arch = d->per_arch ? c->archs[a] : "";
	const struct plan_result *r;
	enum need before;

	if (d->last)
		return NEED_WAIT;	/* decided once everything else is */
	if (find(rs, nr, s, arch))
		return NEED_DONE;
	if (!enabled(s, c))
		return NEED_SKIP;
	if (d->after == STAGE_NONE)
		return NEED_RUN;
	before = p->need[d->after][plan_stage(d->after)->per_arch ? a : 0];
	if (before == NEED_SKIP)
		return NEED_SKIP;
	if (before != NEED_DONE)
		return NEED_WAIT;
	r = find(rs, nr, d->after, plan_stage(d->after)->per_arch ? arch : "");
	if (d->after_on && !(d->after_on & (1u << r->status)))
		return NEED_SKIP;
	return NEED_RUN;
}

void plan_make(const struct plan_result *rs, size_t nr, const struct plan_cfg *c,
	       struct plan *p)
{
	size_t a, na = MIN(c->nr_archs, (size_t)PLAN_MAX_ARCHS);
	int s;

	memset(p, 0, sizeof(*p));
	p->nr_archs = na;
	p->started = nr > 0;
	p->ended = true;
	/* the table lists a stage after the one it follows */
	for (s = 0; s < STAGE_NR; s++) {
		size_t n = plan_stage(s)->per_arch ? na : 1;

		for (a = 0; a < n; a++) {
			p->need[s][a] = need_of(rs, nr, c, p, s, a);
			if (!plan_stage(s)->last && !plan_ended(p, s, a))
				p->ended = false;
		}
	}
	for (s = 0; s < STAGE_NR; s++)
		if (plan_stage(s)->last)
			p->need[s][0] = p->ended ? NEED_RUN : NEED_WAIT;
}

bool plan_all_ended(const struct plan *p, enum stage s)
{
	size_t a, n = plan_per_arch(s) ? p->nr_archs : 1;

	for (a = 0; a < n; a++)
		if (!plan_ended(p, s, a))
			return false;
	return true;
}
