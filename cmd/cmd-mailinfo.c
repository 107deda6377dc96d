// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/series/series-out.h"
#include "lib/jsonx.h"
#include "bot/mail/mailinfo.h"
#include "bot/mail/mbox.h"
#include "bot/mail/patch.h"

struct mailinfo_cli {
	unsigned int flags;
	bool compare, differences, json, verbose;
};

static int extract(const struct mailinfo_cli *c, const char *msg,
		   const char *patch)
{
	struct mailinfo mi = MAILINFO_INIT;
	struct strbuf err = STRBUF_INIT, info = STRBUF_INIT;
	char *raw = NULL;
	size_t len;
	int ret = EXIT_USAGE;

	if (util_read_file("/dev/stdin", &raw, &len, SIZE_MAX)) {
		fprintf(stderr, "lorebot mailinfo: cannot read stdin\n");
		goto out;
	}
	if (mailinfo_lorebot(raw, len, c->flags, &mi, &err)) {
		fprintf(stderr, "lorebot mailinfo: %s\n", err.buf);
		goto out;
	}
	if (util_write_file(msg, mi.message.buf, mi.message.len) ||
	    util_write_file(patch, mi.patch.buf, mi.patch.len)) {
		fprintf(stderr, "lorebot mailinfo: cannot write '%s' or '%s'\n", msg, patch);
		goto out;
	}
	mailinfo_format(&mi, &info);
	fputs(info.buf, stdout);
	ret = EXIT_OK;
out:
	mailinfo_release(&mi);
	strbuf_release(&err);
	strbuf_release(&info);
	free(raw);
	return ret;
}

struct tally {
	size_t compared, same, refused, undocumented;
	size_t *by_class;
	const struct mailinfo_class *classes;
	size_t nr_classes;
	json_object *mails;
};

/* s as valid UTF-8 text: other bytes as \xNN, NUL as \0 */
static void printable(const char *s, size_t len, struct strbuf *out)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;

		if (!c) {
			strbuf_addstr(out, "\\0");
			i++;
		} else if (i + n <= len && util_utf8_valid(s + i, n)) {
			strbuf_add(out, s + i, n);
			i += n;
		} else {
			strbuf_addf(out, "\\x%02x", c);
			i++;
		}
	}
}

static const char *field_value(const struct mailinfo *mi, enum mailinfo_field f,
			       struct strbuf *tmp)
{
	const struct strbuf *text = f == MI_MESSAGE ? &mi->message : &mi->patch;
	const char *v = f == MI_AUTHOR ? mi->author : f == MI_EMAIL ? mi->email :
		mi->subject;

	strbuf_reset(tmp);
	if (f == MI_DATE) {
		if (mi->has_date)
			strbuf_addf(tmp, "%lld %+05d (", (long long)mi->date,
				    mi->tz / 60 * 100 + mi->tz % 60);
		else
			strbuf_addf(tmp, "%s (", mi->date_refused ? "refused" : "none");
		printable(mi->date_text, strlen(mi->date_text), tmp);
		strbuf_addch(tmp, ')');
	} else if (f == MI_MESSAGE || f == MI_PATCH) {
		printable(text->buf, text->len, tmp);
	} else {
		printable(v, strlen(v), tmp);
	}
	return tmp->buf;
}

