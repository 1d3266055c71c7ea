/*
 * cmd_memory.c — upkeep of agent memory from the command line:
 * `dbmcp memory compact` (expiry, retention, pruning; memory/compact.h) and
 * `dbmcp memory jobs` (the durable embedding queue; memory/worker.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "agent/memory_summary.h"
#include "cli/cli.h"
#include "memory/compact.h"
#include "memory/memory.h"
#include "memory/recall.h"
#include "memory/worker.h"
#include "store/memory_store.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (default $DBMCP_DB or ./dbmcp.db)"                                 \
    }

static int run_memory_compact(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    mem_config cfg;
    mem_config_load(db, &cfg);
    mem_compact_stats st;
    dbmcp_error err;
    mem_compact_set_summarizer(agent_memory_summary); /* when a provider is configured */
    int rc = mem_compact(db, &cfg, &st, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    if (st.busy_with[0]) {
        printf("nothing done: replica %s is compacting this database now\n",
               cli_safe(st.busy_with));
        return CLI_OK;
    }
    printf("sessions expired into episodes: %lld\n", (long long)st.sessions_expired);
    printf("empty sessions closed:          %lld\n", (long long)st.sessions_empty);
    printf("episodes past retention:        %lld (raw messages dropped: %lld)\n",
           (long long)st.episodes_compacted, (long long)st.messages_dropped);
    printf("knowledge versions pruned:      %lld\n", (long long)st.knowledge_pruned);
    return CLI_OK;
}

static const cli_flag_spec compact_flags[] = {DB_FLAG, {NULL, NULL, NULL}};

const cli_command cli_cmd_memory_compact = {
    "memory compact",
    "Turn expired sessions into episodes, apply retention, prune old knowledge versions",
    "[--db PATH]",
    "Steps, each in its own transactions (a crash loses nothing; run it again):\n"
    "  1. sessions idle longer than memory.session_idle_s (default 1800) become episodes\n"
    "     with a summary, linked derived_from to the session: the LLM's when a provider\n"
    "     is configured (DBMCP_LLM_* / llm.*; prompt memory.summary_prompt, memory_summary\n"
    "     or context_summary), else or on any LLM error an extractive one;\n"
    "  2. episodes older than memory.episode_retention_s keep description and summary,\n"
    "     their session's raw messages are dropped;\n"
    "  3. closed knowledge versions beyond memory.knowledge_keep_versions per key (and\n"
    "     older than memory.knowledge_retention_s when set) are deleted.\n"
    "`dbmcp serve` runs the same every memory.compact_interval_s seconds (0 = never).\n"
    "One process compacts a database at a time (a lease in the database): while a\n"
    "replica does, this command says so and does nothing.",
    0,
    0,
    compact_flags,
    run_memory_compact,
};

static int print_job(void *ctx, store_stmt *row)
{
    (void)ctx;
    const char *err = store_column_text(row, 5);
    printf("%-10lld %-10s %-16s %-16s %-8lld %-25s %s", (long long)store_column_int(row, 0),
           cli_safe(store_column_text(row, 6)), cli_safe(store_column_text(row, 1)),
           cli_safe(store_column_text(row, 2)), (long long)store_column_int(row, 3),
           cli_safe(store_column_text(row, 4)), err ? cli_safe(err) : "-");
    const char *by = store_column_text(row, 7);
    if (by) /* claimed by a replica (maybe a dead one: taken again after the time) */
        printf("  [claimed by %s until %s]", cli_safe(by), cli_safe(store_column_text(row, 8)));
    putchar('\n');
    return 0;
}

static int run_memory_jobs(cli_args *a)
{
    int limit = 20;
    if (cli_int_flag(a, "limit", 1, 1000000, &limit))
        return CLI_USAGE;
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    int rc = 0;
    if (cli_flag(a, "run")) {
        mem_config cfg;
        mem_config_load(db, &cfg);
        int done = 0, failed = 0;
        rc = mem_jobs_run(db, &cfg, 0, &done, &failed, &err);
        if (rc == 0 && done)
            rc = mem_jobs_publish(db, &err);
        if (rc == 0)
            printf("embedded %d items, %d failed (retried later with backoff)\n", done, failed);
    }
    int64_t pending = 0, retrying = 0, vectors = 0;
    if (rc == 0)
        rc = mstore_jobs_stats(db, NULL, NULL, &pending, &retrying, &vectors, &err);
    if (rc == 0) {
        printf("pending jobs: %lld (of which failed before: %lld); vectors stored: %lld\n",
               (long long)pending, (long long)retrying, (long long)vectors);
        if (pending) {
            printf("%-10s %-10s %-16s %-16s %-8s %-25s %s\n", "ITEM", "TIER", "USER", "AGENT",
                   "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR");
            rc = mstore_jobs_list_all_scopes(db, limit, print_job, NULL, &err);
        }
    }
    mem_embedder_reset();
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec jobs_flags[] = {
    DB_FLAG,
    {"run", NULL, "embed every due job now with the configured embedder (settings embed.*)"},
    {"limit", "N", "jobs listed (default 20)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_memory_jobs = {
    "memory jobs",
    "Show (and with --run, process) pending memory embedding jobs",
    "[--run] [--limit N] [--db PATH]",
    "Every memory write queues its new text in dbmcp_mem_jobs in the same transaction;\n"
    "the worker thread of `dbmcp serve` embeds them in the background, retrying failures\n"
    "with exponential backoff (memory.job_backoff_s, memory.job_max_attempts). Until an\n"
    "item is embedded it is found by keyword.",
    0,
    0,
    jobs_flags,
    run_memory_jobs,
};
