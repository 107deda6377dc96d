// SPDX-License-Identifier: GPL-2.0
/*
 * One problem, one finding: where a lorebot checker and checkpatch
 * report the same thing about a patch, the lorebot checker's finding
 * (it has the line, the quote, the suggestion) is kept and checkpatch's
 * dropped.
 */
#include <stdlib.h>

#include "checkers/check.h"

/* What makes two findings about one patch the same problem */
enum merge_match {
	MERGE_PATCH,		/* the patch alone: there is one sign-off question */
	MERGE_QUOTED,		/* the word quoted first, quoted in the other too */
	MERGE_WORD,		/* the word quoted first, anywhere in the other */
};

static const struct merge {
	const char *keep;
	const char *drop;
	enum merge_match match;
} merges[] = {
	{ "signed-off-by", "checkpatch:MISSING_SIGN_OFF", MERGE_PATCH },
	{ "signed-off-by", "checkpatch:NO_AUTHOR_SIGN_OFF", MERGE_PATCH },
	{ "signed-off-by", "checkpatch:FROM_SIGN_OFF_MISMATCH", MERGE_PATCH },
	{ "codespell", "checkpatch:TYPO_SPELLING", MERGE_QUOTED },
	{ "fixes-tag", "checkpatch:UNKNOWN_COMMIT_ID", MERGE_WORD },
};

/* The first 'word' of a message, with its quotes, or NULL */
static char *first_quoted(const char *msg)
{
	const char *b = msg ? strchr(msg, '\'') : NULL, *e = b ? strchr(b + 1, '\'') : NULL;

	return e && e > b + 1 ? xstrndup(b, e - b + 1) : NULL;
}

static bool same_problem(const struct merge *m, const struct finding *keep,
			 const struct finding *drop)
{
	char *word;
	bool same;

	if (keep->patch != drop->patch || strcmp(keep->rule, m->keep) ||
	    strcmp(drop->rule, m->drop))
		return false;
	if (m->match == MERGE_PATCH)
		return true;
	/* both placed (checkpatch's commit message lines too): the same line */
	if (keep->line > 0 && drop->line > 0 &&
	    (keep->line != drop->line || !keep->file != !drop->file ||
	     (keep->file && strcmp(keep->file, drop->file))))
		return false;
	word = first_quoted(drop->message);
	if (!word)
		return false;
	if (m->match == MERGE_WORD) {
		/* an id checkpatch quotes, a Fixes: finding may not */
		word[strlen(word) - 1] = '\0';
		same = keep->message && strstr(keep->message, word + 1);
	} else {
		same = keep->message && strstr(keep->message, word);
	}
	free(word);
	return same;
}

/* The finding that reports the problem f does, better; or NULL */
static struct finding *kept_for(struct findings *fs, const struct finding *f)
{
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(merges); k++) {
		if (strcmp(f->rule, merges[k].drop))
			continue;
		for (i = 0; i < fs->nr; i++)
			if (same_problem(&merges[k], &fs->v[i], f))
				return &fs->v[i];
	}
	return NULL;
}

void findings_merge(struct findings *fs)
{
	bool *drop = xcalloc(fs->nr + 1, sizeof(*drop));
	size_t i, j = 0;

	for (i = 0; i < fs->nr; i++) {
		struct finding *keep = kept_for(fs, &fs->v[i]);

		if (keep) {
			keep->severity = MAX(keep->severity, fs->v[i].severity);
			drop[i] = true;
		}
	}
	for (i = 0; i < fs->nr; i++) {
		if (drop[i]) {
			check_finding_release(&fs->v[i]);
			continue;
		}
		fs->v[j++] = fs->v[i];
	}
	fs->nr = j;
	free(drop);
}
