// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ci/devcheck.h"
#include "ci/mboxcheck.h"
#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/log.h"
#include "checkers/check.h"

const char cmd_check_help[] =
	"NAME\n"
	"    lorebot-check - review patches the way linux-mm reviewers do, before\n"
	"    sending them or as they come\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot check [RANGE] [--fix [--apply]] [--build[=ARCHS]] [--boot[=ARCHS]]\n"
	"                  [--repo DIR] [options]\n"
	"    lorebot check --mbox FILE [--series ID] [--repo DIR] [options]\n"
	"    lorebot check --msgid ID [--url URL] [--repo DIR] [options]\n"
	"    lorebot check --list\n"
	"\n"
	"DESCRIPTION\n"
	"    In a kernel tree, without --mbox, checks the commits of the current\n"
	"    branch that are not in its upstream (@{upstream}..HEAD); on a branch\n"
	"    prepared with 'b4 prep', the series b4 would send, with its cover\n"
	"    letter; or RANGE: A..B (either side may be left out: HEAD), or one\n"
	"    commit.  Each commit is checked as the mail 'git format-patch' would\n"
	"    make of it, against the whole files of the commit.  Nothing in the\n"
	"    repository is changed: no checkout, no index, no refs (only --apply\n"
	"    writes, when asked).\n"
	"\n"
	"    With --mbox, checks every current series in FILE (a thread saved from\n"
	"    lore; versions superseded by a later one are skipped), with --msgid\n"
	"    the thread of message ID, fetched from lore; with --repo\n"
	"    the series is applied (without writing) to its base-commit, else\n"
	"    git.base, else HEAD, so the rules read whole files, Fixes: tags are\n"
	"    looked up and checkpatch.pl is that of the first git.base branch of\n"
	"    the tree (never of a commit only a mail names); a patch that does not\n"
	"    apply is checked from its hunks.  Without --repo the rules see the\n"
	"    hunks only and say so when that was not enough: one note per patch,\n"
	"    'hunks-only', names the rules that could not decide and where.\n"
	"\n"
	"    A diff posted in a reply (a fold-in fix-up, a \"-fix\" patch, an\n"
	"    inline \"[PATCH] tmp\" in a \"Re:\" mail) is checked too, as a patch\n"
	"    of its own headed \"(a diff in a reply to vN n/M <id>)\" with the\n"
	"    version it fixes; --series with the reply's Message-ID checks only it.\n"
	"\n"
	"    Findings are printed in compiler format, grouped by patch, with a\n"
	"    summary line:\n"
	"\n"
	"        mm/rmap.c:683: warning: parameters of ... [one-line-args]\n"
	"\n"
	"    Findings are only on lines the series adds or changes, or on its\n"
	"    mails (COMMIT_MSG, COVER_LETTER, SERIES), or where a line the series\n"
	"    adds makes the problem (a lock taken before an unchanged return).\n"
	"    With a tree the rules read the whole functions the series touches,\n"
	"    along their paths (the exit rules), and one level of callees and\n"
	"    callers.  The checkers: the mm review rules (lazyfree-droppable,\n"
	"    progress-accounting, pte-map-null, pte-unmap-exit, rcu-unlock-exit,\n"
	"    unlock-exit, atomic-sleep, lock-assert, one-line-args);\n"
	"    checkpatch (scripts/checkpatch.pl of the tree, as 'b4 prep --check'\n"
	"    runs it; findings 'checkpatch:<TYPE>'); signed-off-by, fixes-tag,\n"
	"    subject, numbering, cover-letter, base-commit; codespell (typos in\n"
	"    commit messages and the cover letter).  'lorebot check --list' lists\n"
	"    them.\n"
	"\n"
	"OPTIONS\n"
	"    RANGE\n"
	"        A..B, A.. or ..B (HEAD), or one commit; default: the branch's own\n"
	"    --repo DIR\n"
	"        the repository: without --mbox, the developer's tree to check\n"
	"        (default: the one holding the current directory); with --mbox,\n"
	"        the kernel tree the series is for (work tree or bare)\n"
	"    --mbox FILE\n"
	"        check the patches of FILE (mboxo or mboxrd, or one message; -\n"
	"        reads stdin) instead of a branch\n"
	"    --series ID\n"
	"        with --mbox: only the version ID (its cover letter's or a patch's\n"
	"        Message-ID), also when it was superseded, or the current version\n"
	"        of series ID (as 'lorebot apply --series' picks it)\n"
	"    --msgid ID\n"
	"        check the thread of message ID (<> optional), fetched from lore\n"
	"    --url URL\n"
	"        the inbox to ask for --msgid (default: the first list.<name>.url,\n"
	"        e.g. git config --global lorebot.list.linux-mm.url\n"
	"        https://lore.kernel.org/linux-mm/)\n"
	"    --json\n"
	"        print {\"findings\": [...]} with rule, severity (error, warning or\n"
	"        note), patch (its number; 0 for the series), file (null for the\n"
	"        commit message or the series), line (post-image; null when none\n"
	"        applies), column (its byte from 1; null when unknown), message\n"
	"        and optional quote, suggestion and cause (the line that makes\n"
	"        the problem, when it is not line); plus series (patches, base,\n"
	"        summary, reply_to for a diff in a reply) and, for a branch, range\n"
	"        (kind, desc, base, tip, commits)\n"
	"    --checkers LIST\n"
	"        turn checkers on and off like -W: 'one-line-args,-checkpatch',\n"
	"        'all', '-all,codespell'; applied after check.enable/check.disable\n"
	"    --columns N\n"
	"        the column limit of one-line-args (check.columns, default 80)\n"
	"    --preexisting\n"
	"        the mm rules also report what they find in code the series does\n"
	"        not change (whole functions with a tree), as notes marked\n"
	"        \"pre-existing\"\n"
	"    --fail-on LEVEL\n"
	"        exit 1 for findings of LEVEL or worse: error (the default),\n"
	"        warning, or note (any finding); for hooks and CI\n"
	"    --stale-tree WHY\n"
	"        the tree may lack commits the series names, for the reason WHY\n"
	"        (the bot passes it when its tree was not fetched lately): a\n"
	"        commit id the tree lacks is not reported (fixes-tag, checkpatch's\n"
	"        UNKNOWN_COMMIT_ID), a note says so\n"
	"    --fix\n"
	"        also print the packed prototypes one-line-args suggests, as a\n"
	"        patch for 'git apply' on top of the range\n"
	"    --apply\n"
	"        commit them instead, as one 'fixup! <subject>' commit per patch on\n"
	"        the current branch (the range must end at its tip), for 'git\n"
	"        rebase -i --autosquash'; refused when the index or the work tree\n"
	"        has changes to the files concerned\n"
	"    --build[=ARCHS]\n"
	"        also build every patch for ARCHS (x86_64,arm64,riscv; default\n"
	"        build.arch, else all three), as the bot does; a missing cross\n"
	"        compiler is named with its Debian package\n"
	"    --boot[=ARCHS]\n"
	"        also boot the tip for ARCHS and run the mm kselftests (builds too)\n"
	"    --color[=WHEN]\n"
	"        auto (a terminal, unless NO_COLOR is set), always (the default of\n"
	"        a bare --color) or never; check.color\n"
	"    --progress, --no-progress\n"
	"        progress on stderr for work longer than a second (default: when\n"
	"        stderr is a terminal)\n"
	"    --list\n"
	"        list the checkers and whether they are on\n"
	"\n"
	"CONFIGURATION\n"
	"    lorebot.* keys of git's configuration (the user's and the repository's,\n"
	"    never files of the tree), then --config FILE: check.enable,\n"
	"    check.disable, check.columns, check.checkpatch, check.checkpatchflags,\n"
	"    check.codespell, check.color, build.arch, build.profile, git.base,\n"
	"    core.cachedir.  Example: git config --global lorebot.check.columns 100\n"
	"\n"
	"EXIT STATUS\n"
	"    0 no errors (warnings and notes are fine), 1 errors (with --fail-on:\n"
	"    findings of that level or worse), 2 bad input or usage (also:\n"
	"    nothing to check, --apply refused), 3 the repository, lore (--msgid)\n"
	"    or the tools for --build/--boot could not be used.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot check\n"
	"    lorebot check origin/mm-new..HEAD --checkers=-checkpatch\n"
	"    lorebot check --fix --apply && git rebase -i --autosquash origin/mm-new\n"
	"    lorebot check --msgid 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    b4 mbox 20260207081613.588598-1-vernon2gm@gmail.com\n"
	"    lorebot check --mbox 20260207081613.588598-1-vernon2gm@gmail.com.mbx\n"
	"\n"
	"    See lorebot-check(1) for more (man -l doc/lorebot-check.1).\n";

