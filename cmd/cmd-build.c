// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "lib/log.h"
#include "bot/git/git.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"
#include "ci/build-out.h"

struct build_opts {
	const char *repo, *series, *base, *range, *arch, *first_arch, *profile, *log_dir;
	bool json, no_w1, no_sparse, no_cocci, no_clang, no_repair;
};

/* --timeout DUR: build.timeout for this run */
static int timeout_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	struct ctx *ctx = opt->value;
	uint64_t ms;

	if (util_parse_duration_ms(arg, &ms) || !ms) {
		strbuf_addf(err, "bad duration '%s'", arg);
		return -1;
	}
	config_set(ctx->cfg, "build.timeout", arg);
	return config_parse(ctx->cfg, err);
}

/* the result, kept in the log directory */
#define RESULT_JSON "result.json"
#define RESULT_TEXT "result.txt"

const char cmd_build_help[] =
	"NAME\n"
	"    lorebot-build - build every patch of a series for x86_64, arm64 and riscv\n"
	"                    and report what the series made worse\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot build [--repo DIR] (--series BRANCH [--base REV] | --range A..B)\n"
	"                  [--arch LIST [--first-arch ARCH]] [--profile NAME]\n"
	"                  [--timeout DURATION]\n"
	"                  [--log-dir DIR] [--no-w1] [--no-sparse]\n"
	"                  [--no-coccicheck] [--no-clang] [--no-repair] [--json]\n"
	"\n"
	"DESCRIPTION\n"
	"    Each patch (commit) of the series is built, in order, with the real\n"
	"    (cross) compilers, in a build directory kept per architecture, profile\n"
	"    and base commit: the base is built once, later series on the same base\n"
	"    only recompile what their patches change (ccache helps across bases).\n"
	"    The .c files the series touches are compiled once more with W=1.\n"
	"\n"
	"    Each patch's changed lines (the + lines of .c and .h files, not\n"
	"    tools/, scripts/ or Documentation/) that the build compiled are\n"
	"    counted, from the preprocessed units that read them; those it did\n"
	"    not are listed with why (the Makefile line or #if around them) and\n"
	"    what would compile them.  With build.repair (off by default: each\n"
	"    repaired configuration is a kernel build), the configuration is\n"
	"    repaired first: the Kconfig options the changed lines need are on\n"
	"    (Kconfig's olddefconfig resolving their dependencies) in a build\n"
	"    directory of that configuration, made once per base from the\n"
	"    profile's; options no configuration of the arch can enable are\n"
	"    reported with the reason.  A changed line counts as compiled when\n"
	"    one arch compiled it: an option the two branches of a changed #ifdef\n"
	"    want on and off stays on for the first arch and is turned off on the\n"
	"    others, unless that loses their own arch/ code.  An arch that compiled\n"
	"    less than build.mincoverage percent of its own changed lines, or a\n"
	"    series whose lines were compiled on no arch, is 'partial', not 'ok'.\n"
	"\n"
	"    Only what the series made worse is reported: errors, link failures and\n"
	"    warnings that the base does not have (line shifts inside the patched\n"
	"    files are followed), each attributed to the first patch that shows it.\n"
	"    An error that a later patch removes again is reported as\n"
	"    'patch i/n breaks bisection'.  Failures that are not the series' fault\n"
	"    (toolchain missing, disk full, out of memory, timeout, a base that does\n"
	"    not build) make the architecture's status 'infra'.\n"
	"\n"
	"    Builds run in bubblewrap without network, as build.user when started as\n"
	"    root, with the source tree read-only, under build.timeout (or\n"
	"    arch.<name>.timeout), build.memory and build.logmax.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 every architecture built without new diagnostics and compiled the\n"
	"    change (build.mincoverage), 1 errors, new warnings or too little of\n"
	"    the change compiled ('partial'), 2 usage error, 3 infrastructure error\n"
	"    (and no findings).\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot build --repo ~/mm --series lorebot/20260207081613/v7 --arch riscv\n"
	"    lorebot build --range mm-new..HEAD --json\n";

