/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A C-aware scanner good enough for review rules: not a compiler.
 *
 * A view is the code a rule can see of one touched file: the whole
 * post-image when a tree is available, else the new side of each hunk
 * (context and added lines; each hunk is a segment, and nothing is known
 * between segments).  Every line knows its post-image number and whether
 * the patch added it.
 *
 * The lexer drops comments, keeps string and character literals as
 * single tokens, and puts preprocessor lines in a separate token stream
 * (#define bodies are kept as macros).  Brackets are matched within a
 * segment; in #if/#else branches the bracket state of the #if is
 * restored at each #else, so both branches are seen.
 *
 * The parser builds a statement tree: functions (name, parameters,
 * body), blocks, if/else, loops (including for_each-style macros),
 * switch, return, goto, break, continue, labels and expressions.
 * Code a hunk shows without its beginning (a loop whose head is above
 * the hunk) becomes a CN_OPEN node: a block of unknown kind.
 *
 * A line "[...]" (or "[... anything ...]") is what a mail quoting code
 * left out: it ends a segment as a gap between hunks does, and the
 * function it was in carries over to the next segment.
 */
#ifndef LOREBOT_CSCAN_H
#define LOREBOT_CSCAN_H

#include "bot/git/diff.h"
#include "lib/strbuf.h"

struct cline {
	const char *text;	/* without the newline */
	int len;
	int no;			/* post-image line number */
	bool added;		/* added or changed by the patch */
	bool pp;		/* a preprocessor line or its continuation */
	bool elision;		/* "[...]": lines a mail left out; no code */
	bool moved;		/* added, but only moved here (moved.c): not added */
	int seg;
};

enum ctok_kind {
	CT_IDENT,
	CT_NUMBER,
	CT_STRING,
	CT_CHAR,
	CT_PUNCT,
};

struct ctok {
	const char *s;
	int len;
	enum ctok_kind kind;
	int line;		/* index into lines */
	int col;		/* byte offset in the line */
	int match;		/* the matching bracket, -1 */
};

struct cseg {
	int first_line, end_line;	/* lines [first, end) */
	int first_tok, end_tok;		/* code tokens [first, end) */
	char *func_hint;	/* function the hunk header names, or NULL */
	/*
	 * what that function returns, by the header's words before the
	 * name: 0 unknown, 1 a value ("static bool"), 2 a pointer or void
	 */
	signed char hint_ret;
};

struct cmacro {
	int name;		/* pptoks index of the macro name */
	int first, last;	/* pptoks of the body, first > last if empty */
	int line;		/* line of "#define" */
	bool added;		/* one of its lines is added */
};

enum cnode_kind {
	CN_FUNC,	/* function definition: name, params (cond_*), child BLOCK */
	CN_DECL,	/* anything else at file scope */
	CN_BLOCK,	/* { ... } */
	CN_OPEN,	/* a block whose head is outside the view */
	CN_IF,		/* cond, child: then; els: else branch */
	CN_ELSE,	/* an "else" whose "if" is outside the view */
	CN_WHILE,
	CN_FOR,
	CN_DO,
	CN_SWITCH,
	CN_LOOPMACRO,	/* list_for_each_entry(...) { } and friends */
	CN_RETURN,
	CN_GOTO,	/* name: the label */
	CN_BREAK,
	CN_CONTINUE,
	CN_LABEL,	/* name: the label */
	CN_CASE,
	CN_EXPR,	/* expression or declaration statement */
};

struct cnode {
	enum cnode_kind kind;
	int first, last;	/* tokens, inclusive */
	int cond_open;		/* '(' of a condition/parameter list, -1 */
	int cond_close;
	int parent, child, next, els;	/* node indices, -1 */
	int func;		/* the CN_FUNC node it is in, -1 */
	int name;		/* token: function name, label; -1 */
	const char *fname;	/* CN_FUNC: its name (token or hunk header) */
	int fname_len;
};

struct cview {
	struct cline *lines;
	int nr_lines;
	size_t alloc_lines;
	struct ctok *toks;
	int nr_toks;
	size_t alloc_toks;
	struct ctok *pptoks;
	int nr_pptoks;
	size_t alloc_pptoks;
	struct cmacro *macros;
	int nr_macros;
	size_t alloc_macros;
	struct cseg *segs;
	int nr_segs;
	size_t alloc_segs;
	struct cnode *nodes;
	int nr_nodes;
	size_t alloc_nodes;
	bool complete;		/* the whole post-image */
	char *own;		/* text the lines point into, when owned */
	char **hints;		/* func_hint storage */
};

#define CVIEW_INIT { 0 }

/* The new side of each hunk of f */
void cview_from_hunks(struct cview *v, const struct diff_file *f);
/* The whole post-image (text is taken over); f marks the added lines */
void cview_from_text(struct cview *v, char *text, size_t len,
		     const struct diff_file *f);
void cview_release(struct cview *v);

/* Lexing and parsing; called by the two constructors */
void cview_lex(struct cview *v);
void cview_parse(struct cview *v);

/* Helpers for rules */
static inline bool ctok_is(const struct ctok *t, const char *s)
{
	return (int)strlen(s) == t->len && !memcmp(t->s, s, t->len);
}

/* Is t one of tab[0..n)? */
static inline bool ctok_in(const struct ctok *t, const char *const *tab, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ctok_is(t, tab[i]))
			return true;
	return false;
}

