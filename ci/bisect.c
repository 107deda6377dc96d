// SPDX-License-Identifier: GPL-2.0
/* Confirmation and bisection of boot regressions: the decisions; see bisect.h */
#include <stdio.h>
#include <stdlib.h>

#include "lib/util.h"
#include "ci/bisect.h"

static const char *const verdict_names[] = {
	[BISECT_NONE] = "not run",
	[BISECT_GOOD] = "good",
	[BISECT_BAD] = "bad",
	[BISECT_MIXED] = "flaky",
	[BISECT_SHORT] = "too few runs",
};

static const char *const state_names[] = {
	[BISECT_OPEN] = "open",
	[BISECT_FOUND] = "found",
	[BISECT_FLAKY] = "flaky",
	[BISECT_STOPPED] = "stopped",
};

const char *bisect_verdict_name(enum bisect_verdict v)
{
	return verdict_names[v];
}

const char *bisect_state_name(enum bisect_state s)
{
	return state_names[s];
}

void bisect_cand_init(struct bisect_cand *c, enum bisect_kind kind,
		      const char *test, const char *title)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->test = xstrdup_or_null(test);
	c->title = xstrdup_or_null(title);
	c->state = BISECT_OPEN;
}

void bisect_cand_release(struct bisect_cand *c)
{
	free(c->test);
	free(c->title);
	free(c->why);
	free(c->steps);
	memset(c, 0, sizeof(*c));
}

unsigned int bisect_need(const struct bisect_cand *c, unsigned int confirm)
{
	if (c->kind == BISECT_BOOT)
		return 1;
	return c->timeout ? MIN(MAX(confirm, 1u), 2u) : MAX(confirm, 1u);
}

enum bisect_verdict bisect_verdict(const struct bisect_obs *o, unsigned int need)
{
	if (!o->runs)
		return BISECT_NONE;
	if (o->bad && o->bad < o->runs)
		return BISECT_MIXED;
	if (o->runs < need)
		return BISECT_SHORT;
	return o->bad ? BISECT_BAD : BISECT_GOOD;
}

/* The base: twice the tip's runs, none of them bad */
static unsigned int base_need(const struct bisect_cand *c, unsigned int confirm)
{
	return c->kind == BISECT_BOOT ? 1 : 2 * bisect_need(c, confirm);
}

unsigned int bisect_base_more(const struct bisect_cand *c, unsigned int confirm)
{
	unsigned int need = base_need(c, confirm);

	if (c->base.bad || c->base.runs >= need)
		return 0;
	return need - c->base.runs;
}

void bisect_obs_text(struct strbuf *sb, const struct bisect_obs *o, const char *bad)
{
	strbuf_addf(sb, "%s %u of %u run%s", bad, o->bad, o->runs, o->runs == 1 ? "" : "s");
}