static int parse_opts(int argc, char **argv, struct ctx *ctx,
		      struct build_opts *o)
{
	const struct parse_opt opts[] = {
		OPT_STRING(0, "repo", &o->repo, "DIR",
			   "the kernel repository (default: git.repo, else the current directory)"),
		OPT_STRING(0, "series", &o->series, "BRANCH",
			   "the commits of BRANCH that are not in its base, e.g. the branch "
			   "lorebot/<series>/v<N> made by 'lorebot apply'"),
		OPT_STRING(0, "base", &o->base, "REV",
			   "the base of --series (default: the merge base of BRANCH with the "
			   "first branch of git.base that exists, mm-new by default)"),
		OPT_STRING(0, "range", &o->range, "A..B",
			   "the commits of B not in A, built on A"),
		OPT_STRING(0, "arch", &o->arch, "LIST",
			   "comma-separated architectures (default: build.arch, else x86_64, "
			   "arm64, riscv); aarch64 and riscv64 are accepted"),
		OPT_STRING(0, "first-arch", &o->first_arch, "ARCH",
			   "the first of the build's architectures, when --arch names others "
			   "of them (the daemon builds each as a job of its own; default: the "
			   "first of --arch): with build.repair, every other takes the other "
			   "branch of an #ifdef the first compiles"),
		OPT_STRING(0, "profile", &o->profile, "NAME",
			   "small (tinyconfig + config/fragments: bootable, minutes) or "
			   "production (defconfig + mm.config); default build.profile"),
		OPT_CALLBACK(0, "timeout", ctx, "DURATION",
			     "wall-clock limit of each make step (overrides build.timeout)",
			     timeout_cb),
		OPT_STRING(0, "log-dir", &o->log_dir, "DIR",
			   "where the logs of every step and the images go (default: "
			   "<cache>/logs/build/<time>-<pid>), and the result: result.txt as "
			   "printed without --json, result.json as with it"),
		OPT_BOOL(0, "no-w1", &o->no_w1,
			 "skip the W=1 compile of the touched files"),
		OPT_BOOL(0, "no-sparse", &o->no_sparse,
			 "skip the sparse check (make C=2) of the touched files (default: "
			 "build.sparse); its new warnings have tool \"sparse\""),
		OPT_BOOL(0, "no-coccicheck", &o->no_cocci,
			 "skip the Coccinelle check (make C=2 CHECK=scripts/coccicheck "
			 "MODE=report) of the touched files (default: build.coccicheck); its new "
			 "warnings have tool \"coccinelle\""),
		OPT_BOOL(0, "no-clang", &o->no_clang,
			 "skip the clang compile (make LLVM=1) of the touched files on the arches "
			 "build.clang lists; its new warnings and errors have tool \"clang\""),
		OPT_BOOL(0, "no-repair", &o->no_repair,
			 "build with the profile's configuration as it is, whatever build.repair "
			 "says"),
		OPT_BOOL(0, "json", &o->json,
			 "print {\"base\", \"profile\", \"patches\", \"status\", \"archs\": "
			 "[{\"arch\", \"status\" (ok, warnings, errors, infra), \"infra\", "
			 "\"findings\": [{\"patch\", \"commit\", \"file\", \"line\", \"column\", "
			 "\"severity\", \"message\", \"option\", \"new\", \"w1\", \"fixed_by\", "
			 "\"text\", ...}], \"patches\": [{\"n\", \"status\", \"seconds\", "
			 "\"rebuilt\", \"ccache_hits\", \"log\", ...}], \"bisection\", \"base\", "
			 "\"build_dir\", \"src_dir\", \"obj_dir\", \"image\", \"coverage\": "
			 "{\"changed\", \"compiled\", \"other_arch\", \"percent\", "
			 "\"uncompiled\": [{\"patch\", \"file\", \"from\", \"to\", \"reason\", "
			 "\"needs\"}], \"repair\"}, ...}], \"coverage\": {\"changed\", "
			 "\"compiled\" (on at least one arch), \"percent\", \"uncompiled\", "
			 "\"text\"}}; each patch has its \"coverage\" per file.\n"
			 "Findings with \"new\": false are pre-existing diagnostics of the "
			 "touched files (patch 0: present at the base), listed for context only."),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "build", opts, 0);
	if (argc < 0)
		return EXIT_USAGE;
	if (!!o->series == !!o->range)
		return cmd_usage_error("build", "give one of --series or --range");
	if (o->base && !o->series)
		return cmd_usage_error("build", "--base goes with --series");
	if (!o->repo)
		o->repo = config_v(ctx->cfg)->git_repo;
	if (!o->repo)
		o->repo = ".";
	if (!o->profile)
		o->profile = config_v(ctx->cfg)->build_profile;
	return 0;
}

