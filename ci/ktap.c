// SPDX-License-Identifier: GPL-2.0
/*
 * The guest init's side of the console (see ci/initramfs/init.c): KTAP
 * result lines, the "# lorebot:" markers around each attempt of a test,
 * and the test's own output, indented by four spaces.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ci/console.h"

#define KSFT_SKIP_STATUS 4	/* kselftest's exit status for a skip */

static const char *const result_names[] = {
	[KST_NOTRUN] = "skip",
	[KST_PASS] = "pass",
	[KST_FAIL] = "fail",
	[KST_SKIP] = "skip",
	[KST_FLAKY] = "flaky",
};

const char *ktap_result_name(enum kst_result r)
{
	return result_names[r];
}

struct kst_run *ktap_test(const struct console *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->tests_nr; i++)
		if (!strcmp(c->tests[i].name, name))
			return &c->tests[i];
	return NULL;
}

struct kst_run *ktap_add_test(struct console *c, const char *name)
{
	struct kst_run *t = ktap_test(c, name);

	if (t)
		return t;
	ALLOC_GROW(c->tests, c->tests_nr + 1, c->tests_alloc);
	t = &c->tests[c->tests_nr++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->output = (struct strbuf)STRBUF_INIT;
	t->first_status = -1;
	return t;
}

/* "NAME attempt A" at s: the name (caller frees) and A */
static char *name_attempt(const char *s, int *attempt, const char **rest)
{
	const char *sp = strstr(s, " attempt ");
	char *end;

	if (!sp || sp == s)
		return NULL;
	*attempt = (int)strtol(sp + 9, &end, 10);
	*rest = end;
	return xstrndup(s, sp - s);
}

static void on_run_marker(struct console *c, const char *s)
{
	struct kst_run *t;
	const char *rest;
	int attempt;
	char *name = name_attempt(s, &attempt, &rest);

	if (!name)
		return;
	t = ktap_add_test(c, name);
	t->attempts = attempt;
	if (attempt > 1)
		strbuf_addf(&t->output, "# attempt %d\n", attempt);
	free(c->running);
	c->running = name;
	c->running_attempt = attempt;
}

static void on_exit_marker(struct console *c, const char *s)
{
	unsigned long long ms = 0;
	struct kst_run *t;
	const char *rest;
	int attempt, status = -1;
	char *name = name_attempt(s, &attempt, &rest);

	if (!name)
		return;
	t = ktap_add_test(c, name);
	if (sscanf(rest, " status %d ms %llu", &status, &ms) >= 1 &&
	    attempt == 1)
		t->first_status = status;
	t->ms += ms;
	t->runs++;
	if (strstr(rest, " timeout")) {
		t->timeout = true;
		t->fails++;
	} else if (status != 0 && status != KSFT_SKIP_STATUS) {
		t->fails++;
	}
	if (strstr(rest, " report"))
		t->reported++;
	if (c->running && !strcmp(c->running, name)) {
		free(c->running);
		c->running = NULL;
	}
	free(name);
}

static void on_marker(struct console *c, const char *s)
{
	unsigned long long v;
	const char *rest;

	if (util_skip_prefix(s, "run ", &rest))
		on_run_marker(c, rest);
	else if (util_skip_prefix(s, "exit ", &rest))
		on_exit_marker(c, rest);
	else if (sscanf(s, "init uptime ms %llu", &v) == 1)
		c->init_uptime_ms = v;
	else if (sscanf(s, "done ms %llu", &v) == 1) {
		c->done = true;
		c->tests_ms = v;
	}
}

/* "ok 3 NAME # SKIP why" / "not ok 3 NAME # exit status 1" */
static void on_result(struct console *c, const char *s, bool ok)
{
	const char *hash, *name;
	struct kst_run *t;
	char *end, *n;

	strtol(s, &end, 10);
	if (end == s || *end != ' ')
		return;
	name = end + 1;
	hash = strstr(name, " # ");
	n = hash ? xstrndup(name, hash - name) : xstrdup(name);
	t = ktap_add_test(c, n);
	free(n);
	t->finished = true;
	free(t->reason);
	t->reason = hash ? xstrdup(hash + 3) : NULL;
	if (hash && util_istarts_with(hash + 3, "SKIP"))
		t->result = KST_SKIP;
	else if (t->runs > 1 && t->fails && t->fails < t->runs)
		t->result = KST_FLAKY;	/* some runs failed, some passed */
	else
		t->result = ok ? KST_PASS : KST_FAIL;
	if (t->result == KST_FLAKY) {
		free(t->reason);
		t->reason = xasprintf("failed %d of %d runs (first exit status %d)",
				      t->fails, t->runs, t->first_status);
	}
}

bool ktap_line(struct console *c, const char *line)
{
	const char *rest;

	if (util_starts_with(line, "    ")) {
		struct kst_run *t = c->running ? ktap_test(c, c->running) : NULL;

		if (!t)
			return false;
		strbuf_addstr(&t->output, line + 4);
		strbuf_addch(&t->output, '\n');
		return true;
	}
	if (util_starts_with(line, "KTAP version ") || util_starts_with(line, "TAP version ")) {
		c->userspace = true;
		return true;
	}
	if (!c->userspace)
		return false;
	if (util_skip_prefix(line, "# lorebot: ", &rest)) {
		on_marker(c, rest);
		return true;
	}
	if (util_skip_prefix(line, "1..", &rest)) {
		c->planned = atoi(rest);
		return true;
	}
	if (util_skip_prefix(line, "ok ", &rest)) {
		on_result(c, rest, true);
		return true;
	}
	if (util_skip_prefix(line, "not ok ", &rest)) {
		on_result(c, rest, false);
		return true;
	}
	return false;
}
