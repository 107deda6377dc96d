// SPDX-License-Identifier: GPL-2.0
/* Stored series versions (their JSON) as text for people */
#include <json-c/json.h>

#include "bot/store.h"

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : NULL;
}

static int64_t jint(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static json_object *jget(json_object *o, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

/* The text of assembly_to_text(), from the stored JSON of each version */
void store_versions_text(json_object *arr, struct strbuf *sb)
{
	size_t i, j;

	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		json_object *author = jget(s, "author"), *patches = jget(s, "patches");
		const char *tree = jstr(s, "tree"), *cover = jstr(s, "cover");
		int total = (int)jint(s, "total"), n;
		size_t have = json_object_array_length(patches);

		strbuf_addf(sb, "%s v%d%s%s%s%s %s\n", jstr(s, "series_id"),
			    (int)jint(s, "version"), jint(s, "rfc") ? " RFC" : "",
			    tree ? " [" : "", tree ? tree : "", tree ? "]" : "",
			    jstr(s, "title"));
		strbuf_addf(sb, "    %s <%s>, %zu/%d patches%s%s, %d replies",
			    jstr(author, "name") ? jstr(author, "name") : "?",
			    jstr(author, "email") ? jstr(author, "email") : "?",
			    have, total, jint(s, "complete") ? ", complete" : ", INCOMPLETE",
			    cover ? "" : ", no cover letter", (int)jint(s, "replies"));
		if (jint(s, "resend"))
			strbuf_addstr(sb, ", resend");
		if (jstr(s, "base_commit"))
			strbuf_addf(sb, ", base %.12s", jstr(s, "base_commit"));
		strbuf_addch(sb, '\n');
		if (jstr(s, "superseded_by"))
			strbuf_addf(sb, "    superseded by <%s>\n", jstr(s, "superseded_by"));
		if (cover)
			strbuf_addf(sb, "    [0/%d] <%s>\n", total, cover);
		for (n = 1, j = 0; n <= total; n++) {
			json_object *p = j < have ? json_object_array_get_idx(patches, j) : NULL;
			size_t nt;

			if (!p || jint(p, "n") != n) {
				strbuf_addf(sb, "    [%d/%d] (missing)\n", n, total);
				continue;
			}
			j++;
			strbuf_addf(sb, "    [%d/%d] %s", n, total, jstr(p, "title"));
			nt = json_object_array_length(jget(p, "trailers"));
			if (nt)
				strbuf_addf(sb, " (%zu trailers)", nt);
			strbuf_addch(sb, '\n');
		}
	}
}