/* The base of --series (at tip): --base, else the merge base with git.base */
static int series_base(const struct ctx *ctx, const char *git_dir,
		       const struct build_opts *o, const char *tip,
		       char base[OID_HEX], struct strbuf *err)
{
	const struct cfg_list *branches;
	char id[OID_HEX];
	size_t i;
	int ret = -1;

	if (o->base)
		return git_rev_resolve(git_dir, o->base, base, err);
	branches = &config_v(ctx->cfg)->git_base;
	for (i = 0; i < branches->nr; i++) {
		if (git_rev_resolve(git_dir, branches->v[i], id, NULL))
			continue;
		ret = srctree_merge_base(git_dir, id, tip, base, err);
		break;
	}
	if (i == branches->nr)
		strbuf_addstr(err, "no base branch found (git.base); give --base");
	return ret;
}

static int select_commits(const struct ctx *ctx, const struct build_opts *o,
			  const char *git_dir, struct build_job *job,
			  struct strbuf *err)
{
	char tip[OID_HEX];

	if (o->range) {
		const char *dots = strstr(o->range, "..");
		char *a;
		int r;

		if (!dots || dots == o->range || !dots[2] || dots[2] == '.') {
			strbuf_addf(err, "bad range '%s' (want A..B)", o->range);
			return -1;
		}
		a = xstrndup(o->range, dots - o->range);
		r = git_rev_resolve(git_dir, a, job->base, err) ||
			git_rev_resolve(git_dir, dots + 2, tip, err);
		free(a);
		if (r)
			return -1;
	} else if (git_rev_resolve(git_dir, o->series, tip, err) ||
		   series_base(ctx, git_dir, o, tip, job->base, err)) {
		return -1;
	}
	if (srctree_series(git_dir, job->base, tip, &job->commits, err))
		return -1;
	if (!job->commits.nr) {
		strbuf_addf(err, "no commits between %.12s and '%s'", job->base,
			    o->range ? o->range : o->series);
		return -1;
	}
	return 0;
}

static int select_archs(const struct ctx *ctx, const char *list,
			struct arch **archs, size_t *nr, struct strbuf *err)
{
	const char **names = NULL;
	char *dup = NULL, *p, *save = NULL;
	size_t n = 0, i;
	int ret = 0;

	if (list) {
		dup = xstrdup(list);
		for (p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = p;
		}
	} else {
		names = config_list_copy(&config_v(ctx->cfg)->build_arch);
		n = config_v(ctx->cfg)->build_arch.nr;
	}
	*archs = xcalloc(n ? n : arches_nr, sizeof(**archs));
	*nr = 0;
	if (!n) {
		for (i = 0; i < arches_nr; i++)
			kbuild_arch(ctx->cfg, arches[i].name, &(*archs)[(*nr)++], err);
	}
	for (i = 0; i < n && !ret; i++)
		ret = kbuild_arch(ctx->cfg, names[i], &(*archs)[(*nr)++], err);
	free(names);
	free(dup);
	return ret;
}

/* A profile that cannot be loaded is the user's mistake, not infra */
static int check_profile(const struct ctx *ctx, const char *name,
			 const struct arch *archs, size_t nr, struct strbuf *err)
{
	struct profile p;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (profile_load(ctx->cfg, name, &archs[i], &p, err))
			return -1;
		profile_release(&p);
	}
	return 0;
}

static char *default_log_dir(const struct kbuild_env *env)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s/logs/build/%s-%d", env->cache, stamp, (int)getpid());
}

