// SPDX-License-Identifier: GPL-2.0
/*
 * lock-assert: a new function whose comment says its caller must hold a
 * lock ("Context: Caller must lock the cluster.", "Must be called with
 * the mmap lock held") should say so in code too, with lockdep_assert_held()
 * (mmap_assert_locked(), ...), which documents it and lets lockdep check
 * it.  From Chris Li's review of "[PATCH v3 02/12] mm, swap: move common
 * swap cache operations into standalone helpers": "Nitpick: Can add
 * lockdep_assert_held(&ci->lock);"
 * (<CACePvbX3Bead1Ea+UJfUAq0e4JNJ0P+yN0=zf5rhdPsH8y9PUg@mail.gmail.com>),
 * and Michal Koutný's "should there be some lockdep_assert_held() in this
 * helper (for documentation purposes but also for correctly synchronized
 * validity of the returned value.)"
 * (<dpo6yfx7tb6b3vgayxnqgxwighrl7ds6teaatii5us2a6dqmnw@ioipae3evzo4>).
 *
 * A note, as the reviews were nitpicks: it catches no real bug, and the
 * benchmark of real mm bugs (bench/bugs/) has none for it.  Only a
 * sentence that names a lock the caller holds counts: not RCU
 * (RCU_LOCKDEP_WARN), interrupts, references, "may be held", "either
 * ... or ..." (no one assertion says that), nor the folio lock
 * (VM_WARN_ON_FOLIO(!folio_test_locked()) is how mm asserts it, and
 * counts as an assertion).  The suggestion is given for the mmap lock
 * only, where the assertion follows from the comment and an mm or vma
 * parameter.
 */
#include <ctype.h>
#include <stdlib.h>

#include "checkers/pattern.h"
#include "checkers/rules.h"

/* a sentence saying a lock is held by the caller */
static struct pattern held_re = PATTERN(
	"caller\\s+(must|should|has\\s+to)\\s+(lock|take)\\s+\\w+|"
	"(caller\\s+(must|should|has\\s+to)\\s+(hold|have\\s+locked)|"
	"caller\\s+holds|(must|should)\\s+be\\s+(called|held)\\s+with|"
	"called\\s+with|expects|context:)"
	"[^.;:]{0,60}?\\b(lock|spinlock|mutex|semaphore|rwsem|mmap_lock|mmap_sem|"
	"ptl|[a-z_]+_lock|[a-z_]+_mutex)\\b",
	PAT_CASELESS);
static struct pattern not_lock_re = PATTERN(
	"(\\brcu|\\b(irqs?|interrupts?|preemption|without|not|may|might|returns?|"
	"reference|refcount|unlocked|released|folio\\s+lock|page\\s+lock|"
	"folio\\s+locked|page\\s+locked|either|or)\\b)", PAT_CASELESS);
static struct pattern mmap_re = PATTERN("\\b(mmap[_ ]lock|mmap_sem)\\b", PAT_CASELESS);
static struct pattern write_re = PATTERN("\\b(write|exclusive)", PAT_CASELESS);

static const char *const asserts[] = {
	"lockdep_assert", "assert_spin_locked", "mmap_assert", "i_mmap_assert",
	"vma_assert", "lockdep_is_held", "rcu_lockdep_assert", "RCU_LOCKDEP_WARN",
};

static bool asserts_lock(const struct cview *v, int first, int last)
{
	int i, k;
	size_t a;

	for (i = first; i <= last; i++) {
		const struct ctok *t = &v->toks[i];

		if (t->kind != CT_IDENT)
			continue;
		for (a = 0; a < ARRAY_SIZE(asserts); a++)
			if ((size_t)t->len >= strlen(asserts[a]) &&
			    !strncmp(t->s, asserts[a], strlen(asserts[a])))
				return true;
		/* VM_WARN_ON_FOLIO(!folio_test_locked(folio), folio) */
		if (cview_tok_is_assert(t) && cv_is(v, i + 1, "(") && v->toks[i + 1].match > i)
			for (k = i + 2; k < v->toks[i + 1].match; k++)
				if (check_ident_has(&v->toks[k], "lock"))
					return true;
	}
	return false;
}

