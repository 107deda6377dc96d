/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Defensive reading of JSON documents made by other stages (json-c):
 * a missing key, a null or a value of another type reads as "absent"
 * instead of crashing or printing "null".  And the small helpers that
 * build json-c values, and jx_text(), the one way a json-c tree is
 * written as text.
 */
#ifndef LOREBOT_JSONX_H
#define LOREBOT_JSONX_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/util.h"

/* The value at key, or NULL (also for a JSON null or a non-object o) */
json_object *jx_get(json_object *o, const char *key);
/* A string value (numbers and booleans are not strings), or NULL */
const char *jx_str(json_object *o, const char *key);
/*
 * Any value as text, for people: a string's own, a number's or a
 * boolean's JSON text ("12", "true"); NULL when absent or null.
 */
const char *jx_str_any(json_object *o, const char *key);
/* As jx_str(), but "" when absent */
const char *jx_strz(json_object *o, const char *key);
/* An integer (or a string of digits), else def */
int64_t jx_int(json_object *o, const char *key, int64_t def);
/* A boolean, else def */
bool jx_bool(json_object *o, const char *key, bool def);
/* An array value, or NULL */
json_object *jx_array(json_object *o, const char *key);
/* Length of an array value; 0 when absent */
size_t jx_len(json_object *o, const char *key);
/* An object value, or NULL */
json_object *jx_object(json_object *o, const char *key);

/* json_object_new_string(), or NULL for NULL */
json_object *jx_new_str(const char *s);
/* json_object_new_string(), or NULL for NULL and "" */
json_object *jx_new_nonempty(const char *s);
/* Add key: s as a string; nothing (no key) when s is NULL */
void jx_add_str(json_object *o, const char *key, const char *s);
/* An array of the nr strings of v */
json_object *jx_new_str_array(char *const *v, size_t nr);
/*
 * The strings of the array at key, copied, at most max of them (what is
 * not a string skipped): a NULL-terminated vector, empty when there is
 * no such array, *nr strings long; caller frees each and it
 */
char **jx_strdup_array(json_object *o, const char *key, size_t max, size_t *nr);

/*
 * The JSON text of o, as lorebot lays out every document it writes:
 * pretty (json-c's, two spaces a level) or plain (no white space), '/'
 * never escaped; the text lib/jsonw.h streams.  It belongs to o: valid
 * until o is changed or freed.
 */
const char *jx_text(json_object *o, bool pretty);
/* jx_text(o, true) and a newline, on f: what --json prints */
void jx_print(json_object *o, FILE *f);

/* Parse text; NULL with "line:col: message"-like reason in err */
struct strbuf;
json_object *jx_parse(const char *text, size_t len, struct strbuf *err);

#endif
