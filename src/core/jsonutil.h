/*
 * jsonutil.h — small helpers over jansson used across dbmcp, so JSON access
 * reads the same everywhere. Getters borrow; nothing here allocates unless
 * it says so.
 */
#ifndef DBMCP_CORE_JSONUTIL_H
#define DBMCP_CORE_JSONUTIL_H

#include <jansson.h>
#include <stddef.h>

/* obj[key] as a string, or NULL when absent or not a string. */
const char *json_get_str(const json_t *obj, const char *key);
/* obj[key] as an object, or NULL. */
json_t *json_get_obj(const json_t *obj, const char *key);
/* Parse text into a new reference, or NULL (text NULL is NULL). */
json_t *json_parse_text(const char *text);
/* Serialise compactly, any value (json_write_compact: jansson's
 * JSON_COMPACT | JSON_ENCODE_ANY text); caller frees with free(). NULL on
 * failure. */
char *json_dump_compact(const json_t *v);
/* Length in bytes of the compact serialisation; 0 when it fails. */
size_t json_compact_size(const json_t *v);

#endif
