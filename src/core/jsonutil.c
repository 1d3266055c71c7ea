/*
 * jsonutil.c — see jsonutil.h.
 */
#include "core/jsonutil.h"

#include <string.h>

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
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

static int count_bytes(const char *buffer, size_t size, void *data)
{
    (void)buffer;
    *(size_t *)data += size;
    return 0;
}

size_t json_compact_size(const json_t *v)
{
    size_t n = 0;
    json_dump_callback(v, count_bytes, &n, JSON_COMPACT | JSON_ENCODE_ANY);
    return n;
}
