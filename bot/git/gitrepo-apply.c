// SPDX-License-Identifier: GPL-2.0
/* Binary patches and three-way merges of file contents (bot/git/gitrepo.h) */
#include <errno.h>

#include "bot/git/git-int.h"

int gitrepo_apply_binary(struct gitrepo *r, const char *old_path,
			 const struct gitoid *old, unsigned int old_mode,
			 const char *new_path, const char *section, size_t len,
			 struct gitoid *out, struct strbuf *err)
{
	git_apply_options ao;
	const git_index_entry *e;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_tree *pre = NULL;
	git_oid pre_id;
	int ret;

	if (old) {
		git_tree_update u = {
			.action = GIT_TREE_UPDATE_UPSERT,
			.filemode = old_mode,
			.path = old_path,
		};

		memcpy(u.id.id, old->raw, GITOID_RAWSZ);
		ret = git_tree_create_updated(&pre_id, r->repo, NULL, 1, &u);
	} else {
		ret = git_tree_create_updated(&pre_id, r->repo, NULL, 0, NULL);
	}
	if (!ret)
		ret = git_tree_lookup(&pre, r->repo, &pre_id);
	if (ret) {
		ret = git_fail(ret, err, "cannot prepare '%s'", old_path);
		goto out;
	}
	ret = git_diff_from_buffer(&diff, section, len);
	if (ret) {
		ret = git_fail(ret, err, "cannot parse the binary patch");
		goto out;
	}
	git_apply_options_init(&ao, GIT_APPLY_OPTIONS_VERSION);
	ret = git_apply_to_tree(&index, r->repo, pre, diff, &ao);
	if (ret) {
		ret = git_fail(ret, err, "binary patch does not apply");
		goto out;
	}
	e = git_index_get_bypath(index, new_path, 0);
	if (!e) {
		strbuf_addf(err, "binary patch gave no '%s'", new_path);
		ret = -EINVAL;
		goto out;
	}
	from_git(out, &e->id);
out:
	git_index_free(index);
	git_diff_free(diff);
	git_tree_free(pre);
	return ret;
}

int gitrepo_merge_contents(const char *base, size_t base_len,
			   const char *ours, size_t ours_len,
			   const char *theirs, size_t theirs_len,
			   struct strbuf *out, struct strbuf *err)
{
	git_merge_file_input in[3];
	git_merge_file_result res = { 0 };
	int i, ret;

	git_lib_init();
	for (i = 0; i < 3; i++)
		git_merge_file_input_init(&in[i], GIT_MERGE_FILE_INPUT_VERSION);
	in[0].ptr = base;
	in[0].size = base_len;
	in[1].ptr = ours;
	in[1].size = ours_len;
	in[2].ptr = theirs;
	in[2].size = theirs_len;
	ret = git_merge_file(&res, &in[0], &in[1], &in[2], NULL);
	if (ret)
		return git_fail(ret, err, "three-way merge failed");
	ret = res.automergeable ? 1 : 0;
	strbuf_reset(out);
	strbuf_add(out, res.ptr, res.len);
	git_merge_file_result_free(&res);
	return ret;
}