static void count(struct tally *t, const char *file, size_t index,
		  const struct mailinfo_cmp *cmp, const struct mailinfo_cli *c)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	json_object *fields = json_object_new_array();
	bool any = false;
	int f;
	size_t k;

	t->compared++;
	if (cmp->git_refused) {
		t->refused++;
		if (c->verbose && !c->json)
			printf("%s: message %zu: git mailinfo refuses it (%s)\n",
			       file, index + 1, cmp->git_error.buf);
		json_object_put(fields);
		return;
	}
	for (f = 0; f < MI_NR; f++) {
		const struct mailinfo_class *cls = cmp->cls[f];
		json_object *jf;

		if (!cmp->differs[f])
			continue;
		any = true;
		if (!cls)
			t->undocumented++;
		for (k = 0; cls && k < t->nr_classes; k++)
			if (!strcmp(t->classes[k].name, cls->name))
				t->by_class[k]++;
		jf = json_object_new_object();
		json_object_object_add(jf, "field",
				       json_object_new_string(mailinfo_field_name(f)));
		json_object_object_add(jf, "class", cls ?
				       json_object_new_string(cls->name) : NULL);
		json_object_object_add(jf, "lorebot", json_object_new_string(
					       field_value(&cmp->ours, f, &a)));
		json_object_object_add(jf, "git", json_object_new_string(
					       field_value(&cmp->git, f, &b)));
		json_object_array_add(fields, jf);
		if (!c->json && (!cls || c->verbose))
			printf("%s: message %zu: %s differs (%s)\n  lorebot: %.200s\n"
			       "  git:     %.200s\n", file, index + 1,
			       mailinfo_field_name(f), cls ? cls->name : "UNDOCUMENTED",
			       a.buf, b.buf);
	}
	if (!any) {
		t->same++;
		json_object_put(fields);
	} else {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "file", json_object_new_string(file));
		json_object_object_add(m, "index", json_object_new_int64(index));
		json_object_object_add(m, "fields", fields);
		json_object_array_add(t->mails, m);
	}
	strbuf_release(&a);
	strbuf_release(&b);
}

static int compare_file(const struct mailinfo_cli *c, const char *file,
			struct tally *t)
{
	struct mbox_reader r;
	struct mbox_msg mm = MBOX_MSG_INIT;
	int ret;

	ret = mbox_open(&r, file, 64 << 20);
	if (ret) {
		fprintf(stderr, "lorebot mailinfo: cannot read '%s': %s\n", file,
			strerror(-ret));
		return EXIT_USAGE;
	}
	while ((ret = mbox_next(&r, &mm)) > 0) {
		struct mailinfo_cmp cmp = MAILINFO_CMP_INIT;
		struct strbuf err = STRBUF_INIT;

		if (mm.too_big)
			continue;
		if (mailinfo_compare(mm.data, mm.len, c->flags, &cmp, &err)) {
			bool infra = !strncmp(err.buf, "cannot", 6);

			fprintf(stderr, "lorebot mailinfo: %s: message %zu: %s\n", file,
				mm.index + 1, err.buf);
			strbuf_release(&err);
			mailinfo_cmp_release(&cmp);
			if (infra) {
				ret = -EXIT_INFRA;
				break;
			}
			continue;
		}
		count(t, file, mm.index, &cmp, c);
		strbuf_release(&err);
		mailinfo_cmp_release(&cmp);
	}
	mbox_msg_release(&mm);
	mbox_close(&r);
	return ret == -EXIT_INFRA ? EXIT_INFRA : ret < 0 ? EXIT_USAGE : EXIT_OK;
}

static int compare(const struct mailinfo_cli *c, int argc, char **argv)
{
	struct tally t = { .mails = json_object_new_array() };
	int i, ret = EXIT_OK;
	size_t k;

	t.classes = mailinfo_classes(&t.nr_classes);
	t.by_class = xcalloc(t.nr_classes + 1, sizeof(*t.by_class));
	for (i = 0; i < argc && ret != EXIT_INFRA; i++) {
		int r = compare_file(c, argv[i], &t);

		if (r > ret)
			ret = r;
	}
	if (c->json) {
		json_object *o = json_object_new_object(), *d = json_object_new_object();

		json_object_object_add(o, "compared", json_object_new_int64(t.compared));
		json_object_object_add(o, "same", json_object_new_int64(t.same));
		json_object_object_add(o, "git_refused", json_object_new_int64(t.refused));
		for (k = 0; k < t.nr_classes; k++)
			json_object_object_add(d, t.classes[k].name,
					       json_object_new_int64(t.by_class[k]));
		json_object_object_add(o, "documented", d);
		json_object_object_add(o, "undocumented",
				       json_object_new_int64(t.undocumented));
		json_object_object_add(o, "mails", json_object_get(t.mails));
		jx_print(o, stdout);
		json_object_put(o);
	} else {
		printf("%zu mails compared: %zu the same, %zu refused by git mailinfo, "
		       "%zu undocumented differences\n", t.compared, t.same, t.refused,
		       t.undocumented);
		for (k = 0; k < t.nr_classes; k++)
			if (t.by_class[k])
				printf("  %zu %s\n", t.by_class[k], t.classes[k].name);
	}
	if (ret == EXIT_OK && t.undocumented)
		ret = EXIT_FINDINGS;
	json_object_put(t.mails);
	free(t.by_class);
	return ret;
}

