/*
 * jsonschema.c — checking schemas, validating instances and filling defaults
 * for the JSON Schema subset described in jsonschema.h.
 *
 * The file has four parts. Shared helpers come first: number comparison,
 * value equality, UTF-8 length, rendering values into messages, $ref
 * resolution, date formats. The checker walks a schema with a table of
 * keyword rules, one small function per kind of keyword value, carrying the
 * JSON pointer of the keyword for its messages. The validator walks schema
 * and instance together through a fixed sequence of steps — type first, so
 * the most telling message wins — carrying the instance location. Strict
 * validation closes objects per location rather than per schema: it gathers
 * the property names every schema applied at one location declares
 * (declared_names) and refuses the rest only once they have all run, which is
 * what lets $ref, allOf and anyOf/oneOf compose. The defaults filler is last.
 *
 * Recursion is bounded everywhere. The checker counts subschema depth. The
 * validator refuses instances nested deeper than JSONSCHEMA_MAX_DEPTH before
 * it starts, counts $ref expansions, and caps nested subschema applications
 * at VALIDATE_MAX_FRAMES so that even an unchecked schema cannot exhaust the
 * stack, and counts all applications against VALIDATE_MAX_STEPS. Hitting a
 * limit aborts the validation (validate_ctx.aborted) rather than counting as
 * a mismatch, so that "not" cannot turn it into success.
 *
 * jansson's iterators are not const-correct, so walking a const object casts
 * the const away; nothing here modifies a schema or, outside the defaults
 * filler, an instance.
 */
#include "core/jsonschema.h"
#include "core/textnorm.h"

#include <ctype.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nested subschema applications one validation may make. A recursive schema
 * spends about three per instance level, so this admits a maximally deep
 * instance while keeping the C stack small. */
#define VALIDATE_MAX_FRAMES (4 * JSONSCHEMA_MAX_DEPTH)

/* Subschema applications one validation (or one defaults fill) may make in
 * all. Real argument lists need a tiny fraction; the bound stops a schema
 * whose $refs fan out exponentially from running for ever. */
#define VALIDATE_MAX_STEPS (1L << 20)

/* Longest rendering of an instance value, and of a schema literal such as an
 * enum, quoted in a message. */
#define RENDER_VALUE_MAX 80
#define RENDER_LITERAL_MAX 240

/* ===== Shared helpers ===== */

/* A value rendered as compact JSON for a message. */
typedef struct rendered {
    char text[RENDER_LITERAL_MAX + 40]; /* "..." appended when cut; room for a type name */
} rendered;

/* Nonzero when v is a JSON integer, or a real with zero fraction that fits in
 * a json_int_t (so that the tool reading it can convert it exactly). */
static int number_is_integral(const json_t *v)
{
    if (json_is_integer(v))
        return 1;
    if (!json_is_real(v))
        return 0;
    double d = json_real_value(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return 0;
    return (double)(json_int_t)d == d;
}

/* Compare two JSON numbers: negative, zero or positive. Two integers compare
 * exactly; a real on either side compares as double. */
static int number_compare(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b)) {
        json_int_t x = json_integer_value(a), y = json_integer_value(b);
        return (x > y) - (x < y);
    }
    double x = json_number_value(a), y = json_number_value(b);
    return (x > y) - (x < y);
}

/* Read a count (the value of minLength, maxItems, …) into *out. Returns 0
 * when value is not a non-negative integer. */
static int count_read(const json_t *value, unsigned long long *out)
{
    if (!number_is_integral(value))
        return 0;
    json_int_t n =
        json_is_integer(value) ? json_integer_value(value) : (json_int_t)json_real_value(value);
    if (n < 0)
        return 0;
    *out = (unsigned long long)n;
    return 1;
}

/* Read the count keyword `keyword` of schema; 0 when absent or ill-typed. */
static int count_get(const json_t *schema, const char *keyword, unsigned long long *out)
{
    return count_read(json_object_get(schema, keyword), out);
}

static int value_equal(const json_t *a, const json_t *b);

static int array_equal(const json_t *a, const json_t *b)
{
    size_t n = json_array_size(a);
    if (n != json_array_size(b))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!value_equal(json_array_get(a, i), json_array_get(b, i)))
            return 0;
    return 1;
}

static int object_equal(const json_t *a, const json_t *b)
{
    if (json_object_size(a) != json_object_size(b))
        return 0;
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *)a, key, value) {
        const json_t *other = json_object_get(b, key);
        if (!other || !value_equal(value, other))
            return 0;
    }
    return 1;
}

/* JSON Schema equality: like json_equal, except that numbers compare by value
 * (1 equals 1.0). Recurses only while both sides are containers. */
static int value_equal(const json_t *a, const json_t *b)
{
    if (!a || !b)
        return a == b;
    if (json_is_number(a) && json_is_number(b))
        return number_compare(a, b) == 0;
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_array(a))
        return array_equal(a, b);
    if (json_is_object(a))
        return object_equal(a, b);
    return json_equal(a, b);
}

/* Nonzero when array[i] equals an earlier element; *earlier gets its index. */
static int array_find_duplicate(const json_t *array, size_t i, size_t *earlier)
{
    for (size_t j = 0; j < i; j++) {
        if (value_equal(json_array_get(array, j), json_array_get(array, i))) {
            *earlier = j;
            return 1;
        }
    }
    return 0;
}

/* Nonzero when v nests containers more than `limit` levels deep ({} is one
 * level). Never recurses more than limit + 1 levels itself. */
static int json_nests_deeper_than(const json_t *v, int limit)
{
    if (!json_is_object(v) && !json_is_array(v))
        return 0;
    if (limit <= 0)
        return 1;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            if (json_nests_deeper_than(json_array_get(v, i), limit - 1))
                return 1;
        return 0;
    }
    const char *key;
    json_t *member;
    json_object_foreach ((json_t *)v, key, member) {
        if (json_nests_deeper_than(member, limit - 1))
            return 1;
    }
    return 0;
}

/* Unicode code points in a valid UTF-8 byte string: bytes that do not
 * continue a sequence. */
static size_t utf8_length(const char *s, size_t bytes)
{
    size_t n = 0;
    for (size_t i = 0; i < bytes; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* Render v as compact JSON, cut to `max` bytes on a character boundary. */
static rendered value_render(const json_t *v, size_t max)
{
    rendered r;
    json_free_t free_fn;
    json_get_alloc_funcs(NULL, &free_fn);
    char *json = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (!json) {
        snprintf(r.text, sizeof r.text, "(a value)");
        return r;
    }
    size_t len = strlen(json);
    if (max > RENDER_LITERAL_MAX)
        max = RENDER_LITERAL_MAX;
    if (len <= max) {
        snprintf(r.text, sizeof r.text, "%s", json);
    } else {
        while (max > 0 && ((unsigned char)json[max] & 0xC0) == 0x80)
            max--;
        snprintf(r.text, sizeof r.text, "%.*s...", (int)max, json);
    }
    free_fn(json);
    return r;
}

/* The JSON type of an instance as named in messages. */
static const char *value_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
    }
}

/* What the model sent, for "got …": the type, and the value when scalar
 * ("string \"25\"", "integer 5", "object", "null"). */
static rendered value_describe(const json_t *v)
{
    rendered r;
    if (json_is_object(v) || json_is_array(v) || json_is_null(v)) {
        snprintf(r.text, sizeof r.text, "%s", value_type_name(v));
        return r;
    }
    rendered value = value_render(v, RENDER_VALUE_MAX);
    snprintf(r.text, sizeof r.text, "%s %.*s", value_type_name(v), RENDER_VALUE_MAX + 3,
             value.text);
    return r;
}

