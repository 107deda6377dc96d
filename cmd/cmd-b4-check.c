// SPDX-License-Identifier: GPL-2.0
/*
 * lorebot b4-check: b4's external review check (b4 0.15 and later, `b4
 * review`'s CI checks): one mail on stdin, a JSON array of {tool,
 * status, summary, url, details} on stdout.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "bot/results/contract.h"
#include "bot/mail/mail.h"
#include "bot/mail/mbox.h"
#include "bot/base/net.h"
#include "bot/report/pcheck.h"
#include "lib/jsonx.h"
#include "lib/parse-options.h"
#include "lib/run.h"

#define MAIL_MAX (64u << 20)

static int read_stdin(struct strbuf *sb)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (sb->len + n > MAIL_MAX)
			return -EFBIG;
		strbuf_add(sb, buf, n);
	}
	return 0;
}

static const char *b4_status(const char *state)
{
	if (!strcmp(state, "success"))
		return "pass";
	if (!strcmp(state, "fail"))
		return "fail";
	return "warn";
}

static int rank(const char *b4)
{
	return !strcmp(b4, "fail") ? 2 : !strcmp(b4, "warn") ? 1 : 0;
}

static json_object *result(const char *tool, const char *status, const char *summary,
			   const char *url, const char *details)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "tool", json_object_new_string(tool));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "summary", json_object_new_string(summary ? summary : ""));
	json_object_object_add(o, "url", json_object_new_string(url ? url : ""));
	json_object_object_add(o, "details", json_object_new_string(details ? details : ""));
	return o;
}

/* The dashboard's verdicts for msgid into out; 0, or -1 with err */
static int from_dashboard(const char *url, const char *msgid, uint64_t timeout_ms,
			  json_object *out, struct strbuf *err)
{
	struct net net;
	struct net_request req = { .url = NULL, .timeout_ms = timeout_ms, .max_size = 16 << 20 };
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf u = STRBUF_INIT, link = STRBUF_INIT, details = STRBUF_INIT;
	json_object *doc = NULL, *checks;
	int ret = -1;
	size_t i, j;

	strbuf_addstr(&u, url);
	if (!util_ends_with(url, "/"))
		strbuf_addch(&u, '/');
	strbuf_addstr(&u, "api/checks/");
	net_escape(&u, msgid);
	req.url = u.buf;
	if (net_init(&net, NULL)) {
		strbuf_addstr(err, "cannot start libcurl");
		goto out;
	}
	if (net_request(&net, &req, &res)) {
		strbuf_addf(err, "%s: %s", url, res.error.buf);
		goto out_net;
	}
	doc = json_tokener_parse(res.body.buf);
	if (res.status == 404 && jx_str(doc, "error")) {
		ret = 0;	/* the bot has not seen it: nothing to say */
		goto out_net;
	}
	if (res.status != 200) {
		json_object_put(doc);
		doc = NULL;
	}
	checks = jx_array(doc, "checks");
	if (!checks) {
		strbuf_addf(err, "%s: HTTP %ld%s", u.buf, res.status,
			    res.status == 200 ? ", not a lorebot dashboard's answer" : "");
		goto out_net;
	}
	strbuf_addstr(&link, url);
	strbuf_rtrim(&link);
	while (link.len && link.buf[link.len - 1] == '/')
		strbuf_setlen(&link, link.len - 1);
	strbuf_addstr(&link, jx_strz(doc, "url"));
	for (i = 0; i < json_object_array_length(checks); i++) {
		json_object *c = json_object_array_get_idx(checks, i);
		const char *ctx = jx_strz(c, "context"), *st = b4_status(jx_strz(c, "state"));
		int worst = i;
		size_t nr = 0;

		/* a cover letter: one result per context, its worst patch */
		for (j = 0; j < i; j++)
			if (!strcmp(jx_strz(json_object_array_get_idx(checks, j), "context"), ctx))
				break;
		if (j < i)
			continue;
		strbuf_reset(&details);
		for (j = i; j < json_object_array_length(checks); j++) {
			json_object *o = json_object_array_get_idx(checks, j);

			if (strcmp(jx_strz(o, "context"), ctx))
				continue;
			nr++;
			strbuf_addf(&details, "patch %d: %s: %s\n", (int)jx_int(o, "patch", 0),
				    jx_strz(o, "state"), jx_strz(o, "description"));
			if (rank(b4_status(jx_strz(o, "state"))) > rank(st)) {
				st = b4_status(jx_strz(o, "state"));
				worst = j;
			}
		}
		c = json_object_array_get_idx(checks, worst);
		json_object_array_add(out, result(ctx, st, jx_strz(c, "description"), link.buf,
						  nr > 1 ? details.buf : ""));
	}
	ret = 0;
out_net:
	net_response_release(&res);
	net_release(&net);
out:
	json_object_put(doc);
	strbuf_release(&u);
	strbuf_release(&link);
	strbuf_release(&details);
	return ret;
}