/* The comment right above line li: its lines, joined */
static bool comment_above(const struct cview *v, int li, struct strbuf *out)
{
	int first = li, k;

	while (first > 0 && v->lines[first - 1].seg == v->lines[li].seg) {
		const struct cline *l = &v->lines[first - 1];

		for (k = 0; k < l->len && isspace((unsigned char)l->text[k]); k++)
			;
		if (k == l->len)
			break;
		if (l->text[k] != '*' && l->text[k] != '/')
			break;
		first--;
	}
	for (k = first; k < li; k++) {
		strbuf_add(out, v->lines[k].text, v->lines[k].len);
		strbuf_addch(out, ' ');
	}
	return first < li;
}

/* "struct mm_struct *mm" -> "mm"; "struct vm_area_struct *vma" -> "vma->vm_mm" */
static bool mm_param(const struct cview *v, const struct cnode *f, struct strbuf *sb)
{
	int i;

	for (i = f->cond_open; i < f->cond_close; i++) {
		if (cv_is(v, i + 1, "*") && v->toks[i + 2].kind == CT_IDENT) {
			if (cv_is(v, i, "mm_struct")) {
				strbuf_add(sb, v->toks[i + 2].s, v->toks[i + 2].len);
				return true;
			}
			if (cv_is(v, i, "vm_area_struct")) {
				strbuf_addf(sb, "%.*s->vm_mm", v->toks[i + 2].len,
					    v->toks[i + 2].s);
				return true;
			}
		}
	}
	return false;
}

static void lockassert_run(struct check_ctx *c)
{
	const struct cview *v = &c->file->view;
	struct strbuf com = STRBUF_INIT, mm = STRBUF_INIT;
	int fn;

	if (!c->file->is_c)
		return;
	for (fn = 0; fn < v->nr_nodes; fn++) {
		const struct cnode *f = &v->nodes[fn];
		const struct cnode *body;
		struct pattern_match m;
		struct finding *r;
		size_t send;
		int head;

		if (f->kind != CN_FUNC || f->child < 0 || f->name < 0 || f->cond_open < 0)
			continue;
		/* a function that takes or drops a lock itself */
		if (check_ident_has(&v->toks[f->name], "lock"))
			continue;
		body = &v->nodes[f->child];
		head = v->toks[f->first].line;
		/* a new function: its name and its body's first line are added */
		if (!check_sees(c, v->lines[v->toks[f->name].line].added &&
			       v->lines[v->toks[body->first].line].added))
			continue;
		if (!cv_is(v, body->last, "}") || v->toks[body->first].match != body->last)
			continue;	/* not all of it is seen */
		strbuf_reset(&com);
		if (!comment_above(v, head, &com) ||
		    !pattern_match(&held_re, com.buf, com.len, &m))
			continue;
		/* the whole sentence: "lru_lock must not be held" */
		send = m.end[0];
		while (send < com.len && com.buf[send] != '.' && com.buf[send] != ';')
			send++;
		if (pattern_match(&not_lock_re, com.buf + m.start[0],
				  send - m.start[0], NULL))
			continue;
		if (asserts_lock(v, body->first, body->last))
			continue;
		r = check_report_at(c, CHECK_NOTE, f->name, f->name, f->cond_close,
				    "'%.*s()' says its caller must hold a lock (\"%.*s\") "
				    "but does not assert it: lockdep_assert_held() (or "
				    "mmap_assert_locked()) documents it and lets lockdep "
				    "check it", v->toks[f->name].len, v->toks[f->name].s,
				    (int)(m.end[0] - m.start[0]), com.buf + m.start[0]);
		strbuf_reset(&mm);
		if (pattern_match(&mmap_re, com.buf, com.len, NULL) && mm_param(v, f, &mm))
			r->suggestion = xasprintf("\t%s(%s);",
						  pattern_match(&write_re, com.buf, com.len,
								NULL) ?
						  "mmap_assert_write_locked" :
						  "mmap_assert_locked", mm.buf);
	}
	strbuf_release(&com);
	strbuf_release(&mm);
}

const struct checker lockassert_checker = {
	.name = "lock-assert",
	.summary = "a function whose caller must hold a lock asserts it",
	.scope = CHECK_SCOPE_FILE,
	.severity = CHECK_NOTE,
	.on = true,
	.run = lockassert_run,
};