char *cmd_check_cache_dir(const struct config *cfg)
{
	const char *c = config_get(cfg, "core.cachedir");
	const char *env = getenv("LOREBOT_CACHE");

	if (c && *c)
		return xstrdup(c);
	if (env && *env)
		return xstrdup(env);
	if (!geteuid())
		return xstrdup("/var/cache/lorebot");
	env = getenv("XDG_CACHE_HOME");
	if (env && *env)
		return xasprintf("%s/lorebot", env);
	env = getenv("HOME");
	return env ? xasprintf("%s/.cache/lorebot", env) : NULL;
}

static int opts_from_config(struct check_opts *o, const struct config *cfg,
			    struct strbuf *err)
{
	const char **v;
	size_t n, i;
	int ret = 0;

	o->columns = (int)config_get_int(cfg, "check.columns");
	if (o->columns < 20 || o->columns > 1000) {
		strbuf_addf(err, "check.columns: %d is not a column limit", o->columns);
		return -1;
	}
	o->checkpatch_flags = xstrdup_or_null(config_get(cfg, "check.checkpatchflags"));
	o->cachedir = cmd_check_cache_dir(cfg);
	if (o->cachedir)
		o->fallback_repo = xasprintf("%s/mm.git", o->cachedir);
	n = config_get_all(cfg, "check.enable", &v);
	for (i = 0; i < n && !ret; i++)
		ret = check_select(o, v[i], err);
	free(v);
	n = config_get_all(cfg, "check.disable", &v);
	for (i = 0; i < n && !ret; i++) {
		char *neg = xasprintf("-%s", v[i]);

		ret = check_select(o, neg, err);
		free(neg);
	}
	free(v);
	if (!ret && !config_get_bool(cfg, "check.checkpatch"))
		ret = check_select(o, "-checkpatch", err);
	if (!ret && !config_get_bool(cfg, "check.codespell"))
		ret = check_select(o, "-codespell", err);
	return ret;
}

