// SPDX-License-Identifier: GPL-2.0
/* Object ids (struct gitoid of bot/git/gitrepo.h) */
#include <errno.h>

#include "bot/git/git-int.h"

void gitoid_hex(const struct gitoid *id, char out[GITOID_HEXSZ + 1])
{
	git_oid_tostr(out, GITOID_HEXSZ + 1, to_git(id));
}

int gitoid_parse(struct gitoid *id, const char *hex)
{
	git_oid g;

	if (strlen(hex) != GITOID_HEXSZ || git_oid_fromstr(&g, hex))
		return -EINVAL;
	from_git(id, &g);
	return 0;
}

bool gitoid_eq(const struct gitoid *a, const struct gitoid *b)
{
	return !memcmp(a->raw, b->raw, GITOID_RAWSZ);
}

bool gitoid_is_zero(const struct gitoid *id)
{
	static const struct gitoid zero;

	return gitoid_eq(id, &zero);
}

void gitoid_hash_blob(struct gitoid *id, const void *buf, size_t len)
{
	git_oid g;

	git_odb_hash(&g, buf, len, GIT_OBJECT_BLOB);
	from_git(id, &g);
}
