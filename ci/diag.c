// SPDX-License-Identifier: GPL-2.0
/*
 * The kbuild output parser.  One line at a time, a table of line shapes
 * tried in order; see ci/diag.h for what comes out.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ci/diag.h"

static const char *const severity_names[] = {
	[DIAG_NOTE] = "note",
	[DIAG_WARNING] = "warning",
	[DIAG_ERROR] = "error",
};

const char *diag_severity_name(enum diag_severity sev)
{
	return severity_names[sev];
}

int diag_severity_parse(const char *s, enum diag_severity *out)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(severity_names); i++) {
		if (!strcmp(s, severity_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

void diag_release(struct diag *d)
{
	free(d->unit);
	free(d->file);
	free(d->option);
	free(d->function);
	free(d->message);
	free(d->tool);
	memset(d, 0, sizeof(*d));
}

void diag_copy(struct diag *dst, const struct diag *src)
{
	*dst = *src;
	dst->unit = xstrdup(src->unit ? src->unit : "");
	dst->file = xstrdup(src->file ? src->file : "");
	dst->option = xstrdup(src->option ? src->option : "");
	dst->function = xstrdup(src->function ? src->function : "");
	dst->message = xstrdup(src->message ? src->message : "");
	dst->tool = xstrdup(src->tool ? src->tool : "");
}

void diag_list_add(struct diag_list *l, const struct diag *d)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	diag_copy(&l->v[l->nr++], d);
}

void diag_list_release(struct diag_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		diag_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* Messages name addresses (ld's .text+0x1c, objtool's f+0x12): blank them */
static void add_normalized_message(struct strbuf *sb, const char *m)
{
	while (*m) {
		if (m[0] == '0' && m[1] == 'x' && isxdigit((unsigned char)m[2])) {
			strbuf_addstr(sb, "0x?");
			m += 2;
			while (isxdigit((unsigned char)*m))
				m++;
			continue;
		}
		strbuf_addch(sb, *m++);
	}
}

void diag_key(const struct diag *d, struct strbuf *sb)
{
	strbuf_addf(sb, "%s\x1f%s\x1f%s\x1f%s\x1f", d->file,
		    diag_severity_name(d->sev), d->option, d->function);
	add_normalized_message(sb, d->message);
}

void diag_key_pos(const struct diag *d, struct strbuf *sb)
{
	diag_key(d, sb);
	strbuf_addf(sb, "\x1f%d\x1f%d", d->line, d->col);
}

void diag_format(const struct diag *d, struct strbuf *sb)
{
	if (*d->file) {
		strbuf_addstr(sb, d->file);
		if (d->line)
			strbuf_addf(sb, ":%d", d->line);
		if (d->line && d->col)
			strbuf_addf(sb, ":%d", d->col);
	} else {
		strbuf_addstr(sb, *d->unit ? d->unit : d->tool);
	}
	strbuf_addf(sb, ": %s: ", diag_severity_name(d->sev));
	if (*d->function && !*d->file)
		strbuf_addf(sb, "in function '%s': ", d->function);
	strbuf_addstr(sb, d->message);
	if (*d->option)
		strbuf_addf(sb, " [%s]", d->option);
}

/* ---- storage ---- */

static void add_field(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addch(sb, *s == '\t' || *s == '\n' ? ' ' : *s);
}

void diag_list_write(const struct diag_list *l, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		const struct diag *d = &l->v[i];

		add_field(sb, d->unit);
		strbuf_addch(sb, '\t');
		add_field(sb, d->file);
		strbuf_addf(sb, "\t%d\t%d\t%s\t", d->line, d->col,
			    diag_severity_name(d->sev));
		add_field(sb, d->option);
		strbuf_addch(sb, '\t');
		add_field(sb, d->function);
		strbuf_addch(sb, '\t');
		add_field(sb, d->tool);
		strbuf_addch(sb, '\t');
		add_field(sb, d->message);
		strbuf_addch(sb, '\n');
	}
}