static void list_checkers(const struct check_opts *o)
{
	size_t i;

	for (i = 0; i < checkers_nr; i++)
		printf("%-20s %-3s %-7s %s\n", checkers[i]->name,
		       check_enabled(o, checkers[i]) ? "on" : "off",
		       check_severity_name(checkers[i]->severity), checkers[i]->summary);
}

/*
 * The configuration: lorebot.* of the git configuration (the user's,
 * and the repository's holding dir), then --config, then the command
 * line.  Nothing is read from the files of a tree.
 */
static void load_config(struct config *all, const struct config *file,
			const char *dir)
{
	struct strbuf err = STRBUF_INIT, report = STRBUF_INIT;
	size_t i;

	if (config_load_git(all, dir, "lorebot.", &err)) {
		/* not in a repository: the user's configuration alone */
		strbuf_reset(&err);
		config_release(all);
		if (config_load_git(all, NULL, "lorebot.", &err))
			fprintf(stderr, "lorebot: git config: %s\n", err.buf);
	}
	if (config_check(all, &report))
		fprintf(stderr, "%s", report.buf);
	for (i = 0; i < file->nr; i++)
		config_set(all, file->e[i].name, file->e[i].value);
	strbuf_release(&err);
	strbuf_release(&report);
}

/* --color=auto|always|never (check.color), NO_COLOR, a terminal */
static int want_color(const char *when, bool *color)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (!when || !strcmp(when, "auto")) {
		*color = isatty(1) && !(no && *no) && !(term && !strcmp(term, "dumb"));
		return 0;
	}
	if (!strcmp(when, "always")) {
		*color = true;
		return 0;
	}
	if (!strcmp(when, "never")) {
		*color = false;
		return 0;
	}
	return -1;
}

/* --build[=LIST], --boot[=LIST]: wanted, on these architectures (NULL: configured) */
struct arch_opt {
	bool want;
	const char *list;
};

static int arch_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	struct arch_opt *a = opt->value;

	(void)err;
	a->want = true;
	a->list = arg;
	return 0;
}

/* --color[=WHEN]: bare, always */
static int color_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	(void)err;
	*(const char **)opt->value = arg ? arg : "always";
	return 0;
}

static int columns_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	int *columns = opt->value;

	*columns = atoi(arg);
	if (*columns < 20 || *columns > 1000) {
		strbuf_addf(err, "bad column limit '%s'", arg);
		return -1;
	}
	return 0;
}

static int fail_on_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	if (check_severity_parse(arg, opt->value)) {
		strbuf_addf(err, "bad --fail-on '%s' (error, warning or note)", arg);
		return -1;
	}
	return 0;
}

