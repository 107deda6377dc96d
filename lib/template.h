/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Templates: plain files in templates/ with ${name} placeholders, so
 * that wording changes need no recompiling (reply mails, dashboard
 * pages).  ${name} is a letter or '_' then letters, digits and '_';
 * "$$" is a literal '$'.  Every name a template uses must be set: an
 * unknown one is an error naming the file and line, so a typo never
 * mails "${gretting}".
 *
 * Text mode (mails): a line with placeholders that all expanded to ""
 * is dropped (and a blank line after it when one came before), so
 * optional lines ("config: ${config}") need no conditionals; a prose
 * line that a value made longer than 78 columns is wrapped at 72 (not
 * lines starting with a blank, '>', '|' or '[', nor "key: value" lines,
 * nor multi-line values: code and compiler output stay as they are).
 *
 * HTML mode (pages): every value is HTML-escaped unless it was set with
 * template_set_html() (markup the code built, from escaped parts).
 */
#ifndef LOREBOT_TEMPLATE_H
#define LOREBOT_TEMPLATE_H

#include "lib/strbuf.h"

struct tvar {
	char *name;
	char *value;
	bool html;		/* already markup: not escaped again */
};

struct tvars {
	struct tvar *v;
	size_t nr, alloc;
};

#define TVARS_INIT { 0 }

/* Set (or replace) a value; value NULL means "" */
void template_set(struct tvars *t, const char *name, const char *value);
void template_setf(struct tvars *t, const char *name, const char *fmt, ...) PRINTF(3, 4);
void template_set_html(struct tvars *t, const char *name, const char *html);
const char *template_get(const struct tvars *t, const char *name);
void template_vars_release(struct tvars *t);

enum template_mode {
	TEMPLATE_TEXT,
	TEMPLATE_HTML,
};

/*
 * Expand text (called name in messages) into out.  0, or -1 with
 * "name:line: message" in err.
 */
int template_expand(const char *name, const char *text, const struct tvars *vars,
		    enum template_mode mode, struct strbuf *out, struct strbuf *err);

/*
 * The template directory: configured when set and not empty (the value
 * of a *.templates key), else templates/ next to the binary's directory
 * (a build tree), else /usr/share/lorebot/templates.  Caller frees.
 */
char *template_dir(const char *configured);

/* Read dir/file into text; 0, or -1 with the reason in err */
int template_load(const char *dir, const char *file, struct strbuf *text,
		  struct strbuf *err);

/* Load and expand in one go */
int template_render(const char *dir, const char *file, const struct tvars *vars,
		    enum template_mode mode, struct strbuf *out, struct strbuf *err);

#endif
