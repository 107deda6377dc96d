// SPDX-License-Identifier: GPL-2.0
/* Reading git-config files (bot/git/gitcfg.h) */
#include "bot/git/git-int.h"
#include "bot/git/gitcfg.h"

static int cfg_foreach(git_config *cfg, gitcfg_cb cb, void *data)
{
	git_config_iterator *it;
	git_config_entry *entry;
	int ret = 0;

	if (git_config_iterator_new(&it, cfg))
		return -1;
	while (!ret && !git_config_next(&entry, it))
		ret = cb(entry->name, entry->value, data);
	git_config_iterator_free(it);
	return ret;
}

int gitcfg_read_file(const char *path, gitcfg_cb cb, void *data,
		     struct strbuf *err)
{
	git_config *cfg;
	int ret;

	git_lib_init();
	if (git_config_new(&cfg))
		return -1;
	if (git_config_add_file_ondisk(cfg, path, GIT_CONFIG_LEVEL_APP, NULL, 1)) {
		git_error_to(err, path);
		git_config_free(cfg);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	return ret;
}

int gitcfg_read_default(const char *repo_dir, gitcfg_cb cb, void *data,
			struct strbuf *err)
{
	git_repository *repo = NULL;
	git_config *cfg;
	int ret;

	git_lib_init();
	if (repo_dir) {
		if (git_repository_open_ext(&repo, repo_dir, 0, NULL)) {
			git_error_to(err, repo_dir);
			return -1;
		}
		ret = git_repository_config_snapshot(&cfg, repo);
	} else {
		ret = git_config_open_default(&cfg);
	}
	if (ret) {
		git_error_to(err, "git config");
		git_repository_free(repo);
		return -1;
	}
	ret = cfg_foreach(cfg, cb, data);
	git_config_free(cfg);
	git_repository_free(repo);
	return ret;
}
