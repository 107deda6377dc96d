// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ci/delta.h"
#include "ci/units.h"

struct unit_entry *units_get(struct units *u, const char *name)
{
	struct unit_entry *e = strmap_get(&u->map, name);

	if (e)
		return e;
	e = xcalloc(1, sizeof(*e));
	e->name = xstrdup(name);
	ALLOC_GROW(u->v, u->nr + 1, u->alloc);
	u->v[u->nr++] = e;
	strmap_put(&u->map, e->name, e);
	return e;
}

void units_release(struct units *u)
{
	size_t i;

	for (i = 0; i < u->nr; i++) {
		diag_list_release(&u->v[i]->diags);
		free(u->v[i]->name);
		free(u->v[i]);
	}
	free(u->v);
	strmap_release(&u->map);
	memset(u, 0, sizeof(*u));
}

void units_add(struct units *u, const struct diag_list *l, const char *top)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct diag d = l->v[i];

		if (!*d.unit)
			d.unit = (char *)top;
		diag_list_add(&units_get(u, d.unit)->diags, &d);
	}
}

void units_replace(struct units *u, const struct diag_parse *p,
		   const char *top)
{
	size_t i;

	diag_list_release(&units_get(u, top)->diags);
	for (i = 0; i < p->units_nr; i++)
		diag_list_release(&units_get(u, diag_unit_of(p->units[i]))->diags);
	units_add(u, &p->diags, top);
}

static void add_units(const struct units *u, bool (*is_extra)(const char *),
		      bool extra, struct diag_list *all)
{
	size_t i, j;

	for (i = 0; i < u->nr; i++) {
		if (is_extra(u->v[i]->name) != extra)
			continue;
		for (j = 0; j < u->v[i]->diags.nr; j++)
			diag_list_add(all, &u->v[i]->diags.v[j]);
	}
}

void units_collect(const struct units *u, bool (*is_extra)(const char *unit),
		   struct diag_list *out, size_t *extra_from)
{
	struct diag_list all = DIAG_LIST_INIT, normal = DIAG_LIST_INIT;

	add_units(u, is_extra, false, &all);
	delta_list_distinct(&all, &normal);
	*extra_from = normal.nr;
	add_units(u, is_extra, true, &all);
	/* distinct() keeps first occurrences, in order: the normal ones */
	delta_list_distinct(&all, out);
	diag_list_release(&all);
	diag_list_release(&normal);
}

void units_drop(struct units *u, bool (*pred)(const char *unit))
{
	size_t i;

	for (i = 0; i < u->nr; i++)
		if (pred(u->v[i]->name))
			diag_list_release(&u->v[i]->diags);
}

void units_flatten(const struct units *u, struct diag_list *out)
{
	size_t i, j;

	for (i = 0; i < u->nr; i++)
		for (j = 0; j < u->v[i]->diags.nr; j++)
			diag_list_add(out, &u->v[i]->diags.v[j]);
}

int units_load(struct units *u, const char *path, const char *top)
{
	struct diag_list l = DIAG_LIST_INIT;
	char *buf = NULL;
	size_t len;
	int ret = util_read_file(path, &buf, &len, 512 << 20);

	if (!ret && diag_list_read(&l, buf, len))
		ret = -EINVAL;
	if (!ret)
		units_add(u, &l, top);
	diag_list_release(&l);
	free(buf);
	return ret;
}

int units_save(const struct units *u, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *tmp = xasprintf("%s.tmp", path);
	size_t i;
	int ret;

	for (i = 0; i < u->nr; i++)
		diag_list_write(&u->v[i]->diags, &sb);
	ret = util_write_file(tmp, sb.buf, sb.len);
	if (!ret && rename(tmp, path))
		ret = -errno;
	strbuf_release(&sb);
	free(tmp);
	return ret;
}
