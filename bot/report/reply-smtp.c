// SPDX-License-Identifier: GPL-2.0
/* Delivering a stored reply over SMTP (libcurl, through net.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/jsonx.h"
#include "bot/base/net.h"
#include "bot/report/reply-int.h"
#include "bot/base/secret.h"

static char *value_of(const char *line, const char *key)
{
	const char *p;

	if (!util_skip_prefix(line, key, &p))
		return NULL;
	if (*p != ' ' && *p != '\t' && *p != '=' && *p != ':')
		return NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '=' || *p == ':')
		p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return xstrdup(p);
}

int reply_smtp_read_credentials(const char *path, char **user, char **password,
				struct strbuf *err)
{
	char *buf, *line, *next;
	size_t len;

	*user = *password = NULL;
	if (secret_read("smtp.credentials", path, &buf, &len, err))
		return -1;
	for (line = buf; line && *line; line = next) {
		struct {
			const char *key;
			char **out;
		} keys[] = { { "user", user }, { "password", password } };
		size_t k;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (*line && line[strlen(line) - 1] == '\r')
			line[strlen(line) - 1] = 0;
		for (k = 0; *line != '#' && k < ARRAY_SIZE(keys); k++) {
			char *v = value_of(line, keys[k].key);

			if (v) {
				free(*keys[k].out);
				*keys[k].out = v;
			}
		}
	}
	free(buf);
	if (!*user || !**user) {
		strbuf_addf(err, "smtp.credentials '%s' has no 'user' line", path);
		free(*user);
		free(*password);
		*user = *password = NULL;
		return -1;
	}
	return 0;
}

/* The stored mail with CRLF line ends, as SMTP wants it */
static void to_crlf(struct strbuf *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '\n' && (!i || s[i - 1] != '\r'))
			strbuf_addch(out, '\r');
		strbuf_addch(out, s[i]);
	}
}

static void add_rcpts(const char ***v, size_t *nr, size_t *alloc, json_object *arr)
{
	size_t i;

	for (i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *a = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(a, json_type_string))
			continue;
		ALLOC_GROW(*v, *nr + 2, *alloc);
		(*v)[(*nr)++] = json_object_get_string(a);
		(*v)[*nr] = NULL;
	}
}

int reply_smtp_deliver(const struct config *cfg, struct net *net, const struct reply_row *r,
		       struct strbuf *err)
{
	const char *url = config_v(cfg)->smtp_url;
	const char *cred = config_v(cfg)->smtp_credentials;
	const char *tls = config_v(cfg)->smtp_starttls;
	const char *from = config_v(cfg)->smtp_from;
	json_object *rcpt = r->recipients ? json_tokener_parse(r->recipients) : NULL;
	struct net_response res = NET_RESPONSE_INIT;
	struct strbuf data = STRBUF_INIT;
	struct net_mail m = { 0 };
	const char **to = NULL;
	size_t nr = 0, alloc = 0;
	char *user = NULL, *password = NULL;
	int ret = -1;

	if (!url || !*url) {
		strbuf_addstr(err, "reply mode smtp needs smtp.url");
		ret = -2;
		goto out;
	}
	if (cred && *cred && reply_smtp_read_credentials(cred, &user, &password, err)) {
		ret = -2;
		goto out;
	}
	add_rcpts(&to, &nr, &alloc, jx_array(rcpt, "to"));
	add_rcpts(&to, &nr, &alloc, jx_array(rcpt, "cc"));
	if (!nr) {
		strbuf_addstr(err, "the reply has no recipients");
		ret = -2;
		goto out;
	}
	to_crlf(&data, r->mail, r->mail_len);
	m.url = url;
	m.from = from && *from ? from : config_v(cfg)->core_botaddress;
	m.rcpt = to;
	m.data = data.buf;
	m.len = data.len;
	m.user = user;
	m.password = password;
	m.starttls = !strcmp(tls, "always") ? 1 : !strcmp(tls, "never") ? -1 : 0;
	m.cainfo = config_v(cfg)->smtp_cainfo;
	m.timeout_ms = config_v(cfg)->smtp_timeout;
	if (!net_send_mail(net, &m, &res)) {
		ret = 0;
	} else {
		strbuf_addf(err, "%s: %s", url, res.error.buf);
		if (res.status)
			strbuf_addf(err, " (SMTP %ld)", res.status);
		ret = net_mail_permanent(&res) ? -2 : -1;
	}
out:
	net_response_release(&res);
	strbuf_release(&data);
	free(to);
	free(user);
	free(password);
	json_object_put(rcpt);
	return ret;
}
