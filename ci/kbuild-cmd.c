// SPDX-License-Identifier: GPL-2.0
/*
 * The units of a build directory by their .cmd files: ci/kbuild-cmd.h.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "ci/kbuild-cmd.h"

char *kbuild_cmd_file(const char *obj, const char *unit)
{
	const char *slash = strrchr(unit, '/');

	if (!slash)
		return xasprintf("%s/.%s.cmd", obj, unit);
	return xasprintf("%s/%.*s/.%s.cmd", obj, (int)(slash - unit), unit, slash + 1);
}

char *kbuild_c_unit(const char *c_path)
{
	size_t n = strlen(c_path);

	if (n < 3 || strcmp(c_path + n - 2, ".c"))
		return NULL;
	return xasprintf("%.*s.o", (int)(n - 2), c_path);
}

struct unit_list {
	char **v;
	size_t nr, alloc;
};

static void walk(const char *obj, const char *rel, struct unit_list *l)
{
	char *path = *rel ? xasprintf("%s/%s", obj, rel) : xstrdup(obj);
	DIR *d = opendir(path);
	struct dirent *de;

	free(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		/*
		 * DT_DIR only, and never obj/source: the sources, a link
		 * kbuild makes beside the objects of an O= build
		 */
		if (de->d_type == DT_DIR && de->d_name[0] != '.') {
			char *sub = *rel ? xasprintf("%s/%s", rel, de->d_name) :
				    xstrdup(de->d_name);

			if (strcmp(sub, "source"))
				walk(obj, sub, l);
			free(sub);
		} else if (de->d_name[0] == '.' && n > 7 &&
			   !strcmp(de->d_name + n - 6, ".o.cmd")) {
			ALLOC_GROW(l->v, l->nr + 1, l->alloc);
			l->v[l->nr++] = xasprintf("%s%s%.*s", rel, *rel ? "/" : "",
						  (int)(n - 5), de->d_name + 1);
		}
	}
	closedir(d);
}

size_t kbuild_list_units(const char *obj, char ***units)
{
	struct unit_list l = { 0 };

	walk(obj, "", &l);
	if (l.nr)
		qsort(l.v, l.nr, sizeof(*l.v), util_strcmp_ptr);
	*units = l.v;
	return l.nr;
}

void kbuild_units_free(char **units, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(units[i]);
	free(units);
}
