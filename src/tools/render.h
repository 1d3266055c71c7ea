/*
 * render.h — turning query results into what an agent reads: one compact
 * markdown table plus a metadata line (seed 001, stages 6 and 7).
 *
 * Cells: NULL is shown as `NULL` (distinct from the string "NULL", which is
 * shown as `"NULL"`); BLOBs as `<binary N bytes>`, except blobs in a column
 * declared as a vector (declared type containing VECTOR, e.g. `VECTOR(384)`
 * or `F32_BLOB(384)`: float32 elements) shown as `<VECTOR(d)>` with
 * d = bytes / 4; text longer than
 * cell_max characters is cut at a character boundary with `…`; `|`,
 * newlines, carriage returns and tabs are escaped (`\|`, `\n`, `\r`, `\t`),
 * so no value can fake table structure; invalid UTF-8 is replaced by
 * U+FFFD so the output is always valid UTF-8. Column names get the same
 * treatment.
 *
 * The table is capped at max_rows rows and byte_cap bytes: whole rows are
 * dropped, never part of a row or an escape, and the metadata line says
 * so. One more row than shown is fetched to know whether more exist.
 *
 * Ownership: render_table_finish returns a malloc'd string the caller
 * frees; the render_table struct owns its buffer until then.
 */
#ifndef DBMCP_TOOLS_RENDER_H
#define DBMCP_TOOLS_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct render_limits {
    int max_rows;    /* rows shown (default 25) */
    size_t cell_max; /* characters per cell before truncation (default 500) */
    size_t byte_cap; /* bytes of the whole table text (default 256 KiB) */
} render_limits;

typedef struct render_table {
    render_limits limits;
    char *buf; /* table text so far (owned) */
    size_t len, cap;
    int columns;     /* set from the first row */
    int64_t rows;    /* rows rendered */
    int more_rows;   /* a row beyond max_rows exists */
    int byte_capped; /* rows were dropped to stay under byte_cap */
    int oom;         /* allocation failed: output incomplete */
} render_table;

/* Defaults: 25 rows, 500 characters, 256 KiB. */
render_limits render_limits_default(void);
void render_table_init(render_table *t, render_limits limits);
/* Consume a prepared, bound statement: step it, render header and rows
 * within the limits, fetching at most max_rows + 1 rows. Returns 0 or the
 * store error (err filled). cancelled (may be NULL) is polled per row. */
int render_table_from_stmt(render_table *t, store_stmt *st, volatile int *cancelled,
                           dbmcp_error *err);
/* Append the metadata line ("25 rows shown, more exist · 3.2 ms" …) and
 * return the whole text; the struct is reset. elapsed_ms < 0 omits timing. */
char *render_table_finish(render_table *t, double elapsed_ms);
void render_table_free(render_table *t);

/* Format one cell into out (NUL-terminated, at most out_size bytes; give
 * at least cell_max * 8 + 32 so nothing is cut); the building block above,
 * exposed for golden tests. decltype_ is the column's declared type (may
 * be NULL). Returns bytes written. */
size_t render_cell(store_type type, const char *decltype_, const void *data, size_t bytes,
                   size_t cell_max, char *out, size_t out_size);

#endif
