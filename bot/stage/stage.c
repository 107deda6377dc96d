// SPDX-License-Identifier: GPL-2.0
/*
 * The stage table, registered with the layers below (bot/results/plan.h); a
 * stage's document summed up by its descriptor and recorded
 */
#include <errno.h>

#include "bot/results/contract.h"
#include "bot/results/results.h"
#include "bot/store/store-results.h"
#include "bot/stage/stage.h"

#define STAGE_ROW_(c, n) [STAGE_##c] = &stage_##n,
const struct stage_ops *const stages[STAGE_NR] = {
	STAGE_LIST(STAGE_ROW_)
};
#undef STAGE_ROW_

void stage_register(void)
{
	plan_register(stages);
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
	enum status st = plan_status_parse(word);
	struct strbuf list = STRBUF_INIT;
	int i;

	if (!word && !required)
		return 0;
	if (word && plan_has_status(stage, st)) {
		r->status = st;
		return 0;
	}
	for (i = STATUS_NONE + 1; i < STATUS_NR; i++)
		if (plan_has_status(stage, i))
			strbuf_addf(&list, "%s%s", list.len ? ", " : "", plan_status_name(i));
	results_bad(err, stage, "status '%s' is not one of %s", word ? word : "(none)",
		    list.buf);
	strbuf_release(&list);
	return -1;
}

int stage_summarise(enum stage stage, json_object *doc, struct result *r,
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

int stage_record(struct store *st, const char *version, enum stage stage,
		 const char *arch, json_object *doc, struct strbuf *err)
{
	struct results rows = RESULTS_INIT;
	size_t i;
	int ret = store_results_split(stage, arch, doc, &rows, err);

	for (i = 0; !ret && i < rows.nr; i++)
		if (stage_summarise(stage, rows.v[i].doc, &rows.v[i], err))
			ret = -EINVAL;
	if (!ret)
		ret = store_results_insert(st, version, &rows, err);
	store_results_release(&rows);
	return ret;
}