static inline bool cv_is(const struct cview *v, int i, const char *s)
{
	return i >= 0 && i < v->nr_toks && ctok_is(&v->toks[i], s);
}

/* Column (tabs to 8) of byte offset col in line l */
int cview_line_width(const struct cline *l, int col);
/* Indentation of a line in columns; -1 for a blank line */
int cview_line_indent(const struct cline *l);
/* Tokens first..last as text, one space where the source had blanks */
void cview_text(const struct cview *v, int first, int last, struct strbuf *sb);
void cview_pptext(const struct cview *v, int first, int last, struct strbuf *sb);
/* Is a token of first..last on an added line? */
bool cview_range_added(const struct cview *v, int first, int last);
/* Lines of tokens first..last, source text, for quotes */
void cview_quote(const struct cview *v, int first, int last, struct strbuf *sb);
/* Does the name of function node fn equal s? */
bool cview_node_func_is(const struct cview *v, int fn, const char *s, int len);
/* Find a token equal to s in first..last, or -1 */
int cview_find(const struct cview *v, int first, int last, const char *s);
/* The innermost node holding token tok, or -1 (checkers/callers.c) */
int callers_node_at(const struct cview *v, int tok);
/* Is node a inside node b (or b itself)? */
bool cview_node_within(const struct cview *v, int a, int b);

/*
 * Split the tokens first..last at top-level occurrences of op ("&&",
 * "||", ","); a leading "!" of a term is noted in neg and skipped, outer
 * parentheses are removed.  Returns the number of terms (at most max).
 */
struct cterm {
	int first, last;
	bool neg;
};

int cview_split(const struct cview *v, int first, int last, const char *op,
		struct cterm *out, int max);

/*
 * What holds at statement node n (checkers/guards.c): fn gets every
 * condition term that is known true (holds) or false (!holds) whenever n
 * runs, from enclosing if/else/while, earlier early exits and earlier
 * assertions of the enclosing blocks, up to the function.  The term's
 * leading "!" is already folded into holds (t->neg says it was there).
 */
typedef void (*cguard_fn)(const struct cview *v, const struct cterm *t,
			  bool holds, void *data);
void cview_guards(const struct cview *v, int n, cguard_fn fn, void *data);
/* Does statement n leave: return, goto, break, continue (or a block ending so)? */
bool cview_node_is_jump(const struct cview *v, int n);
/* VM_WARN_ON*, VM_BUG_ON*, WARN_ON*, BUG_ON* */
bool cview_tok_is_assert(const struct ctok *t);

#endif
