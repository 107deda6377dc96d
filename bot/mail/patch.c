// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include "bot/mail/patch.h"

/* Trailers git and the kernel's process documents know */
static const char *const known_trailers[] = {
	"Signed-off-by", "Reviewed-by", "Acked-by", "Tested-by",
	"Reported-by", "Suggested-by", "Co-developed-by", "Fixes", "Link",
	"Closes", "Cc", "Reported-and-tested-by", "Requested-by",
	"Debugged-by", "Originally-by", "Helped-by", "Message-ID",
	"Change-Id", "Stable-dep-of", "BugLink",
};

/* A line of the body: [start, start + len), without the newline */
struct line {
	const char *p;
	size_t len;
};

struct lines {
	struct line *l;
	size_t nr, alloc;
};

static void split_lines(const char *buf, size_t len, struct lines *out)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		ALLOC_GROW(out->l, out->nr + 1, out->alloc);
		out->l[out->nr].p = p;
		out->l[out->nr].len = n;
		out->nr++;
		p += n + (nl ? 1 : 0);
	}
}

static bool line_is(const struct line *l, const char *s)
{
	return l->len == strlen(s) && !memcmp(l->p, s, l->len);
}

static bool line_starts(const struct line *l, const char *s)
{
	size_t n = strlen(s);

	return l->len >= n && !memcmp(l->p, s, n);
}

static bool line_blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (!isspace((unsigned char)l->p[i]))
			return false;
	return true;
}

static void add_trailer(struct trailers *t, const char *name, const char *value,
			bool interned)
{
	/* most lists hold one to three trailers: grow gently */
	if (t->nr + 1 > t->alloc) {
		size_t n = t->alloc ? t->alloc * 2 : 2;

		if (t->pool)
			t->t = strpool_grow(t->pool, t->t, t->nr, n, sizeof(*t->t));
		else
			t->t = xrealloc(t->t, n * sizeof(*t->t));
		t->alloc = n;
	}
	if (t->pool && interned) {
		t->t[t->nr].name = (char *)name;
		t->t[t->nr].value = (char *)value;
	} else if (t->pool) {
		t->t[t->nr].name = strpool_intern(t->pool, name);
		t->t[t->nr].value = strpool_intern(t->pool, value);
	} else {
		t->t[t->nr].name = xstrdup(name);
		t->t[t->nr].value = xstrdup(value);
	}
	t->nr++;
}

void patch_trailers_add(struct trailers *t, const char *name, const char *value)
{
	add_trailer(t, name, value, false);
}

void patch_trailers_add_interned(struct trailers *t, const char *name,
				 const char *value, const struct strpool *pool)
{
	add_trailer(t, name, value, pool && pool == t->pool);
}

bool patch_trailers_has(const struct trailers *t, const char *name, const char *value)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!strcasecmp(t->t[i].name, name) &&
		    !strcasecmp(t->t[i].value, value))
			return true;
	return false;
}

void patch_trailers_release(struct trailers *t)
{
	size_t i;

	for (i = 0; i < t->nr && !t->pool; i++) {
		free(t->t[i].name);
		free(t->t[i].value);
	}
	if (!t->pool)
		free(t->t);
	memset(t, 0, sizeof(*t));
}

/*
 * "Token: value" with Token made of [A-Za-z0-9-] and starting with a
 * letter or digit.  Sets the token length and the value start.
 */
static bool trailer_shape(const char *p, size_t len, size_t *tok, size_t *val)
{
	size_t i = 0;

	if (!len || !isalnum((unsigned char)p[0]))
		return false;
	while (i < len && (isalnum((unsigned char)p[i]) || p[i] == '-'))
		i++;
	if (i >= len || p[i] != ':' || i > 64)
		return false;
	*tok = i;
	i++;
	if (i >= len || (p[i] != ' ' && p[i] != '\t'))
		return false;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (i >= len)
		return false;
	*val = i;
	return true;
}

static bool is_known_trailer(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_trailers); i++)
		if (strlen(known_trailers[i]) == len &&
		    !strncasecmp(known_trailers[i], name, len))
			return true;
	return len > 3 && !strncasecmp(name + len - 3, "-by", 3);
}

static char *rtrim_dup(const char *p, size_t len)
{
	while (len && isspace((unsigned char)p[len - 1]))
		len--;
	return xstrndup(p, len);
}

/*
 * Trailers of a commit message: its last paragraph, when most of it
 * looks like trailers and at least one is a known one.
 */
