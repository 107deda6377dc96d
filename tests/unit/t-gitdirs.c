// SPDX-License-Identifier: GPL-2.0
/*
 * What a repository reads outside itself, as the job runner binds it
 * into a stage's sandbox: alternates (absolute, relative, nested, in a
 * loop, missing, commented), a linked worktree's git and common
 * directories, and nothing inside the repository.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/git/gitdirs.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "tests/unit/tap.h"

static char top[] = "/tmp/lorebot-t-gitdirs-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", top, rel), *dir = util_path_dirname(path);

	util_mkdir_p(dir, 0755);
	util_write_file(path, text, strlen(text));
	free(dir);
	free(path);
}

static void dir(const char *rel)
{
	char *path = xasprintf("%s/%s", top, rel);

	util_mkdir_p(path, 0755);
	free(path);
}

/* The directories found for repo, relative to top, joined by spaces */
static char *found(const char *repo)
{
	char *dirs[8], *path = xasprintf("%s/%s", top, repo);
	struct strbuf sb = STRBUF_INIT;
	size_t n = gitdirs_outside(path, dirs, ARRAY_SIZE(dirs)), i;

	for (i = 0; i < n; i++) {
		const char *d = dirs[i];

		if (!strncmp(d, top, strlen(top)))
			d += strlen(top) + 1;
		strbuf_addf(&sb, "%s%s", i ? " " : "", d);
		free(dirs[i]);
	}
	free(path);
	return strbuf_detach(&sb, NULL);
}

int main(void)
{
	char *s, *abs;

	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	/* a plain bare repository: nothing outside */
	dir("plain.git/objects");
	s = found("plain.git");
	is_str(s, "", "a repository without alternates reads nothing outside");
	free(s);

	/* shared.git -> base.git (absolute) -> ref.git (relative) -> base.git (a loop) */
	dir("base.git/objects/pack");
	dir("ref.git/objects");
	abs = xasprintf("# a comment\n\n%s/base.git/objects\n/nonexistent/objects\n", top);
	put("shared.git/objects/info/alternates", abs);
	free(abs);
	put("base.git/objects/info/alternates", "../../ref.git/objects\r\n");
	put("ref.git/objects/info/alternates", "../../base.git/objects\n");
	s = found("shared.git");
	is_str(s, "base.git/objects ref.git/objects",
	       "alternates: absolute, then the alternate's own (relative), each once");
	free(s);
	/* one inside the repository is its own */
	put("self.git/objects/info/alternates", "inner\n");
	dir("self.git/objects/inner");
	s = found("self.git");
	is_str(s, "", "an alternate inside the repository is not outside it");
	free(s);

	/* a linked worktree: .git names its git directory, which names the common one */
	dir("main/.git/objects");
	put("main/.git/worktrees/wt/commondir", "../..\n");
	put("wt/.git", "gitdir: ../main/.git/worktrees/wt\n");
	put("main/.git/objects/info/alternates", "../../../base.git/objects\n");
	s = found("wt");
	is_str(s, "main/.git/worktrees/wt main/.git base.git/objects ref.git/objects",
	       "a worktree: its git directory, the common one and its alternates");
	free(s);

	/* a repository with a .git directory: nothing outside */
	dir("work/.git/objects");
	s = found("work");
	is_str(s, "", "a repository with its .git inside reads nothing outside");
	free(s);
	s = found("nonexistent");
	is_str(s, "", "a repository that is not there: nothing");
	free(s);

	util_remove_tree(top);
	return done_testing();
}
