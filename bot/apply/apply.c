// SPDX-License-Identifier: GPL-2.0
/*
 * A series onto a base: base selection with every attempt recorded, one
 * commit per patch (author, date and message from the mail), the branch
 * when everything applied, and for what did not apply, whether each
 * later patch would apply on its own.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bot/apply/apply.h"

static const char *const status_names[] = {
	[APPLY_APPLIED] = "applied",
	[APPLY_FAILED] = "failed",
	[APPLY_SKIPPED] = "skipped",
};

static const char *const method_names[] = {
	[METHOD_NONE] = NULL,
	[METHOD_EXACT] = "exact",
	[METHOD_OFFSET] = "offset",
	[METHOD_FUZZ] = "fuzz",
	[METHOD_3WAY] = "3way",
	[METHOD_BINARY] = "binary",
};

const char *apply_status_name(enum apply_status s)
{
	return status_names[s];
}

const char *apply_method_name(enum apply_method m)
{
	return method_names[m];
}

char *apply_branch_name(const char *series_id, int version)
{
	return xasprintf("refs/heads/lorebot/%s/v%d", series_id, version);
}

/* git's ident rules: no angle brackets or newlines, no crud at the ends */
static char *clean_ident(const char *s)
{
	static const char crud[] = " .,:;<>\"\\'\t";
	struct strbuf sb = STRBUF_INIT;
	size_t b, e;

	for (; s && *s; s++)
		if (*s != '<' && *s != '>' && *s != '\n' && *s != '\r')
			strbuf_addch(&sb, *s);
	b = 0;
	e = sb.len;
	while (b < e && strchr(crud, sb.buf[b]))
		b++;
	while (e > b && strchr(crud, sb.buf[e - 1]))
		e--;
	memmove(sb.buf, sb.buf + b, e - b);
	strbuf_setlen(&sb, e - b);
	return strbuf_detach(&sb, NULL);
}

/* git stripspace: trailing blanks, repeated and outer empty lines go */
static void clean_message(const char *in, struct strbuf *out)
{
	size_t blanks = 0;

	while (*in) {
		const char *nl = strchrnul(in, '\n');
		size_t len = nl - in;

		while (len && isspace((unsigned char)in[len - 1]))
			len--;
		if (!len) {
			blanks++;
		} else {
			if (out->len && blanks)
				strbuf_addch(out, '\n');
			strbuf_add(out, in, len);
			strbuf_addch(out, '\n');
			blanks = 0;
		}
		in = *nl ? nl + 1 : nl;
	}
}

static int commit_patch(struct gitrepo *r, const struct apply_opts *o,
			const struct apply_input *in, const struct gitoid *tree,
			const struct gitoid *parent, struct gitoid *out,
			struct strbuf *why, struct strbuf *err)
{
	const struct patch *p = in->p;
	struct strbuf msg = STRBUF_INIT, raw = STRBUF_INIT;
	char *name = clean_ident(p->author_name), *email = clean_ident(p->author_email);
	struct gitrepo_sig author = { .name = name, .email = email,
				      .time = p->date, .tz = p->tz };
	struct gitrepo_sig committer = o->committer;
	int ret = 1;

	if (!*email || strpbrk(email, " \t") || !strchr(email, '@')) {
		strbuf_addf(why, "no valid author address ('%s')",
			    p->author_email ? p->author_email : "");
		goto out;
	}
	if (!*name) {
		free(name);
		name = xstrndup(email, strcspn(email, "@"));
		author.name = name;
	}
	if (!committer.time)
		committer.time = time(NULL);
	if (!author.time)
		author.time = committer.time;
	patch_commit_message_with(p, in->trailers, &raw);
	clean_message(raw.buf, &msg);
	if (!msg.len) {
		strbuf_addstr(why, "empty commit message");
		goto out;
	}
	ret = gitrepo_commit_create(r, tree, parent, &author, &committer, msg.buf,
				    out, err);
out:
	free(name);
	free(email);
	strbuf_release(&msg);
	strbuf_release(&raw);
	return ret;
}

/* One pass of the series over one base */
struct run {
	struct apply_patch *patches;
	size_t nr;
	bool applied;
	size_t first_failed;	/* index, when !applied */
	struct gitoid tip, tree;
	bool have_tip;
};

