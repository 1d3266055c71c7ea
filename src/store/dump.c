/*
 * dump.c — the tables and rows `dbmcp dump` prints (see dump.h). The list
 * of objects is the one statement that differs between the engines
 * (DIALECT_DUMP_OBJECTS); reading a table is SELECT * in either.
 */
#include "store/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/dialect.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(((const dump_object *)a)->name, ((const dump_object *)b)->name);
}

static dump_kind kind_of(const char *s)
{
    if (s && strcmp(s, "view") == 0)
        return DUMP_VIEW;
    if (s && strcmp(s, "virtual") == 0)
        return DUMP_VIRTUAL;
    return DUMP_TABLE;
}

/* Append one object to *v (grown as needed). */
static int objects_add(dump_object **v, size_t *n, size_t *cap, const char *name, dump_kind kind,
                       dbmcp_error *err)
{
    if (*n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 32;
        dump_object *grown = realloc(*v, grown_cap * sizeof *grown);
        if (!grown)
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        *v = grown;
        *cap = grown_cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    (*v)[(*n)++] = (dump_object){copy, kind};
    return 0;
}

int dump_objects_list(store *db, dump_object **out, size_t *n, dbmcp_error *err)
{
    *out = NULL;
    *n = 0;
    char sql[512];
    int rc = dialect_format(db, DIALECT_DUMP_OBJECTS, sql, sizeof sql, err);
    store_stmt *st = NULL;
    if (!rc)
        rc = store_prepare(db, sql, &st, err);
    dump_object *v = NULL;
    size_t count = 0, cap = 0;
    while (!rc && (rc = store_step(st, err)) == STORE_ROW) {
        const char *name = store_column_text(st, 0);
        rc = name ? objects_add(&v, &count, &cap, name, kind_of(store_column_text(st, 1)), err) : 0;
    }
    store_finalize(st);
    if (rc < 0) {
        dump_objects_free(v, count);
        return rc;
    }
    if (count)
        qsort(v, count, sizeof *v, by_name);
    *out = v;
    *n = count;
    return 0;
}

void dump_objects_free(dump_object *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

int dump_table_scan(store *db, const char *name, store_stmt **out, dbmcp_error *err)
{
    *out = NULL;
    char *quoted = store_ident_quote(name), *sql = NULL;
    if (!quoted || asprintf(&sql, "SELECT * FROM %s", quoted) < 0) {
        free(quoted);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    free(quoted);
    int rc = store_prepare(db, sql, out, err);
    free(sql);
    return rc;
}
