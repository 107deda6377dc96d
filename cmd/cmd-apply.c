// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bot/apply/apply-out.h"
#include "bot/git/checkout.h"
#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/apply/remotes.h"
#include "bot/series/series-mbox.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"

struct apply_cli {
	const char *mbox;
	const char *repo;
	const char *series;
	const char *export;
	const char *msgid;	/* --msgid: the thread comes from lore */
	const char *url;	/* --url: the inbox to ask */
	struct opt_strings bases;	/* --base, each one */
	const char *trailers;	/* --trailers */
	const char *quarantine;	/* --quarantine: objects go there, no ref */
	bool json, fetch, no_fetch, no_3way, no_branch;
	int min_context;
	char *msgid_bare;
};

struct loaded {
	struct patch *patches;	/* per send, [total] */
	bool *have;
	char **missing;
};

struct slots {
	struct patch **patch;	/* by message index */
	bool **have;
};

static void load_one(void *ctx, size_t index, const char *raw, size_t len)
{
	struct slots *sl = ctx;
	struct mail mail = MAIL_INIT;
	struct strbuf err = STRBUF_INIT;

	if (!mail_parse(raw, len, &mail, &err)) {
		patch_extract(&mail, sl->patch[index]);
		*sl->have[index] = true;
		mail_release(&mail);
	}
	strbuf_release(&err);
}

/* Read every patch of the sends again, this time whole */
static int load_patches(const struct series_mbox *m, struct send **sends, size_t nr,
			struct loaded *ld)
{
	const struct assembly *a = &m->a;
	struct slots sl;
	bool *want;
	size_t max_index = 0, i;
	int k, ret;

	for (i = 0; i < a->nr; i++)
		max_index = MAX(max_index, a->msgs[i]->index);
	sl.patch = xcalloc(max_index + 1, sizeof(*sl.patch));
	sl.have = xcalloc(max_index + 1, sizeof(*sl.have));
	want = xcalloc(max_index + 1, sizeof(*want));
	for (i = 0; i < nr; i++) {
		ld[i].patches = xcalloc(sends[i]->total, sizeof(struct patch));
		ld[i].have = xcalloc(sends[i]->total, sizeof(bool));
		ld[i].missing = xcalloc(sends[i]->total, sizeof(char *));
		for (k = 0; k < sends[i]->total; k++) {
			const struct msg *msg = sends[i]->patches[k].msg;

			if (!msg) {
				ld[i].missing[k] = xasprintf("patch %d/%d is not in the mbox",
							     k + 1, sends[i]->total);
				continue;
			}
			sl.patch[msg->index] = &ld[i].patches[k];
			sl.have[msg->index] = &ld[i].have[k];
			want[msg->index] = true;
		}
	}
	ret = series_mbox_reread(m, want, max_index + 1, load_one, &sl);
	if (ret)
		goto out;
	for (i = 0; i < nr; i++)
		for (k = 0; k < sends[i]->total; k++)
			if (!ld[i].have[k] && !ld[i].missing[k])
				ld[i].missing[k] = xasprintf("patch %d/%d could not be "
							     "read again", k + 1,
							     sends[i]->total);
out:
	free(sl.patch);
	free(sl.have);
	free(want);
	return ret;
}

static void loaded_release(struct loaded *ld, int total)
{
	int k;

	for (k = 0; k < total; k++) {
		if (ld->have[k])
			patch_release(&ld->patches[k]);
		free(ld->missing[k]);
	}
	free(ld->patches);
	free(ld->have);
	free(ld->missing);
}

/*
 * The remotes fetched as git.fetch and git.fetchinterval say (--fetch:
 * now), and the series' base-commit looked for on them when the tree
 * lacks it.  A failure is an error when asked for (--fetch) or when the
 * base-commit is still missing: whether the series applies cannot be
 * told then; else the tree as it is will do.
 */
static int refresh_tree(struct apply_cli *c, struct ctx *ctx, struct gitrepo *r,
			const struct send *s, bool force)
{
	struct remotes_refresh rr = REMOTES_REFRESH_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *p;
	int ret;

	rr.force = force;
	rr.base_commit = s->base_commit;
	ret = remotes_refresh(r, ctx->cfg, &rr, &err);
	for (p = rr.log.buf; *p; p = *p ? p + 1 : p) {
		int n = strcspn(p, "\n");

		fprintf(stderr, "lorebot apply: %.*s\n", n, p);
		p += n;
	}
	if (ret) {
		fprintf(stderr, "lorebot apply: %s\n", err.buf);
		if (!c->fetch && (!s->base_commit || rr.base_known))
			ret = 0;
	}
	remotes_refresh_release(&rr);
	strbuf_release(&err);
	return ret;
}

