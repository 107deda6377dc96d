// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/base/secret.h"

int secret_read(const char *key, const char *path, char **buf, size_t *len,
		struct strbuf *err)
{
	struct stat sb;
	int fd, r;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb)) {
		strbuf_addf(err, "cannot read %s '%s': %s", key, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (!S_ISREG(sb.st_mode)) {
		strbuf_addf(err, "%s '%s' is not a regular file", key, path);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		strbuf_addf(err, "%s '%s' belongs to uid %u, not to lorebot's uid %u; refusing "
			    "to use it", key, path, (unsigned int)sb.st_uid,
			    (unsigned int)geteuid());
		return -1;
	}
	if (sb.st_mode & 077) {
		strbuf_addf(err, "%s '%s' can be read by others (mode %04o); refusing to use it "
			    "(chmod 600 '%s')", key, path, (unsigned int)(sb.st_mode & 07777), path);
		return -1;
	}
	r = util_read_file(path, buf, len, 64 * 1024);
	if (r) {
		strbuf_addf(err, "cannot read %s '%s': %s", key, path, strerror(-r));
		return -1;
	}
	return 0;
}

int secret_token(const char *key, const char *path, char **token, struct strbuf *err)
{
	char *buf, *p, *e;
	size_t len;

	*token = NULL;
	if (secret_read(key, path, &buf, &len, err))
		return -1;
	for (p = buf; *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'; p++)
		;
	for (e = p; *e && *e != '\n' && *e != '\r'; e++)
		;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == p) {
		strbuf_addf(err, "%s '%s' is empty", key, path);
		free(buf);
		return -1;
	}
	*token = xstrndup(p, e - p);
	free(buf);
	return 0;
}
