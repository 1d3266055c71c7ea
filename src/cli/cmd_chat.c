/*
 * cmd_chat.c — `dbmcp chat`: one chat run of the LLM orchestrator from the
 * shell (docs/orchestrator.md). Tools run through the server's dispatch
 * (transport "agent"), the chat lives in a working-memory session.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/run.h"
#include "cli/cli.h"
#include "core/curl_lib.h"
#include "mcp/agent_port.h"
#include "mcp/server.h"

static void print_result(const cli_args *a, const agent_chat_result *r)
{
    if (cli_flag(a, "json")) {
        json_t *j = agent_chat_result_json(r);
        char *dump = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
        printf("%s\n", dump ? dump : "{}");
        free(dump);
        json_decref(j);
        return;
    }
    printf("%s\n", r->answer ? r->answer : "");
    /* The operator runs the CLI: what went wrong, as the log has it. */
    size_t i;
    json_t *step;
    json_array_foreach (r->steps, i, step) {
        const char *status = json_string_value(json_object_get(step, "status"));
        const char *detail = json_string_value(json_object_get(step, "detail"));
        if (detail && status && (strcmp(status, "error") == 0 || strcmp(status, "limit") == 0))
            fprintf(stderr, "dbmcp chat: step %d failed: %s\n",
                    (int)json_integer_value(json_object_get(step, "step")), cli_safe(detail));
    }
    fprintf(stderr,
            "dbmcp chat: %s — session %s, run %s, plan %s (%s), %d LLM call%s, %d tool call%s\n",
            agent_status_name(r->status), r->session_id, r->run_id, r->plan ? r->plan : "-",
            r->selection ? r->selection : "-", r->llm_calls, r->llm_calls == 1 ? "" : "s",
            r->n_tool_calls, r->n_tool_calls == 1 ? "" : "s");
}

static int run_chat(cli_args *a)
{
    const char *message = a->argv[0];
    if (!*message)
        return cli_usage_error(a->cmd, "the message must not be empty");
    dbmcp_error lib_err;
    if (curl_lib_open(&lib_err) != 0) /* before any work: every chat calls an LLM */
        return cli_fail(&lib_err);
    mcp_server *srv = NULL;
    int rc = cli_make_server(a, &srv);
    if (rc)
        return rc;
    mcp_agent_ports ports;
    memset(&ports, 0, sizeof ports);
    ports.srv = srv;
    if ((rc = cli_local_identity(a, srv, &ports.who)) != CLI_OK) {
        mcp_server_free(srv);
        return rc;
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = NULL;
    if (mcp_agent_open_catalog(srv, &db, &err) != 0) {
        mcp_server_free(srv);
        return cli_fail(&err);
    }
    agent_env env = {db, NULL, mcp_agent_port_open, mcp_agent_port_close, &ports};
    agent_chat_request req = {0};
    req.message = message;
    req.session_id = cli_flag(a, "session");
    req.plan = cli_flag(a, "plan");
    req.interface = cli_flag(a, "interface");
    req.principal = ports.who.principal;
    req.user_id = ports.who.user_id;
    req.agent_id = ports.who.agent_id;
    req.transport = "cli";
    agent_chat_result res;
    rc = agent_chat(&env, &req, &res, &err);
    if (rc == 0) {
        print_result(a, &res);
        rc = res.status == AGENT_ANSWERED || res.status == AGENT_ASKED ? CLI_OK : CLI_FAIL;
    } else {
        rc = cli_fail(&err);
    }
    agent_chat_result_free(&res);
    store_close(db);
    mcp_server_free(srv);
    return rc;
}

static const cli_flag_spec chat_flags[] = {
    {"db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"},
    {"plan", "NAME", "use this execution plan instead of choosing one"},
    {"session", "ID", "continue this chat (a working-memory session of yours)"},
    {"interface", "NAME", "only consider plans of this interface"},
    {"principal", "NAME", "who is chatting (scope, audit); default $DBMCP_PRINCIPAL or `local`"},
    {"json", NULL,
     "print {run_id, session, status, answer, plan, steps, tool_calls, usage} as JSON"},
    {"query-db", "URI",
     "the query connection's database (also $DBMCP_QUERY_DB); PostgreSQL default: --db as the "
     "query role"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_chat = {
    "chat",
    "Ask the LLM orchestrator: plan selection, tool-calling loop, answer",
    "[--plan NAME] [--session ID] [--interface NAME] [--json] [--db PATH] MESSAGE",
    "Analyses MESSAGE (entity rules, thesaurus), chooses an execution plan (rules, vector\n"
    "similarity, or --plan), then runs the plan's steps: deterministic tool calls, the model's\n"
    "tool-calling loop through the same dispatch as MCP calls (policy, caps, audit), and saving\n"
    "the episode. A plan whose required entities are missing answers with a question, without\n"
    "calling the model. Prints the answer; the session id (for --session) goes to stderr.\n"
    "The model: DBMCP_LLM_URL, DBMCP_LLM_MODEL, DBMCP_LLM_PROVIDER, DBMCP_LLM_API_KEY_ENV (the\n"
    "NAME of the variable holding the key) or the llm.* settings; see docs/orchestrator.md.\n"
    "Exit status 0 for an answer or a question, 1 when a limit or an error ended the run.",
    1,
    1,
    chat_flags,
    run_chat,
};