/* Read-only trees of the base and the result for builds */
static int export_trees(const struct apply_cli *c, struct gitrepo *r,
			struct apply_result *res)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	int ret;

	ret = checkout_tree(r, res->base_sha, c->export, NULL, &path, &err);
	if (!ret) {
		res->export_base = strbuf_detach(&path, NULL);
		ret = checkout_tree(r, res->tip, c->export, res->base_sha, &path, &err);
	}
	if (!ret)
		res->export_tip = strbuf_detach(&path, NULL);
	else
		fprintf(stderr, "lorebot apply: cannot export: %s\n", err.buf);
	strbuf_release(&path);
	strbuf_release(&err);
	return ret;
}

/* apply.link with the Message-ID for its %s */
static char *link_for(const char *mask, const char *msgid)
{
	const char *pct = strstr(mask, "%s");

	if (!pct)
		return xasprintf("%s%s", mask, msgid);
	return xasprintf("%.*s%s%s", (int)(pct - mask), mask, msgid, pct + 2);
}

/*
 * What the commit of patch k gets besides the mail's own trailers, in
 * b4's order: those given in replies to the patch, then to the cover
 * letter, then Link: (git am, which the tests compare with, adds none
 * of them: they use --trailers mail).
 */
static void collected_trailers(const struct send *s, int k,
			       const struct trailers *own, const char *link,
			       struct trailers *out)
{
	const struct send_patch *sp = &s->patches[k];
	size_t i;

	for (i = 0; i < sp->trailers.nr; i++) {
		const struct trailer *t = &sp->trailers.t[i];

		if (!patch_trailers_has(own, t->name, t->value) &&
		    !patch_trailers_has(&s->cover_trailers, t->name, t->value) &&
		    !patch_trailers_has(out, t->name, t->value))
			patch_trailers_add(out, t->name, t->value);
	}
	for (i = 0; i < s->cover_trailers.nr; i++) {
		const struct trailer *t = &s->cover_trailers.t[i];

		if (!patch_trailers_has(out, t->name, t->value))
			patch_trailers_add(out, t->name, t->value);
	}
	/* a Message-ID made up for a mail without one links nowhere */
	if (link && *link && !util_ends_with(sp->msg->msgid, "@" MSG_MISSING_ID_DOMAIN)) {
		char *v = link_for(link, sp->msg->msgid);

		patch_trailers_add(out, "Link", v);
		free(v);
	}
}

