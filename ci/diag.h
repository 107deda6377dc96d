/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Diagnostics of a kernel build: gcc, gas, ld, objtool, modpost, kconfig
 * and make messages parsed from kbuild's output into (file, line, column,
 * severity, message, option), each tagged with the kbuild target ("unit")
 * whose recipe printed it.
 *
 * The parser expects the output of make --output-sync=target without V=1:
 * every recipe prints its quiet line ("  CC      mm/rmap.o") first, then
 * the tool's messages, so a message belongs to the last quiet line seen.
 * Paths are made relative to the source tree ("mm/rmap.c"); files of the
 * build directory (generated headers) keep their objtree-relative path
 * prefixed with "$(objtree)/".
 */
#ifndef LOREBOT_CI_DIAG_H
#define LOREBOT_CI_DIAG_H

#include "lib/strbuf.h"

enum diag_severity {
	DIAG_NOTE,
	DIAG_WARNING,
	DIAG_ERROR,
};

struct diag {
	char *unit;		/* "mm/rmap.o", "vmlinux", "" before any target */
	char *file;		/* "mm/rmap.c"; "" when the tool names none */
	int line, col;		/* 0 when not known */
	enum diag_severity sev;
	char *option;		/* "-Wunused-variable", or "" */
	char *function;		/* "In function 'f'" context, or "" */
	char *message;		/* without file, severity and option */
	char *tool;		/* "gcc", "ld", "as", "objtool", "modpost", "kconfig", "make" */
};

struct diag_list {
	struct diag *v;
	size_t nr, alloc;
};

#define DIAG_LIST_INIT { 0 }

/* What kind of failure outside the patch the output shows, if any */
enum diag_infra {
	DIAG_INFRA_NONE,
	DIAG_INFRA_DISK,	/* No space left on device */
	DIAG_INFRA_MEMORY,	/* cc1 killed, virtual memory exhausted */
	DIAG_INFRA_TOOL,	/* a program of the toolchain was not found */
	DIAG_INFRA_PROCS,	/* fork failed */
};

struct diag_parse {
	const char *srcdir;	/* absolute source tree */
	const char *objdir;	/* absolute build directory, cwd of the tools */
	/* output */
	struct diag_list diags;
	char **units;		/* every target a recipe was run for, in order */
	size_t units_nr, units_alloc;
	enum diag_infra infra;
	char *infra_line;	/* the line that showed it */
	char *make_error;	/* last "make: *** ..." line, or NULL */
};

void diag_parse_init(struct diag_parse *p, const char *srcdir,
		     const char *objdir);
void diag_parse_release(struct diag_parse *p);
/* Parse (more) output; may be called once per make run */
void diag_parse_buf(struct diag_parse *p, const char *buf, size_t len);

/*
 * The group a target belongs to: the link steps of vmlinux (.tmp_vmlinux1,
 * vmlinux, System.map, ...) are one unit "vmlinux"; everything else is
 * its own.  Returns a pointer into target or a static string.
 */
const char *diag_unit_of(const char *target);

const char *diag_severity_name(enum diag_severity sev);
int diag_severity_parse(const char *s, enum diag_severity *out);

void diag_copy(struct diag *dst, const struct diag *src);
void diag_release(struct diag *d);
void diag_list_add(struct diag_list *l, const struct diag *d);	/* copies */
void diag_list_release(struct diag_list *l);

/*
 * Identity of a diagnostic apart from its position: file, severity,
 * option, function and the message with addresses (0x...) blanked.
 * Used to follow a diagnostic across patches whose lines shift.
 */
void diag_key(const struct diag *d, struct strbuf *sb);
/* Same, plus line and column: one distinct diagnostic */
void diag_key_pos(const struct diag *d, struct strbuf *sb);

/* "file:line:col: severity: message [option]" as compilers print it */
void diag_format(const struct diag *d, struct strbuf *sb);

/*
 * Storage: one diagnostic per line, tab-separated fields
 * (unit, file, line, col, severity, option, function, tool, message).
 */
void diag_list_write(const struct diag_list *l, struct strbuf *sb);
int diag_list_read(struct diag_list *l, const char *buf, size_t len);

#endif