int diag_list_read(struct diag_list *l, const char *buf, size_t len)
{
	const char *end = buf + len;

	while (buf < end) {
		const char *nl = memchr(buf, '\n', end - buf);
		const char *f[9];
		size_t flen[9];
		const char *p = buf;
		struct diag d = { 0 };
		char sev[16];
		int i;

		if (!nl)
			nl = end;
		for (i = 0; i < 9; i++) {
			const char *tab = i < 8 ? memchr(p, '\t', nl - p) : NULL;
			const char *e = tab ? tab : nl;

			if (i < 8 && !tab)
				return -1;
			f[i] = p;
			flen[i] = e - p;
			p = e + 1;
		}
		if (flen[4] >= sizeof(sev))
			return -1;
		memcpy(sev, f[4], flen[4]);
		sev[flen[4]] = '\0';
		if (diag_severity_parse(sev, &d.sev))
			return -1;
		d.line = atoi(f[2]);
		d.col = atoi(f[3]);
		d.unit = xstrndup(f[0], flen[0]);
		d.file = xstrndup(f[1], flen[1]);
		d.option = xstrndup(f[5], flen[5]);
		d.function = xstrndup(f[6], flen[6]);
		d.tool = xstrndup(f[7], flen[7]);
		d.message = xstrndup(f[8], flen[8]);
		ALLOC_GROW(l->v, l->nr + 1, l->alloc);
		l->v[l->nr++] = d;
		buf = nl + 1;
	}
	return 0;
}

/* ---- the parser ---- */

void diag_parse_init(struct diag_parse *p, const char *srcdir,
		     const char *objdir)
{
	memset(p, 0, sizeof(*p));
	p->srcdir = srcdir;
	p->objdir = objdir;
}

void diag_parse_release(struct diag_parse *p)
{
	size_t i;

	diag_list_release(&p->diags);
	for (i = 0; i < p->units_nr; i++)
		free(p->units[i]);
	free(p->units);
	free(p->infra_line);
	free(p->make_error);
	memset(p, 0, sizeof(*p));
}

/* Parser state that lives for one buffer */
struct line_state {
	struct diag_parse *p;
	char *unit;		/* last quiet line's target (grouped) */
	char *fn_file;		/* the file of the "In function" context */
	char *fn;
	char *ld_fn;		/* ld's "in function `f':" */
	char *last_loc;		/* "path:line:col" of the last diagnostic */
	size_t last_idx;	/* and its index in p->diags */
	char *cocci_rule;	/* the semantic patch spatch runs: "api/memdup" */
};

