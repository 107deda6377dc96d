// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/cmd.h"
#include "lib/parse-options.h"
#include "bot/mail/mail.h"
#include "bot/series/series-out.h"
#include "bot/store/store.h"
#include "lib/jsonx.h"

static json_object *series_json(struct store *st, const char *id)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT id, title, author_name, author_email, created, updated"
		" FROM series WHERE id = ?");
	json_object *o, *author, *versions;
	int r;

	if (!s || db_bind_text(s, 1, id) || db_step(s) <= 0)
		return NULL;
	o = json_object_new_object();
	author = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(db_column_text(s, 0)));
	json_object_object_add(o, "title", json_object_new_string(db_column_text(s, 1)));
	json_object_object_add(author, "name", jx_new_str(db_column_text(s, 2)));
	json_object_object_add(author, "email", jx_new_str(db_column_text(s, 3)));
	json_object_object_add(o, "author", author);
	json_object_object_add(o, "created", json_object_new_int64(db_column_int(s, 4)));
	json_object_object_add(o, "updated", json_object_new_int64(db_column_int(s, 5)));
	db_reset(s);
	versions = json_object_new_array();
	s = db_prepare(st->db, "SELECT json FROM versions WHERE series = ? AND gone = 0"
		       " ORDER BY ord");
	if (s && !db_bind_text(s, 1, id))
		while ((r = db_step(s)) > 0)
			json_object_array_add(versions,
					      json_tokener_parse(db_column_text(s, 0)));
	json_object_object_add(o, "versions", versions);
	return o;
}

static json_object *memberships(struct store *st, const char *msgid)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT p.version, v.series, p.n, v.total, v.version, v.title"
		" FROM patches p JOIN versions v ON v.id = p.version"
		" WHERE p.msgid = ? AND v.gone = 0"
		" UNION ALL SELECT v.id, v.series, 0, v.total, v.version, v.title"
		" FROM versions v WHERE v.cover = ? AND v.gone = 0 ORDER BY 1");
	json_object *arr = json_object_new_array();

	if (!s || db_bind_text(s, 1, msgid) || db_bind_text(s, 2, msgid))
		return arr;
	while (db_step(s) > 0) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "version_id",
				       json_object_new_string(db_column_text(s, 0)));
		json_object_object_add(o, "series_id",
				       json_object_new_string(db_column_text(s, 1)));
		json_object_object_add(o, "n", json_object_new_int64(db_column_int(s, 2)));
		json_object_object_add(o, "total", json_object_new_int64(db_column_int(s, 3)));
		json_object_object_add(o, "version",
				       json_object_new_int64(db_column_int(s, 4)));
		json_object_object_add(o, "title", json_object_new_string(db_column_text(s, 5)));
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *lists_of(struct store *st, const char *msgid)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT DISTINCT l.name FROM lists l JOIN list_messages lm ON lm.list = l.id"
		" JOIN messages m ON m.id = lm.message WHERE m.msgid = ? ORDER BY 1");
	json_object *arr = json_object_new_array();

	if (s && !db_bind_text(s, 1, msgid))
		while (db_step(s) > 0)
			json_object_array_add(arr, json_object_new_string(db_column_text(s, 0)));
	return arr;
}

/* The message (the variant assembly uses), or NULL */
static json_object *message_json(struct store *st, const char *msgid)
{
	struct db_stmt *s = db_prepare(st->db,
		"SELECT msgid, subject, from_name, from_email, date, parent, size, error,"
		" fetched, (SELECT count(*) FROM messages m2 WHERE m2.msgid = messages.msgid)"
		" FROM messages WHERE msgid = ? ORDER BY " STORE_VARIANT_ORDER " LIMIT 1");
	json_object *o, *from;

	if (!s || db_bind_text(s, 1, msgid) || db_step(s) <= 0)
		return NULL;
	o = json_object_new_object();
	from = json_object_new_object();
	json_object_object_add(o, "msgid", json_object_new_string(db_column_text(s, 0)));
	json_object_object_add(o, "subject", jx_new_str(db_column_text(s, 1)));
	json_object_object_add(from, "name", jx_new_str(db_column_text(s, 2)));
	json_object_object_add(from, "email", jx_new_str(db_column_text(s, 3)));
	json_object_object_add(o, "from", from);
	json_object_object_add(o, "date", db_column_null(s, 4) ? NULL :
			       json_object_new_int64(db_column_int(s, 4)));
	json_object_object_add(o, "parent", jx_new_str(db_column_text(s, 5)));
	json_object_object_add(o, "size", json_object_new_int64(db_column_int(s, 6)));
	json_object_object_add(o, "error", jx_new_str(db_column_text(s, 7)));
	json_object_object_add(o, "fetched", json_object_new_int64(db_column_int(s, 8)));
	json_object_object_add(o, "variants", json_object_new_int64(db_column_int(s, 9)));
	db_reset(s);
	json_object_object_add(o, "lists", lists_of(st, msgid));
	json_object_object_add(o, "in", memberships(st, msgid));
	return o;
}

