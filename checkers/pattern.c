// SPDX-License-Identifier: GPL-2.0
/* libpcre2 behind checkers/pattern.h: compile once, match many times */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "checkers/pattern.h"

static struct pattern *compiled;

static bool compile(struct pattern *p)
{
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	PCRE2_SIZE erroff;
	int errcode;

	if (p->code)
		return true;
	if (p->failed)
		return false;
	if (p->flags & PAT_CASELESS)
		opts |= PCRE2_CASELESS;
	if (p->flags & PAT_MULTILINE)
		opts |= PCRE2_MULTILINE;
	p->code = pcre2_compile((PCRE2_SPTR)p->re, PCRE2_ZERO_TERMINATED, opts,
				&errcode, &erroff, NULL);
	if (!p->code) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(errcode, msg, sizeof(msg));
		fprintf(stderr, "lorebot: bad pattern '%s' at %zu: %s\n",
			p->re, (size_t)erroff, (char *)msg);
		p->failed = true;
		return false;
	}
	pcre2_jit_compile(p->code, PCRE2_JIT_COMPLETE);
	p->md = pcre2_match_data_create_from_pattern(p->code, NULL);
	p->next = compiled;
	compiled = p;
	return true;
}

bool pattern_match_at(struct pattern *p, const char *s, size_t len,
		      size_t start, struct pattern_match *m)
{
	PCRE2_SIZE *ov;
	int rc, i;

	if (!compile(p) || start > len)
		return false;
	rc = pcre2_match(p->code, (PCRE2_SPTR)s, len, start, 0, p->md, NULL);
	if (rc < 0)
		return false;
	if (!m)
		return true;
	ov = pcre2_get_ovector_pointer(p->md);
	if (!rc || rc > PATTERN_GROUPS)
		rc = PATTERN_GROUPS;
	m->groups = rc;
	for (i = 0; i < PATTERN_GROUPS; i++) {
		if (i < rc && ov[2 * i] != PCRE2_UNSET) {
			m->start[i] = ov[2 * i];
			m->end[i] = ov[2 * i + 1];
		} else {
			m->start[i] = m->end[i] = (size_t)-1;
		}
	}
	return true;
}

bool pattern_match(struct pattern *p, const char *s, size_t len,
		   struct pattern_match *m)
{
	return pattern_match_at(p, s, len, 0, m);
}

void pattern_release_all(void)
{
	while (compiled) {
		struct pattern *p = compiled;

		compiled = p->next;
		pcre2_match_data_free(p->md);
		pcre2_code_free(p->code);
		p->code = NULL;
		p->md = NULL;
		p->next = NULL;
	}
}