int cmd_check(int argc, char **argv, struct ctx *ctx)
{
	struct devcheck_opts d = { .ci = DEVCI_OPTS_INIT };
	struct check_opts o = CHECK_OPTS_INIT;
	struct config cfg = CONFIG_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *mbox = NULL, *repo = NULL, *sel = NULL, *color = NULL;
	const char *msgid = NULL, *url = NULL, *series = NULL, *stale = NULL;
	struct arch_opt build = { 0 }, boot = { 0 };
	bool list = false, preexisting = false;
	enum check_severity fail_on = CHECK_ERROR;
	int ret = EXIT_OK, columns = 0, progress = -1;
	const struct parse_opt opts[] = {
		OPT_STRING('m', "mbox", &mbox, "FILE", "check the series in FILE"),
		OPT_BOOL('j', "json", &d.json, "print the findings as JSON"),
		OPT_STRING('c', "checkers", &sel, "LIST", "the checkers to run"),
		OPT_STRING('r', "repo", &repo, "DIR", "the kernel repository"),
		OPT_CALLBACK('C', "columns", &columns, "N", "the line length limit", columns_cb),
		OPT_BOOL('l', "list", &list, "list the checkers"),
		OPT_BOOL(0, "preexisting", &preexisting, "report what the base had too"),
		OPT_CALLBACK_OPTARG(0, "color", &color, "WHEN", "auto, always or never",
				    color_cb),
		OPT_BOOL(0, "fix", &d.fix, "print the fixes"),
		OPT_BOOL(0, "apply", &d.apply, "commit the fixes (implies --fix)"),
		OPT_CALLBACK_OPTARG(0, "build", &build, "ARCHS", "build each commit", arch_cb),
		OPT_CALLBACK_OPTARG(0, "boot", &boot, "ARCHS", "boot the branch", arch_cb),
		OPT_SET_INT(0, "progress", &progress, "show progress", 1),
		OPT_SET_INT(0, "no-progress", &progress, "no progress", 0),
		OPT_STRING(0, "msgid", &msgid, "ID", "check the thread of ID, from lore"),
		OPT_STRING(0, "url", &url, "URL", "the inbox to ask for --msgid"),
		OPT_STRING(0, "series", &series, "ID", "the version of --mbox to check"),
		OPT_CALLBACK(0, "fail-on", &fail_on, "LEVEL", "error, warning or note",
			     fail_on_cb),
		OPT_STRING(0, "stale-tree", &stale, "WHY",
			   "the tree may lack ids the series names"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "check", opts, 1);
	if (argc < 0)
		return EXIT_USAGE;
	d.range = argc ? argv[0] : NULL;
	if (d.apply)
		d.fix = true;
	if (progress >= 0)
		log_progress_force(progress);
	if (mbox && msgid)
		return cmd_usage_error("check", "--mbox or --msgid, not both");
	if ((mbox || msgid) && d.range)
		return cmd_usage_error("check", "--%s and a range '%s' exclude each other",
				       mbox ? "mbox" : "msgid", d.range);
	if ((mbox || msgid) && (d.fix || build.want || boot.want))
		return cmd_usage_error("check", "--fix, --build and --boot check a "
				       "branch, not --%s", mbox ? "mbox" : "msgid");
	if (series && !mbox)
		return cmd_usage_error("check", "--series picks a version of --mbox");
	if (url && !msgid)
		return cmd_usage_error("check", "--url is the inbox to ask for --msgid");
	d.dir = repo ? repo : ".";
	load_config(&cfg, ctx->cfg, d.dir);
	if (opts_from_config(&o, &cfg, &err) || (sel && check_select(&o, sel, &err))) {
		ret = cmd_usage_error("check", "%s", err.buf);
		goto out;
	}
	if (!color)
		color = config_get(&cfg, "check.color");
	if (want_color(color, &d.color)) {
		ret = cmd_usage_error("check", "--color takes auto, always or never, "
				      "not '%s'", color);
		goto out;
	}
	d.ci.profile = config_get(&cfg, "build.profile");
	d.ci.ccache = config_get_bool(&cfg, "build.ccache");
	if ((build.want && devci_add_arches(&d.ci, build.list, false, &cfg, &err)) ||
	    (boot.want && devci_add_arches(&d.ci, boot.list, true, &cfg, &err))) {
		ret = cmd_usage_error("check", "%s", err.buf);
		goto out;
	}
	if (columns)
		o.columns = columns;
	o.preexisting = preexisting;
	o.fail_on = fail_on;
	o.stale_tree = xstrdup_or_null(stale);
	if (list) {
		list_checkers(&o);
	} else if (mbox || msgid) {
		static const int exit_of[] = {
			[MBOXCHECK_CLEAN] = EXIT_OK, [MBOXCHECK_FINDINGS] = EXIT_FINDINGS,
			[MBOXCHECK_REFUSED] = EXIT_USAGE, [MBOXCHECK_INFRA] = EXIT_INFRA,
		};
		struct mboxcheck_src src = { mbox, msgid, url, series };

		ret = exit_of[mboxcheck_run(&src, repo, d.json, d.color, &o, &cfg)];
	} else {
		static const int exit_of[] = {
			[DEVCHECK_CLEAN] = EXIT_OK, [DEVCHECK_FINDINGS] = EXIT_FINDINGS,
			[DEVCHECK_REFUSED] = EXIT_USAGE, [DEVCHECK_INFRA] = EXIT_INFRA,
		};

		ret = exit_of[devcheck_run(&d, &o, &cfg)];
	}
out:
	check_opts_release(&o);
	config_release(&cfg);
	strbuf_release(&err);
	return ret;
}