static int differences(void)
{
	size_t nr, i;
	const struct mailinfo_class *cls = mailinfo_classes(&nr);

	for (i = 0; i < nr; i++)
		printf("%s\t%s\n", cls[i].name, cls[i].what);
	return EXIT_OK;
}

const char cmd_mailinfo_help[] =
	"NAME\n"
	"    lorebot-mailinfo - read a patch mail as lorebot does, or compare that\n"
	"    with git mailinfo\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot mailinfo [--scissors] [-b] MSG PATCH < MAIL\n"
	"    lorebot mailinfo --compare [--scissors] [-b] [--json] [-v] FILE...\n"
	"    lorebot mailinfo --differences\n"
	"\n"
	"DESCRIPTION\n"
	"    The first form does what 'git mailinfo' does, with lorebot's reading\n"
	"    of the mail (the one 'lorebot apply' commits): it prints Author:,\n"
	"    Email:, Subject: and Date:, writes the commit message to MSG and the\n"
	"    patch to PATCH.\n"
	"\n"
	"    --compare reads every message of each FILE (an mbox or one message)\n"
	"    both ways, lorebot's and 'git mailinfo' (as git am hands a mail to it,\n"
	"    and the date as git am parses it), and reports each field that\n"
	"    differs: author, email, subject, date, message or patch.  A difference\n"
	"    lorebot makes on purpose is named by its class; --differences lists\n"
	"    the classes.  Mail git mailinfo refuses is counted, not compared.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 done (--compare: no undocumented difference), 1 an undocumented\n"
	"    difference, 2 usage or input error, 3 git could not be run.\n"
	"\n"
	"EXAMPLES\n"
	"    lorebot mailinfo msg patch < 0001-mm-fix.patch\n"
	"    lorebot mailinfo --compare tests/fixtures/lore/*.mbox\n";

int cmd_mailinfo(int argc, char **argv, struct ctx *ctx)
{
	struct mailinfo_cli c = { .json = ctx->json };
	bool scissors = false, keep_non_patch = false;
	const struct parse_opt opts[] = {
		OPT_BOOL(0, "compare", &c.compare,
			 "read every message of each FILE both ways, lorebot's and git "
			 "mailinfo's, and report each field that differs"),
		OPT_BOOL(0, "differences", &c.differences,
			 "list the classes of difference lorebot makes on purpose"),
		OPT_BOOL(0, "scissors", &scissors,
			 "drop the message above a scissors line (-- >8 --), as git am --scissors"),
		OPT_BOOL('b', NULL, &keep_non_patch,
			 "keep [...] groups without PATCH in the subject (git am -b)"),
		OPT_BOOL(0, "json", &c.json,
			 "with --compare: {compared, same, git_refused, documented: {class: n}, "
			 "undocumented, mails: [{file, index, msgid, fields: [{field, class, "
			 "lorebot, git}]}]}"),
		OPT_BOOL('v', NULL, &c.verbose,
			 "with --compare: print documented differences too"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "mailinfo", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (scissors)
		c.flags |= PATCH_SCISSORS;
	if (keep_non_patch)
		c.flags |= PATCH_KEEP_NON_PATCH;
	if (c.differences)
		return differences();
	if (c.compare) {
		if (!argc)
			return cmd_usage_error("mailinfo", "--compare needs FILE...");
		return compare(&c, argc, argv);
	}
	if (argc != 2)
		return cmd_usage_error("mailinfo", "MSG and PATCH are needed");
	return extract(&c, argv[0], argv[1]);
}