/* lorebot check on the message alone; 0, or -1 with err */
static int local_review(const struct strbuf *raw, const char *msgid, const char *repo,
			uint64_t timeout_ms, const struct config *cfg, json_object *out,
			struct strbuf *err)
{
	char dir[] = "/tmp/lorebot-b4-check.XXXXXX", exe[4096];
	struct run_cmd cmd = RUN_CMD_INIT;
	struct strbuf mbox = STRBUF_INIT, path = STRBUF_INIT, desc = STRBUF_INIT;
	struct strbuf details = STRBUF_INIT;
	struct report_opts ro;
	const char *argv[10];
	json_object *doc = NULL, *findings, *patches;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	enum pcheck_state state;
	int argc = 0, ret = -1, patch;
	size_t i;

	if (n <= 0 || !mkdtemp(dir)) {
		strbuf_addf(err, "cannot make a scratch directory: %s", strerror(errno));
		return -1;
	}
	exe[n] = 0;
	strbuf_addf(&path, "%s/mail.mbox", dir);
	mbox_write_rd(&mbox, msgid, raw->buf, raw->len);
	if (util_write_file(path.buf, mbox.buf, mbox.len)) {
		strbuf_addf(err, "cannot write '%s'", path.buf);
		goto out;
	}
	argv[argc++] = exe;
	argv[argc++] = "check";
	argv[argc++] = "--mbox";
	argv[argc++] = path.buf;
	argv[argc++] = "--json";
	if (repo) {
		argv[argc++] = "--repo";
		argv[argc++] = repo;
	}
	argv[argc] = NULL;
	cmd.argv = argv;
	cmd.limits.timeout_ms = timeout_ms;
	cmd.limits.max_output = 64 << 20;
	if (run_cmd(&cmd) < 0 || cmd.timed_out || (cmd.status != 0 && cmd.status != 1 &&
						   cmd.status != 2)) {
		strbuf_addstr(err, "lorebot check: ");
		run_describe(&cmd, err);
		if (cmd.err.len)
			strbuf_addf(err, ": %s", cmd.err.buf);
		goto out;
	}
	doc = json_tokener_parse(cmd.out.buf);
	if (cmd.status == 2 || !doc) {
		ret = 0;	/* no patch in it (a reply, a pull request): nothing to say */
		goto out;
	}
	patches = jx_array(rd_at(jx_array(doc, "series"), 0), "patches");
	patch = patches && json_object_array_length(patches) ?
		(int)jx_int(json_object_array_get_idx(patches, 0), "n", 0) : 0;
	findings = jx_array(doc, "findings");
	report_opts_init(&ro, cfg);
	state = pcheck_review(&ro, findings, patch, &desc);
	for (i = 0; findings && i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);

		if (rd_finding_patch(f, 0) != patch ||
		    report_finding_class(&ro, f) == REPORT_DROP)
			continue;
		if (rd_finding_file(f) && rd_finding_line(f, 0) > 0)
			strbuf_addf(&details, "%s:%lld: ", rd_finding_file(f),
				    (long long)rd_finding_line(f, 0));
		strbuf_addf(&details, "%s: %s [%s]\n", rd_finding_severity_z(f),
			    rd_finding_message_z(f), rd_finding_rule_z(f));
	}
	report_opts_release(&ro);
	json_object_array_add(out, result("lorebot-review", b4_status(pcheck_state_name(state)),
					  desc.buf, NULL, details.buf));
	ret = 0;
out:
	json_object_put(doc);
	run_cmd_release(&cmd);
	unlink(path.buf);
	rmdir(dir);
	strbuf_release(&mbox);
	strbuf_release(&path);
	strbuf_release(&desc);
	strbuf_release(&details);
	return ret;
}

static int duration_cb(const struct parse_opt *opt, const char *arg, struct strbuf *err)
{
	uint64_t *ms = opt->value;

	if (util_parse_duration_ms(arg, ms)) {
		strbuf_addf(err, "--timeout: '%s' is not a duration", arg);
		return -1;
	}
	return 0;
}