static int apply_send(struct apply_cli *c, struct ctx *ctx, struct gitrepo *r,
		      const struct send *s, struct loaded *ld, json_object *out)
{
	struct apply_opts o = APPLY_OPTS_INIT;
	struct apply_input *in = xcalloc(s->total, sizeof(*in));
	struct trailers *extra = xcalloc(s->total, sizeof(*extra));
	const char *mode = c->trailers ? c->trailers : config_v(ctx->cfg)->apply_trailers;
	struct apply_result res;
	char **bases = NULL;
	char *branch = NULL;
	json_object *jo;
	size_t i;
	int k, ret;

	for (k = 0; k < s->total; k++) {
		const struct msg *m = s->patches[k].msg;

		in[k].p = ld->have[k] ? &ld->patches[k] : NULL;
		in[k].subject = in[k].p ? in[k].p->subject : m ? m->subj.title : "";
		in[k].msgid = m ? m->msgid : NULL;
		in[k].missing = ld->missing[k];
		if (in[k].p && !strcmp(mode, "all")) {
			collected_trailers(s, k, &in[k].p->trailers,
					   config_v(ctx->cfg)->apply_link, &extra[k]);
			in[k].trailers = &extra[k];
		}
	}
	if (c->bases.nr) {
		o.bases = c->bases.v;
		o.nr_bases = c->bases.nr;
		o.bases_origin = "--base";
	} else {
		o.nr_bases = remotes_bases(r, ctx->cfg, &bases);
		o.bases = (const char **)bases;
		o.base_commit = s->base_commit;
	}
	if (!c->no_branch) {
		branch = apply_branch_name(s->series->id, s->version);
		if (!gitrepo_ref_name_ok(branch)) {
			free(branch);
			branch = NULL;
		}
		/* quarantined, the branch is the caller's to make */
		if (!c->quarantine)
			o.branch = branch;
	}
	o.max_patch_size = config_v(ctx->cfg)->apply_maxpatchsize;
	o.max_files = config_v(ctx->cfg)->apply_maxfiles;
	o.max_hunks = config_v(ctx->cfg)->apply_maxhunks;
	o.max_binary_size = config_v(ctx->cfg)->apply_maxbinarysize;
	o.min_context = c->min_context;
	o.no_3way = c->no_3way;
	o.committer.name = config_v(ctx->cfg)->core_botname;
	o.committer.email = config_v(ctx->cfg)->core_botaddress;

	ret = apply_series(r, &o, in, s->total, &res);
	if (!ret && res.applied && c->quarantine && branch)
		res.branch = xstrdup(branch);
	if (ret)
		fprintf(stderr, "lorebot apply: series %s v%d: %s\n", s->series->id,
			s->version, res.error);
	if (!ret && res.applied && c->export && export_trees(c, r, &res))
		ret = -EIO;
	jo = apply_result_to_json(&res, c->bases.nr ? NULL : s->base_commit);
	if (c->export && res.applied && !ret) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "base", json_object_new_string(res.export_base));
		json_object_object_add(e, "tree", json_object_new_string(res.export_tip));
		json_object_object_add(jo, "export", e);
	}
	json_object_object_add(jo, "series_id", json_object_new_string(s->series->id));
	json_object_object_add(jo, "send", json_object_new_string(s->id));
	json_object_object_add(jo, "version", json_object_new_int(s->version));
	json_object_object_add(jo, "title", json_object_new_string(s->title));
	if (c->json) {
		json_object_array_add(out, jo);
	} else {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "series %s v%d: %s\n", s->series->id, s->version, s->title);
		apply_result_to_text(&res, &sb);
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
		json_object_put(jo);
	}
	if (ret)
		ret = ret == -ENOENT && c->bases.nr ? EXIT_USAGE : EXIT_INFRA;
	else
		ret = res.applied ? EXIT_OK : EXIT_FINDINGS;
	apply_result_release(&res);
	for (k = 0; k < s->total; k++)
		patch_trailers_release(&extra[k]);
	free(extra);
	free(branch);
	for (i = 0; bases && i < o.nr_bases; i++)
		free(bases[i]);
	free(bases);
	free(in);
	return ret;
}

/* -C N: the lines of context a hunk must match at least */
static int min_context_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	int *min_context = opt->value;
	char *end;

	*min_context = (int)strtol(arg, &end, 10);
	if (*end || *min_context < 0 || *min_context > 1000) {
		strbuf_addf(err, "bad -C '%s'", arg);
		return -1;
	}
	return 0;
}

static int trailers_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	if (strcmp(arg, "mail") && strcmp(arg, "all")) {
		strbuf_addf(err, "--trailers mail or all, not '%s'", arg);
		return -1;
	}
	*(const char **)opt->value = arg;
	return 0;
}

const char cmd_apply_help[] =
	"NAME\n"
	"    lorebot-apply - apply a patch series to the kernel tree and say exactly\n"
	"    why when it does not apply\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot apply --mbox FILE [--repo DIR] [--base REV]... [--series ID]\n"
	"                  [--fetch | --no-fetch] [-C N] [--no-3way] [--no-branch]\n"
	"                  [--trailers mail|all] [--quarantine DIR] [--json]\n"
	"    lorebot apply --msgid ID [--url URL] [--repo DIR] [options as above]\n"
	"\n"
	"DESCRIPTION\n"
	"    Finds the patch series in FILE (the current version of each, as\n"
	"    'lorebot series' shows them) and applies each patch in order, without\n"
	"    any working tree, making one commit per patch with the author, date\n"
	"    and full message (trailers included) of the mail, and, as b4 shazam\n"
	"    adds them, the trailers reviewers gave in replies to the patch and to\n"
	"    the cover letter, then a Link: to the patch (apply.trailers,\n"
	"    apply.link).  When every patch applies, the branch\n"
	"    refs/heads/lorebot/<series-id>/v<N> points at the last commit.\n"
	"\n"
	"    The base is, in order: the series' base-commit when the repository has\n"
	"    it; then each branch of git.base (mm-new first), at its current tip\n"
	"    (a branch a configured remote fetches is taken as fetched,\n"
	"    <remote>/<branch>).  A base-commit the repository lacks is looked for\n"
	"    on the remotes first: their branches, then the commit by its id.\n"
	"    The first base on which the whole series applies is used; when none\n"
	"    does, the report is for the first base that exists.  Every attempt is\n"
	"    listed.  A base-commit the repository does not have is reported as\n"
	"    such, so that a failure is not blamed on the patches.\n"
	"\n"
	"    Hunks are placed as 'git apply' places them: at the line the hunk\n"
	"    names, else at the nearest place where all its context matches\n"
	"    (reported as an offset); no fuzz unless -C is given.  When a file's\n"
	"    hunks do not fit and the pre-image blob of its 'index' line is in the\n"
	"    repository, a three-way merge is tried (as 'git am -3').  Each patch\n"
	"    reports how it applied: exact, offset, fuzz, 3way or binary.\n"
	"\n"
	"    When a patch does not apply, every failing file and hunk is named,\n"
	"    with the first lines of the hunk and the lines of the tree where it\n"
	"    comes closest, in compiler format (file:line: error: ...).  Later\n"
	"    patches are not applied; each is tried on its own against the base\n"
	"    and the report says whether it would apply.\n"
	"\n"
	"    Refused with the reason: paths with '..' or '.git' components,\n"
	"    absolute paths, writing beyond a symbolic link, symbolic links that\n"
	"    point outside the tree, submodules, binary patches without data,\n"
	"    diffs larger than apply.maxpatchsize, with more files than\n"
	"    apply.maxfiles or hunks than apply.maxhunks, binary data inflating\n"
	"    beyond apply.maxbinarysize (checked before it is inflated whole).\n"
	"    Each refusal names the patch and the limit.  Nothing outside the\n"
	"    repository's object database is read or written.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 every patch applied, 1 a series does not apply, 2 usage or input\n"
	"    error (no series in FILE, unknown --base), 3 repository or fetch error.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot apply --mbox 20250115033807.46664-1-21cnbao@gmail.com.mbx \\\n"
	"        --repo ~/mm.git\n"
	"    lorebot apply --mbox series.mbx --repo ~/mm.git --base mm-unstable --json\n";