static void set_why(struct bisect_cand *c, enum bisect_state state, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_why(struct bisect_cand *c, enum bisect_state state, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(c->why);
	c->why = strbuf_detach(&sb, NULL);
	c->state = state;
}

void bisect_confirm(struct bisect_cand *c, unsigned int confirm, int n)
{
	unsigned int need = bisect_need(c, confirm);
	struct strbuf sb = STRBUF_INIT;

	c->lo = 0;
	c->hi = n;
	c->boots = 1;
	switch (bisect_verdict(&c->tip, need)) {
	case BISECT_BAD:
		break;
	case BISECT_MIXED:
		bisect_obs_text(&sb, &c->tip, "shown in");
		set_why(c, BISECT_FLAKY, "%s on the tip", sb.buf);
		goto out;
	default:
		bisect_obs_text(&sb, &c->tip, "shown in");
		set_why(c, BISECT_FLAKY, "%s on the tip, fewer than %u", sb.buf, need);
		goto out;
	}
	if (c->base.bad) {
		bisect_obs_text(&sb, &c->base, "shown in");
		set_why(c, BISECT_FLAKY, "on the base too: %s", sb.buf);
		goto out;
	}
	if (c->base.runs < base_need(c, confirm)) {
		set_why(c, BISECT_FLAKY, "not confirmed: the base ran %u of the %u runs "
			"it needs", c->base.runs, base_need(c, confirm));
		goto out;
	}
	c->state = n <= 1 ? BISECT_FOUND : BISECT_OPEN;
out:
	strbuf_release(&sb);
}

static int midpoint(const struct bisect_cand *c)
{
	return c->lo + (c->hi - c->lo) / 2;
}

int bisect_next(struct bisect_cand *const *c, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (c[i]->state == BISECT_OPEN && c[i]->hi - c[i]->lo > 1)
			return midpoint(c[i]);
	return 0;
}

bool bisect_wants(const struct bisect_cand *c, int patch)
{
	/* only at its own midpoint: ceil(log2 n) probes at most */
	return c->state == BISECT_OPEN && c->hi - c->lo > 1 && patch == midpoint(c);
}

static void add_step(struct bisect_cand *c, int patch, const struct bisect_obs *o,
		     enum bisect_verdict v)
{
	ALLOC_GROW(c->steps, c->steps_nr + 1, c->steps_alloc);
	c->steps[c->steps_nr].patch = patch;
	c->steps[c->steps_nr].obs = o ? *o : (struct bisect_obs){ 0 };
	c->steps[c->steps_nr++].verdict = v;
}

void bisect_take(struct bisect_cand *c, int patch, const struct bisect_obs *o,
		 unsigned int confirm)
{
	enum bisect_verdict v = bisect_verdict(o, bisect_need(c, confirm));
	struct strbuf sb = STRBUF_INIT;

	c->boots++;
	add_step(c, patch, o, v);
	switch (v) {
	case BISECT_BAD:
		c->hi = patch;
		break;
	case BISECT_GOOD:
		c->lo = patch;
		break;
	case BISECT_MIXED:
		bisect_obs_text(&sb, o, "shown in");
		set_why(c, BISECT_FLAKY, "%s on patch %d", sb.buf, patch);
		break;
	default:
		bisect_obs_text(&sb, o, "shown in");
		set_why(c, BISECT_STOPPED, "patch %d: %s, fewer than %u", patch, sb.buf,
			bisect_need(c, confirm));
		break;
	}
	if (c->state == BISECT_OPEN && c->hi - c->lo <= 1)
		c->state = BISECT_FOUND;
	strbuf_release(&sb);
}

void bisect_stop(struct bisect_cand *c, int patch, const char *why)
{
	c->boots++;
	add_step(c, patch, NULL, BISECT_NONE);
	set_why(c, BISECT_STOPPED, "patch %d could not be booted: %s", patch, why);
}

unsigned int bisect_run(struct bisect_cand *const *c, size_t nr, unsigned int confirm,
			bisect_probe_fn *probe, void *data)
{
	struct bisect_cand **want = xcalloc(nr + 1, sizeof(*want));
	struct bisect_obs *obs = xcalloc(nr + 1, sizeof(*obs));
	struct strbuf err = STRBUF_INIT;
	unsigned int probes = 0;
	int patch;
	size_t i, n;

	while ((patch = bisect_next(c, nr)) > 0) {
		for (i = n = 0; i < nr; i++)
			if (bisect_wants(c[i], patch))
				want[n++] = c[i];
		memset(obs, 0, nr * sizeof(*obs));
		strbuf_reset(&err);
		probes++;
		if (probe(data, patch, want, n, obs, &err)) {
			for (i = 0; i < n; i++)
				bisect_stop(want[i], patch, err.len ? err.buf : "unknown error");
			continue;
		}
		for (i = 0; i < n; i++)
			bisect_take(want[i], patch, &obs[i], confirm);
	}
	strbuf_release(&err);
	free(want);
	free(obs);
	return probes;
}