static const char *plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

/* Split a supported $ref ("#/$defs/<name>" or "#/definitions/<name>", the name
 * JSON-pointer-escaped) into its container keyword and decoded name. Returns
 * 0, or -1 for any other form. */
static int ref_parse(const char *ref, const char **container, char *name, size_t size)
{
    static const char *const prefixes[][2] = {{"#/$defs/", "$defs"},
                                              {"#/definitions/", "definitions"}};
    const char *rest = NULL;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !rest; i++) {
        size_t n = strlen(prefixes[i][0]);
        if (strncmp(ref, prefixes[i][0], n) == 0) {
            rest = ref + n;
            *container = prefixes[i][1];
        }
    }
    if (!rest || !*rest)
        return -1;
    size_t out = 0;
    for (const char *p = rest; *p; p++) {
        char c = *p;
        if (c == '/' || out + 1 >= size)
            return -1;
        if (c == '~') {
            if (p[1] != '0' && p[1] != '1')
                return -1;
            c = *++p == '0' ? '~' : '/';
        }
        name[out++] = c;
    }
    name[out] = '\0';
    return 0;
}

/* The subschema a supported $ref names within root, or NULL. */
static const json_t *ref_resolve(const json_t *root, const char *ref)
{
    const char *container;
    char name[256];
    if (ref_parse(ref, &container, name, sizeof name) != 0)
        return NULL;
    const json_t *target = json_object_get(json_object_get(root, container), name);
    return json_is_object(target) || json_is_boolean(target) ? target : NULL;
}

/* Parse exactly n ASCII digits at s into *out. */
static int digits_parse(const char *s, size_t n, int *out)
{
    int value = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        value = value * 10 + (s[i] - '0');
    }
    *out = value;
    return 1;
}