static void message_text(json_object *m, struct strbuf *sb)
{
	json_object *from = json_object_object_get(m, "from");
	json_object *in = json_object_object_get(m, "in");
	json_object *lists = json_object_object_get(m, "lists");
	json_object *date = json_object_object_get(m, "date");
	size_t i;

	strbuf_addf(sb, "message <%s>\n", jx_str_any(m, "msgid"));
	strbuf_addf(sb, "    subject: %s\n", jx_strz(m, "subject"));
	strbuf_addf(sb, "    from:    %s <%s>\n", jx_strz(from, "name"), jx_strz(from, "email"));
	if (date) {
		strbuf_addstr(sb, "    date:    ");
		mail_format_date(json_object_get_int64(date), 0, sb);
		strbuf_addch(sb, '\n');
	}
	if (jx_str_any(m, "parent"))
		strbuf_addf(sb, "    parent:  <%s>\n", jx_str_any(m, "parent"));
	strbuf_addstr(sb, "    lists:  ");
	for (i = 0; i < json_object_array_length(lists); i++)
		strbuf_addf(sb, " %s", json_object_get_string(json_object_array_get_idx(lists, i)));
	strbuf_addf(sb, "\n    %s bytes, %s variant(s)\n", jx_str_any(m, "size"),
		    jx_str_any(m, "variants"));
	if (jx_str_any(m, "error"))
		strbuf_addf(sb, "    cannot be parsed: %s\n", jx_str_any(m, "error"));
	for (i = 0; i < json_object_array_length(in); i++) {
		json_object *v = json_object_array_get_idx(in, i);

		strbuf_addf(sb, "    %s %s/%s of %s v%s %s <%s>\n",
			    !strcmp(jx_str_any(v, "n"), "0") ? "cover" : "patch",
			    jx_str_any(v, "n"), jx_str_any(v, "total"),
			    jx_str_any(v, "series_id"), jx_str_any(v, "version"),
			    jx_str_any(v, "title"), jx_str_any(v, "version_id"));
	}
}

static char *clean_id(const char *arg)
{
	size_t len = strlen(arg);

	if (len >= 2 && arg[0] == '<' && arg[len - 1] == '>')
		return xstrndup(arg + 1, len - 2);
	return xstrdup(arg);
}

static bool looks_like_series_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return i == 12;
}

static int show(struct store *st, const char *id, bool json, bool raw)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	json_object *o = NULL, *out = json_object_new_object();
	int ret = EXIT_OK;

	if (store_series_dirty(st) && store_update_series(st, NULL, &err)) {
		fprintf(stderr, "lorebot: %s\n", err.buf);
		ret = EXIT_INFRA;
		goto out;
	}
	o = !raw && looks_like_series_id(id) ? series_json(st, id) : NULL;
	if (o) {
		json_object_object_add(out, "series", o);
		if (!json) {
			strbuf_addf(&sb, "series %s: %s\n", id, jx_str_any(o, "title"));
			store_versions_text(json_object_object_get(o, "versions"), &sb);
		}
		goto print;
	}
	if (raw) {
		int r = store_get_raw(st, id, &sb, &err);

		if (r < 0) {
			fprintf(stderr, "lorebot: %s\n", err.buf);
			ret = EXIT_INFRA;
		} else if (!r) {
			fprintf(stderr, "lorebot: no message <%s> in the database\n", id);
			ret = EXIT_USAGE;
		} else {
			fwrite(sb.buf, 1, sb.len, stdout);
		}
		goto out;
	}
	o = message_json(st, id);
	if (!o) {
		fprintf(stderr, "lorebot: no message or series '%s' in the database\n", id);
		ret = EXIT_USAGE;
		goto out;
	}
	json_object_object_add(out, "message", o);
	json_object_object_add(out, "version", store_version_json(st, id));
	if (!json) {
		json_object *v = json_object_object_get(out, "version");

		message_text(o, &sb);
		if (v) {
			json_object *arr = json_object_new_array();

			json_object_array_add(arr, json_object_get(v));
			strbuf_addstr(&sb, "version:\n");
			store_versions_text(arr, &sb);
			json_object_put(arr);
		}
		strbuf_addch(&sb, '\n');
		store_get_raw(st, id, &sb, &err);
	}
print:
	if (json)
		jx_print(out, stdout);
	else
		fwrite(sb.buf, 1, sb.len, stdout);
out:
	json_object_put(out);
	strbuf_release(&sb);
	strbuf_release(&err);
	return ret;
}

const char cmd_show_help[] =
	"NAME\n"
	"    lorebot-show - show a message, a series or a series version from the database\n"
	"\n"
	"SYNOPSIS\n"
	"    lorebot [--db FILE] show [--json | --raw] <msgid | series-id>\n"
	"\n"
	"DESCRIPTION\n"
	"    A Message-ID (with or without <>) shows the stored message: its parsed\n"
	"    headers, the lists it came from, how many variants were received (the\n"
	"    same Message-ID with other content), the series versions it is a patch\n"
	"    or cover letter of, and then the raw message as received.  When the\n"
	"    Message-ID is a version id (the cover letter, or patch 1 without one),\n"
	"    that version is shown too.  A series id (12 hex digits, as printed by\n"
	"    'lorebot series') shows every version of the series.\n"
	"\n"
	"OPTIONS\n"
	"\n"
	"EXIT STATUS\n"
	"    0 when found, 2 when there is no such message or series.\n";

int cmd_show(int argc, char **argv, struct ctx *ctx)
{
	bool json = false, raw = false;
	struct store *st = ctx->st;
	char *id;
	int ret;
	const struct parse_opt opts[] = {
		OPT_BOOL('j', "json", &json,
			 "print {\"message\": {...}, \"version\": {...}|null} or {\"series\": "
			 "{..., \"versions\": [...]}}; versions have the shape of 'lorebot series "
			 "--json'"),
		OPT_BOOL(0, "raw", &raw,
			 "print only the raw message, exactly as received"),
		OPT_END(),
	};

	argc = cmd_parse_options(argc, argv, "show", opts, CMD_ANY_ARGS);
	if (argc < 0)
		return EXIT_USAGE;
	if (argc != 1)
		return cmd_usage_error("show", "give one Message-ID or series id");
	if (json && raw)
		return cmd_usage_error("show", "--json or --raw, not both");
	id = clean_id(argv[0]);
	ret = show(st, id, json, raw);
	free(id);
	return ret;
}