static void message_trailers(const char *msg, struct trailers *out)
{
	struct lines ls = { 0 };
	size_t start, i, shaped = 0, total = 0;
	bool known = false;

	split_lines(msg, strlen(msg), &ls);
	i = ls.nr;
	while (i && line_blank(&ls.l[i - 1]))
		i--;
	start = i;
	while (start && !line_blank(&ls.l[start - 1]))
		start--;
	for (size_t j = start; j < i; j++) {
		size_t tok, val;

		if (ls.l[j].p[0] == ' ' || ls.l[j].p[0] == '\t' ||
		    ls.l[j].p[0] == '[')
			continue;	/* continuation or "[note]" */
		total++;
		if (trailer_shape(ls.l[j].p, ls.l[j].len, &tok, &val)) {
			shaped++;
			known |= is_known_trailer(ls.l[j].p, tok);
		}
	}
	if (!known || shaped * 2 < total)
		goto out;
	for (size_t j = start; j < i; j++) {
		size_t tok, val;
		char *name, *value;

		if (!trailer_shape(ls.l[j].p, ls.l[j].len, &tok, &val))
			continue;
		name = xstrndup(ls.l[j].p, tok);
		value = rtrim_dup(ls.l[j].p + val, ls.l[j].len - val);
		/* folded continuation lines */
		while (j + 1 < i && (ls.l[j + 1].p[0] == ' ' || ls.l[j + 1].p[0] == '\t')) {
			char *more = rtrim_dup(ls.l[j + 1].p, ls.l[j + 1].len);
			char *joined = xasprintf("%s %s", value, more + strspn(more, " \t"));

			free(value);
			free(more);
			value = joined;
			j++;
		}
		patch_trailers_add(out, name, value);
		free(name);
		free(value);
	}
out:
	free(ls.l);
}

/*
 * A line that starts a diff, as git mailinfo's patchbreak() sees it;
 * next is the line after it, or NULL
 */
static bool diff_starts(const struct line *l, const struct line *next)
{
	if (line_starts(l, "diff -") || line_starts(l, "Index: "))
		return true;
	return line_starts(l, "--- ") && next && line_starts(next, "+++ ");
}

static bool starts_diff(const struct lines *ls, size_t i)
{
	return diff_starts(&ls->l[i], i + 1 < ls->nr ? &ls->l[i + 1] : NULL);
}

static bool is_separator(const struct line *l)
{
	size_t i;

	if (!line_starts(l, "---"))
		return false;
	for (i = 3; i < l->len; i++)
		if (!isspace((unsigned char)l->p[i]))
			return false;
	return true;
}

static bool parse_hunk_header(const struct line *l, long *old, long *new)
{
	const char *p = l->p + 4, *end = l->p + l->len;
	long o = 1, n = 1;
	char *e;

	if (!line_starts(l, "@@ -"))
		return false;
	strtol(p, &e, 10);
	if (e < end && *e == ',')
		o = strtol(e + 1, &e, 10);
	if (e + 1 >= end || *e != ' ' || e[1] != '+')
		return false;
	strtol(e + 2, &e, 10);
	if (e < end && *e == ',')
		n = strtol(e + 1, &e, 10);
	if (o < 0 || n < 0)
		return false;
	*old = o;
	*new = n;
	return true;
}

/*
 * Where does the diff that starts at line i end?  Hunks are consumed by
 * their line counts, so a removed line "-- " is not taken for the
 * signature.  Returns the index of the first line after the diff.
 */
static size_t diff_end(const struct lines *ls, size_t i)
{
	long old = 0, new = 0;
	bool binary = false;

	for (; i < ls->nr; i++) {
		const struct line *l = &ls->l[i];

		if (old > 0 || new > 0) {
			char c = l->len ? l->p[0] : ' ';

			if (c == '\\')
				continue;
			if (c == ' ') {
				old--;
				new--;
			} else if (c == '-') {
				old--;
			} else if (c == '+') {
				new--;
			} else {
				return i;	/* truncated hunk */
			}
			continue;
		}
		if (line_starts(l, "\\ "))
			continue;
		if (parse_hunk_header(l, &old, &new)) {
			binary = false;
			continue;
		}
		if (line_starts(l, "diff ") || line_starts(l, "index ") ||
		    line_starts(l, "--- ") || line_starts(l, "+++ ") ||
		    line_starts(l, "new file mode") ||
		    line_starts(l, "deleted file mode") ||
		    line_starts(l, "old mode") || line_starts(l, "new mode") ||
		    line_starts(l, "similarity index") ||
		    line_starts(l, "dissimilarity index") ||
		    line_starts(l, "rename from") || line_starts(l, "rename to") ||
		    line_starts(l, "copy from") || line_starts(l, "copy to") ||
		    line_starts(l, "Binary files") || line_starts(l, "Index: ") ||
		    line_starts(l, "====")) {
			continue;
		}
		if (line_starts(l, "GIT binary patch")) {
			binary = true;
			continue;
		}
		if (binary && !line_starts(l, "-- ") &&
		    !line_starts(l, "base-commit:"))
			continue;
		return i;
	}
	return i;
}

