// SPDX-License-Identifier: GPL-2.0
/*
 * Answers to lorebot's mails.  After a fetch, every new message whose
 * parent is one of lorebot's replies is read (parsed in the jail like
 * any mail) for unquoted lines
 *
 *	lorebot: invalid <id> [why]	the finding <id> is wrong
 *	lorebot: ignore <rule>		every finding of the rule, for the series
 *	lorebot: retest			test the latest version again
 *
 * from the series' author, someone who gave it a Reviewed-by or an
 * Acked-by, or an address of reply.maintainers.  A line quoted ('>')
 * never counts; anyone else's command is recorded and logged as ignored.
 * Every command is recorded once (answers: PRIMARY KEY (msgid, line)),
 * with the dismissal or the retest it made, in one transaction with the
 * cursor of messages read, so that a fetch again or a crash changes
 * nothing.
 */
#include <ctype.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>

#include "bot/results/contract.h"
#include "bot/mail/mail.h"
#include "lib/log.h"
#include "bot/report/reply-int.h"
#include "bot/store/store-results.h"

#define MAX_COMMANDS 20		/* per answer */
#define MAX_LINE 300

struct command {
	int line;		/* its number among the answer's commands, from 1 */
	char *word;		/* "invalid" */
	char *args;		/* "3a9c01d2 not a leak", or "" */
	char *text;		/* "invalid 3a9c01d2 not a leak" */
};

/* The unquoted "lorebot:" lines of body, before a signature */
static size_t commands(const char *body, struct command *out)
{
	const char *p = body;
	size_t n = 0;

	while (p && *p && n < MAX_COMMANDS) {
		const char *nl = strchr(p, '\n'), *s = p, *w;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line;

		p = nl ? nl + 1 : p + len;
		if (len == 3 && !strncmp(s, "-- ", 3))
			break;
		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		if (len > MAX_LINE || len < 8 || strncasecmp(s, "lorebot:", 8))
			continue;	/* a quoted line starts with '>' */
		{
			struct strbuf t = STRBUF_INIT;

			strbuf_add(&t, s + 8, len - 8);
			strbuf_trim(&t);
			line = strbuf_detach(&t, NULL);
		}
		for (w = line; *w && isalpha((unsigned char)*w); w++)
			;
		if (w == line || (*w && *w != ' ' && *w != '\t')) {
			free(line);
			continue;
		}
		out[n].line = (int)n + 1;
		out[n].word = xstrndup(line, w - line);
		while (*w == ' ' || *w == '\t')
			w++;
		out[n].args = xstrdup(w);
		out[n].text = line;
		for (char *c = out[n].word; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		n++;
	}
	return n;
}

static bool maintainer(const struct config *cfg, const char *email)
{
	const struct cfg_list *vals = &config_v(cfg)->reply_maintainers;
	bool hit = false;
	size_t i;

	for (i = 0; i < vals->nr && !hit; i++)
		hit = !strcasecmp(vals->v[i], email);
	return hit;
}

/* May email speak for the series?  "the author", "a reviewer", ... or NULL */
static const char *role(struct store *st, const struct config *cfg, const char *series,
			const char *email)
{
	static const struct {
		const char *who, *sql;
	} roles[] = {
		{ "the author",
		  "SELECT 1 FROM versions WHERE series = ?1 AND lower(author_email) = ?2"
		  " UNION SELECT 1 FROM patches p JOIN versions v ON v.id = p.version"
		  " WHERE v.series = ?1 AND lower(p.author_email) = ?2" },
		{ "a reviewer",
		  "SELECT 1 FROM trailers t JOIN versions v ON v.id = t.version"
		  " WHERE v.series = ?1 AND lower(t.name) IN ('reviewed-by', 'acked-by')"
		  " AND instr(lower(t.value), '<' || ?2 || '>') > 0" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(roles); i++) {
		struct db_stmt *s = db_prepare(st->db, roles[i].sql);
		int r;

		if (!s || db_bind_text(s, 1, series) || db_bind_text(s, 2, email))
			return NULL;
		r = db_step(s);
		if (r > 0) {
			db_reset(s);
			return roles[i].who;
		}
	}
	return maintainer(cfg, email) ? "a maintainer (reply.maintainers)" : NULL;
}

/* Is there a finding of v with this id (or, rule set, of this rule)? */
static bool has_finding(const struct report_version *v, const char *id, const char *rule)
{
	size_t i, j;

	for (i = 0; i < v->results.nr; i++) {
		const struct result *r = &v->results.v[i];
		json_object *fs = rd_doc_findings(r->doc);

		for (j = 0; fs && j < json_object_array_length(fs); j++) {
			json_object *f = rd_at(fs, j);
			char fid[REPORT_ID_LEN + 1];
			const char *fr = report_finding_rule(r->stage, f);

			if (rule) {
				if (fr && !strcmp(fr, rule))
					return true;
				continue;
			}
			report_finding_id(r->stage, f, fid);
			if (!strcmp(fid, id))
				return true;
		}
	}
	return false;
}

/* The series' latest version (not gone, not superseded), or NULL */
static char *latest(struct store *st, const char *series)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id FROM versions WHERE series = ? AND gone = 0 AND superseded_by IS NULL"
		" ORDER BY version DESC, date DESC LIMIT 1");
	char *id = NULL;

	if (s && !db_bind_text(s, 1, series) && db_step(s) > 0) {
		id = xstrdup_or_null(db_column_text(s, 0));
		db_reset(s);
	}
	return id;
}

