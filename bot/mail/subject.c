// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/mail/subject.h"

#define MAX_TAG_GROUPS 8
#define MAX_REPLY_PREFIXES 32

/* Reply and forward markers in the languages seen on the lists */
static const struct {
	const char *word;
	bool forward;
} leaders[] = {
	{ "re", false }, { "aw", false }, { "antw", false }, { "sv", false },
	{ "vs", false }, { "odp", false }, { "ref", false }, { "res", false },
	{ "回复", false }, { "答复", false },
	{ "fwd", true }, { "fw", true }, { "tr", true }, { "wg", true },
};

/* Words that name a tree branch rather than being a version or kind */
static const char *const tree_words[] = {
	"mm-new", "mm-unstable", "mm-stable", "mm-hotfixes",
	"mm-hotfixes-unstable", "mm-hotfixes-stable", "mm-nonmm-unstable",
	"mm-everything", "next", "linux-next", "mainline", "stable",
};

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "Re:", "RE :", "Re[2]:", "回复：" at p?  Return what follows, or NULL. */
static const char *skip_leader(const char *p, bool *forward)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(leaders); i++) {
		size_t n;
		const char *q;

		/* most subjects start with none of them: the first byte says */
		if (tolower((unsigned char)*p) != (unsigned char)leaders[i].word[0])
			continue;
		n = strlen(leaders[i].word);
		q = p + n;
		if (strncasecmp(p, leaders[i].word, n))
			continue;
		if (*q == '[') {	/* Re[2]: */
			while (isdigit((unsigned char)*++q))
				;
			if (*q != ']')
				continue;
			q++;
		}
		q = skip_space(q);
		if (*q == ':') {
			*forward = leaders[i].forward;
			return skip_space(q + 1);
		}
		if (!strncmp(q, "\xef\xbc\x9a", 3)) {	/* full-width colon */
			*forward = leaders[i].forward;
			return skip_space(q + 3);
		}
	}
	return NULL;
}

static bool is_version(const char *w, int *v)
{
	char *end;
	long n;

	if ((w[0] != 'v' && w[0] != 'V') || !isdigit((unsigned char)w[1]))
		return false;
	n = strtol(w + 1, &end, 10);
	if (*end || n < 1 || n > 1000)
		return false;
	*v = n;
	return true;
}

static bool is_counter(const char *w, int *n, int *m)
{
	char *end;
	long a, b;

	if (!isdigit((unsigned char)*w))
		return false;
	a = strtol(w, &end, 10);
	if (*end != '/' || !isdigit((unsigned char)end[1]))
		return false;
	b = strtol(end + 1, &end, 10);
	if (*end || a < 0 || b < 1 || a > 10000 || b > 10000)
		return false;
	*n = a;
	*m = b;
	return true;
}

static bool is_tree_word(const char *w)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tree_words); i++)
		if (!strcasecmp(w, tree_words[i]))
			return true;
	/* net-next, bpf-next, sched/core, 6.12.y, for-next */
	return util_ends_with(w, "-next") || util_ends_with(w, "-fixes") ||
		util_ends_with(w, ".y") ||
		(isalpha((unsigned char)w[0]) && strchr(w, '/') != NULL);
}

static void add_word(struct strbuf *sb, const char *w)
{
	if (sb->len)
		strbuf_addch(sb, ' ');
	strbuf_addstr(sb, w);
}

/* Interpret the words of one "[...]" group; true if it was a tag group. */
static bool parse_group(const char *g, size_t len, struct subject *s,
			struct strbuf *prefixes)
{
	char *copy = xstrndup(g, len), *w, *save = NULL;
	bool tag = false;
	struct strbuf other = STRBUF_INIT;

	for (w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int a, b;

		if (!strncasecmp(w, "PATCHv", 6) && is_version(w + 5, &a)) {
			s->patch = tag = true;
			s->version = a;
		} else if (!strncasecmp(w, "PATCH", 5)) {
			/* PATCHES, PATCHSET, PATCHv: b4 reads PATCH* so */
			s->patch = tag = true;
		} else if (!strcasecmp(w, "RFC") || !strcasecmp(w, "RFT")) {
			s->rfc = s->patch = tag = true;
		} else if (!strcasecmp(w, "RESEND")) {
			s->resend = tag = true;
		} else if (is_version(w, &a)) {
			s->version = a;
			tag = true;
		} else if (is_counter(w, &a, &b)) {
			/* "[RFC PATCH 7/6]", one more after the series: b4 counts 7 */
			s->n = a;
			s->total = a > b ? a : b;
			s->past_count = a > b;
			s->counted = s->patch = tag = true;
		} else if (!s->tree && is_tree_word(w)) {
			s->tree = xstrdup(w);
		} else {
			add_word(&other, w);
		}
	}
	if (tag && other.len)
		add_word(prefixes, other.buf);
	strbuf_release(&other);
	free(copy);
	return tag;
}

/*
 * Reply markers and bracket groups, in any order, before the title:
 * "[list-name] [PATCH v2 1/2]", "[PATCH] Re: ...", "Re: [mm] [PATCH]".
 * A group that holds no tag ("[list-name]", "[mm]") is a list's tag
 * when a tag group follows it, else part of the title.
 */
void subject_parse(const char *str, struct subject *s)
{
	struct strbuf prefixes = STRBUF_INIT;
	const char *p = skip_space(str ? str : ""), *plain = NULL;
	int groups = 0, leaders_seen = 0;
	bool fwd;

	*s = (struct subject)SUBJECT_INIT;
	for (;;) {
		const char *q = skip_leader(p, &fwd), *end;
		char *save_tree;

		if (q && leaders_seen++ < MAX_REPLY_PREFIXES) {
			if (fwd)
				s->forward = true;
			else
				s->reply = true;
			p = q;
			continue;
		}
		if (*p != '[' || groups >= MAX_TAG_GROUPS)
			break;
		end = strchr(p, ']');
		if (!end)
			break;
		groups++;
		save_tree = s->tree;
		s->tree = NULL;
		if (parse_group(p + 1, end - p - 1, s, &prefixes)) {
			plain = NULL;
			if (!s->tree)
				s->tree = save_tree;
			else
				free(save_tree);
		} else {
			/* "[mm]", "[list-name]": not a tag group */
			free(s->tree);
			s->tree = save_tree;
			if (!plain)
				plain = p;
		}
		p = skip_space(end + 1);
	}
	/* groups without tags after the last tag group stay in the title */
	if (plain)
		p = plain;
	if (s->tree && !s->patch) {
		free(s->tree);
		s->tree = NULL;
	}
	s->prefixes = strbuf_detach(&prefixes, NULL);
	s->title = xstrdup(p);
}

void subject_release(struct subject *s)
{
	free(s->tree);
	free(s->prefixes);
	free(s->title);
	*s = (struct subject)SUBJECT_INIT;
}

char *subject_normalise_title(const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	bool space = false;

	for (p = title; *p; p++) {
		if (isspace((unsigned char)*p)) {
			space = sb.len > 0;
			continue;
		}
		if (space)
			strbuf_addch(&sb, ' ');
		space = false;
		strbuf_addch(&sb, tolower((unsigned char)*p));
	}
	return strbuf_detach(&sb, NULL);
}