void patch_split_name_addr(const char *v, char **name, char **addr)
{
	const char *lt = strrchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	*name = *addr = NULL;
	if (lt && gt) {
		const char *e = lt;

		while (e > v && isspace((unsigned char)e[-1]))
			e--;
		if (e > v) {
			const char *s = v;

			if (*s == '"' && e > s + 1 && e[-1] == '"') {
				s++;
				e--;
			}
			*name = xstrndup(s, e - s);
		}
		*addr = xstrndup(lt + 1, gt - lt - 1);
		return;
	}
	if (strchr(v, '@') && !strchr(v, ' '))
		*addr = xstrdup(v);
	else
		*name = xstrdup(v);
}

static char *value_of(const struct line *l, size_t skip)
{
	const char *p = l->p + skip;
	size_t n = l->len - skip;

	while (n && isspace((unsigned char)*p)) {
		p++;
		n--;
	}
	return rtrim_dup(p, n);
}

/* base-commit:, change-id: and the like, first unquoted occurrence */
static char *find_tag_line(const char *body, const char *tag, bool hex)
{
	const char *p = body;
	size_t tl = strlen(tag);

	/* the tags are written in lowercase; find candidates quickly */
	p = strstr(body, tag);
	if (p) {
		while (p > body && p[-1] != '\n')
			p--;
	}
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > tl && !strncasecmp(p, tag, tl)) {
			struct line l = { p, len };
			char *v = value_of(&l, tl);
			size_t n = strlen(v);

			if (n && (!hex || (n >= 7 && n <= 64 &&
					   strspn(v, "0123456789abcdef") == n)))
				return v;
			free(v);
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

char *patch_find_base_commit(const char *body)
{
	return find_tag_line(body, "base-commit:", true);
}

char *patch_find_change_id(const char *body)
{
	return find_tag_line(body, "change-id:", false);
}

/* Collapse blank runs, strip trailing blanks of lines (git stripspace) */
static char *stripspace(const struct lines *ls, size_t from, size_t to)
{
	struct strbuf sb = STRBUF_INIT;

	/* the lines lie one after the other in one buffer */
	if (from < to)
		strbuf_add(&sb, ls->l[from].p,
			   ls->l[to - 1].p + ls->l[to - 1].len - ls->l[from].p);
	strbuf_stripspace(&sb);
	return strbuf_detach(&sb, NULL);
}

/* " 2 files changed, 8 insertions(+)" (b4's DIFFSTAT_RE) */
static bool diffstat_line(const char *p, size_t n)
{
	size_t i = 0;
	const char *f, *e = p + n;

	while (i < n && isspace((unsigned char)p[i]))
		i++;
	if (i >= n || !isdigit((unsigned char)p[i]))
		return false;
	while (i < n && isdigit((unsigned char)p[i]))
		i++;
	if (i + 5 > n || strncasecmp(p + i, " file", 5))
		return false;
	for (f = p + i; f < e; f++) {
		const char *d = f;

		if (!isdigit((unsigned char)*f))
			continue;
		while (d < e && isdigit((unsigned char)*d))
			d++;
		if ((e - d >= 10 && !strncasecmp(d, " insertion", 10)) ||
		    (e - d >= 9 && !strncasecmp(d, " deletion", 9)))
			return true;
		f = d;
	}
	return false;
}

bool patch_body_has_diffstat(const char *body, size_t len)
{
	const char *p = body, *end = body + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && diffstat_line(p, n))
			return true;
		p += n + 1;
	}
	return false;
}

