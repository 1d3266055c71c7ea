/*
 * render.h — turning query results into what an agent reads: one compact
 * markdown table plus a metadata line (seed 001, stages 6 and 7).
 *
 * Cells: NULL is shown as `NULL` (distinct from the string "NULL", which is
 * shown as `"NULL"`; a text that is NULL wrapped in k pairs of double quotes
 * gets k + 1 pairs, so the mapping stays one to one); BLOBs as
 * `<binary N bytes>`, except blobs in a vector column (store_column_kind
 * STORE_KIND_VECTOR, e.g. SQLite's `VECTOR(384)` or `F32_BLOB(384)`:
 * float32 elements) shown as `<VECTOR(d)>` with
 * d = bytes / 4 (a blob whose size is not a positive multiple of 4 stays
 * `<binary N bytes>`); integers and reals as the engine's own text, never
 * truncated; text longer than cell_max characters (code points) is cut at a
 * character boundary, moved back before a base character rather than
 * separating it from its combining marks, and ends with `…`. Escapes:
 * `|` → `\|`, newline → `\n`, carriage return → `\r`, tab → `\t`,
 * backslash → `\\`, any other control character (U+0000–U+001F, U+007F,
 * U+0080–U+009F) → `\xNN` (two lowercase hex digits of the code point), so
 * no value can fake table structure and every escape reads one way; invalid
 * UTF-8 is replaced by U+FFFD (one per maximal invalid subsequence, counted
 * as one character) so the output is always valid UTF-8. Column names get
 * the same treatment as text.
 *
 * The table is capped at max_rows rows and byte_cap bytes (the table lines;
 * the metadata line comes on top): whole rows are dropped, never part of a
 * row or an escape, and once a row is dropped every later one is too, so
 * the rows shown are always the first ones. If the header alone exceeds
 * byte_cap it is omitted too and the metadata line says so. One more row
 * than shown is fetched to know whether more exist; rows dropped for bytes
 * are still fetched (up to max_rows) so their number is exact.
 *
 * Output: the table (`| a | b |`, `| --- | --- |`, one line per row), a
 * blank line, then the metadata line, no trailing newline:
 *
 *   3 rows · 0.4 ms                         all rows, S = 1 says "1 row"
 *   0 rows                                  empty result (header still shown)
 *   25 rows shown (more exist) · 3.2 ms     max_rows reached
 *   12 rows shown, 40 dropped to stay under 262144 bytes
 *   12 rows shown, 40 dropped to stay under 262144 bytes (more exist)
 *   0 rows shown, 5 dropped and the header (180 bytes) omitted to stay under 100 bytes
 *   0 rows, header (180 bytes) omitted to stay under 100 bytes
 *
 * Ownership: render_table_finish returns a malloc'd string the caller
 * frees; the render_table struct owns its buffer until then.
 */
#ifndef DBMCP_TOOLS_RENDER_H
#define DBMCP_TOOLS_RENDER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct render_limits {
    int max_rows;    /* rows shown (default 25; < 0 counts as 0) */
    size_t cell_max; /* characters per cell before truncation (default 500) */
    size_t byte_cap; /* bytes of the whole table text (default 256 KiB) */
} render_limits;

typedef struct render_table {
    render_limits limits;
    char *buf; /* table text so far (owned) */
    size_t len, cap;
    int columns;     /* set after the first step */
    int64_t rows;    /* rows rendered */
    int more_rows;   /* a row beyond max_rows exists */
    int byte_capped; /* rows were dropped to stay under byte_cap */
    int oom;         /* allocation failed: output incomplete */
    /* Added after the first version; zeroed by render_table_init. */
    int64_t dropped_rows; /* rows within max_rows dropped to stay under byte_cap */
    size_t header_bytes;  /* size of the header and separator lines */
    int header_omitted;   /* the header alone exceeded byte_cap: no table shown */
} render_table;

/* Defaults: 25 rows, 500 characters, 256 KiB. */
render_limits render_limits_default(void);
void render_table_init(render_table *t, render_limits limits);
/* Consume a prepared, bound statement: step it, render header and rows
 * within the limits, fetching at most max_rows + 1 rows. One statement per
 * table. Returns 0 or the store error (err filled); DBMCP_ENOMEM when an
 * allocation failed; DBMCP_ETIMEOUT ("cancelled by the client") once
 * *cancelled is nonzero. cancelled (may be NULL) is polled before each
 * step. */
int render_table_from_stmt(render_table *t, store_stmt *st, atomic_int *cancelled,
                           dbmcp_error *err);
/* Append the metadata line (formats above) and return the whole text, or
 * NULL when an allocation failed; the struct is reset either way (limits
 * kept). elapsed_ms < 0 omits timing. */
char *render_table_finish(render_table *t, double elapsed_ms);
void render_table_free(render_table *t);

/* Format one cell into out (NUL-terminated, at most out_size bytes; give
 * at least cell_max * 8 + 32 so nothing is cut — what does not fit is left
 * out whole, never half an escape or character); the building block above,
 * exposed for golden tests. kind is the column's store_column_kind
 * (STORE_KIND_PLAIN for a value outside a result). data is the text (STORE_INTEGER, STORE_FLOAT,
 * STORE_TEXT, not NUL-terminated, bytes long); it is not read for STORE_NULL or STORE_BLOB. Returns
 * bytes written, the NUL excluded. */
size_t render_cell(store_type type, store_kind kind, const void *data, size_t bytes,
                   size_t cell_max, char *out, size_t out_size);

#endif