/* Lexically resolve "." and ".." of an absolute path in place */
static void canon_path(char *path)
{
	char *out = path, *in = path;

	while (*in) {
		if (in[0] == '/' && in[1] == '/') {
			in++;
			continue;
		}
		if (in[0] == '/' && in[1] == '.' && (in[2] == '/' || !in[2])) {
			in += 2;
			continue;
		}
		if (in[0] == '/' && in[1] == '.' && in[2] == '.' &&
		    (in[3] == '/' || !in[3])) {
			in += 3;
			while (out > path && *--out != '/')
				;
			continue;
		}
		*out++ = *in++;
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

static char *strip_dir(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;

	if (n && !strncmp(path, dir, n) && path[n] == '/')
		return (char *)path + n + 1;
	return NULL;
}

/* A tool's path argument, relative to the source tree where it is in it */
static char *norm_path(const struct diag_parse *p, const char *raw,
		       size_t len)
{
	char *abs, *rel, *src_rel, *ret;

	if (!len)
		return xstrdup("");
	if (raw[0] == '/')
		abs = xstrndup(raw, len);
	else if (p->objdir)
		abs = xasprintf("%s/%.*s", p->objdir, (int)len, raw);
	else
		return xstrndup(raw, len);
	canon_path(abs);
	src_rel = strip_dir(abs, p->srcdir);
	rel = strip_dir(abs, p->objdir);
	if (src_rel)
		ret = xstrdup(src_rel);
	else if (rel)
		ret = util_ends_with(rel, ".o") ? xstrdup(rel) :
			xasprintf("$(objtree)/%s", rel);
	else if (raw[0] != '/')
		ret = xstrndup(raw, len);	/* outside both: as printed */
	else
		ret = xstrdup(abs);
	free(abs);
	return ret;
}

const char *diag_unit_of(const char *target)
{
	static const char *const link[] = {
		"vmlinux", ".tmp_vmlinux", ".vmlinux", "System.map",
		"vmlinux.o", "vmlinux.a", "vmlinux.symvers",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(link); i++)
		if (util_starts_with(target, link[i]))
			return "vmlinux";
	return target;
}

static void add_unit(struct diag_parse *p, const char *unit)
{
	if (p->units_nr && !strcmp(p->units[p->units_nr - 1], unit))
		return;
	ALLOC_GROW(p->units, p->units_nr + 1, p->units_alloc);
	p->units[p->units_nr++] = xstrdup(unit);
}

/* Add a diagnostic; file (allocated) is consumed */
static void emit(struct line_state *st, const char *tool, char *file,
		 int line, int col, enum diag_severity sev, const char *msg,
		 size_t msg_len, const char *function)
{
	struct diag d = { 0 };
	const char *opt_end = msg + msg_len;
	char *option = NULL;

	/* the option gcc names at the end: " [-Wfoo]" or " [-Werror=foo]" */
	while (msg_len && isspace((unsigned char)msg[msg_len - 1]))
		msg_len--;
	opt_end = msg + msg_len;
	if (msg_len > 4 && opt_end[-1] == ']') {
		const char *open = opt_end - 1;

		while (open > msg && *open != '[')
			open--;
		if (open > msg && open[-1] == ' ' && open[1] == '-' &&
		    !memchr(open, ' ', opt_end - open)) {
			const char *o = open + 1;
			size_t n = opt_end - 1 - o;

			if (n > 8 && !strncmp(o, "-Werror=", 8))
				option = xasprintf("-W%.*s", (int)(n - 8), o + 8);
			else
				option = xstrndup(o, n);
			msg_len = open - 1 - msg;
		}
	}
	d.unit = st->unit ? st->unit : (char *)"";
	d.file = file;
	d.line = line;
	d.col = col;
	d.sev = sev;
	d.option = option ? option : (char *)"";
	d.function = (char *)(function ? function : "");
	d.message = xstrndup(msg, msg_len);
	d.tool = (char *)tool;
	diag_list_add(&st->p->diags, &d);
	free(d.message);
	free(option);
	free(file);
}

static bool is_space_line(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	return !n;
}

/* "  CC      mm/rmap.o": kbuild's quiet command line */
static bool quiet_line(struct line_state *st, const char *l, size_t n)
{
	const char *p = l + 2, *end = l + n, *t;
	char *target, *norm;

	if (n < 4 || l[0] != ' ' || l[1] != ' ' || !isupper((unsigned char)*p))
		return false;
	while (p < end && (isupper((unsigned char)*p) || isdigit((unsigned char)*p) ||
			   *p == '_' || *p == '-'))
		p++;
	if (p - (l + 2) > 9)
		return false;
	if (end - p >= 4 && !strncmp(p, " [M]", 4))
		p += 4;
	if (p >= end || *p != ' ')
		return false;
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return false;
	for (t = p; t < end; t++)
		if (*t == ' ' || *t == ':')
			return false;
	target = xstrndup(p, end - p);
	norm = target[0] == '/' ? norm_path(st->p, target, end - p) : xstrdup(target);
	free(st->unit);
	st->unit = xstrdup(diag_unit_of(norm));
	add_unit(st->p, norm);
	free(norm);
	free(target);
	free(st->fn);
	free(st->fn_file);
	free(st->ld_fn);
	st->fn = st->fn_file = st->ld_fn = NULL;
	return true;
}

static const struct {
	const char *needle;
	enum diag_infra kind;
} infra_patterns[] = {
	{ "No space left on device", DIAG_INFRA_DISK },
	{ "Disk quota exceeded", DIAG_INFRA_DISK },
	{ "virtual memory exhausted", DIAG_INFRA_MEMORY },
	{ "Killed signal terminated program", DIAG_INFRA_MEMORY },
	{ "Cannot allocate memory", DIAG_INFRA_MEMORY },
	{ "out of memory allocating", DIAG_INFRA_MEMORY },
	{ "Resource temporarily unavailable", DIAG_INFRA_PROCS },
	{ ": command not found", DIAG_INFRA_TOOL },
	{ "No such file or directory: '", DIAG_INFRA_TOOL },
};

static void check_infra(struct line_state *st, const char *l, size_t n)
{
	char *line;
	size_t i;

	if (st->p->infra)
		return;
	line = xstrndup(l, n);
	for (i = 0; i < ARRAY_SIZE(infra_patterns); i++) {
		if (strstr(line, infra_patterns[i].needle)) {
			st->p->infra = infra_patterns[i].kind;
			st->p->infra_line = line;
			return;
		}
	}
	free(line);
}

static bool make_line(struct line_state *st, const char *l, size_t n)
{
	const char *p = l, *end = l + n, *msg;

	if (n < 5 || strncmp(l, "make", 4))
		return false;
	p += 4;
	if (*p == '[') {
		while (p < end && *p != ']')
			p++;
		p++;
	}
	if (p + 2 > end || p[0] != ':' || p[1] != ' ')
		return false;
	msg = p + 2;
	if (end - msg > 4 && !strncmp(msg, "*** ", 4)) {
		msg += 4;
		free(st->p->make_error);
		st->p->make_error = xstrndup(msg, end - msg);
		if (!strncmp(msg, "No rule to make target", 22)) {
			size_t len = end - msg;

			if (len > 8 && !strncmp(end - 8, ".  Stop.", 8))
				len -= 7;
			emit(st, "make", xstrdup(""), 0, 0, DIAG_ERROR, msg, len,
			     NULL);
		}
	}
	return true;
}

/* "ERROR: modpost: ...", "WARNING: modpost: ...", kconfig's "WARNING: unmet" */
static bool upper_line(struct line_state *st, const char *l, size_t n)
{
	static const struct {
		const char *prefix;
		const char *tool;
		enum diag_severity sev;
		const char *file;
	} shapes[] = {
		{ "ERROR: modpost: ", "modpost", DIAG_ERROR, "" },
		{ "WARNING: modpost: ", "modpost", DIAG_WARNING, "" },
		{ "WARNING: unmet direct dependencies", "kconfig", DIAG_WARNING,
		  "Kconfig" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		size_t plen = strlen(shapes[i].prefix);
		const char *msg = l + plen;

		if (n < plen || strncmp(l, shapes[i].prefix, plen))
			continue;
		if (!strcmp(shapes[i].tool, "kconfig"))
			msg = l + 9;
		emit(st, shapes[i].tool, xstrdup(shapes[i].file), 0, 0,
		     shapes[i].sev, msg, l + n - msg, NULL);
		return true;
	}
	return false;
}

static bool is_linker(const char *tok, size_t n)
{
	const char *base = tok, *p;

	for (p = tok; p < tok + n; p++)
		if (*p == '/')
			base = p + 1;
	n -= base - tok;
	return (n >= 2 && !strncmp(base + n - 2, "ld", 2)) ||
		(n >= 6 && !strncmp(base + n - 6, "ld.bfd", 6)) ||
		(n >= 6 && !strncmp(base + n - 6, "ld.lld", 6));
}

/* "name:(.text+0x1c): undefined reference to `f'": returns the message */
static const char *skip_section_ref(const char *p, const char *end)
{
	const char *s = p;

	while (s < end && *s != ':' && *s != ' ')
		s++;
	if (s + 2 < end && s[0] == ':' && s[1] == '(') {
		const char *c = memchr(s, ')', end - s);

		if (c && c + 2 < end && c[1] == ':' && c[2] == ' ')
			return c + 3;
	}
	return NULL;
}

static bool linker_line(struct line_state *st, const char *l, size_t n)
{
	const char *end = l + n, *colon = memchr(l, ':', n), *rest, *m;
	const char *in_fn = ": in function `";

	if (colon && is_linker(l, colon - l) && colon + 1 < end &&
	    colon[1] == ' ') {
		rest = colon + 2;
		m = strstr(rest, in_fn);
		if (m && m < end) {
			const char *f = m + strlen(in_fn);
			const char *q = memchr(f, '\'', end - f);

			free(st->ld_fn);
			st->ld_fn = xstrndup(f, q ? (size_t)(q - f) : (size_t)(end - f));
			return true;
		}
		m = skip_section_ref(rest, end);
		if (m)
			rest = m;
		m = strstr(rest, ": warning: ");
		if (end - rest > 9 && !strncmp(rest, "warning: ", 9))
			emit(st, "ld", xstrdup(""), 0, 0, DIAG_WARNING, rest + 9,
			     end - rest - 9, st->ld_fn);
		else if (m && m < end)
			emit(st, "ld", xstrdup(""), 0, 0, DIAG_WARNING, m + 11,
			     end - m - 11, st->ld_fn);
		else
			emit(st, "ld", xstrdup(""), 0, 0, DIAG_ERROR, rest,
			     end - rest, st->ld_fn);
		return true;
	}
	/* the continuation of ld's "in function": "x.c:(.text+0x5): undefined ..." */
	m = st->ld_fn ? skip_section_ref(l, end) : NULL;
	if (m) {
		emit(st, "ld", xstrdup(""), 0, 0, DIAG_ERROR, m, end - m,
		     st->ld_fn);
		return true;
	}
	return false;
}

static const struct {
	const char *marker;
	enum diag_severity sev;
} sev_markers[] = {
	{ ": fatal error: ", DIAG_ERROR },
	{ ": error: ", DIAG_ERROR },
	{ ": warning: ", DIAG_WARNING },
	{ ": note: ", DIAG_NOTE },
	{ ": Error: ", DIAG_ERROR },	/* gas */
	{ ": Warning: ", DIAG_WARNING },
};

static int parse_uint(const char *s, const char *e)
{
	int v = 0;

	if (s >= e)
		return -1;
	for (; s < e; s++) {
		if (!isdigit((unsigned char)*s) || v > 100000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* Split "path:line:col" (both numbers optional) */
static void split_location(const char *loc, size_t n, size_t *path_len,
			   int *line, int *col)
{
	const char *end = loc + n, *c1, *c2;
	int a, b;

	*path_len = n;
	*line = *col = 0;
	c2 = end;
	while (c2 > loc && c2[-1] != ':')
		c2--;
	if (c2 == loc)
		return;
	b = parse_uint(c2, end);
	if (b < 0)
		return;
	c1 = c2 - 1;
	while (c1 > loc && c1[-1] != ':')
		c1--;
	a = c1 > loc ? parse_uint(c1, c2 - 1) : -1;
	if (a >= 0) {
		*path_len = c1 - 1 - loc;
		*line = a;
		*col = b;
	} else {
		*path_len = c2 - 1 - loc;
		*line = b;
	}
}

/* A temporary assembler file or a pipe: the unit's own source instead */
static bool anonymous_file(const char *path, size_t n)
{
	return (n > 7 && !strncmp(path, "/tmp/cc", 7)) ||
		(n == 16 && !strncmp(path, "{standard input}", 16));
}

static const char *tool_of(const char *loc, size_t n, const char *msg)
{
	if (util_starts_with(msg, "objtool: "))
		return "objtool";
	if ((n == 3 && !strncmp(loc, "cc1", 3)) ||
	    (n >= 3 && !strncmp(loc + n - 3, "gcc", 3)))
		return "gcc";
	return "gcc";
}

static bool function_context(struct line_state *st, const char *l, size_t n)
{
	static const char *const shapes[] = {
		": In function '", ": In static function '",
		": In member function '", ": In constructor '",
	};
	const char *end = l + n;
	size_t i;

	if (n < 4)
		return false;
	if (n > 15 && !strncmp(end - 15, ": At top level:", 15)) {
		free(st->fn);
		free(st->fn_file);
		st->fn = st->fn_file = NULL;
		return true;
	}
	if (end[-1] != ':' || end[-2] != '\'')
		return false;
	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		const char *m = strstr(l, shapes[i]);

		if (!m || m >= end)
			continue;
		free(st->fn);
		free(st->fn_file);
		st->fn_file = norm_path(st->p, l, m - l);
		m += strlen(shapes[i]);
		st->fn = xstrndup(m, end - 2 - m);
		return true;
	}
	return false;
}

static bool compiler_line(struct line_state *st, const char *l, size_t n)
{
	const char *end = l + n;
	size_t i, path_len;
	int line, col;

	for (i = 0; i < ARRAY_SIZE(sev_markers); i++) {
		const char *m = strstr(l, sev_markers[i].marker);
		const char *msg, *tool;
		char *file;

		if (!m || m >= end || m == l)
			continue;
		msg = m + strlen(sev_markers[i].marker);
		split_location(l, m - l, &path_len, &line, &col);
		if (sev_markers[i].sev == DIAG_NOTE)
			return true;	/* context of the previous one */
		tool = tool_of(l, path_len, msg);
		if (!strcmp(tool, "objtool"))
			msg += 9;
		if (anonymous_file(l, path_len)) {
			file = xstrdup("");
			line = col = 0;
			tool = "as";
		} else if (!line && !memchr(l, '/', path_len) &&
			   !memchr(l, '.', path_len)) {
			file = xstrdup("");	/* "cc1: warning: ..." */
		} else {
			file = norm_path(st->p, l, path_len);
		}
		if (i >= 4)
			tool = "as";
		emit(st, tool, file, line, col, sev_markers[i].sev, msg,
		     end - msg,
		     st->fn && st->fn_file && !strcmp(st->fn_file, file) ?
		     st->fn : NULL);
		free(st->last_loc);
		st->last_loc = line ? xstrndup(l, m - l) : NULL;
		st->last_idx = st->p->diags.nr - 1;
		return true;
	}
	return false;
}

static bool noise_line(const char *l, size_t n)
{
	static const char *const prefixes[] = {
		"In file included from ", "                 from ",
		"cc1: some warnings being treated as errors",
		"cc1: all warnings being treated as errors",
	};
	const char *p = l, *end = l + n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(l, prefixes[i], MIN(n, strlen(prefixes[i]))) &&
		    n >= strlen(prefixes[i]))
			return true;
	/* source excerpts: "  123 |   code", "      |   ^~~", "  +++ |+#include" */
	while (p < end && *p == ' ')
		p++;
	while (p < end && (isdigit((unsigned char)*p) || *p == '+'))
		p++;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '|')
		return true;
	/* "    inlined from 'f' at file:1:2:" */
	p = l;
	while (p < end && *p == ' ')
		p++;
	if (end - p > 13 && !strncmp(p, "inlined from ", 13))
		return true;
	return false;
}

/*
 * What sparse says about its last diagnostic, at the same place and
 * indented: "mm/x.c:12:5:    expected int *p", "...:    got int [noderef] __user *".
 * Folded into that diagnostic's message ("...; expected int *p; got ...").
 */
static bool explain_line(struct line_state *st, const char *l, size_t n)
{
	size_t len = st->last_loc ? strlen(st->last_loc) : 0;
	const char *p = l + len + 1, *end = l + n;
	struct diag *d;
	char *msg;

	if (!len || n < len + 4 || strncmp(l, st->last_loc, len) || l[len] != ':' ||
	    p[0] != ' ' || p[1] != ' ' || st->last_idx >= st->p->diags.nr)
		return false;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return false;
	d = &st->p->diags.v[st->last_idx];
	msg = xasprintf("%s; %.*s", d->message, (int)(end - p), p);
	free(d->message);
	d->message = msg;
	return true;
}

/*
 * Coccinelle in report mode (scripts/coccicheck): "mm/x.c:12:5-11: WARNING:
 * opportunity for kmemdup", "mm/x.c:40:1-7: second lock on line 38" (a
 * column range, and often no severity).  Its ERRORs are warnings too:
 * they are rules' findings, not a failed build.
 */
static bool cocci_line(struct line_state *st, const char *l, size_t n)
{
	const char *end = l + n, *p = l, *path_end, *msg;
	int line = 0, col = 0;

	while (p < end && *p != ':' && *p != ' ')
		p++;
	if (p == l || p >= end || *p != ':' || !memchr(l, '.', p - l))
		return false;
	path_end = p++;
	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && isdigit((unsigned char)*p))
		line = line * 10 + (*p++ - '0');
	if (p >= end || *p++ != ':' || p >= end || !isdigit((unsigned char)*p))
		return false;
	while (p < end && isdigit((unsigned char)*p))
		col = col * 10 + (*p++ - '0');
	if (p >= end || *p++ != '-')
		return false;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	if (end - p < 2 || p[0] != ':' || p[1] != ' ')
		return false;
	msg = p + 2;
	if (end - msg >= 9 && !strncmp(msg, "WARNING: ", 9))
		msg += 9;
	else if (end - msg >= 7 && !strncmp(msg, "ERROR: ", 7))
		msg += 7;
	emit(st, "coccinelle", norm_path(st->p, l, path_end - l), line, col + 1,
	     DIAG_WARNING, msg, end - msg, NULL);
	if (st->cocci_rule) {
		struct diag *d = &st->p->diags.v[st->p->diags.nr - 1];

		free(d->option);
		d->option = xstrdup(st->cocci_rule);
	}
	return true;
}

/*
 * scripts/coccicheck prints each spatch command it runs ("spatch -D report
 * ... --cocci-file <src>/scripts/coccinelle/api/memdup.cocci ..."), then
 * that rule's findings: they are named by the rule, "api/memdup", as a
 * gcc warning is by its option.  make's --output-sync keeps a file's
 * runs together.
 */
static bool cocci_rule_line(struct line_state *st, const char *l, size_t n)
{
	static const char flag[] = " --cocci-file ", dir[] = "scripts/coccinelle/";
	const char *end = l + n, *p, *e, *s, *d;

	p = memmem(l, n, flag, sizeof(flag) - 1);
	if (!p || !memmem(l, p - l, "spatch", 6))
		return false;
	p += sizeof(flag) - 1;
	e = memchr(p, ' ', end - p);
	if (!e)
		e = end;
	/* after the last "scripts/coccinelle/"; a COCCI= of its own: its name */
	for (s = p; (d = memmem(s, e - s, dir, sizeof(dir) - 1)); )
		s = d + sizeof(dir) - 1;
	if (s == p)
		for (s = e; s > p && s[-1] != '/'; s--)
			;
	if (e - s > 6 && !memcmp(e - 6, ".cocci", 6))
		e -= 6;
	free(st->cocci_rule);
	st->cocci_rule = e > s ? xstrndup(s, e - s) : NULL;
	return true;
}

/* "mm/Kconfig:12: syntax error", "arch/x86/Kconfig:3:warning: ..." */
static bool kconfig_line(struct line_state *st, const char *l, size_t n)
{
	const char *end = l + n, *c1 = memchr(l, ':', n), *c2, *slash, *msg;
	enum diag_severity sev = DIAG_ERROR;
	int line;

	if (!c1)
		return false;
	for (slash = c1; slash > l && slash[-1] != '/'; slash--)
		;
	if (c1 - slash < 7 || strncmp(slash, "Kconfig", 7))
		return false;
	c2 = memchr(c1 + 1, ':', end - c1 - 1);
	if (!c2 || (line = parse_uint(c1 + 1, c2)) < 0)
		return false;
	msg = c2 + 1;
	while (msg < end && *msg == ' ')
		msg++;
	if (end - msg > 8 && !strncmp(msg, "warning:", 8)) {
		sev = DIAG_WARNING;
		msg += 8;
		while (msg < end && *msg == ' ')
			msg++;
	}
	emit(st, "kconfig", norm_path(st->p, l, c1 - l), line, 0, sev, msg,
	     end - msg, NULL);
	return true;
}

static void parse_line(struct line_state *st, const char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		n--;
	if (is_space_line(l, n))
		return;
	check_infra(st, l, n);
	if (cocci_rule_line(st, l, n) || noise_line(l, n) || quiet_line(st, l, n) || make_line(st, l, n) ||
	    upper_line(st, l, n) || linker_line(st, l, n) ||
	    function_context(st, l, n) || compiler_line(st, l, n) ||
	    explain_line(st, l, n) || cocci_line(st, l, n))
		return;
	kconfig_line(st, l, n);
}

void diag_parse_buf(struct diag_parse *p, const char *buf, size_t len)
{
	struct line_state st = { .p = p };
	const char *end = buf + len;

	while (buf < end) {
		const char *nl = memchr(buf, '\n', end - buf);
		size_t n = nl ? (size_t)(nl - buf) : (size_t)(end - buf);
		char *line = xstrndup(buf, n);	/* NUL-terminated for strstr */

		parse_line(&st, line, n);
		free(line);
		buf += n + 1;
	}
	free(st.unit);
	free(st.fn);
	free(st.fn_file);
	free(st.ld_fn);
	free(st.last_loc);
	free(st.cocci_rule);
}