static bool testing(struct store *st, const char *version)
{
	/* no jobs table (no daemon): -1, nothing runs but what the caller does */
	return db_query_exists(st->db, "SELECT 1 FROM jobs WHERE version = ? AND state IN"
			       " ('queued', 'running') LIMIT 1", version) > 0;
}

struct ctx {
	struct store *st;
	const struct config *cfg;
	int64_t now;
	struct reply_answers *out;
	const char *msgid, *sender;
	const struct report_version *v;
};

/* One command of an authorised sender: 1 done, 0 ignored (why), -1 */
static int run(struct ctx *c, const struct command *cmd, struct strbuf *why,
	       struct strbuf *err)
{
	const struct report_version *v = c->v;
	char *target = NULL, *rest;
	int r = 0;

	target = xstrdup(cmd->args);
	rest = target + strcspn(target, " \t");
	if (*rest) {
		*rest++ = '\0';
		while (*rest == ' ' || *rest == '\t')
			rest++;
	}
	if (!strcmp(cmd->word, "invalid") || !strcmp(cmd->word, "ignore")) {
		bool rule = !strcmp(cmd->word, "ignore");

		if (!rule)
			for (char *p = target; *p; p++)
				*p = (char)tolower((unsigned char)*p);
		if (!*target) {
			strbuf_addf(why, "no %s named", rule ? "rule" : "finding id");
		} else if (!has_finding(v, rule ? NULL : target, rule ? target : NULL)) {
			strbuf_addf(why, "%s %s is not among the findings of the version answered",
				    rule ? "rule" : "finding", target);
		} else {
			r = store_dismiss(c->st, v->series_id, rule ? "rule" : "finding", target,
					  c->sender, !rule && *rest ? rest : NULL, c->msgid,
					  v->id, c->now, err);
			if (r >= 0)
				strbuf_addf(why, "%s %s %s for the series", rule ? "rule" : "finding",
					    target, r ? "dismissed" : "was already dismissed");
			r = r < 0 ? -1 : 1;
		}
	} else if (!strcmp(cmd->word, "retest")) {
		uint64_t every = config_v(c->cfg)->reply_retestinterval / 1000;
		int64_t last = store_retest_last(c->st, v->series_id);
		char *id = latest(c->st, v->series_id);

		if (!id) {
			strbuf_addstr(why, "the series has no live version");
		} else if (last < 0) {
			strbuf_addstr(err, db_error(c->st->db));
			r = -1;
		} else if (last && last + (int64_t)every > c->now) {
			strbuf_addf(why, "tested again %llds ago; once per reply.retestinterval",
				    (long long)(c->now - last));
		} else if (testing(c->st, id)) {
			strbuf_addf(why, "<%s> is being tested now", id);
		} else if (store_retest(c->st, v->series_id, id, c->msgid, c->sender, c->now,
					err)) {
			r = -1;
		} else {
			strbuf_addf(why, "<%s> queued to be tested again", id);
			ALLOC_GROW(c->out->retested, c->out->nr_retested + 1,
				   c->out->alloc_retested);
			c->out->retested[c->out->nr_retested++] = xstrdup(id);
			r = 1;
		}
		free(id);
	} else {
		strbuf_addf(why, "unknown command '%s' (invalid, ignore, retest)", cmd->word);
	}
	free(target);
	return r;
}

static void note(struct reply_answers *out, const char *msgid, const char *sender,
		 const char *command, bool done, const char *why)
{
	struct reply_answer *a;

	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	a = &out->v[out->nr++];
	a->msgid = xstrdup(msgid);
	a->sender = xstrdup_or_null(sender);
	a->command = xstrdup(command);
	a->done = done;
	a->why = xstrdup(why);
	log_msg(done ? LOG_LVL_INFO : LOG_LVL_WARN, "answer <%s> from %s: \"lorebot: %s\": %s%s",
		msgid, sender ? sender : "?", command, done ? "" : "ignored: ", why);
}

