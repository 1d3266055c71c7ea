/*
 * sqlite_guard.c — linear-time instr, replace and trim/ltrim/rtrim for
 * query handles (why: sqlite_guard.h). Each function reproduces the
 * built-in's results exactly, including its treatment of NULL, BLOB
 * arguments and malformed UTF-8; only the search is different.
 */
#include "store/sqlite_guard.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* instr(X, Y)                                                               */

static int is_continuation(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* SQLite's instr walks the haystack one character at a time (text) or one
 * byte at a time (blobs) and compares the needle at each step; this finds
 * candidates with memmem and counts the steps in between. */
static int64_t instr_position(const unsigned char *hay, size_t n_hay, const unsigned char *needle,
                              size_t n_needle, int is_text)
{
    size_t pos = 0; /* the start of the current step */
    int64_t n = 1;
    while (n_needle <= n_hay - pos) {
        const unsigned char *hit = memmem(hay + pos, n_hay - pos, needle, n_needle);
        if (!hit)
            return 0;
        size_t at = (size_t)(hit - hay);
        while (pos < at) {
            pos++;
            while (is_text && pos < n_hay && is_continuation(hay[pos]))
                pos++;
            n++;
        }
        if (pos == at)
            return n;
        /* The hit began inside a character: not a position SQLite tries. */
    }
    return 0;
}

static void guard_instr(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int type_hay = sqlite3_value_type(argv[0]);
    int type_needle = sqlite3_value_type(argv[1]);
    if (type_hay == SQLITE_NULL || type_needle == SQLITE_NULL)
        return;
    sqlite3_value *dup_hay = NULL, *dup_needle = NULL;
    const unsigned char *hay, *needle;
    size_t n_hay, n_needle;
    int is_text = 1;
    if (type_hay == SQLITE_BLOB && type_needle == SQLITE_BLOB) {
        hay = sqlite3_value_blob(argv[0]);
        n_hay = (size_t)sqlite3_value_bytes(argv[0]);
        needle = sqlite3_value_blob(argv[1]);
        n_needle = (size_t)sqlite3_value_bytes(argv[1]);
        is_text = 0;
    } else if (type_hay != SQLITE_BLOB && type_needle != SQLITE_BLOB) {
        hay = sqlite3_value_text(argv[0]);
        n_hay = (size_t)sqlite3_value_bytes(argv[0]);
        needle = sqlite3_value_text(argv[1]);
        n_needle = (size_t)sqlite3_value_bytes(argv[1]);
    } else {
        /* One blob, one not: both compared as text, on copies. */
        dup_hay = sqlite3_value_dup(argv[0]);
        dup_needle = sqlite3_value_dup(argv[1]);
        hay = dup_hay ? sqlite3_value_text(dup_hay) : NULL;
        n_hay = dup_hay ? (size_t)sqlite3_value_bytes(dup_hay) : 0;
        needle = dup_needle ? sqlite3_value_text(dup_needle) : NULL;
        n_needle = dup_needle ? (size_t)sqlite3_value_bytes(dup_needle) : 0;
    }
    if (n_needle > 0 && (!needle || (n_hay && !hay))) {
        sqlite3_result_error_nomem(ctx);
    } else {
        int64_t n = 1;
        if (n_needle > 0)
            n = instr_position(hay ? hay : (const unsigned char *)"", n_hay, needle, n_needle,
                               is_text);
        sqlite3_result_int64(ctx, n);
    }
    sqlite3_value_free(dup_hay);
    sqlite3_value_free(dup_needle);
}

/* ------------------------------------------------------------------------ */
/* replace(X, Y, Z)                                                          */

/* Non-overlapping occurrences of p in s, left to right, as SQLite's
 * replace finds them. */
static size_t count_occurrences(const unsigned char *s, size_t n, const unsigned char *p, size_t np)
{
    size_t count = 0, i = 0;
    while (np <= n - i) {
        const unsigned char *hit = memmem(s + i, n - i, p, np);
        if (!hit)
            break;
        count++;
        i = (size_t)(hit - s) + np;
    }
    return count;
}

static void guard_replace(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const unsigned char *s = sqlite3_value_text(argv[0]);
    if (!s)
        return;
    size_t ns = (size_t)sqlite3_value_bytes(argv[0]);
    const unsigned char *p = sqlite3_value_text(argv[1]);
    if (!p)
        return;
    if (p[0] == 0) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    size_t np = (size_t)sqlite3_value_bytes(argv[1]);
    const unsigned char *r = sqlite3_value_text(argv[2]);
    if (!r)
        return;
    size_t nr = (size_t)sqlite3_value_bytes(argv[2]);
    size_t count = np <= ns ? count_occurrences(s, ns, p, np) : 0;
    uint64_t out_len = (uint64_t)ns - (uint64_t)count * np + (uint64_t)count * nr;
    int limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
    if (nr > np && out_len > (uint64_t)limit) {
        sqlite3_result_error_toobig(ctx);
        return;
    }
    unsigned char *out = sqlite3_malloc64(out_len + 1);
    if (!out) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    size_t i = 0, j = 0;
    for (size_t k = 0; k < count; k++) {
        const unsigned char *hit = memmem(s + i, ns - i, p, np);
        size_t at = (size_t)(hit - s);
        memcpy(out + j, s + i, at - i);
        j += at - i;
        memcpy(out + j, r, nr);
        j += nr;
        i = at + np;
    }
    memcpy(out + j, s + i, ns - i);
    j += ns - i;
    out[j] = 0;
    sqlite3_result_text64(ctx, (const char *)out, j, sqlite3_free, SQLITE_UTF8);
}

/* ------------------------------------------------------------------------ */
/* trim(X, Y), ltrim(X, Y), rtrim(X, Y)                                      */

#define TRIM_LEFT 1
#define TRIM_RIGHT 2

/* One character of the set as SQLite splits it (SQLITE_SKIP_UTF8): a byte
 * below 0xC0, or a byte from 0xC0 up with the continuation bytes after it. */
typedef struct set_char {
    const unsigned char *bytes;
    size_t len;
} set_char;

static int set_char_compare(const void *a, const void *b)
{
    const set_char *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->bytes, y->bytes, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static size_t split_set(const unsigned char *set, set_char *out)
{
    size_t n = 0;
    for (const unsigned char *p = set; *p;) {
        const unsigned char *start = p;
        if (*p++ >= 0xC0)
            while (is_continuation(*p))
                p++;
        out[n].bytes = start;
        out[n].len = (size_t)(p - start);
        n++;
    }
    return n;
}

/* The trim set, sorted, with its distinct lengths. */
typedef struct trim_set {
    set_char *chars; /* sorted, unique */
    size_t n;
    size_t lengths[8]; /* distinct member lengths */
    size_t n_lengths;
    int fast; /* binary search gives the built-in's answer */
} trim_set;

static int trim_set_has(const trim_set *t, const unsigned char *bytes, size_t len)
{
    set_char key = {bytes, len};
    return bsearch(&key, t->chars, t->n, sizeof *t->chars, set_char_compare) != NULL;
}

/* Sort and deduplicate; decide whether binary search may replace the
 * built-in's scan. It may when no member is a proper prefix or suffix of
 * another — then at most one member matches at either end, so the order
 * SQLite tries them in does not matter — and at most 8 lengths occur. Both
 * hold for every set of well-formed UTF-8. */
static void trim_set_prepare(trim_set *t)
{
    qsort(t->chars, t->n, sizeof *t->chars, set_char_compare);
    size_t m = 0;
    for (size_t i = 0; i < t->n; i++)
        if (m == 0 || set_char_compare(&t->chars[m - 1], &t->chars[i]) != 0)
            t->chars[m++] = t->chars[i];
    t->n = m;
    t->fast = 0;
    t->n_lengths = 0;
    for (size_t i = 0; i < t->n; i++) {
        const set_char *c = &t->chars[i];
        /* A proper prefix sorts right before its extensions. */
        if (i + 1 < t->n && c->len < t->chars[i + 1].len &&
            memcmp(c->bytes, t->chars[i + 1].bytes, c->len) == 0)
            return;
        for (size_t cut = 1; cut < c->len; cut++)
            if (trim_set_has(t, c->bytes + cut, c->len - cut))
                return;
        size_t k = 0;
        while (k < t->n_lengths && t->lengths[k] != c->len)
            k++;
        if (k == t->n_lengths) {
            if (t->n_lengths == 8)
                return;
            t->lengths[t->n_lengths++] = c->len;
        }
    }
    t->fast = 1;
}

/* Bytes of the member that starts (at_end = 0) or ends (at_end = 1) the
 * n bytes at s, or 0. order is the set in SQLite's order, for the slow
 * path. */
static size_t trim_match(const trim_set *t, const set_char *order, size_t n_order,
                         const unsigned char *s, size_t n, int at_end)
{
    if (t->fast) {
        for (size_t k = 0; k < t->n_lengths; k++) {
            size_t len = t->lengths[k];
            if (len <= n && trim_set_has(t, at_end ? s + n - len : s, len))
                return len;
        }
        return 0;
    }
    for (size_t i = 0; i < n_order; i++) {
        size_t len = order[i].len;
        if (len <= n && memcmp(at_end ? s + n - len : s, order[i].bytes, len) == 0)
            return len;
    }
    return 0;
}

static void guard_trim(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
        return;
    const unsigned char *in = sqlite3_value_text(argv[0]);
    if (!in)
        return;
    size_t n_in = (size_t)sqlite3_value_bytes(argv[0]);
    const unsigned char *set = sqlite3_value_text(argv[1]);
    if (!set)
        return;
    size_t set_bytes = strlen((const char *)set);
    trim_set t = {sqlite3_malloc64((set_bytes + 1) * sizeof(set_char)), 0, {0}, 0, 0};
    set_char *order = sqlite3_malloc64((set_bytes + 1) * sizeof(set_char));
    if (!t.chars || !order) {
        sqlite3_free(t.chars);
        sqlite3_free(order);
        sqlite3_result_error_nomem(ctx);
        return;
    }
    size_t n_order = split_set(set, order);
    memcpy(t.chars, order, n_order * sizeof *order);
    t.n = n_order;
    trim_set_prepare(&t);
    if (!t.fast && (uint64_t)n_order * n_in > SQLITE_GUARD_TRIM_BUDGET) {
        sqlite3_free(t.chars);
        sqlite3_free(order);
        sqlite3_result_error(ctx, "trim: the character set is too large for this value", -1);
        return;
    }
    int flags = (int)(intptr_t)sqlite3_user_data(ctx);
    size_t len;
    if (n_order > 0 && (flags & TRIM_LEFT))
        while (n_in > 0 && (len = trim_match(&t, order, n_order, in, n_in, 0)) > 0) {
            in += len;
            n_in -= len;
        }
    if (n_order > 0 && (flags & TRIM_RIGHT))
        while (n_in > 0 && (len = trim_match(&t, order, n_order, in, n_in, 1)) > 0)
            n_in -= len;
    sqlite3_free(t.chars);
    sqlite3_free(order);
    sqlite3_result_text64(ctx, (const char *)in, n_in, SQLITE_TRANSIENT, SQLITE_UTF8);
}

int sqlite_guard_register(sqlite3 *db)
{
    static const struct {
        const char *name;
        int args;
        intptr_t flags;
        void (*fn)(sqlite3_context *, int, sqlite3_value **);
    } functions[] = {
        {"instr", 2, 0, guard_instr},
        {"replace", 3, 0, guard_replace},
        {"trim", 2, TRIM_LEFT | TRIM_RIGHT, guard_trim},
        {"ltrim", 2, TRIM_LEFT, guard_trim},
        {"rtrim", 2, TRIM_RIGHT, guard_trim},
    };
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        int rc = sqlite3_create_function_v2(db, functions[i].name, functions[i].args,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            (void *)functions[i].flags, functions[i].fn, NULL, NULL,
                                            NULL);
        if (rc != SQLITE_OK)
            return rc;
    }
    return SQLITE_OK;
}
