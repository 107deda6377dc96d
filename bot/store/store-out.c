// SPDX-License-Identifier: GPL-2.0
/* Stored series versions (their JSON) as text for people */
#include <json-c/json.h>

#include "bot/store/store.h"
#include "lib/jsonx.h"

/* The text of assembly_to_text(), from the stored JSON of each version */
void store_versions_text(json_object *arr, struct strbuf *sb)
{
	size_t i, j;

	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *s = json_object_array_get_idx(arr, i);
		json_object *author = jx_get(s, "author"), *patches = jx_get(s, "patches");
		const char *tree = jx_str(s, "tree"), *cover = jx_str(s, "cover");
		const char *name = jx_str(author, "name"), *email = jx_str(author, "email");
		int total = (int)jx_int(s, "total", 0), n;
		size_t have = json_object_array_length(patches);

		strbuf_addf(sb, "%s v%d%s%s%s%s %s\n", jx_str(s, "series_id"),
			    (int)jx_int(s, "version", 0), jx_bool(s, "rfc", false) ? " RFC" : "",
			    tree ? " [" : "", tree ? tree : "", tree ? "]" : "",
			    jx_str(s, "title"));
		strbuf_addf(sb, "    %s <%s>, %zu/%d patches%s%s, %d replies",
			    name ? name : "?", email ? email : "?", have, total,
			    jx_bool(s, "complete", false) ? ", complete" : ", INCOMPLETE",
			    cover ? "" : ", no cover letter", (int)jx_int(s, "replies", 0));
		if (jx_bool(s, "resend", false))
			strbuf_addstr(sb, ", resend");
		if (jx_str(s, "base_commit"))
			strbuf_addf(sb, ", base %.12s", jx_str(s, "base_commit"));
		strbuf_addch(sb, '\n');
		if (jx_str(s, "superseded_by"))
			strbuf_addf(sb, "    superseded by <%s>\n", jx_str(s, "superseded_by"));
		if (cover)
			strbuf_addf(sb, "    [0/%d] <%s>\n", total, cover);
		for (n = 1, j = 0; n <= total; n++) {
			json_object *p = j < have ? json_object_array_get_idx(patches, j) : NULL;
			size_t nt;

			if (!p || jx_int(p, "n", 0) != n) {
				strbuf_addf(sb, "    [%d/%d] (missing)\n", n, total);
				continue;
			}
			j++;
			strbuf_addf(sb, "    [%d/%d] %s", n, total, jx_str(p, "title"));
			nt = json_object_array_length(jx_get(p, "trailers"));
			if (nt)
				strbuf_addf(sb, " (%zu trailers)", nt);
			strbuf_addch(sb, '\n');
		}
	}
}