static int apply_parse_options(struct apply_cli *c, int argc, char **argv)
{
	const struct parse_opt opts[] = {
		OPT_STRING('m', "mbox", &c->mbox, "FILE",
			   "an mbox (b4 mbox, lore's t.mbox.gz unpacked) or one message; - is "
			   "stdin"),
		OPT_STRING(0, "msgid", &c->msgid, "ID",
			   "fetch the thread of this message from lore and apply the series it "
			   "belongs to (its cover letter or any of its patches)"),
		OPT_STRING(0, "url", &c->url, "URL",
			   "the inbox to ask for --msgid (default: the first list.<name>.url)"),
		OPT_STRING('r', "repo", &c->repo, "DIR",
			   "the kernel repository (default: git.repo); bare is fine"),
		OPT_STRING_LIST('b', "base", &c->bases, "REV",
				"try REV instead of the base-commit and git.base; repeat to try "
				"several in order"),
		OPT_STRING('s', "series", &c->series, "ID",
			   "apply only this series (series id, cover letter or patch Message-ID, "
			   "as 'lorebot series' lists them); default: every series in FILE"),
		OPT_BOOL(0, "fetch", &c->fetch,
			 "fetch the configured remotes (remote.<name>.url and "
			 "remote.<name>.branch) now; the repository is created when missing.  "
			 "Without it they are fetched when git.fetch is true (the default) and "
			 "the last fetch is older than git.fetchinterval, or when the tree lacks "
			 "a series' base-commit"),
		OPT_BOOL(0, "no-fetch", &c->no_fetch,
			 "fetch nothing (the daemon's apply jobs: the daemon fetched)"),
		OPT_CALLBACK('C', NULL, &c->min_context, "N",
			     "allow reducing the context of a hunk to N lines (git apply -C); "
			     "such hunks are reported as fuzz", min_context_cb),
		OPT_BOOL(0, "no-3way", &c->no_3way,
			 "never fall back to a three-way merge"),
		OPT_BOOL(0, "no-branch", &c->no_branch,
			 "make the commits but no branch"),
		OPT_STRING(0, "quarantine", &c->quarantine, "DIR",
			   "write the new objects into DIR (a loose objects directory) and "
			   "nothing into the repository, which is only read; 'branch' names the "
			   "branch to make, which is not made (the daemon's apply jobs: the "
			   "daemon takes in what is reachable from 'tip', checked, and makes the "
			   "branch itself).  Not with --fetch or --export"),
		OPT_CALLBACK(0, "trailers", &c->trailers, "mail|all",
			     "the mail's trailers only, or also those from replies and Link: "
			     "(default: apply.trailers, all)", trailers_cb),
		OPT_STRING(0, "export", &c->export, "ROOT",
			   "when a series applies, export the base and the result as read-only "
			   "trees ROOT/<tree-id> for builds (unchanged files of the result are "
			   "hard links into the base's); their paths are in 'export'"),
		OPT_BOOL('j', "json", &c->json,
			 "print the result as JSON: an object with base {name, sha, reason}, "
			 "branch (or null) and patches [{n, subject, status, method, file, hunk, "
			 "message, failures [{file, hunk}], would_apply_alone, ...}]; with "
			 "several series, {\"series\": [such objects]}"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "apply", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if (!c->mbox == !c->msgid)
		return cmd_usage_error("apply", "--mbox FILE or --msgid ID (one of them)");
	if (c->quarantine && (c->fetch || c->export))
		return cmd_usage_error("apply", "--quarantine reads the repository only: "
				       "not with --fetch or --export");
	return 0;
}

int cmd_apply(int argc, char **argv, struct ctx *ctx)
{
	struct apply_cli c = { .min_context = -1 };
	struct series_mbox m;
	struct send **sends = NULL;
	struct loaded *ld = NULL;
	struct gitrepo *r = NULL;
	struct strbuf err = STRBUF_INIT;
	json_object *out = json_object_new_array();
	size_t nr = 0, i;
	int ret, worst = EXIT_OK;
	bool fetch;

	series_mbox_init(&m, ctx->cfg);
	ret = apply_parse_options(&c, argc, argv);
	if (ret)
		goto out;
	if (!c.repo)
		c.repo = config_v(ctx->cfg)->git_repo;
	if (!c.repo) {
		ret = cmd_usage_error("apply", "no repository: give --repo DIR or set git.repo");
		goto out;
	}
	if (c.msgid) {
		ret = series_mbox_fetch(&m, c.url, c.msgid, &err);
		if (ret == -1) {
			fprintf(stderr, "lorebot apply: %s\n", err.buf);
			ret = EXIT_INFRA;
			goto out;
		}
		if (!c.series) {
			/* the send holding that message, without <> */
			c.msgid_bare = xstrdup(c.msgid + (*c.msgid == '<'));
			c.msgid_bare[strcspn(c.msgid_bare, ">")] = '\0';
			c.series = c.msgid_bare;
		}
	} else {
		ret = series_mbox_read(&m, c.mbox);
	}
	if (ret) {
		if (m.path)
			fprintf(stderr, "lorebot apply: cannot read '%s': %s\n", m.path,
				strerror(-ret));
		else
			fprintf(stderr, "lorebot apply: cannot read stdin: %s\n", strerror(-ret));
		ret = EXIT_USAGE;
		goto out;
	}
	c.mbox = m.path;
	for (const char *p = m.a.problems.buf; *p;) {
		const char *nl = strchrnul(p, '\n');

		fprintf(stderr, "lorebot apply: %s: %.*s\n", c.mbox, (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
	nr = series_mbox_pick(&m, c.series, &sends);
	if (!nr) {
		fprintf(stderr, "lorebot apply: %s\n", c.series ?
			"no such series in the mbox (see 'lorebot series --mbox')" :
			"no patch series in the mbox");
		ret = EXIT_USAGE;
		goto out;
	}
	ld = xcalloc(nr, sizeof(*ld));
	ret = load_patches(&m, sends, nr, ld);
	if (ret) {
		fprintf(stderr, "lorebot apply: cannot read '%s' again: %s\n", c.mbox,
			strerror(-ret));
		ret = EXIT_USAGE;
		goto out;
	}
	fetch = !c.no_fetch && !c.quarantine &&
		(c.fetch || config_v(ctx->cfg)->git_fetch) && remotes_count(ctx->cfg);
	if (gitrepo_open(&r, c.repo, fetch, &err) ||
	    (c.quarantine && gitrepo_quarantine(r, c.quarantine, &err))) {
		fprintf(stderr, "lorebot apply: %s\n", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (fetch && refresh_tree(&c, ctx, r, sends[i], c.fetch && !i)) {
			ret = EXIT_INFRA;
			goto out;
		}
		ret = apply_send(&c, ctx, r, sends[i], &ld[i], out);
		if (ret > worst)
			worst = ret;
	}
	if (c.json) {
		if (nr == 1) {
			jx_print(json_object_array_get_idx(out, 0), stdout);
		} else {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "series", json_object_get(out));
			jx_print(o, stdout);
			json_object_put(o);
		}
	}
	ret = worst;
out:
	for (i = 0; ld && i < nr; i++)
		loaded_release(&ld[i], sends[i]->total);
	free(ld);
	free(sends);
	gitrepo_close(r);
	series_mbox_release(&m);
	json_object_put(out);
	strbuf_release(&err);
	parse_opt_strings_release(&c.bases);
	free(c.msgid_bare);
	return ret;
}