const char cmd_b4_check_help[] =
	"NAME\n"
	"    lorebot-b4-check - lorebot's verdicts as b4 review's CI checks\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot b4-check [--url DASHBOARD] [--repo DIR] < MAIL\n"
	"\n"
	"DESCRIPTION\n"
	"    Speaks b4's external check protocol (b4 0.15 and later: 'b4 review',\n"
	"    the c key of its tracking list and review app): reads one message on\n"
	"    stdin, a patch (b4.review-perpatch-check-cmd) or a cover letter\n"
	"    (b4.review-series-check-cmd), and prints a JSON array of results,\n"
	"    each {\"tool\", \"status\" (pass, warn or fail), \"summary\", \"url\",\n"
	"    \"details\"}, or [] when it has nothing to say about the message.\n"
	"\n"
	"    With --url, the verdicts the lorebot daemon behind that dashboard\n"
	"    reached for the message (its /api/checks/<Message-ID>): one result per\n"
	"    context, lorebot-apply, lorebot-review, lorebot-build-<arch> and\n"
	"    lorebot-boot-<arch> (the boot on the series' last patch), as patchwork\n"
	"    shows them; a context not tested yet is warn, \"not tested yet\"; for a\n"
	"    cover letter each context's worst over the patches.  The url of each\n"
	"    is the version on the dashboard.  A message the dashboard does not\n"
	"    know gives [].\n"
	"\n"
	"    Without --url, the review runs here: lorebot check on the message\n"
	"    alone (with --repo, on that tree), one result \"lorebot-review\": fail\n"
	"    on an error of lorebot's mm rules, warn on a warning, else pass; the\n"
	"    findings in compiler format in details.  checkpatch and codespell are\n"
	"    only counted: b4 runs checkpatch itself.\n"
	"\n"
	"    b4 reads check commands only from the user's configuration, never\n"
	"    from a tree's .b4-config (a series under review could name any\n"
	"    command there).  Once per user:\n"
	"\n"
	"        git config --global --add b4.review-perpatch-check-cmd \\\n"
	"            'lorebot b4-check --url https://lorebot.example.org/'\n"
	"        git config --global --add b4.review-series-check-cmd \\\n"
	"            'lorebot b4-check --url https://lorebot.example.org/'\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when the array is printed (whatever the verdicts: b4 reads them from\n"
	"    the JSON), 2 on a usage or input error, 3 when the dashboard or the\n"
	"    review could not be reached or run; then nothing is printed on stdout\n"
	"    and stderr says why, which b4 shows as the check's failure.\n";

int cmd_b4_check(int argc, char **argv, struct ctx *ctx)
{
	const char *url = NULL, *repo = NULL;
	uint64_t timeout_ms = 60000;
	const struct parse_opt opts[] = {
		OPT_STRING(0, "url", &url, "URL",
			   "a lorebot dashboard (core.dashboardurl of the bot)"),
		OPT_STRING(0, "repo", &repo, "DIR",
			   "without --url: the kernel tree the review reads whole files from "
			   "(default: none, the patch's hunks)"),
		OPT_CALLBACK(0, "timeout", &timeout_ms, "D",
			     "how long to wait for the dashboard or the review (default 60s)",
			     duration_cb),
		OPT_END(),
	};
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	struct mail m = MAIL_INIT;
	json_object *out = NULL;
	int n, r, ret = EXIT_OK;

	n = cmd_parse_options(argc, argv, "b4-check", opts, 0);
	if (n < 0)
		return EXIT_USAGE;
	r = read_stdin(&raw);
	if (r) {
		fprintf(stderr, "lorebot b4-check: cannot read the mail on stdin: %s\n",
			strerror(-r));
		ret = EXIT_USAGE;
		goto out;
	}
	if (mail_parse(raw.buf, raw.len, &m, &err) || !m.msgid || !*m.msgid) {
		fprintf(stderr, "lorebot b4-check: the mail on stdin has no Message-ID%s%s\n",
			err.len ? ": " : "", err.buf);
		ret = EXIT_USAGE;
		goto out;
	}
	out = json_object_new_array();
	if (url)
		r = from_dashboard(url, m.msgid, timeout_ms, out, &err);
	else
		r = local_review(&raw, m.msgid, repo, timeout_ms, ctx->cfg, out, &err);
	if (r) {
		fprintf(stderr, "lorebot b4-check: %s\n", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	if (json_object_array_length(out))
		jx_print(out, stdout);
	else
		puts("[]");
out:
	json_object_put(out);
	mail_release(&m);
	strbuf_release(&raw);
	strbuf_release(&err);
	return ret;
}
