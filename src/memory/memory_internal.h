/*
 * memory_internal.h — pieces shared by the files of src/memory/ (memory.c,
 * working.c, episodes.c, knowledge.c, compact.c). Private to src/memory/.
 */
#ifndef DBMCP_MEMORY_INTERNAL_H
#define DBMCP_MEMORY_INTERNAL_H

#include "memory/memory.h"
#include "store/memory_store.h"

/* A session row of the scope, as mem_session_get reads it. */
typedef struct mem_session_row {
    char state[16]; /* "active" | "compacted" */
    char last_active_at[32];
    char context_hash[33];
    int64_t message_count;
} mem_session_row;

/* Read session id of the scope; DBMCP_ENOTFOUND "session_id: unknown
 * session …" when it is not there, DBMCP_EINVAL for a malformed id. */
int mem_session_get(store *db, const mem_scope *scope, const char *id, mem_session_row *row,
                    dbmcp_error *err);
/* NULL or a JSON object text of at most 16384 bytes ("metadata: …"). */
int mem_check_metadata(const char *text, dbmcp_error *err);

/* Store an episode (item, row, derived_from link to its session) inside
 * the caller's transaction; e's texts are already normalised and checked.
 * text is its searchable text (description + summary). */
int mem_episode_save_tx(store *db, const mem_scope *scope, const mstore_episode *e,
                        const char *text, int64_t *out_id, int *dedup, dbmcp_error *err);

#endif
