// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bot/git/diff.h"
#include "lib/strmap.h"
#include "ci/delta.h"

int delta_map_parse(struct line_map *m, const char *diff, size_t len,
		    struct strbuf *err)
{
	struct diff d = DIFF_INIT;
	size_t i, j;

	memset(m, 0, sizeof(*m));
	if (!len)
		return 0;
	if (diff_parse(diff, len, &d, err))
		return -1;
	for (i = 0; i < d.nr; i++) {
		const struct diff_file *df = &d.files[i];
		struct line_map_file *f;

		ALLOC_GROW(m->f, m->nr + 1, m->alloc);
		f = &m->f[m->nr++];
		memset(f, 0, sizeof(*f));
		f->old_path = xstrdup_or_null(df->old_path);
		f->new_path = xstrdup_or_null(df->new_path);
		for (j = 0; j < df->nr; j++) {
			const struct diff_hunk *dh = &df->hunks[j];
			struct line_map_hunk *h;

			ALLOC_GROW(f->h, f->nr + 1, f->alloc);
			h = &f->h[f->nr++];
			/* "-5,0" inserts after line 5: the range starts at 6 */
			h->old_start = dh->old_start + (dh->old_lines ? 0 : 1);
			h->old_lines = dh->old_lines;
			h->new_start = dh->new_start + (dh->new_lines ? 0 : 1);
			h->new_lines = dh->new_lines;
		}
	}
	diff_release(&d);
	return 0;
}

void delta_map_release(struct line_map *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->f[i].old_path);
		free(m->f[i].new_path);
		free(m->f[i].h);
	}
	free(m->f);
	memset(m, 0, sizeof(*m));
}

int delta_map_line(const struct line_map *m, const char *path, int old_line,
		   const char **new_path)
{
	const struct line_map_file *f = NULL;
	int offset = 0;
	size_t i;

	for (i = 0; m && i < m->nr; i++) {
		if (m->f[i].old_path && !strcmp(m->f[i].old_path, path)) {
			f = &m->f[i];
			break;
		}
	}
	if (new_path)
		*new_path = f ? f->new_path : path;
	if (!f)
		return old_line;
	if (!f->new_path)
		return -1;
	if (old_line <= 0)
		return old_line;
	for (i = 0; i < f->nr; i++) {
		const struct line_map_hunk *h = &f->h[i];

		if (old_line < h->old_start)
			break;
		if (old_line < h->old_start + h->old_lines)
			return -1;
		offset = (h->new_start + h->new_lines) -
			(h->old_start + h->old_lines);
	}
	return old_line + offset;
}

void delta_list_distinct(const struct diag_list *in, struct diag_list *out)
{
	struct strmap seen = STRMAP_INIT;
	char **keys = xcalloc(in->nr + 1, sizeof(*keys));
	size_t i;

	for (i = 0; i < in->nr; i++) {
		struct strbuf k = STRBUF_INIT;

		if (in->v[i].sev == DIAG_NOTE)
			continue;
		diag_key_pos(&in->v[i], &k);
		keys[i] = strbuf_detach(&k, NULL);
		if (strmap_get(&seen, keys[i]))
			continue;
		strmap_put(&seen, keys[i], (void *)1);
		diag_list_add(out, &in->v[i]);
	}
	strmap_release(&seen);
	for (i = 0; i < in->nr; i++)
		free(keys[i]);
	free(keys);
}

struct base_entry {
	int line;		/* mapped into the patched tree; -1: edited */
	bool used;
	struct base_entry *next;
};

void delta_diag(const struct diag_list *base, const struct diag_list *cur,
		const struct line_map *map, bool *is_new)
{
	struct strmap by_key = STRMAP_INIT;
	struct base_entry *entries = xcalloc(base->nr + 1, sizeof(*entries));
	char **keys = xcalloc(base->nr + 1, sizeof(*keys));
	char **cur_keys = xcalloc(cur->nr + 1, sizeof(*cur_keys));
	bool *pending = xcalloc(cur->nr + 1, sizeof(*pending));
	size_t i;

	for (i = 0; i < base->nr; i++) {
		struct diag d = base->v[i];
		struct strbuf k = STRBUF_INIT;
		const char *path = NULL;
		struct base_entry *e = &entries[i];

		e->line = delta_map_line(map, d.file, d.line, &path);
		d.file = (char *)(path ? path : "");
		diag_key(&d, &k);
		keys[i] = strbuf_detach(&k, NULL);
		e->next = strmap_get(&by_key, keys[i]);
		strmap_put(&by_key, keys[i], e);
	}
	/* first the exact matches, so that a moved line does not steal */
	for (i = 0; i < cur->nr; i++) {
		struct strbuf k = STRBUF_INIT;
		struct base_entry *e;

		diag_key(&cur->v[i], &k);
		cur_keys[i] = strbuf_detach(&k, NULL);
		is_new[i] = true;
		for (e = strmap_get(&by_key, cur_keys[i]); e; e = e->next) {
			if (!e->used && e->line == cur->v[i].line) {
				e->used = true;
				is_new[i] = false;
				break;
			}
		}
		pending[i] = is_new[i];
	}
	for (i = 0; i < cur->nr; i++) {
		struct base_entry *e;

		if (!pending[i])
			continue;
		for (e = strmap_get(&by_key, cur_keys[i]); e; e = e->next) {
			if (!e->used) {
				e->used = true;
				is_new[i] = false;
				break;
			}
		}
	}
	strmap_release(&by_key);
	for (i = 0; i < base->nr; i++)
		free(keys[i]);
	for (i = 0; i < cur->nr; i++)
		free(cur_keys[i]);
	free(keys);
	free(cur_keys);
	free(entries);
	free(pending);
}