static int days_in_month(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/* An RFC 3339 full-date "YYYY-MM-DD" (a real calendar day) starts s. */
static int format_date_prefix(const char *s, size_t len)
{
    int year, month, day;
    if (len < 10 || s[4] != '-' || s[7] != '-')
        return 0;
    if (!digits_parse(s, 4, &year) || !digits_parse(s + 5, 2, &month) ||
        !digits_parse(s + 8, 2, &day))
        return 0;
    return month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

static int format_is_date(const char *s, size_t len)
{
    return len == 10 && format_date_prefix(s, len);
}

/* "Z", "z", or a numeric offset "+HH:MM" / "-HH:MM" is exactly s. */
static int format_is_offset(const char *s, size_t len)
{
    int hour, minute;
    if (len == 1)
        return s[0] == 'Z' || s[0] == 'z';
    if (len != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':')
        return 0;
    return digits_parse(s + 1, 2, &hour) && digits_parse(s + 4, 2, &minute) && hour <= 23 &&
           minute <= 59;
}

/* An RFC 3339 full-time "HH:MM:SS[.frac]<offset>" is exactly s. */
static int format_is_time(const char *s, size_t len)
{
    int hour, minute, second;
    if (len < 9 || s[2] != ':' || s[5] != ':')
        return 0;
    if (!digits_parse(s, 2, &hour) || !digits_parse(s + 3, 2, &minute) ||
        !digits_parse(s + 6, 2, &second))
        return 0;
    if (hour > 23 || minute > 59 || second > 60)
        return 0;
    size_t i = 8;
    if (s[i] == '.') {
        size_t start = ++i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == start)
            return 0;
    }
    return format_is_offset(s + i, len - i);
}

static int format_is_date_time(const char *s, size_t len)
{
    return len > 11 && format_date_prefix(s, len) && (s[10] == 'T' || s[10] == 't') &&
           format_is_time(s + 11, len - 11);
}

static const char *const type_names[] = {"object",  "array",   "string", "number",
                                         "integer", "boolean", "null"};

static int type_name_known(const char *name)
{
    for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
        if (strcmp(name, type_names[i]) == 0)
            return 1;
    return 0;
}

/* Nonzero when the type named `name` admits instance. */
static int type_name_accepts(const char *name, const json_t *instance)
{
    if (strcmp(name, "object") == 0)
        return json_is_object(instance);
    if (strcmp(name, "array") == 0)
        return json_is_array(instance);
    if (strcmp(name, "string") == 0)
        return json_is_string(instance);
    if (strcmp(name, "number") == 0)
        return json_is_number(instance);
    if (strcmp(name, "integer") == 0)
        return number_is_integral(instance);
    if (strcmp(name, "boolean") == 0)
        return json_is_boolean(instance);
    if (strcmp(name, "null") == 0)
        return json_is_null(instance);
    return 0;
}

/* Nonzero when a "type" value (a name or an array of names) admits instance.
 * An ill-typed value, possible only in an unchecked schema, admits all. */
static int type_accepts(const json_t *type, const json_t *instance)
{
    if (json_is_string(type))
        return type_name_accepts(json_string_value(type), instance);
    if (!json_is_array(type))
        return 1;
    for (size_t i = 0; i < json_array_size(type); i++) {
        const char *name = json_string_value(json_array_get(type, i));
        if (name && type_name_accepts(name, instance))
            return 1;
    }
    return 0;
}

/* Nonzero when schema describes objects: it has "properties" or a "type"
 * that names "object". Such schemas are closed under strict validation. */
static int schema_describes_object(const json_t *schema)
{
    if (json_object_get(schema, "properties"))
        return 1;
    const json_t *type = json_object_get(schema, "type");
    if (json_is_string(type))
        return strcmp(json_string_value(type), "object") == 0;
    for (size_t i = 0; i < json_array_size(type); i++) {
        const char *name = json_string_value(json_array_get(type, i));
        if (name && strcmp(name, "object") == 0)
            return 1;
    }
    return 0;
}

/* ===== Validating an instance ===== */

/* What the schemas applied at one object location declare. Strict
 * validation refuses the members none of them declared — an implicit
 * "unevaluatedProperties": false — so that a property declared through $ref,
 * allOf or the anyOf/oneOf branch that matched still counts as known. */
typedef struct declared_names {
    json_t *names;        /* declared property names, as the keys of an object */
    int open;             /* additionalProperties true or a schema applied: all allowed */
    int describes_object; /* some applied schema has "properties" or type "object" */
} declared_names;

typedef struct validate_ctx {
    const json_t *root;       /* schema root, for resolving $ref */
    int strict;               /* undeclared members of described objects are refused */
    const char *root_label;   /* how the instance root is named: "arguments" */
    char location[256];       /* path below the root: "filters.region", "rows[2]" */
    size_t location_len;      /* bytes of location in use */
    declared_names *declared; /* what this location's schemas declare; NULL if untracked */
    int frames;               /* nested subschema applications in progress */
    int refs;                 /* nested $ref expansions in progress */
    long budget;              /* subschema applications left in this validation */
    int aborted;              /* a limit or allocation failure, not a mismatch: stop */
    dbmcp_error *err;         /* receives the first violation; may be NULL */
} validate_ctx;

typedef int (*validate_step_fn)(validate_ctx *v, const json_t *schema, const json_t *instance);

static int validate_node(validate_ctx *v, const json_t *schema, const json_t *instance);
static int validate_location(validate_ctx *v, const json_t *schema, const json_t *instance);

static int declared_init(declared_names *d)
{
    *d = (declared_names){.names = json_object()};
    return d->names ? 0 : -1;
}

/* Note what schema itself declares. Returns -1 when out of memory. */
static int declared_note(declared_names *d, const json_t *schema)
{
    const json_t *additional = json_object_get(schema, "additionalProperties");
    if (additional && !json_is_false(additional))
        d->open = 1;
    if (schema_describes_object(schema))
        d->describes_object = 1;
    const char *key;
    json_t *ignored;
    json_object_foreach ((json_t *)json_object_get(schema, "properties"), key, ignored) {
        if (json_object_set(d->names, key, json_true()) != 0)
            return -1;
    }
    return 0;
}

static int declared_merge(declared_names *into, const declared_names *from)
{
    into->open |= from->open;
    into->describes_object |= from->describes_object;
    return json_object_update(into->names, from->names);
}

/* The first member of instance that d neither declares nor leaves open, or
 * NULL. Objects no schema describes ({} or a bare description) stay open. */
static const char *declared_first_unknown(const declared_names *d, const json_t *instance)
{
    if (d->open || !d->describes_object)
        return NULL;
    const char *key;
    json_t *ignored;
    json_object_foreach ((json_t *)instance, key, ignored) {
        if (!json_object_get(d->names, key))
            return key;
    }
    return NULL;
}

/* Append to the location; returns the mark to restore with location_pop. A
 * path too long for the buffer ends in "...". */
static size_t location_push(validate_ctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t location_push(validate_ctx *v, const char *fmt, ...)
{
    size_t mark = v->location_len;
    size_t room = sizeof v->location - mark;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(v->location + mark, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= room) {
        memcpy(v->location + sizeof v->location - 4, "...", 4);
        n = (int)room - 1;
    }
    v->location_len = mark + (size_t)n;
    return mark;
}

static size_t location_push_member(validate_ctx *v, const char *key)
{
    return location_push(v, "%s%s", v->location_len ? "." : "", key);
}

static void location_pop(validate_ctx *v, size_t mark)
{
    v->location_len = mark;
    v->location[mark] = '\0';
}

/* "argument 'filters.region': " or "arguments: " — what every located
 * message starts with. */
static void location_prefix(const validate_ctx *v, char *buf, size_t size)
{
    if (v->location_len)
        snprintf(buf, size, "argument '%s': ", v->location);
    else
        snprintf(buf, size, "%s: ", v->root_label);
}

/* Record a violation at the current location; returns DBMCP_EINVAL. */
static int validate_fail(validate_ctx *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int validate_fail(validate_ctx *v, const char *fmt, ...)
{
    char prefix[300], rule[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    location_prefix(v, prefix, sizeof prefix);
    return dbmcp_error_set(v->err, DBMCP_EINVAL, "%s%s", prefix, rule);
}

/* Record why validation cannot go on (a limit, a broken schema) and stop it:
 * unlike a violation, no anyOf or not may recover from this. */
static int validate_abort(validate_ctx *v, int code, const char *why)
{
    v->aborted = 1;
    if (code == DBMCP_ENOMEM)
        return dbmcp_error_set(v->err, code, "%s: out of memory while validating", v->root_label);
    validate_fail(v, "cannot be checked: %s", why);
    return code;
}

/* Validate instance against schema with errors going to `scratch` instead of
 * v->err. An abort is copied out to v->err, since it ends the validation. */
static int validate_quietly(validate_ctx *v, const json_t *schema, const json_t *instance,
                            dbmcp_error *scratch)
{
    dbmcp_error *outer = v->err;
    dbmcp_error_clear(scratch);
    v->err = scratch;
    int rc = validate_node(v, schema, instance);
    v->err = outer;
    if (v->aborted && outer)
        *outer = *scratch;
    return rc;
}

static int validate_type(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *type = json_object_get(schema, "type");
    if (!type || type_accepts(type, instance))
        return 0;
    char expected[128] = "";
    size_t count = json_is_array(type) ? json_array_size(type) : 1;
    for (size_t i = 0; i < count; i++) {
        const json_t *name = json_is_array(type) ? json_array_get(type, i) : type;
        const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        size_t used = strlen(expected);
        snprintf(expected + used, sizeof expected - used, "%s%s", sep,
                 json_is_string(name) ? json_string_value(name) : "?");
    }
    return validate_fail(v, "expected %s, got %s", expected, value_describe(instance).text);
}

static int validate_enum(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *values = json_object_get(schema, "enum");
    if (!json_is_array(values))
        return 0;
    for (size_t i = 0; i < json_array_size(values); i++)
        if (value_equal(json_array_get(values, i), instance))
            return 0;
    return validate_fail(v, "must be one of %s, got %s",
                         value_render(values, RENDER_LITERAL_MAX).text,
                         value_describe(instance).text);
}

static int validate_const(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *expected = json_object_get(schema, "const");
    if (!expected || value_equal(expected, instance))
        return 0;
    return validate_fail(v, "must be %s, got %s", value_render(expected, RENDER_LITERAL_MAX).text,
                         value_describe(instance).text);
}

/* One numeric bound keyword and how it constrains an instance. */
static const struct bound_rule {
    const char *keyword;  /* schema keyword holding the bound */
    const char *relation; /* what the instance must be, for the message */
    int lower;            /* bounds from below: instance >= (or >) bound */
    int exclusive;        /* equality violates the bound */
} bound_rules[] = {
    {"minimum", ">=", 1, 0},
    {"exclusiveMinimum", ">", 1, 1},
    {"maximum", "<=", 0, 0},
    {"exclusiveMaximum", "<", 0, 1},
};

static int bound_violated(const struct bound_rule *rule, const json_t *bound,
                          const json_t *instance)
{
    int cmp = number_compare(instance, bound);
    if (cmp == 0)
        return rule->exclusive;
    return rule->lower ? cmp < 0 : cmp > 0;
}

static int validate_number(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (!json_is_number(instance))
        return 0;
    for (size_t i = 0; i < sizeof bound_rules / sizeof *bound_rules; i++) {
        const struct bound_rule *rule = &bound_rules[i];
        const json_t *bound = json_object_get(schema, rule->keyword);
        if (json_is_number(bound) && bound_violated(rule, bound, instance))
            return validate_fail(v, "must be %s %s, got %s", rule->relation,
                                 value_render(bound, RENDER_VALUE_MAX).text,
                                 value_render(instance, RENDER_VALUE_MAX).text);
    }
    return 0;
}

static int validate_string_length(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    unsigned long long length =
        utf8_length(json_string_value(instance), json_string_length(instance));
    unsigned long long limit;
    if (count_get(schema, "minLength", &limit) && length < limit)
        return validate_fail(v, "must be at least %llu character%s long, got %llu", limit,
                             plural(limit), length);
    if (count_get(schema, "maxLength", &limit) && length > limit)
        return validate_fail(v, "must be at most %llu character%s long, got %llu", limit,
                             plural(limit), length);
    return 0;
}

/* regexec stops at a NUL byte, so a string with one never matches: the part
 * after it would otherwise escape the pattern. */
static int validate_pattern(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *pattern = json_object_get(schema, "pattern");
    if (!json_is_string(pattern))
        return 0;
    const char *text = json_string_value(instance);
    regex_t re;
    if (regcomp(&re, json_string_value(pattern), REG_EXTENDED | REG_NOSUB) != 0)
        return validate_abort(v, DBMCP_EINVAL, "the schema's pattern does not compile");
    int matched =
        strlen(text) == json_string_length(instance) && regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    if (matched)
        return 0;
    return validate_fail(v, "must match the pattern %s, got %s",
                         value_render(pattern, RENDER_LITERAL_MAX).text,
                         value_describe(instance).text);
}

static int validate_format(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const char *format = json_string_value(json_object_get(schema, "format"));
    const char *text = json_string_value(instance);
    size_t len = json_string_length(instance);
    if (!format)
        return 0;
    if (strcmp(format, "date") == 0 && !format_is_date(text, len))
        return validate_fail(v, "must be a date (YYYY-MM-DD), got %s",
                             value_describe(instance).text);
    if (strcmp(format, "date-time") == 0 && !format_is_date_time(text, len))
        return validate_fail(v,
                             "must be a date-time (RFC 3339, e.g. \"2024-05-01T12:00:00Z\"), "
                             "got %s",
                             value_describe(instance).text);
    return 0;
}

static int validate_string(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (!json_is_string(instance))
        return 0;
    int rc = validate_string_length(v, schema, instance);
    if (rc == 0)
        rc = validate_pattern(v, schema, instance);
    if (rc == 0)
        rc = validate_format(v, schema, instance);
    return rc;
}

static int validate_array_size(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    unsigned long long size = json_array_size(instance), limit;
    if (count_get(schema, "minItems", &limit) && size < limit)
        return validate_fail(v, "must have at least %llu item%s, got %llu", limit, plural(limit),
                             size);
    if (count_get(schema, "maxItems", &limit) && size > limit)
        return validate_fail(v, "must have at most %llu item%s, got %llu", limit, plural(limit),
                             size);
    return 0;
}

/* Pairwise, so quadratic: fine for argument arrays, which are short. */
static int validate_unique_items(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (!json_is_true(json_object_get(schema, "uniqueItems")))
        return 0;
    size_t n = json_array_size(instance), earlier;
    for (size_t i = 1; i < n; i++)
        if (array_find_duplicate(instance, i, &earlier))
            return validate_fail(v, "must not contain duplicates (items %zu and %zu are equal)",
                                 earlier, i);
    return 0;
}

static int validate_items(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *items = json_object_get(schema, "items");
    if (!items)
        return 0;
    for (size_t i = 0; i < json_array_size(instance); i++) {
        const json_t *item = json_array_get(instance, i);
        size_t mark = location_push(v, "[%zu]", i);
        int rc = validate_location(v, items, item);
        location_pop(v, mark);
        if (rc)
            return rc;
    }
    return 0;
}

static int validate_array(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (!json_is_array(instance))
        return 0;
    int rc = validate_array_size(v, schema, instance);
    if (rc == 0)
        rc = validate_unique_items(v, schema, instance);
    if (rc == 0)
        rc = validate_items(v, schema, instance);
    return rc;
}

/* The declared property names, "a, b, c", cut with "..." when long. */
static void property_names_join(const json_t *properties, char *buf, size_t size)
{
    const char *key;
    json_t *ignored;
    size_t used = 0;
    buf[0] = '\0';
    json_object_foreach ((json_t *)properties, key, ignored) {
        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", key);
        if (n < 0 || (size_t)n >= size - used) {
            memcpy(buf + size - 4, "...", 4);
            return;
        }
        used += (size_t)n;
    }
}

/* Refuse member `key`; `known` holds the names that would have been
 * accepted, as the keys of an object. */
static int validate_fail_unknown(validate_ctx *v, const json_t *known_names, const char *key)
{
    char known[240];
    property_names_join(known_names, known, sizeof known);
    size_t mark = location_push_member(v, key);
    int rc = dbmcp_error_set(
        v->err, DBMCP_EINVAL, "unknown argument '%s' (additionalProperties is false; %s%s)",
        v->location, known[0] ? "known arguments: " : "none are accepted here", known);
    location_pop(v, mark);
    return rc;
}

/* Members not declared in this schema's "properties": refused when its
 * additionalProperties is false, checked against it when a schema. (Strict
 * validation's closing is per location, in validate_closed_object.) */
static int validate_additional(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *properties = json_object_get(schema, "properties");
    const json_t *additional = json_object_get(schema, "additionalProperties");
    int closed = json_is_false(additional);
    if (!closed && !json_is_object(additional))
        return 0;
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *)instance, key, value) {
        if (json_object_get(properties, key))
            continue;
        if (closed)
            return validate_fail_unknown(v, properties, key);
        size_t mark = location_push_member(v, key);
        int rc = validate_location(v, additional, value);
        location_pop(v, mark);
        if (rc)
            return rc;
    }
    return 0;
}

static int validate_required(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *required = json_object_get(schema, "required");
    for (size_t i = 0; i < json_array_size(required); i++) {
        const json_t *name = json_array_get(required, i);
        const char *key = json_string_value(name);
        if (!key || json_object_get(instance, key))
            continue;
        size_t mark = location_push_member(v, key);
        int rc =
            dbmcp_error_set(v->err, DBMCP_EINVAL, "missing required argument '%s'", v->location);
        location_pop(v, mark);
        return rc;
    }
    return 0;
}

static int validate_properties(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *properties = json_object_get(schema, "properties");
    if (!json_is_object(properties))
        return 0;
    const char *key;
    json_t *subschema;
    json_object_foreach ((json_t *)properties, key, subschema) {
        const json_t *value = json_object_get(instance, key);
        if (!value)
            continue;
        size_t mark = location_push_member(v, key);
        int rc = validate_location(v, subschema, value);
        location_pop(v, mark);
        if (rc)
            return rc;
    }
    return 0;
}

/* Unknown members first: a misspelt argument then reads as "unknown 'qeury'"
 * rather than "missing 'query'", which is the more useful hint. */
static int validate_object(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (!json_is_object(instance))
        return 0;
    int rc = validate_additional(v, schema, instance);
    if (rc == 0)
        rc = validate_required(v, schema, instance);
    if (rc == 0)
        rc = validate_properties(v, schema, instance);
    return rc;
}

static int validate_all_of(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *branches = json_object_get(schema, "allOf");
    for (size_t i = 0; i < json_array_size(branches); i++) {
        const json_t *branch = json_array_get(branches, i);
        int rc = validate_node(v, branch, instance);
        if (rc)
            return rc;
    }
    return 0;
}

/* How the branches of an anyOf or oneOf received one instance. */
typedef struct branch_tally {
    size_t matched;      /* branches that accepted the instance */
    size_t first_match;  /* index of the first of them */
    size_t second_match; /* index of the second, when matched > 1 */
    char reasons[320];   /* why the others refused: "alternative 1: ...; ..." */
} branch_tally;

/* Note why branch i refused, dropping the location prefix the outer message
 * will carry anyway. */
static void branch_tally_reason(const validate_ctx *v, branch_tally *tally, size_t i,
                                const char *message)
{
    char prefix[300];
    location_prefix(v, prefix, sizeof prefix);
    size_t prefix_len = strlen(prefix);
    if (strncmp(message, prefix, prefix_len) == 0)
        message += prefix_len;
    size_t used = strlen(tally->reasons);
    if (used + 4 >= sizeof tally->reasons)
        return;
    int n = snprintf(tally->reasons + used, sizeof tally->reasons - used, "%salternative %zu: %s",
                     used ? "; " : "", i + 1, message);
    if (n >= 0 && (size_t)n >= sizeof tally->reasons - used)
        memcpy(tally->reasons + sizeof tally->reasons - 4, "...", 4);
}

/* Validate one anyOf/oneOf branch quietly. What it declares counts at this
 * location only if it matched. */
static int branch_try(validate_ctx *v, const json_t *branch, const json_t *instance,
                      dbmcp_error *scratch)
{
    declared_names *outer = v->declared, mine;
    if (!outer)
        return validate_quietly(v, branch, instance, scratch);
    if (declared_init(&mine) != 0)
        return validate_abort(v, DBMCP_ENOMEM, "out of memory");
    v->declared = &mine;
    int rc = validate_quietly(v, branch, instance, scratch);
    v->declared = outer;
    if (rc == 0 && declared_merge(outer, &mine) != 0)
        rc = validate_abort(v, DBMCP_ENOMEM, "out of memory");
    json_decref(mine.names);
    return rc;
}

/* Try the branches in order until `enough` have matched. Returns 0, or the
 * error of an abort, which ends the whole validation. */
static int branches_try(validate_ctx *v, const json_t *branches, const json_t *instance,
                        size_t enough, branch_tally *tally)
{
    dbmcp_error *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return validate_abort(v, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; i < json_array_size(branches); i++) {
        const json_t *branch = json_array_get(branches, i);
        int rc = branch_try(v, branch, instance, scratch);
        if (v->aborted) {
            free(scratch);
            return rc;
        }
        if (rc != 0) {
            branch_tally_reason(v, tally, i, scratch->public_message);
            continue;
        }
        if (tally->matched++ == 0)
            tally->first_match = i;
        else
            tally->second_match = i;
        if (tally->matched == enough)
            break;
    }
    free(scratch);
    return 0;
}

/* While strict validation tracks declared members, every branch runs: each
 * one that matches declares members. */
static int validate_any_of(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *branches = json_object_get(schema, "anyOf");
    if (json_array_size(branches) == 0)
        return 0;
    branch_tally tally = {0};
    int rc = branches_try(v, branches, instance, v->declared ? SIZE_MAX : 1, &tally);
    if (rc || tally.matched)
        return rc;
    return validate_fail(v, "matches none of the anyOf alternatives (%s)", tally.reasons);
}

static int validate_one_of(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *branches = json_object_get(schema, "oneOf");
    if (json_array_size(branches) == 0)
        return 0;
    branch_tally tally = {0};
    int rc = branches_try(v, branches, instance, 2, &tally);
    if (rc || tally.matched == 1)
        return rc;
    if (tally.matched == 0)
        return validate_fail(v, "matches none of the oneOf alternatives (%s)", tally.reasons);
    return validate_fail(v,
                         "matches more than one oneOf alternative (%zu and %zu) but must match "
                         "exactly one",
                         tally.first_match + 1, tally.second_match + 1);
}

/* Test instance against a subschema without reporting, strictness off:
 * closed objects there would make "not" accept an object merely for having
 * extra members, and "if" fail on members its branches declare. Returns 0
 * (matches), nonzero (does not), or the abort code with v->aborted set. */
static int test_quietly(validate_ctx *v, const json_t *sub, const json_t *instance)
{
    dbmcp_error *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return validate_abort(v, DBMCP_ENOMEM, "out of memory");
    int strict = v->strict;
    declared_names *declared = v->declared;
    v->strict = 0;
    v->declared = NULL;
    int rc = validate_quietly(v, sub, instance, scratch);
    v->strict = strict;
    v->declared = declared;
    free(scratch);
    return rc;
}

static int validate_not(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *negated = json_object_get(schema, "not");
    if (!negated)
        return 0;
    int rc = test_quietly(v, negated, instance);
    if (v->aborted)
        return rc;
    if (rc != 0)
        return 0;
    return validate_fail(v, "must not match %s", value_render(negated, RENDER_LITERAL_MAX).text);
}

/* if/then/else: "then" applies when the instance matches "if", "else" when
 * it does not. */
static int validate_if(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const json_t *test = json_object_get(schema, "if");
    if (!test)
        return 0;
    int rc = test_quietly(v, test, instance);
    if (v->aborted)
        return rc;
    const json_t *branch = json_object_get(schema, rc == 0 ? "then" : "else");
    return branch ? validate_node(v, branch, instance) : 0;
}

static int validate_ref(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    const char *ref = json_string_value(json_object_get(schema, "$ref"));
    if (!ref)
        return 0;
    const json_t *target = ref_resolve(v->root, ref);
    if (!target)
        return validate_abort(v, DBMCP_EINVAL, "the schema's $ref does not resolve");
    if (v->refs >= JSONSCHEMA_MAX_DEPTH)
        return validate_abort(v, DBMCP_EINVAL, "the schema's $ref recursion is too deep");
    v->refs++;
    int rc = validate_node(v, target, instance);
    v->refs--;
    return rc;
}

/* The order in which keywords are enforced; the first violation is reported. */
static const validate_step_fn validate_steps[] = {
    validate_type,  validate_enum,   validate_const,  validate_number, validate_string,
    validate_array, validate_object, validate_all_of, validate_any_of, validate_one_of,
    validate_not,   validate_if,     validate_ref,
};

static int validate_node(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    if (json_is_false(schema))
        return validate_fail(v, "is not allowed here (its schema is false)");
    if (!json_is_object(schema))
        return 0;
    if (v->frames >= VALIDATE_MAX_FRAMES)
        return validate_abort(v, DBMCP_EINVAL, "the schema nests too deeply");
    if (--v->budget < 0)
        return validate_abort(v, DBMCP_EINVAL, "the schema is too complex");
    if (v->declared && declared_note(v->declared, schema) != 0)
        return validate_abort(v, DBMCP_ENOMEM, "out of memory");
    v->frames++;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof validate_steps / sizeof *validate_steps; i++)
        rc = validate_steps[i](v, schema, instance);
    v->frames--;
    return rc;
}

/* Note everything schema could declare at this location without validating:
 * through $ref, allOf and every anyOf/oneOf branch, matching or not. A member
 * outside this over-approximation is unknown whatever matches. Returns -1
 * when out of memory; past the limits it leaves everything open. */
static int declared_collect(validate_ctx *v, const json_t *schema, declared_names *d, int depth)
{
    static const char *const applicators[] = {"allOf", "anyOf", "oneOf"};
    static const char *const conditionals[] = {"then", "else"};
    if (!json_is_object(schema))
        return 0;
    if (depth > JSONSCHEMA_MAX_DEPTH || --v->budget < 0) {
        d->open = 1;
        return 0;
    }
    if (declared_note(d, schema) != 0)
        return -1;
    for (size_t c = 0; c < 2; c++) {
        const json_t *branch = json_object_get(schema, conditionals[c]);
        if (branch && declared_collect(v, branch, d, depth + 1) != 0)
            return -1;
    }
    const char *ref = json_string_value(json_object_get(schema, "$ref"));
    if (ref && declared_collect(v, ref_resolve(v->root, ref), d, depth + 1) != 0)
        return -1;
    for (size_t a = 0; a < sizeof applicators / sizeof *applicators; a++) {
        const json_t *branches = json_object_get(schema, applicators[a]);
        for (size_t i = 0; i < json_array_size(branches); i++)
            if (declared_collect(v, json_array_get(branches, i), d, depth + 1) != 0)
                return -1;
    }
    return 0;
}

/* Validate an object under strict rules: refuse first the members no schema
 * here could declare (so a misspelt argument reads as unknown rather than as
 * another one missing), then, once the rest holds, those declared only by
 * branches that did not match. */
static int validate_closed_object(validate_ctx *v, const json_t *schema, const json_t *instance,
                                  declared_names *possible, declared_names *applied)
{
    if (declared_collect(v, schema, possible, 0) != 0)
        return validate_abort(v, DBMCP_ENOMEM, "out of memory");
    const char *unknown = declared_first_unknown(possible, instance);
    if (unknown)
        return validate_fail_unknown(v, possible->names, unknown);
    v->declared = applied;
    int rc = validate_node(v, schema, instance);
    v->declared = NULL;
    unknown = rc ? NULL : declared_first_unknown(applied, instance);
    return unknown ? validate_fail_unknown(v, applied->names, unknown) : rc;
}

/* Validate the instance at a new location (the root, a member, an item). */
static int validate_location(validate_ctx *v, const json_t *schema, const json_t *instance)
{
    declared_names *outer = v->declared;
    declared_names possible = {0}, applied = {0};
    int rc;
    v->declared = NULL;
    if (!v->strict || !json_is_object(instance))
        rc = validate_node(v, schema, instance);
    else if (declared_init(&possible) != 0 || declared_init(&applied) != 0)
        rc = validate_abort(v, DBMCP_ENOMEM, "out of memory");
    else
        rc = validate_closed_object(v, schema, instance, &possible, &applied);
    json_decref(possible.names);
    json_decref(applied.names);
    v->declared = outer;
    return rc;
}

/* Validate instance against schema (a subschema of root), naming the
 * instance root `label` in messages. */
static int validate_run(const json_t *root, const json_t *schema, const json_t *instance,
                        int strict, const char *label, dbmcp_error *err)
{
    validate_ctx v = {.root = root,
                      .strict = strict,
                      .root_label = label,
                      .budget = VALIDATE_MAX_STEPS,
                      .err = err};
    if (!json_is_object(schema) && !json_is_boolean(schema))
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: cannot be checked: no schema", label);
    if (!instance)
        return validate_fail(&v, "missing");
    if (json_nests_deeper_than(instance, JSONSCHEMA_MAX_DEPTH))
        return validate_fail(&v, "nests deeper than %d levels", JSONSCHEMA_MAX_DEPTH);
    return validate_location(&v, schema, instance);
}

int jsonschema_validate(const json_t *schema, const json_t *instance, dbmcp_error *err)
{
    return validate_run(schema, schema, instance, 0, "arguments", err);
}

int jsonschema_validate_strict(const json_t *schema, const json_t *instance, dbmcp_error *err)
{
    return validate_run(schema, schema, instance, 1, "arguments", err);
}

/* ===== Checking a schema ===== */

typedef struct check_ctx {
    const json_t *root; /* the schema being checked, for resolving $ref */
    int check_defaults; /* second pass: the structure is sound, validate defaults */
    char pointer[512];  /* JSON pointer of the keyword under check */
    size_t pointer_len; /* bytes of pointer in use */
    dbmcp_error *err;   /* receives the first problem; may be NULL */
} check_ctx;

/* Check the value of one keyword; depth is that of the schema holding it
 * (0 at the root). */
typedef int (*keyword_check_fn)(check_ctx *c, const json_t *value, int depth);

static int check_schema_object(check_ctx *c, const json_t *schema, int depth);

/* Append one reference token, escaped per RFC 6901; returns the mark to
 * restore with pointer_pop. An overlong pointer is cut. */
static size_t pointer_push(check_ctx *c, const char *token)
{
    size_t mark = c->pointer_len, n = mark, cap = sizeof c->pointer - 1;
    if (n < cap)
        c->pointer[n++] = '/';
    for (const char *p = token; *p && n < cap; p++) {
        if (*p != '~' && *p != '/') {
            c->pointer[n++] = *p;
        } else if (n + 2 <= cap) {
            c->pointer[n++] = '~';
            c->pointer[n++] = *p == '~' ? '0' : '1';
        }
    }
    c->pointer[n] = '\0';
    c->pointer_len = n;
    return mark;
}

static size_t pointer_push_index(check_ctx *c, size_t index)
{
    char token[24];
    snprintf(token, sizeof token, "%zu", index);
    return pointer_push(c, token);
}

static void pointer_pop(check_ctx *c, size_t mark)
{
    c->pointer_len = mark;
    c->pointer[mark] = '\0';
}

/* Record a problem at the current pointer; returns DBMCP_EINVAL. */
static int check_fail(check_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int check_fail(check_ctx *c, const char *fmt, ...)
{
    char rule[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    return dbmcp_error_set(c->err, DBMCP_EINVAL, "schema %s: %s",
                           c->pointer_len ? c->pointer : "root", rule);
}

static int check_subschema(check_ctx *c, const json_t *value, int depth)
{
    if (json_is_boolean(value))
        return 0;
    if (!json_is_object(value))
        return check_fail(c, "must be a schema (an object or a boolean)");
    return check_schema_object(c, value, depth + 1);
}

static int check_schema_map(check_ctx *c, const json_t *value, int depth)
{
    if (!json_is_object(value))
        return check_fail(c, "must be an object mapping names to schemas");
    const char *key;
    json_t *subschema;
    json_object_foreach ((json_t *)value, key, subschema) {
        size_t mark = pointer_push(c, key);
        int rc = check_subschema(c, subschema, depth);
        pointer_pop(c, mark);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_schema_list(check_ctx *c, const json_t *value, int depth)
{
    if (json_array_size(value) == 0)
        return check_fail(c, "must be a non-empty array of schemas");
    for (size_t i = 0; i < json_array_size(value); i++) {
        const json_t *subschema = json_array_get(value, i);
        size_t mark = pointer_push_index(c, i);
        int rc = check_subschema(c, subschema, depth);
        pointer_pop(c, mark);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_defs(check_ctx *c, const json_t *value, int depth)
{
    if (depth != 0)
        return check_fail(c, "is only supported at the schema root, where $ref can reach it");
    return check_schema_map(c, value, depth);
}

/* Each element of array passes `element_ok` and none repeats an earlier one. */
static int check_array_elements(check_ctx *c, const json_t *array,
                                int (*element_ok)(const json_t *), const char *element_rule)
{
    size_t earlier;
    for (size_t i = 0; i < json_array_size(array); i++) {
        const json_t *element = json_array_get(array, i);
        size_t mark = pointer_push_index(c, i);
        int rc = 0;
        if (!element_ok(element))
            rc = check_fail(c, "%s", element_rule);
        else if (array_find_duplicate(array, i, &earlier))
            rc = check_fail(c, "repeats %s", value_render(element, RENDER_VALUE_MAX).text);
        pointer_pop(c, mark);
        if (rc)
            return rc;
    }
    return 0;
}

static int element_is_type_name(const json_t *element)
{
    return json_is_string(element) && type_name_known(json_string_value(element));
}

static int element_is_string(const json_t *element)
{
    return json_is_string(element);
}

static int check_type(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    static const char rule[] =
        "must be one of object, array, string, number, integer, boolean, null";
    if (json_is_string(value))
        return element_is_type_name(value) ? 0 : check_fail(c, "%s", rule);
    if (json_array_size(value) == 0)
        return check_fail(c, "must be a type name or a non-empty array of type names");
    return check_array_elements(c, value, element_is_type_name, rule);
}

static int check_required(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    if (!json_is_array(value))
        return check_fail(c, "must be an array of property names");
    return check_array_elements(c, value, element_is_string, "must be a property name (a string)");
}

/* const, default: any JSON value, nested no deeper than an instance may be. */
static int check_literal(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    if (json_nests_deeper_than(value, JSONSCHEMA_MAX_DEPTH))
        return check_fail(c, "nests deeper than %d levels", JSONSCHEMA_MAX_DEPTH);
    return 0;
}

static int check_enum(check_ctx *c, const json_t *value, int depth)
{
    if (json_array_size(value) == 0)
        return check_fail(c, "must be a non-empty array of values");
    return check_literal(c, value, depth);
}

static int check_examples(check_ctx *c, const json_t *value, int depth)
{
    if (!json_is_array(value))
        return check_fail(c, "must be an array");
    return check_literal(c, value, depth);
}

static int check_number(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    if (json_is_boolean(value))
        return check_fail(c, "must be a number, not a boolean (the draft-04 boolean form of "
                             "exclusiveMinimum/exclusiveMaximum is not supported)");
    return json_is_number(value) ? 0 : check_fail(c, "must be a number");
}

static int check_count(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    unsigned long long ignored;
    return count_read(value, &ignored) ? 0 : check_fail(c, "must be a non-negative integer");
}

static int check_boolean(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    return json_is_boolean(value) ? 0 : check_fail(c, "must be a boolean");
}

static int check_string(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    return json_is_string(value) ? 0 : check_fail(c, "must be a string");
}

/* The closing "]" of a "[:name:]", "[.x.]" or "[=x=]" opening at p, or NULL
 * (then regcomp reports the pattern as broken). */
static const char *bracket_class_end(const char *p)
{
    char delimiter = p[1];
    for (p += 2; *p; p++)
        if (p[0] == delimiter && p[1] == ']')
            return p + 1;
    return NULL;
}

/* Why `pattern`, written (as JSON Schema patterns are) for ECMA-262 regexes,
 * would silently mean something else to POSIX regcomp; NULL if it would not.
 * POSIX reads "\d" as a plain "d", and a backslash inside [...] as itself. */
static const char *pattern_nonportable(const char *pattern)
{
    int in_bracket = 0;
    for (const char *p = pattern; *p; p++) {
        if (in_bracket) {
            if (*p == '\\')
                return "a backslash inside [...] is a literal backslash in POSIX regex, not an "
                       "escape";
            if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                p = bracket_class_end(p);
                if (!p)
                    return NULL;
            } else if (*p == ']') {
                in_bracket = 0;
            }
        } else if (*p == '\\') {
            unsigned char next = (unsigned char)p[1];
            if (isalnum(next) && !strchr("wWsSbB", next))
                return "escapes such as \\d, \\n or \\1 have no POSIX meaning; use a bracket "
                       "expression such as [0-9]";
            if (next)
                p++;
        } else if (*p == '[') {
            in_bracket = 1;
            p += p[1] == '^';
            p += p[1] == ']';
        }
    }
    return NULL;
}

static int check_pattern(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    if (!json_is_string(value))
        return check_fail(c, "must be a string");
    const char *pattern = json_string_value(value);
    const char *why = pattern_nonportable(pattern);
    if (why)
        return check_fail(c, "%s", why);
    regex_t re;
    int code = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (code != 0) {
        char reason[128];
        regerror(code, &re, reason, sizeof reason);
        return check_fail(c, "does not compile as a POSIX extended regex: %s", reason);
    }
    regfree(&re);
    return 0;
}

static int check_format(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    static const char *const formats[] = {"date-time", "date", "email", "uri", "uuid"};
    const char *name = json_string_value(value);
    for (size_t i = 0; name && i < sizeof formats / sizeof *formats; i++)
        if (strcmp(name, formats[i]) == 0)
            return 0;
    return check_fail(c, "must be one of \"date-time\", \"date\", \"email\", \"uri\", \"uuid\"");
}

static int check_ref(check_ctx *c, const json_t *value, int depth)
{
    (void)depth;
    const char *ref = json_string_value(value);
    const char *container;
    char name[256];
    if (!ref || ref_parse(ref, &container, name, sizeof name) != 0)
        return check_fail(c, "only \"#/$defs/<name>\" and \"#/definitions/<name>\" are supported");
    if (!ref_resolve(c->root, ref))
        return check_fail(c, "\"%s\" does not resolve: the root has no such %s", ref, container);
    return 0;
}

/* One supported keyword and what its value must be. */
static const struct keyword_rule {
    const char *name;       /* keyword as spelled in a schema */
    keyword_check_fn check; /* validates its value */
} keyword_rules[] = {
    {"type", check_type},
    {"properties", check_schema_map},
    {"required", check_required},
    {"additionalProperties", check_subschema},
    {"enum", check_enum},
    {"const", check_literal},
    {"minimum", check_number},
    {"maximum", check_number},
    {"exclusiveMinimum", check_number},
    {"exclusiveMaximum", check_number},
    {"minLength", check_count},
    {"maxLength", check_count},
    {"pattern", check_pattern},
    {"format", check_format},
    {"items", check_subschema},
    {"minItems", check_count},
    {"maxItems", check_count},
    {"uniqueItems", check_boolean},
    {"anyOf", check_schema_list},
    {"oneOf", check_schema_list},
    {"allOf", check_schema_list},
    {"not", check_subschema},
    {"if", check_subschema},
    {"then", check_subschema},
    {"else", check_subschema},
    {"$anchor", check_string},
    {"$ref", check_ref},
    {"$defs", check_defs},
    {"definitions", check_defs},
    {"description", check_string},
    {"title", check_string},
    {"$comment", check_string},
    {"$schema", check_string},
    {"$id", check_string},
    {"default", check_literal},
    {"examples", check_examples},
    {"deprecated", check_boolean},
    {"readOnly", check_boolean},
    {"writeOnly", check_boolean},
};

/* JSON Schema keywords dbmcp knows but does not enforce; named as such so
 * that the author does not hunt for a typo. */
static const char *const keywords_unsupported[] = {
    "patternProperties",     "prefixItems",       "contains",         "minContains",
    "maxContains",           "dependentRequired", "dependentSchemas", "dependencies",
    "propertyNames",         "minProperties",     "maxProperties",    "unevaluatedItems",
    "unevaluatedProperties", "additionalItems",   "multipleOf",       "$dynamicRef",
    "$dynamicAnchor",        "$recursiveRef",     "$recursiveAnchor", "$vocabulary",
    "contentEncoding",       "contentMediaType",  "contentSchema",    "nullable",
};

static const struct keyword_rule *keyword_rule_find(const char *name)
{
    for (size_t i = 0; i < sizeof keyword_rules / sizeof *keyword_rules; i++)
        if (strcmp(name, keyword_rules[i].name) == 0)
            return &keyword_rules[i];
    return NULL;
}

/* Levenshtein distance, or SIZE_MAX for words too long to be keywords. */
static size_t edit_distance(const char *a, const char *b)
{
    return strlen(a) > 32 || strlen(b) > 32 ? SIZE_MAX : text_edit_distance(a, b, 0);
}

/* The supported keyword `name` is probably a misspelling of, or NULL. */
static const char *keyword_suggest(const char *name)
{
    const char *best = NULL;
    size_t best_distance = 3;
    for (size_t i = 0; i < sizeof keyword_rules / sizeof *keyword_rules; i++) {
        size_t d = edit_distance(name, keyword_rules[i].name);
        if (d < best_distance) {
            best = keyword_rules[i].name;
            best_distance = d;
        }
    }
    return best && (best_distance == 1 || strlen(name) >= 4) ? best : NULL;
}

static int check_unknown_keyword(check_ctx *c, const char *name)
{
    for (size_t i = 0; i < sizeof keywords_unsupported / sizeof *keywords_unsupported; i++)
        if (strcmp(name, keywords_unsupported[i]) == 0)
            return check_fail(c, "keyword \"%s\" is not supported by dbmcp", name);
    const char *suggestion = keyword_suggest(name);
    if (suggestion)
        return check_fail(c, "unknown keyword \"%s\" (did you mean \"%s\"?)", name, suggestion);
    return check_fail(c, "unknown keyword \"%s\" (extensions must start with \"x-\")", name);
}

static int check_keyword(check_ctx *c, const char *name, const json_t *value, int depth)
{
    if (strncmp(name, "x-", 2) == 0)
        return 0;
    size_t mark = pointer_push(c, name);
    const struct keyword_rule *rule = keyword_rule_find(name);
    int rc = rule ? rule->check(c, value, depth) : check_unknown_keyword(c, name);
    pointer_pop(c, mark);
    return rc;
}

/* A lower bound above its upper bound admits nothing: a schema bug. */
static int check_bounds_ordered(check_ctx *c, const json_t *schema)
{
    static const char *const pairs[][2] = {
        {"minimum", "maximum"}, {"minLength", "maxLength"}, {"minItems", "maxItems"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        const json_t *low = json_object_get(schema, pairs[i][0]);
        const json_t *high = json_object_get(schema, pairs[i][1]);
        if (!json_is_number(low) || !json_is_number(high) || number_compare(low, high) <= 0)
            continue;
        size_t mark = pointer_push(c, pairs[i][0]);
        int rc = check_fail(c, "is greater than %s (%s > %s)", pairs[i][1],
                            value_render(low, RENDER_VALUE_MAX).text,
                            value_render(high, RENDER_VALUE_MAX).text);
        pointer_pop(c, mark);
        return rc;
    }
    return 0;
}

/* With additionalProperties false, a required name missing from properties
 * can never be supplied. */
static int check_required_declared(check_ctx *c, const json_t *schema)
{
    if (!json_is_false(json_object_get(schema, "additionalProperties")))
        return 0;
    const json_t *properties = json_object_get(schema, "properties");
    const json_t *required = json_object_get(schema, "required");
    for (size_t i = 0; i < json_array_size(required); i++) {
        const json_t *name = json_array_get(required, i);
        if (json_object_get(properties, json_string_value(name)))
            continue;
        size_t mark = pointer_push(c, "required");
        pointer_push_index(c, i);
        int rc = check_fail(c,
                            "\"%s\" is required but not in properties, and additionalProperties "
                            "is false, so no instance can be valid",
                            json_string_value(name));
        pointer_pop(c, mark);
        return rc;
    }
    return 0;
}

/* A default that breaks its own schema would be filled in and then refused,
 * blaming the model for an argument it never sent. */
static int check_default_satisfies(check_ctx *c, const json_t *schema)
{
    const json_t *def = json_object_get(schema, "default");
    if (!def)
        return 0;
    dbmcp_error *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return dbmcp_error_set(c->err, DBMCP_ENOMEM, "schema: out of memory while checking");
    int rc = validate_run(c->root, schema, def, 0, "value", scratch);
    if (rc == DBMCP_EINVAL) {
        size_t mark = pointer_push(c, "default");
        rc = check_fail(c, "does not satisfy its own schema (%s)", scratch->public_message);
        pointer_pop(c, mark);
    } else if (rc != 0) {
        rc = dbmcp_error_set(c->err, rc, "%s", scratch->message);
    }
    free(scratch);
    return rc;
}

static int check_schema_object(check_ctx *c, const json_t *schema, int depth)
{
    if (depth > JSONSCHEMA_MAX_DEPTH)
        return check_fail(c, "subschemas nest deeper than %d levels", JSONSCHEMA_MAX_DEPTH);
    const char *key;
    json_t *value;
    json_object_foreach ((json_t *)schema, key, value) {
        int rc = check_keyword(c, key, value, depth);
        if (rc)
            return rc;
    }
    int rc = check_bounds_ordered(c, schema);
    if (rc == 0)
        rc = check_required_declared(c, schema);
    if (rc == 0 && c->check_defaults)
        rc = check_default_satisfies(c, schema);
    return rc;
}

int jsonschema_check(const json_t *schema, int require_object_root, dbmcp_error *err)
{
    check_ctx c = {.root = schema, .err = err};
    if (!json_is_object(schema))
        return check_fail(&c, "must be a JSON object");
    const char *type = json_string_value(json_object_get(schema, "type"));
    if (require_object_root && (!type || strcmp(type, "object") != 0))
        return check_fail(&c, "must have \"type\": \"object\" (tool arguments are an object)");
    int rc = check_schema_object(&c, schema, 0);
    if (rc != 0)
        return rc;
    /* Defaults are validated only once every $ref they may reach is known to
     * resolve and every pattern to compile. */
    c.check_defaults = 1;
    return check_schema_object(&c, schema, 0);
}

/* ===== Filling defaults ===== */

typedef struct defaults_ctx {
    const json_t *root; /* schema root, for resolving $ref */
    long budget;        /* subschema visits left */
} defaults_ctx;

/* The "default" of schema, looking through $refs when it has none itself. */
static const json_t *schema_default(const json_t *root, const json_t *schema)
{
    for (int hops = 0; json_is_object(schema) && hops <= JSONSCHEMA_MAX_DEPTH; hops++) {
        const json_t *def = json_object_get(schema, "default");
        const char *ref = json_string_value(json_object_get(schema, "$ref"));
        if (def || !ref)
            return def;
        schema = ref_resolve(root, ref);
    }
    return NULL;
}

static void defaults_apply(defaults_ctx *d, const json_t *schema, json_t *instance, int depth);

static void defaults_apply_properties(defaults_ctx *d, const json_t *schema, json_t *instance,
                                      int depth)
{
    const json_t *properties = json_object_get(schema, "properties");
    if (!json_is_object(instance) || !json_is_object(properties))
        return;
    const char *key;
    json_t *subschema;
    json_object_foreach ((json_t *)properties, key, subschema) {
        json_t *value = json_object_get(instance, key);
        const json_t *def = value ? NULL : schema_default(d->root, subschema);
        if (def && json_object_set_new(instance, key, json_deep_copy(def)) == 0)
            value = json_object_get(instance, key);
        if (value)
            defaults_apply(d, subschema, value, depth + 1);
    }
}

static void defaults_apply_items(defaults_ctx *d, const json_t *schema, json_t *instance, int depth)
{
    const json_t *items = json_object_get(schema, "items");
    if (!json_is_array(instance) || !items)
        return;
    for (size_t i = 0; i < json_array_size(instance); i++)
        defaults_apply(d, items, json_array_get(instance, i), depth + 1);
}

static void defaults_apply(defaults_ctx *d, const json_t *schema, json_t *instance, int depth)
{
    if (!json_is_object(schema) || depth > JSONSCHEMA_MAX_DEPTH || --d->budget < 0)
        return;
    defaults_apply_properties(d, schema, instance, depth);
    defaults_apply_items(d, schema, instance, depth);
    const char *ref = json_string_value(json_object_get(schema, "$ref"));
    if (ref)
        defaults_apply(d, ref_resolve(d->root, ref), instance, depth + 1);
    const json_t *branches = json_object_get(schema, "allOf");
    for (size_t i = 0; i < json_array_size(branches); i++)
        defaults_apply(d, json_array_get(branches, i), instance, depth + 1);
}

void jsonschema_apply_defaults(const json_t *schema, json_t *instance)
{
    defaults_ctx d = {.root = schema, .budget = VALIDATE_MAX_STEPS};
    defaults_apply(&d, schema, instance, 0);
}