/* One message answering the reply about version */
static int answer(struct store *st, const struct config *cfg, int64_t now, const char *msgid,
		  const char *version, struct reply_answers *out, struct strbuf *err)
{
	struct strbuf raw = STRBUF_INIT, why = STRBUF_INIT, perr = STRBUF_INIT;
	struct command cmds[MAX_COMMANDS];
	struct report_version v = { 0 };
	struct mail m = MAIL_INIT;
	const char *who = NULL, *bot = config_v(cfg)->core_botaddress;
	char *sender = NULL;
	size_t n = 0, i;
	int r, ret = 0, loaded = 0;

	r = store_answer_known(st, msgid);
	if (r)
		return r < 0 ? -1 : 0;
	r = store_get_raw(st, msgid, &raw, err);
	if (r <= 0)
		return r;
	if (store_parse_mail(st, raw.buf, raw.len, &m, &perr))
		goto out;	/* not a mail lorebot can read: no command in it */
	n = commands(m.body, cmds);
	if (!n)
		goto out;
	sender = m.from.email ? xstrdup(m.from.email) : NULL;
	for (char *p = sender; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	loaded = report_version_load(st, version, 0, &v, err);
	if (loaded < 0) {
		ret = -1;
		goto out;
	}
	if (loaded && sender && (!bot || strcasecmp(sender, bot)))
		who = role(st, cfg, v.series_id, sender);
	for (i = 0; i < n && !ret; i++) {
		struct ctx c = { st, cfg, now, out, msgid, sender, &v };
		int done = 0;

		strbuf_reset(&why);
		if (!loaded)
			strbuf_addf(&why, "the version answered, <%s>, is gone", version);
		else if (!who)
			strbuf_addf(&why, "%s is not the author, a reviewer or a maintainer "
				    "of the series", sender ? sender : "the sender");
		else
			done = run(&c, &cmds[i], &why, err);
		if (done < 0 || store_answer_add(st, msgid, cmds[i].line, version, sender,
						 cmds[i].text, done > 0, why.buf, now, err)) {
			ret = -1;
			break;
		}
		note(out, msgid, sender, cmds[i].text, done > 0, why.buf);
	}
out:
	for (i = 0; i < n; i++) {
		free(cmds[i].word);
		free(cmds[i].args);
		free(cmds[i].text);
	}
	if (loaded > 0)
		report_version_release(&v);
	free(sender);
	mail_release(&m);
	strbuf_release(&raw);
	strbuf_release(&why);
	strbuf_release(&perr);
	return ret;
}

int reply_answers_scan(struct store *st, const struct config *cfg, int64_t now,
		       struct reply_answers *out, struct strbuf *err)
{
	struct db_stmt *s;
	struct {
		int64_t id;
		char *msgid, *version;
	} *rows = NULL;
	size_t nr = 0, alloc = 0, i;
	int64_t seen, last;
	int r, ret = 0;

	if (!store_has_answers(st) || !store_has_results(st))
		return 0;
	seen = store_answers_seen(st);
	/*
	 * Up to the newest message now, whatever answers there are: the next
	 * scan starts after it, so that a poll costs its news, not the archive
	 * (a message another pass stores meanwhile comes after it)
	 */
	if (db_query_int(st->db, "SELECT max(id) FROM messages", seen, &last)) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	if (last <= seen)
		return 0;
	s = db_prepare(st->db,
		"SELECT m.id, m.msgid, r.version FROM messages m JOIN replies r"
		" ON r.msgid = m.parent WHERE m.id > ?1 AND m.id <= ?2 ORDER BY m.id");
	if (!s || db_bind_int(s, 1, seen) || db_bind_int(s, 2, last)) {
		strbuf_addstr(err, db_error(st->db));
		return -1;
	}
	while ((r = db_step(s)) > 0) {
		ALLOC_GROW(rows, nr + 1, alloc);
		rows[nr].id = db_column_int(s, 0);
		rows[nr].msgid = xstrdup(db_column_text(s, 1));
		rows[nr++].version = xstrdup(db_column_text(s, 2));
	}
	if (r < 0) {
		strbuf_addstr(err, db_error(st->db));
		ret = -1;
	}
	if (!ret && store_begin(st, err))
		ret = -1;
	else if (!ret) {
		for (i = 0; i < nr && !ret; i++)
			ret = answer(st, cfg, now, rows[i].msgid, rows[i].version, out, err);
		if (!ret && (store_answers_set_seen(st, last, err) || store_commit(st, err)))
			ret = -1;
		if (ret)
			store_rollback(st);
	}
	for (i = 0; i < nr; i++) {
		free(rows[i].msgid);
		free(rows[i].version);
	}
	free(rows);
	return ret;
}

void reply_answers_release(struct reply_answers *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		free(a->v[i].msgid);
		free(a->v[i].sender);
		free(a->v[i].command);
		free(a->v[i].why);
	}
	for (i = 0; i < a->nr_retested; i++)
		free(a->retested[i]);
	free(a->v);
	free(a->retested);
	memset(a, 0, sizeof(*a));
}
