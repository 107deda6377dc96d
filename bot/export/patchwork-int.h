/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the patchwork module (patchwork*.c) */
#ifndef LOREBOT_PATCHWORK_INT_H
#define LOREBOT_PATCHWORK_INT_H

#include "bot/export/patchwork.h"

/* A row of pw_checks (migration patchwork-1) */
struct pw_row {
	int64_t id;
	char *version, *msgid, *context, *phase, *state, *description;
	char *target_url;	/* or NULL */
	char *status, *reason;
	int patch, attempts;
	int64_t pw_patch, pw_check;	/* 0: not known */
};

struct pw_rows {
	struct pw_row *v;
	size_t nr, alloc;
};

/* queued or sending, next attempt passed, of version (NULL: all); 0 or -1 */
int patchwork_rows_due(struct store *st, int64_t now, const char *version,
		       struct pw_rows *rows, struct strbuf *err);
/* 1 found, 0 not, -1 */
int patchwork_row_load(struct store *st, int64_t id, struct pw_row *r, struct strbuf *err);
void patchwork_row_release(struct pw_row *r);
void patchwork_rows_release(struct pw_rows *rows);
/* queued|sending -> sending, attempts + 1: 1 claimed, 0 not, -1 */
int patchwork_claim(struct store *st, int64_t id, int64_t now, struct strbuf *err);
int patchwork_set(struct store *st, int64_t id, const char *status, int64_t next,
		  const char *reason, int64_t now, struct strbuf *err);
/* Remember patchwork's ids (0: leave as it is) */
int patchwork_set_ids(struct store *st, int64_t id, int64_t pw_patch, int64_t pw_check,
		      struct strbuf *err);
json_object *patchwork_row_json(const struct pw_row *r);

#endif