bool patch_body_has_diff(const char *body, size_t len)
{
	const char *p = body, *end = body + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if ((size_t)(end - p) > 11 && !memcmp(p, "diff --git ", 11))
			return true;
		if ((size_t)(end - p) > 4 && !memcmp(p, "--- ", 4) && nl &&
		    (size_t)(end - nl) > 5 && !memcmp(nl + 1, "+++ ", 4))
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

void patch_extract(const struct mail *m, struct patch *p)
{
	patch_extract_flags(m, 0, p);
}

/* Author, date and title: in-body headers win when there is a patch */
static void patch_ident(const struct mail *m, const struct patch_head *h,
			unsigned int flags, struct patch *p)
{
	const char *from = h->has_patch && h->from ? h->from : m->from_text;
	const char *subj = h->has_patch && h->subject ? h->subject : m->subject;
	struct strbuf sb = STRBUF_INIT;
	char *name, *email;

	patch_author(from, &name, &email);
	p->author_name = name ? mail_clean_header(name) : NULL;
	p->author_email = email ? mail_clean_header(email) : NULL;
	free(name);
	free(email);
	p->date = m->date;
	p->tz = m->tz;
	if (h->has_patch && h->date &&
	    !mail_strict_date(h->date, &p->date, &p->tz) &&
	    mail_parse_date(h->date, &p->date, &p->tz)) {
		p->date = m->date;
		p->tz = m->tz;
	}
	patch_clean_subject(subj, flags, &sb);
	p->subject = mail_clean_header(sb.buf);
	strbuf_release(&sb);
}

void patch_extract_flags(const struct mail *m, unsigned int flags,
			 struct patch *p)
{
	const char *body = m->body ? m->body : "";
	struct patch_head h;
	struct lines ls = { 0 };
	size_t i, notes_start, dstart, dend;

	memset(p, 0, sizeof(*p));
	patch_head_read(body, m->body_len, flags, &h);
	patch_ident(m, &h, flags, p);
	strbuf_stripspace(&h.log);
	p->message = xstrndup(h.log.buf, h.log.len);
	message_trailers(p->message, &p->trailers);
	if ((flags & PATCH_HEAD) || !h.has_patch)
		goto tags;

	p->patch_len = m->body_len - h.patch_start;
	p->patch = xstrndup(body + h.patch_start, p->patch_len);
	split_lines(p->patch, p->patch_len, &ls);
	/* the notes (diffstat) run from "---" to the diff */
	notes_start = ls.nr && is_separator(&ls.l[0]) ? 1 : 0;
	for (dstart = notes_start; dstart < ls.nr && !starts_diff(&ls, dstart); dstart++)
		;
	if (dstart < ls.nr) {
		const char *b, *e;

		if (dstart > notes_start)
			p->notes = stripspace(&ls, notes_start, dstart);
		dend = diff_end(&ls, dstart);
		b = ls.l[dstart].p;
		e = dend < ls.nr ? ls.l[dend].p : p->patch + p->patch_len;
		p->diff = xstrndup(b, e - b);
		p->diff_len = e - b;
		p->diff_nul = m->body_nul && memmem(p->diff, p->diff_len, "\xef\xbf\xbd", 3);
	} else {
		dend = ls.nr;
		if (notes_start)
			p->notes = stripspace(&ls, notes_start, ls.nr);
	}

	/* what follows the diff: base-commit:, prerequisites, signature */
	for (i = dend; i < ls.nr; i++) {
		const struct line *l = &ls.l[i];
		size_t alloc = p->nr_prereq;

		if (line_is(l, "-- ")) {
			p->signature = stripspace(&ls, i + 1, ls.nr);
			break;
		}
		if (line_starts(l, "prerequisite-patch-id:")) {
			ALLOC_GROW(p->prereq_ids, p->nr_prereq + 1, alloc);
			p->prereq_ids[p->nr_prereq++] = value_of(l, 22);
		}
	}
tags:
	p->base_commit = patch_find_base_commit(body);
	p->change_id = patch_find_change_id(body);
	free(ls.l);
	patch_head_release(&h);
}

void patch_release(struct patch *p)
{
	size_t i;

	free(p->author_name);
	free(p->author_email);
	free(p->subject);
	free(p->message);
	free(p->patch);
	patch_trailers_release(&p->trailers);
	free(p->notes);
	free(p->diff);
	free(p->base_commit);
	for (i = 0; i < p->nr_prereq; i++)
		free(p->prereq_ids[i]);
	free(p->prereq_ids);
	free(p->change_id);
	free(p->signature);
	memset(p, 0, sizeof(*p));
}

void patch_commit_message(const struct patch *p, struct strbuf *sb)
{
	strbuf_addstr(sb, p->subject);
	strbuf_addch(sb, '\n');
	if (p->message && *p->message) {
		strbuf_addch(sb, '\n');
		strbuf_addstr(sb, p->message);
	}
}

void patch_commit_message_with(const struct patch *p, const struct trailers *add,
			       struct strbuf *sb)
{
	bool first = true;
	size_t i;

	patch_commit_message(p, sb);
	for (i = 0; add && i < add->nr; i++) {
		const struct trailer *t = &add->t[i];

		if (patch_trailers_has(&p->trailers, t->name, t->value))
			continue;
		/* after the message's own trailer block, else a block of their own */
		if (first && !p->trailers.nr)
			strbuf_addch(sb, '\n');
		first = false;
		strbuf_addf(sb, "%s: %s\n", t->name, t->value);
	}
}

/* b4's follow-up trailer rules (find_trailers(followup=True)) */
static bool nonperson(const char *name, size_t len)
{
	static const char *const np[] = { "fixes", "link", "buglink",
					  "obsoleted-by", "change-id",
					  "base-commit" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(np); i++)
		if (strlen(np[i]) == len && !strncasecmp(np[i], name, len))
			return true;
	return false;
}

static bool ignored_reply_trailer(const char *name, size_t len)
{
	static const char *const bad[] = { "from", "author", "cc", "to",
					   "phone", "email", "subject", "date",
					   "buglink" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (strlen(bad[i]) == len && !strncasecmp(bad[i], name, len))
			return true;
	return false;
}

/* Link: and Closes: point at a URL (b4 0.12 ignores them in replies) */
static bool link_trailer(const char *name, size_t len)
{
	return (len == 4 && !strncasecmp(name, "link", 4)) ||
		(len == 6 && !strncasecmp(name, "closes", 6));
}

/*
 * "Name <user@example.com<mailto:user@example.com>>", as some mail
 * clients write an address, back to "Name <user@example.com>"
 */
static char *unmangle_address(const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = v, *m;

	while ((m = strcasestr(p, "<mailto:"))) {
		const char *gt = strchr(m, '>');
		char *sp, *addr;
		size_t at;

		if (!gt)
			break;
		strbuf_add(&sb, p, m - p);
		p = gt + 1;
		if (memchr(sb.buf, '<', sb.len))
			continue;	/* "<user@x<mailto:user@x>>": one '>' follows */
		/* "user@x<mailto:user@x>": the address was bare */
		sp = strrchr(sb.buf, ' ');
		at = sp ? (size_t)(sp - sb.buf) + 1 : 0;
		addr = xstrdup(sb.buf + at);
		strbuf_setlen(&sb, at);
		strbuf_addf(&sb, "<%s>", addr);
		free(addr);
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb, NULL);
}

/* *value, a space, and the line l that goes on with it */
static void join_next(char **value, const struct line *l)
{
	char *more = rtrim_dup(l->p, l->len);
	char *joined = xasprintf("%s %s", *value, more);

	free(*value);
	free(more);
	*value = joined;
}

/* "abc123 (title" that the line ended before its ')' */
static bool wrapped_fixes(const char *v)
{
	const char *p = v;

	while (isxdigit((unsigned char)*p))
		p++;
	if (p == v || (*p != ' ' && *p != '\t'))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '(' && !strchr(p, ')');
}

static bool has_email(const char *v)
{
	const char *at = strchr(v, '@');

	return at && at > v && at[1] && strchr(at + 1, '.') &&
		!isspace((unsigned char)at[-1]) && !isspace((unsigned char)at[1]);
}

/* addr without a "+tag" in its local part: "syzbot+1a2b@x.com" -> "syzbot@x.com" */
static char *untagged(const char *addr)
{
	const char *at = strrchr(addr, '@'), *plus = strchr(addr, '+');

	if (!at || !plus || plus > at)
		return xstrdup(addr);
	return xasprintf("%.*s%s", (int)(plus - addr), addr, at);
}

/* Is d one label longer than e: "linux.intel.com" against "intel.com" */
static bool subdomain(const char *d, const char *e)
{
	size_t dn = strlen(d), en = strlen(e);
	const char *p;
	int dots = 0;

	if (dn <= en + 1 || strcasecmp(d + dn - en, e) || d[dn - en - 1] != '.')
		return false;
	for (p = d; p < d + dn - en - 1; p++)
		dots += *p == '.';
	return !dots;
}

/*
 * The trailer's address is the sender's, as b4 compares them: equal but
 * for case; equal without "+tag"s (syzbot+1a2b@... sends for syzbot@...);
 * the same local part at a domain one label longer or shorter
 * (foo@linux.intel.com for foo@intel.com)
 */
static bool same_address(const char *a, const char *b)
{
	char *x, *y, *xa, *ya;
	bool same;

	if (!strcasecmp(a, b))
		return true;
	x = untagged(a);
	y = untagged(b);
	xa = strrchr(x, '@');
	ya = strrchr(y, '@');
	same = !strcasecmp(x, y) ||
		(xa && ya && xa - x == ya - y && !strncasecmp(x, y, xa - x) &&
		 (subdomain(xa + 1, ya + 1) || subdomain(ya + 1, xa + 1)));
	free(x);
	free(y);
	return same;
}

/*
 * The name as the From: line writes it, comments included ("Ritesh
 * Harjani (IBM) <addr>": GMime's name drops "(IBM)", b4 keeps it)
 */
static bool same_display_name(const char *name, const char *from_text)
{
	char *fn, *fa;
	bool same;

	if (!name || !from_text)
		return false;
	patch_split_name_addr(from_text, &fn, &fa);
	same = fn && fa && !strcasecmp(fn, name);
	free(fn);
	free(fa);
	return same;
}

void patch_reply_trailers(const struct mail *m, bool sloppy, struct trailers *out)
{
	struct lines ls = { 0 };
	size_t i;

	/*
	 * The lines as sent: b4 does not undo format=flowed, whose soft
	 * breaks would join a trailer to a quoted line before it
	 */
	if (m->text_sent)
		split_lines(m->text_sent, strlen(m->text_sent), &ls);
	else
		split_lines(m->body ? m->body : "", m->body_len, &ls);
	for (i = 0; i < ls.nr; i++) {
		const struct line *l = &ls.l[i];
		const char *p = l->p;
		size_t len = l->len, tok, val;
		char *name, *value;

		if (line_is(l, "-- "))
			break;	/* the sender's signature */
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (!trailer_shape(p, len, &tok, &val))
			continue;
		if (ignored_reply_trailer(p, tok))
			continue;
		if (!(tok > 3 && !strncasecmp(p + tok - 3, "-by", 3)) &&
		    !nonperson(p, tok) && !link_trailer(p, tok))
			continue;
		name = xstrndup(p, tok);
		value = rtrim_dup(p + val, len - val);
		if (strcasestr(value, "<mailto:")) {
			char *u = unmangle_address(value);

			free(value);
			value = u;
		}
		/* "Fixes: sha (title" + "rest)" on the next line, as b4 joins it */
		if (wrapped_fixes(value) && i + 1 < ls.nr && ls.l[i + 1].len &&
		    ls.l[i + 1].p[ls.l[i + 1].len - 1] == ')')
			join_next(&value, &ls.l[++i]);
		/* "Reviewed-by: Long Name" + "<addr>" on the next line */
		if (!strchr(value, '<') && i + 1 < ls.nr &&
		    ls.l[i + 1].len > 2 && ls.l[i + 1].p[0] == '<' &&
		    ls.l[i + 1].p[ls.l[i + 1].len - 1] == '>')
			join_next(&value, &ls.l[++i]);
		if (link_trailer(name, tok) !=
		    (!strncmp(value, "http://", 7) || !strncmp(value, "https://", 8)))
			goto next;	/* URLs only in Link: and Closes: */
		if (!link_trailer(name, tok) &&
		    (strstr(value, "http://") || strstr(value, "https://")))
			goto next;
		if (!nonperson(name, tok) && !link_trailer(name, tok)) {
			char *tn, *ta;

			if (!has_email(value))
				goto next;
			patch_split_name_addr(value, &tn, &ta);
			if (!sloppy && !((ta && m->from.email &&
					  same_address(ta, m->from.email)) ||
					 (tn && m->from.name &&
					  !strcasecmp(tn, m->from.name)) ||
					 same_display_name(tn, m->from_text))) {
				free(tn);
				free(ta);
				goto next;
			}
			free(tn);
			free(ta);
		}
		if (!patch_trailers_has(out, name, value))
			patch_trailers_add(out, name, value);
next:
		free(name);
		free(value);
	}
	free(ls.l);
}