static void run_release(struct run *run)
{
	size_t i;

	for (i = 0; i < run->nr; i++)
		apply_patch_release(&run->patches[i]);
	free(run->patches);
	memset(run, 0, sizeof(*run));
}

static void init_patch(struct apply_patch *pr, const struct apply_input *in,
		       size_t i, size_t n)
{
	memset(pr, 0, sizeof(*pr));
	pr->n = (int)i + 1;
	pr->total = (int)n;
	pr->subject = xstrdup(in->subject ? in->subject :
			      in->p && in->p->subject ? in->p->subject : "");
	pr->msgid = xstrdup_or_null(in->msgid);
	pr->alone = -1;
}

/*
 * Apply every patch in order onto base; with stop_early, stop at the
 * first failure.  0 or -errno (err).
 */
static int run_series(struct gitrepo *r, const struct apply_opts *o,
		      const struct gitoid *base, const struct apply_input *in,
		      size_t n, bool stop_early, struct run *run, struct strbuf *err)
{
	struct gitoid tree, parent = *base, new_tree, commit;
	size_t i;
	int ret;

	memset(run, 0, sizeof(*run));
	run->patches = xcalloc(n ? n : 1, sizeof(*run->patches));
	run->nr = n;
	run->applied = true;
	ret = gitrepo_commit_tree(r, base, &tree, err);
	if (ret)
		return ret;
	run->tree = tree;
	run->tip = *base;
	for (i = 0; i < n; i++) {
		struct apply_patch *pr = &run->patches[i];
		struct strbuf why = STRBUF_INIT;

		init_patch(pr, &in[i], i, n);
		if (!run->applied) {
			pr->status = APPLY_SKIPPED;
			pr->message = xasprintf("not applied: patch %zu/%zu does not apply",
						run->first_failed + 1, n);
			continue;
		}
		ret = apply_patch_tree(r, o, &tree, &in[i], pr, &new_tree, err);
		if (ret < 0)
			return ret;
		if (!ret) {
			ret = commit_patch(r, o, &in[i], &new_tree, &parent, &commit,
					   &why, err);
			if (ret < 0) {
				strbuf_release(&why);
				return ret;
			}
			if (ret) {
				pr->status = APPLY_FAILED;
				pr->message = strbuf_detach(&why, NULL);
			}
		}
		strbuf_release(&why);
		if (ret) {
			run->applied = false;
			run->first_failed = i;
			if (stop_early) {
				run->nr = i + 1;
				break;
			}
			continue;
		}
		gitoid_hex(&commit, pr->commit);
		parent = commit;
		tree = new_tree;
		run->tip = commit;
		run->tree = new_tree;
		run->have_tip = true;
	}
	return 0;
}

/* Skipped patches: would each apply on its own to the base? */
static int try_alone(struct gitrepo *r, const struct apply_opts *o,
		     const struct gitoid *base, const struct apply_input *in,
		     struct run *run, struct strbuf *err)
{
	struct gitoid tree, out;
	size_t i;
	int ret;

	ret = gitrepo_commit_tree(r, base, &tree, err);
	if (ret)
		return ret;
	for (i = 0; i < run->nr; i++) {
		struct apply_patch *pr = &run->patches[i], alone;

		if (pr->status != APPLY_SKIPPED)
			continue;
		init_patch(&alone, &in[i], i, run->nr);
		ret = apply_patch_tree(r, o, &tree, &in[i], &alone, &out, err);
		if (ret < 0) {
			apply_patch_release(&alone);
			return ret;
		}
		pr->alone = ret ? 0 : 1;
		if (ret) {
			size_t k, j = 0;

			/* keep only the failures */
			pr->alone_hunks = xcalloc(alone.nr_failed ? alone.nr_failed : 1,
						  sizeof(*pr->alone_hunks));
			for (k = 0; k < alone.nr_hunks; k++) {
				if (alone.hunks[k].applied)
					continue;
				pr->alone_hunks[j++] = alone.hunks[k];
				memset(&alone.hunks[k], 0, sizeof(alone.hunks[k]));
			}
			pr->nr_alone = j;
			pr->alone_message = alone.message;
			alone.message = NULL;
		}
		apply_patch_release(&alone);
	}
	return 0;
}

