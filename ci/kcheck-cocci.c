// SPDX-License-Identifier: GPL-2.0
/*
 * Which of the kernel's own semantic patches (scripts/coccinelle/ of 6.12)
 * only ask for a nicer spelling of correct code.  Their findings are
 * style, like checkpatch's: counted in a reply, shown in full by the
 * dashboard and `lorebot check`.  Every other rule reports a bug class
 * (a use after free, a missing unlock or put, a NULL dereference, a
 * test that is always true, sizeof of a pointer, ...) and is mailed, as
 * is a rule this table does not know (a newer tree's, a COCCI= of one's
 * own): better one mail too many than a bug kept quiet.
 *
 * Read from each rule's own description ("///" lines) and what it
 * matches; a rule is style when the code it reports behaves as meant.
 */
#include "ci/kcheck.h"

static const char *const style_rules[] = {
	"api/alloc/alloc_cast",		/* a cast of kmalloc()'s void * */
	"api/alloc/pool_zalloc-simple",	/* dma_pool_alloc() + memset() */
	"api/alloc/zalloc-simple",	/* kmalloc() + memset() */
	"api/atomic_as_refcounter",	/* refcount_t rather than atomic_t */
	"api/device_attr_show",		/* sysfs_emit() in a show() */
	"api/err_cast",			/* ERR_CAST() for ERR_PTR(PTR_ERR()) */
	"api/kfree_sensitive",		/* kfree_sensitive() for memzero+kfree */
	"api/kstrdup",			/* open-coded kstrdup() */
	"api/kvmalloc",			/* open-coded kvmalloc()/kvfree() */
	"api/memdup",			/* open-coded kmemdup() */
	"api/memdup_user",		/* open-coded memdup_user() */
	"api/platform_get_irq",		/* a redundant dev_err() */
	"api/platform_no_drv_owner",	/* a redundant .owner */
	"api/simple_open",		/* open-coded simple_open() */
	"api/string_choices",		/* str_yes_no() and friends */
	"api/vma_pages",		/* vma_pages() */
	"free/ifnulldev_put",		/* a NULL test before dev_put() */
	"free/ifnullfree",		/* a NULL test before kfree() */
	"misc/array_size",		/* ARRAY_SIZE() */
	"misc/array_size_dup",		/* array_size() twice */
	"misc/boolconv",		/* a needless conversion to bool */
	"misc/excluded_middle",		/* A || (!A && B) */
	"misc/flexible_array",		/* [0] and [1] trailing arrays */
	"misc/minmax",			/* min()/max() */
	"misc/newline_in_nl_msg",	/* a newline in an extack message */
	"misc/returnvar",		/* a variable only returned */
	"misc/semicolon",		/* a needless semicolon */
	"misc/struct_size",		/* struct_size() */
	"misc/swap",			/* swap() */
	"misc/uninitialized_var",	/* the uninitialized_var() macro */
	"misc/warn",			/* WARN() for printk() + WARN_ON(1) */
	"null/badzero",			/* NULL rather than 0 */
};

bool kcheck_cocci_style(const char *rule)
{
	size_t i;

	for (i = 0; rule && i < ARRAY_SIZE(style_rules); i++)
		if (!strcmp(rule, style_rules[i]))
			return true;
	return false;
}

bool kcheck_style(const struct diag *d)
{
	return !strcmp(d->tool, kchecks[KCHECK_COCCI].tool) &&
	       kcheck_cocci_style(d->option);
}
