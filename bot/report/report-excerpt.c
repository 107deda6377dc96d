// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines around a finding, numbered, with the offending lines
 * marked as in the kernel test robot's mails ("> 581\tcode").  From the
 * tree at the patch concerned when the kernel repository and the commit
 * are known, else from the patch's own hunks (the lines it adds and
 * their context), which needs nothing but the stored mail.
 */
#include <stdlib.h>

#include "bot/results/contract.h"
#include "bot/git/diff.h"
#include "bot/results/contract.h"
#include "bot/mail/mail.h"
#include "bot/mail/patch.h"
#include "bot/report/report-int.h"
#include "lib/run.h"
#include "bot/mail/subject.h"
#include "bot/store/store-results.h"

#define EXCERPT_CONTEXT 10

struct src_line {
	int no;
	const char *text;
	size_t len;
};

/*
 * Where the quoted code starts: a finding's line may name another line
 * of the construct (a prototype's second line); the nearest line within
 * a few of it that is the quote's first line wins
 */
static int quote_start(const char *quote, int line, const struct src_line *l, size_t nr)
{
	const char *q = quote, *qe;
	int best = line, dist = 6;
	size_t i, qlen;

	if (!q)
		return line;
	while (*q == ' ' || *q == '\t')
		q++;
	qe = strchr(q, '\n');
	qlen = qe ? (size_t)(qe - q) : strlen(q);
	while (qlen && (q[qlen - 1] == ' ' || q[qlen - 1] == '\t'))
		qlen--;
	if (!qlen)
		return line;
	for (i = 0; i < nr; i++) {
		const char *t = l[i].text;
		size_t tlen = l[i].len;
		int d = abs(l[i].no - line);

		while (tlen && (*t == ' ' || *t == '\t')) {
			t++;
			tlen--;
		}
		while (tlen && (t[tlen - 1] == ' ' || t[tlen - 1] == '\t'))
			tlen--;
		if (tlen == qlen && !memcmp(t, q, qlen) && d < dist) {
			best = l[i].no;
			dist = d;
		}
	}
	return best;
}

static void emit(struct strbuf *out, const char *file, int line, int nmark,
		 const char *quote, const struct src_line *l, size_t nr)
{
	size_t i;

	line = quote_start(quote, line, l, nr);

	strbuf_addf(out, "vim +%d %s\n\n", line, file);
	for (i = 0; i < nr; i++) {
		bool mark = l[i].no >= line && l[i].no < line + nmark;

		if (l[i].no < line - EXCERPT_CONTEXT || l[i].no >= line + nmark + EXCERPT_CONTEXT)
			continue;

		strbuf_addf(out, "%s%5d\t", mark ? ">" : " ", l[i].no);
		strbuf_add(out, l[i].text, l[i].len);
		strbuf_addch(out, '\n');
	}
}

/* The file as of commit, from the repository: 0 or -1 */
static int from_tree(const char *repo, const char *commit, const char *file, int line,
		     int nmark, const char *quote, struct strbuf *out)
{
	struct run_cmd cmd = RUN_CMD_INIT;
	char *spec = xasprintf("%s:%s", commit, file);
	const char *argv[] = { "git", "-C", repo, "cat-file", "blob", spec, NULL };
	struct src_line *lines = NULL;
	size_t nr = 0, alloc = 0;
	const char *p;
	int no = 0, ret = -1;

	cmd.argv = argv;
	cmd.limits.timeout_ms = 30000;
	cmd.limits.max_output = 16u << 20;
	if (run_cmd(&cmd) || cmd.status || cmd.truncated)
		goto out;
	for (p = cmd.out.buf; *p; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		no++;
		if (no >= line - EXCERPT_CONTEXT - 5 && no < line + nmark + EXCERPT_CONTEXT) {
			ALLOC_GROW(lines, nr + 1, alloc);
			lines[nr++] = (struct src_line){ no, p, len };
		}
		if (!nl || no >= line + nmark + EXCERPT_CONTEXT)
			break;
		p = nl + 1;
	}
	if (no >= line) {
		emit(out, file, line, nmark, quote, lines, nr);
		ret = 0;
	}
out:
	free(lines);
	free(spec);
	run_cmd_release(&cmd);
	return ret;
}

/* From the hunk of the patch that has post-image line `line` of file */
static int from_patch(struct store *st, const char *msgid, const char *file, int line,
		      int nmark, const char *quote, struct strbuf *out)
{
	struct strbuf raw = STRBUF_INIT, err = STRBUF_INIT;
	struct mail m = MAIL_INIT;
	struct patch p = PATCH_INIT;
	struct diff d = DIFF_INIT;
	struct src_line *lines = NULL;
	size_t nr = 0, alloc = 0, i, j, k;
	int ret = -1;

	if (store_get_raw(st, msgid, &raw, &err) <= 0 ||
	    store_parse_mail(st, raw.buf, raw.len, &m, &err))
		goto out_raw;
	patch_extract(&m, &p);
	if (!p.diff || diff_parse(p.diff, p.diff_len, &d, &err))
		goto out;
	for (i = 0; i < d.nr && ret; i++) {
		const struct diff_file *f = &d.files[i];

		if (!f->new_path || strcmp(f->new_path, file))
			continue;
		for (j = 0; j < f->nr && ret; j++) {
			const struct diff_hunk *h = &f->hunks[j];

			if (line < h->new_start || line >= h->new_start + h->new_lines)
				continue;
			for (k = 0; k < h->nr; k++) {
				const struct diff_line *l = &h->lines[k];

				if (l->kind == '-' || l->new_no < line - EXCERPT_CONTEXT - 5 ||
				    l->new_no >= line + nmark + EXCERPT_CONTEXT)
					continue;
				ALLOC_GROW(lines, nr + 1, alloc);
				lines[nr++] = (struct src_line){ l->new_no, l->text, l->len };
			}
			if (nr) {
				emit(out, file, line, nmark, quote, lines, nr);
				ret = 0;
			}
		}
	}
	free(lines);
	diff_release(&d);
out:
	patch_release(&p);
	mail_release(&m);
out_raw:
	strbuf_release(&raw);
	strbuf_release(&err);
	return ret;
}

int report_excerpt(struct report_ctx *c, int patch, const char *file, int line,
		   int nmark, const char *quote, struct strbuf *out)
{
	const struct result *apply = store_results_find(&c->v->results, STAGE_APPLY, NULL);
	json_object *p = report_patch(c->v, patch);
	const char *commit = NULL;
	json_object *patches = apply ? rd_doc_patches(apply->doc) : NULL;
	size_t i;

	if (!file || !*file || line <= 0 || patch <= 0)
		return -1;
	if (nmark < 1)
		nmark = 1;
	for (i = 0; patches && i < json_object_array_length(patches); i++) {
		json_object *ap = rd_at(patches, i);

		if (rd_patch_n(ap, 0) == patch)
			commit = rd_patch_commit(ap);
	}
	if (c->o->repo && *c->o->repo && commit &&
	    !from_tree(c->o->repo, commit, file, line, nmark, quote, out))
		return 0;
	if (p && rd_vpatch_msgid(p))
		return from_patch(c->st, rd_vpatch_msgid(p), file, line, nmark, quote, out);
	return -1;
}