static struct apply_attempt *add_attempt(struct apply_result *res, const char *name,
					 const char *origin)
{
	struct apply_attempt *a;

	res->attempts = xrealloc(res->attempts,
				 (res->nr_attempts + 1) * sizeof(*res->attempts));
	a = &res->attempts[res->nr_attempts++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->origin = xstrdup(origin);
	return a;
}

static bool is_hex_id(const char *s)
{
	size_t len = strlen(s);

	return len >= 7 && len <= GITOID_HEXSZ &&
		strspn(s, "0123456789abcdefABCDEF") == len;
}

/* Resolve every candidate base, recording the outcome of each */
static void resolve_bases(struct gitrepo *r, const struct apply_opts *o,
			  struct apply_result *res, struct gitoid *ids,
			  char **refs)
{
	struct strbuf err = STRBUF_INIT;
	size_t i;

	if (o->base_commit) {
		struct apply_attempt *a = add_attempt(res, "base-commit", "base-commit");
		struct gitoid id;
		bool hex_ok = is_hex_id(o->base_commit);
		int ret = hex_ok ? gitrepo_find_object(r, o->base_commit, &id) : -EINVAL;

		free(a->name);
		a->name = xasprintf("base-commit %s", o->base_commit);
		if (!hex_ok) {
			a->outcome = xstrdup("not a commit id");
		} else if (ret) {
			a->outcome = xstrdup(ret == -EINVAL ? "ambiguous in the repository" :
					     "not in the repository");
			res->base_commit_unknown = ret != -EINVAL;
		} else {
			char hex[GITOID_HEXSZ + 1];

			gitoid_hex(&id, hex);
			ret = gitrepo_resolve_commit(r, hex, &ids[0], &refs[0], &err);
			if (ret) {
				a->outcome = xstrdup("not a commit");
			} else {
				a->resolved = true;
				gitoid_hex(&ids[0], a->sha);
			}
		}
	}
	for (i = 0; i < o->nr_bases; i++) {
		size_t k = res->nr_attempts;
		struct apply_attempt *a = add_attempt(res, o->bases[i], o->bases_origin);
		int ret;

		strbuf_reset(&err);
		ret = gitrepo_resolve_commit(r, o->bases[i], &ids[k], &refs[k], &err);
		if (ret) {
			a->outcome = ret == -ENOENT ?
				xstrdup("no such branch or commit in the repository") :
				strbuf_detach(&err, NULL);
			continue;
		}
		a->resolved = true;
		gitoid_hex(&ids[k], a->sha);
	}
	strbuf_release(&err);
}

static char *failure_outcome(const struct run *run)
{
	const struct apply_patch *pr = &run->patches[run->first_failed];
	const char *file = "";
	size_t i;

	for (i = 0; i < pr->nr_hunks && !*file; i++)
		if (!pr->hunks[i].applied)
			file = pr->hunks[i].file;
	return xasprintf("does not apply: patch %d/%d fails%s%s", pr->n, pr->total,
			 *file ? " on " : "", file);
}

static void compose_reason(const struct apply_opts *o, struct apply_result *res,
			   size_t chosen, bool applied)
{
	const struct apply_attempt *a = &res->attempts[chosen];
	struct strbuf sb = STRBUF_INIT;
	size_t i, earlier_failed = 0;

	for (i = 0; i < chosen; i++)
		earlier_failed += res->attempts[i].resolved;
	if (!strcmp(a->origin, "base-commit")) {
		strbuf_addstr(&sb, "the series' base-commit, present in the repository");
	} else if (!strcmp(a->origin, "--base")) {
		strbuf_addstr(&sb, "given with --base");
		if (earlier_failed)
			strbuf_addstr(&sb, applied ? "; the first one on which the series "
				      "applies" : "; the first one that exists");
	} else {
		if (!o->base_commit)
			strbuf_addstr(&sb, "the series names no base-commit; ");
		else if (res->base_commit_unknown)
			strbuf_addf(&sb, "the series' base-commit %s is not in this "
				    "repository; ", o->base_commit);
		else if (!res->attempts[0].resolved)
			strbuf_addf(&sb, "the series' base-commit %s is %s; ",
				    o->base_commit, res->attempts[0].outcome);
		strbuf_addf(&sb, "%s is the first of %s", a->name, o->bases_origin);
		if (earlier_failed)
			strbuf_addstr(&sb, applied ? " on which the series applies" :
				      " that exists");
		else
			strbuf_addstr(&sb, " that exists");
		if (res->base_commit_unknown && !applied)
			strbuf_addstr(&sb, "; the failures may come from the different "
				      "base, not from the patches");
	}
	res->base_reason = strbuf_detach(&sb, NULL);
}

int apply_series(struct gitrepo *r, const struct apply_opts *o,
		 const struct apply_input *in, size_t n,
		 struct apply_result *res)
{
	size_t nr_cand = o->nr_bases + 1, i, report = SIZE_MAX, chosen = SIZE_MAX;
	struct gitoid *ids = xcalloc(nr_cand, sizeof(*ids));
	char **refs = xcalloc(nr_cand, sizeof(*refs));
	struct strbuf err = STRBUF_INIT;
	struct run keep = { 0 }, run;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	resolve_bases(r, o, res, ids, refs);
	for (i = 0; i < res->nr_attempts; i++) {
		struct apply_attempt *a = &res->attempts[i];

		if (!a->resolved)
			continue;
		ret = run_series(r, o, &ids[i], in, n, report != SIZE_MAX, &run, &err);
		if (ret) {
			run_release(&run);
			goto out;
		}
		a->applied = run.applied;
		a->outcome = run.applied ? xstrdup("applies") : failure_outcome(&run);
		if (run.applied) {
			run_release(&keep);
			keep = run;
			chosen = i;
			break;
		}
		if (report == SIZE_MAX) {
			keep = run;
			report = i;
		} else {
			run_release(&run);
		}
	}
	if (chosen == SIZE_MAX)
		chosen = report;
	if (chosen == SIZE_MAX) {
		strbuf_addstr(&err, "no base to apply to:");
		for (i = 0; i < res->nr_attempts; i++)
			strbuf_addf(&err, "%s %s: %s", i ? ";" : "",
				    res->attempts[i].name, res->attempts[i].outcome);
		ret = -ENOENT;
		goto out;
	}
	res->applied = keep.applied;
	res->base_name = xstrdup(!strcmp(res->attempts[chosen].origin, "base-commit") ?
				 "base-commit" : res->attempts[chosen].name);
	res->base_ref = xstrdup(refs[chosen]);
	memcpy(res->base_sha, res->attempts[chosen].sha, sizeof(res->base_sha));
	compose_reason(o, res, chosen, keep.applied);
	if (!keep.applied && !o->no_alone) {
		ret = try_alone(r, o, &ids[chosen], in, &keep, &err);
		if (ret)
			goto out;
	}
	if (keep.have_tip)
		gitoid_hex(&keep.tip, res->tip);
	gitoid_hex(&keep.tree, res->tree);
	if (keep.applied && o->branch) {
		ret = gitrepo_ref_set(r, o->branch, &keep.tip, "apply series", &err);
		if (ret)
			goto out;
		res->branch = xstrdup(o->branch);
	}
	res->patches = keep.patches;
	res->nr = keep.nr;
	keep.patches = NULL;
	keep.nr = 0;
out:
	if (ret)
		res->error = strbuf_detach(&err, NULL);
	run_release(&keep);
	for (i = 0; i < nr_cand; i++)
		free(refs[i]);
	free(refs);
	free(ids);
	strbuf_release(&err);
	return ret;
}

void apply_result_release(struct apply_result *res)
{
	size_t i;

	free(res->base_name);
	free(res->base_ref);
	free(res->base_reason);
	for (i = 0; i < res->nr_attempts; i++) {
		free(res->attempts[i].name);
		free(res->attempts[i].origin);
		free(res->attempts[i].outcome);
	}
	free(res->attempts);
	for (i = 0; i < res->nr; i++)
		apply_patch_release(&res->patches[i]);
	free(res->patches);
	free(res->branch);
	free(res->error);
	free(res->export_base);
	free(res->export_tip);
	memset(res, 0, sizeof(*res));
}
