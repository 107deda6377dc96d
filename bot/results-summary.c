// SPDX-License-Identifier: GPL-2.0
/*
 * Stage documents checked against their contracts (bot/contract.h), and
 * what a person (and a reply) needs from each: a status, one line, a
 * count.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "bot/contract.h"
#include "bot/results.h"

int results_bad(struct strbuf *err, enum stage stage, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(err, "%s result: ", stage_name(stage));
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* A key of the contract, when present; and there when required */
static int check_key(enum stage stage, json_object *doc, const struct stage_key *k,
		     bool presence, struct strbuf *err)
{
	static const struct {
		enum json_type type;
		const char *what;
	} types[] = {
		[STAGE_KEY_LIST] = { json_type_array, "list" },
		[STAGE_KEY_STR] = { json_type_string, "string" },
		[STAGE_KEY_OBJ] = { json_type_object, "object" },
	};
	json_object *v = jx_get(doc, k->key);
	const char *what = types[k->type].what;
	size_t i;

	if (!v)
		return presence && k->required ?
			results_bad(err, stage, "no '%s' %s", k->key, what) : 0;
	if (presence)
		return 0;
	if (!json_object_is_type(v, types[k->type].type))
		return results_bad(err, stage, "'%s' is not a%s %s", k->key,
				   *what == 'o' ? "n" : "", what);
	for (i = 0; k->type == STAGE_KEY_LIST && i < json_object_array_length(v); i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_object))
			return results_bad(err, stage, "an item of '%s' is not an object",
					   k->key);
	return 0;
}

static int check_keys(enum stage stage, json_object *doc, bool presence,
		      struct strbuf *err)
{
	const struct stage_key *k;

	for (k = stages[stage]->keys; k && k->key; k++)
		if (check_key(stage, doc, k, presence, err))
			return -1;
	return 0;
}

/* The status an arch object or an infra document says, checked */
static int doc_status(enum stage stage, json_object *doc, bool required,
		      struct result *r, struct strbuf *err)
{
	const char *word = rd_doc_status(doc);
	enum status st = stage_status_parse(word);
	struct strbuf list = STRBUF_INIT;
	int i;

	if (!word && !required)
		return 0;
	if (word && stage_has_status(stage, st)) {
		r->status = st;
		return 0;
	}
	for (i = STATUS_NONE + 1; i < STATUS_NR; i++)
		if (stage_has_status(stage, i))
			strbuf_addf(&list, "%s%s", list.len ? ", " : "", stage_status_name(i));
	results_bad(err, stage, "status '%s' is not one of %s", word ? word : "(none)",
		    list.buf);
	strbuf_release(&list);
	return -1;
}

void results_plural(struct strbuf *sb, int n, const char *one, const char *many)
{
	if (sb->len)
		strbuf_addstr(sb, ", ");
	strbuf_addf(sb, "%d %s", n, n == 1 ? one : many);
}

int results_summarise_findings(json_object *doc, struct result *r, struct strbuf *err)
{
	json_object *fs = rd_doc_findings(doc);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int n = 0;

	for (i = 0; fs && i < json_object_array_length(fs); i++)
		n += rd_finding_is_new(rd_at(fs, i), true);
	if (n)
		results_plural(&sb, n, "finding", "findings");
	else
		strbuf_addstr(&sb, stage_status_name(r->status));
	r->summary = strbuf_detach(&sb, NULL);
	r->findings = n;
	return 0;
}

int results_summarise(enum stage stage, json_object *doc, struct result *r,
		      struct strbuf *err)
{
	const struct stage_ops *ops;
	const char *why;

	if (stage >= STAGE_RESULTS)
		return -1;
	ops = stages[stage];
	if (!doc || !json_object_is_type(doc, json_type_object))
		return results_bad(err, stage, "%s", "the document is not a JSON object");
	r->stage = stage;
	r->status = STATUS_NONE;
	r->findings = 0;
	if (ops->per_arch && !rd_doc_arch(doc))
		return results_bad(err, stage, "an arch object has no '%s'", RK_(doc, arch));
	/* without a summariser of its own, the document says its status */
	if (doc_status(stage, doc, ops->status_required || !ops->summarise, r, err) ||
	    check_keys(stage, doc, false, err))
		return -1;
	if (r->status == STATUS_INFRA) {
		/* lorebot build says why in "infra", the runner in "message" */
		why = rd_doc_infra(doc) ? rd_doc_infra(doc) : rd_doc_message(doc);
		r->summary = xasprintf("infrastructure error%s%s", why ? ": " : "",
				       why ? why : "");
		return 0;
	}
	if (check_keys(stage, doc, true, err))
		return -1;
	return ops->summarise ? ops->summarise(doc, r, err) :
		results_summarise_findings(doc, r, err);
}

json_object *results_infra_doc(enum stage stage, const char *arch, const char *why)
{
	json_object *o = json_object_new_object();

	if (stage_per_arch(stage))
		json_object_object_add(o, RK_(doc, arch), json_object_new_string(arch ? arch : ""));
	json_object_object_add(o, RK_(doc, status),
			       json_object_new_string(stage_status_name(STATUS_INFRA)));
	json_object_object_add(o, RK_(doc, message), jx_new_str(why));
	return o;
}

void results_release(struct result *r)
{
	free(r->arch);
	free(r->summary);
	json_object_put(r->doc);
	memset(r, 0, sizeof(*r));
}
