/*
 * jsonutil.c — see jsonutil.h.
 */
#include "core/jsonutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/json_write.h"

const char *json_get_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

json_t *json_get_obj(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_object(v) ? v : NULL;
}

json_t *json_parse_text(const char *text)
{
    if (!text)
        return NULL;
    return json_loads(text, JSON_REJECT_DUPLICATES, NULL);
}

char *json_dump_compact(const json_t *v)
{
    return json_write_compact(v, NULL);
}

/* Writing and freeing the text beats jansson's counting callback, which
 * escapes code point by code point. */
size_t json_compact_size(const json_t *v)
{
    size_t n = 0;
    free(json_write_compact(v, &n));
    return n;
}