/* <log_dir>/<name>: the result kept with the logs, a warning if it cannot be */
static void keep_result(const char *log_dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", log_dir, name);
	int r = util_write_file(path, text, strlen(text));

	if (r)
		log_warn("cannot write '%s': %s", path, strerror(-r));
	free(path);
}

/*
 * The result as --json asks, on stdout; both forms are kept in the log
 * directory, so that the build is seen again in either without a second
 */
static void print_result(const struct build_job *job, const char *log_dir, bool json)
{
	json_object *j = build_job_to_json(job);
	struct strbuf text = STRBUF_INIT, js = STRBUF_INIT;

	strbuf_addf(&js, "%s\n", jx_text(j, true));
	build_job_to_text(job, &text);
	keep_result(log_dir, RESULT_JSON, js.buf);
	keep_result(log_dir, RESULT_TEXT, text.buf);
	fputs(json ? js.buf : text.buf, stdout);
	json_object_put(j);
	strbuf_release(&text);
	strbuf_release(&js);
}

int cmd_build(int argc, char **argv, struct ctx *ctx)
{
	struct build_opts o = { 0 };
	struct build_job job = { 0 };
	struct kbuild_env env;
	struct strbuf err = STRBUF_INIT, git_dir = STRBUF_INIT;
	struct arch *archs = NULL, first;
	char *log_dir = NULL;
	size_t nr = 0, i;
	int ret;

	ret = parse_opts(argc, argv, ctx, &o);
	if (ret)
		return ret;
	if (srctree_git_dir(o.repo, &git_dir, &err) ||
	    select_commits(ctx, &o, git_dir.buf, &job, &err) ||
	    select_archs(ctx, o.arch, &archs, &nr, &err) ||
	    check_profile(ctx, o.profile, archs, nr, &err) ||
	    (o.first_arch && kbuild_arch(ctx->cfg, o.first_arch, &first, &err))) {
		fprintf(stderr, "lorebot build: %s\n", err.buf);
		ret = EXIT_USAGE;
		goto out;
	}
	if (kbuild_env_init(&env, ctx->cfg, &err)) {
		fprintf(stderr, "lorebot build: %s\n", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	log_dir = o.log_dir ? xstrdup(o.log_dir) : default_log_dir(&env);
	if (util_mkdir_p(log_dir, 0755)) {
		fprintf(stderr, "lorebot build: cannot create '%s': %s\n", log_dir,
			strerror(errno));
		kbuild_env_release(&env);
		ret = EXIT_INFRA;
		goto out;
	}
	job.env = &env;
	job.git_dir = git_dir.buf;
	job.profile = o.profile;
	job.log_dir = log_dir;
	job.w1 = !o.no_w1;
	/* the boot stage bisects over what is built here */
	job.keep_images = config_v(ctx->cfg)->boot_enable;
	/* each arch asks the configuration (kcheck_wanted()) */
	job.check[KCHECK_SPARSE] = !o.no_sparse;
	job.check[KCHECK_COCCI] = !o.no_cocci;
	job.check[KCHECK_CLANG] = !o.no_clang;
	job.repair = !o.no_repair && config_v(ctx->cfg)->build_repair;
	job.mincoverage = (int)config_v(ctx->cfg)->build_mincoverage;
	job.first_arch = o.first_arch ? first.name : nr ? archs[0].name : NULL;
	for (i = 0; i < nr; i++) {
		enum build_status s;

		log_info("building %zu patch(es) for %s (profile %s)",
			 job.commits.nr, archs[i].name, o.profile);
		s = buildjob_arch(&job, &archs[i]);
		log_info("%s: %s", archs[i].name, buildjob_status_name(s));
	}
	print_result(&job, log_dir, o.json);
	switch (build_job_status(&job)) {
	case BUILD_ERRORS:
	case BUILD_WARNINGS:
	case BUILD_PARTIAL:
		ret = EXIT_FINDINGS;
		break;
	case BUILD_INFRA:
		ret = EXIT_INFRA;
		break;
	default:
		ret = EXIT_OK;
	}
	kbuild_env_release(&env);
out:
	buildjob_release(&job);
	free(archs);
	free(log_dir);
	strbuf_release(&err);
	strbuf_release(&git_dir);
	return ret;
}
