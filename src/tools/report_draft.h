/*
 * report_draft.h — text work on audited SQL for promoting ad-hoc queries
 * to report tools: the grouping key behind `dbmcp audit top-queries`, and
 * the draft behind `dbmcp tools promote` (literals turned into named
 * parameters with an input schema). Pure functions over the SQL text: no
 * database access (the audit rows are read by store/registry_audit.c and
 * the draft is checked and saved by the CLI through the catalog admin path).
 *
 * The tokenizer knows SQLite's lexical rules: '…' strings (with ''),
 * "…", `…` and […] identifiers, x'…' blobs, numbers (with exponent, 0x
 * hex), parameters, -- and block comments; a minus sign directly before a
 * number where an operand is expected belongs to the literal.
 *
 * Ownership: returned strings are malloc'd (free); report_draft owns its
 * members (report_draft_free).
 */
#ifndef DBMCP_TOOLS_REPORT_DRAFT_H
#define DBMCP_TOOLS_REPORT_DRAFT_H

#include <jansson.h>

#include "core/error.h"

/* The grouping key of a query: comments dropped; tokens re-joined with
 * single spaces (none inside `f(`, `a.b`, before `,` and `)`); SQL keywords
 * upper-case and other unquoted words lower-case (both are
 * case-insensitive in SQL); every string, number and blob literal replaced
 * by `?`, and a comma-separated run of them folded into one `?`, so
 * `IN ('a', 'b')` and `IN ('c')` group together. NULL on allocation
 * failure. */
char *report_sql_normalize(const char *sql);

/* A draft report tool derived from one audited query. */
typedef struct report_draft {
    char *sql;            /* the query with literals replaced by :names */
    json_t *input_schema; /* {"type":"object","properties":{…},"additionalProperties":false} */
    int n_params;         /* parameters introduced */
} report_draft;

/* Turn the literals of the filtering clauses (WHERE, HAVING, JOIN … ON,
 * LIMIT, OFFSET; not the select list, GROUP BY or ORDER BY, nor arguments
 * of function calls) into named parameters. Names come from what the
 * literal is compared with — `region = 'Nord'` → :region, `x >= 5` → :x_min,
 * `d < '2025-01-01'` → :d_to, `x BETWEEN 1 AND 9` → :x_min/:x_max,
 * `x IN ('a', 'b')` → :x, :x_2, `LIMIT 10` → :limit — else :p1, :p2, …
 * Each parameter's schema has the literal's type (integer, number, string;
 * "format": "date" for ISO dates), the literal as "default" and in
 * "examples", and a description naming the comparison. A leading
 * `/ * dbmcp … * /` tag comment is dropped. */
int report_draft_from_sql(const char *sql, report_draft *out, dbmcp_error *err);
void report_draft_free(report_draft *d);

#endif
