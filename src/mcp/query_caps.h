/*
 * query_caps.h — how many agent queries (execute_query, SQL report tools,
 * `sql` resource templates) run at once, in all and per caller. A call
 * past a cap is refused at once instead of queueing for a query
 * connection, so one caller's slow queries cannot hold up another's.
 *
 * The caps themselves are settings read on every call
 * (`query.max_concurrent`, `query.max_concurrent_per_key`); this module
 * only counts. Thread-safe.
 */
#ifndef DBMCP_MCP_QUERY_CAPS_H
#define DBMCP_MCP_QUERY_CAPS_H

typedef struct query_caps query_caps;

/* Defaults and bounds of the two settings. */
#define QUERY_CAPS_TOTAL_DEFAULT 8
#define QUERY_CAPS_PER_KEY_DEFAULT 4
#define QUERY_CAPS_MAX 10000

/* Which cap refused a query. */
typedef enum query_caps_verdict {
    QUERY_CAPS_OK = 0,
    QUERY_CAPS_KEY_FULL,   /* the caller runs max_per_key queries already */
    QUERY_CAPS_TOTAL_FULL, /* the server runs max_total queries already */
} query_caps_verdict;

/* NULL when out of memory. */
query_caps *query_caps_create(void);
/* NULL is a no-op; no query may be running. */
void query_caps_free(query_caps *c);
/* Count one more query for `caller` (an API key id, or a principal) if
 * both caps allow it; otherwise count nothing and say which cap is full.
 * Caps below 1 count as 1. Every QUERY_CAPS_OK needs one query_caps_leave. */
query_caps_verdict query_caps_enter(query_caps *c, const char *caller, long max_total,
                                    long max_per_key);
void query_caps_leave(query_caps *c, const char *caller);
/* Queries running now, in all (caller NULL) or for one caller. */
int query_caps_running(query_caps *c, const char *caller);

#endif
