/*
 * agent_port.c — tools/list and tools/call for the agent loop through the
 * server's one dispatch path (see agent_port.h).
 */
#include "mcp/agent_port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsonutil.h"
#include "mcp/internal.h"

typedef struct port_state {
    mcp_server *srv;
    mcp_session *session; /* transport "agent", the plan's interface */
    long next_id;
} port_state;

static json_t *port_list(void *ctx, dbmcp_error *err)
{
    port_state *p = ctx;
    catalog_snapshot *snap = mcp_snapshot_get(p->srv, p->session->who.interface, err);
    if (!snap)
        return NULL;
    json_t *tools = json_array();
    for (size_t i = 0; tools && i < snap->n_tools; i++) {
        const reg_tool *t = &snap->tools[i];
        json_array_append_new(tools, json_pack("{s:s, s:s, s:O}", "name", t->name, "description",
                                               t->description ? t->description : "", "inputSchema",
                                               t->input_schema));
    }
    catalog_snapshot_unref(snap);
    if (!tools)
        dbmcp_error_set(err, DBMCP_ENOMEM, "tools/list: out of memory");
    return tools;
}

static json_t *port_call(void *ctx, const char *name, json_t *args, const char *model,
                         dbmcp_error *err)
{
    port_state *p = ctx;
    json_t *req = json_pack("{s:s, s:I, s:s, s:{s:s, s:O}}", "jsonrpc", "2.0", "id",
                            (json_int_t)++p->next_id, "method", "tools/call", "params", "name",
                            name, "arguments", args ? args : json_object());
    char *text = req ? json_dump_compact(req) : NULL;
    json_decref(req);
    if (!text) {
        dbmcp_error_set(err, DBMCP_ENOMEM, "tools/call: out of memory");
        return NULL;
    }
    json_t *err_resp = NULL;
    jsonrpc_msg *msg = jsonrpc_parse(text, strlen(text), &err_resp);
    free(text);
    mcp_call_ctx cctx;
    memset(&cctx, 0, sizeof cctx);
    cctx.transport = "agent";
    cctx.model = model;
    json_t *resp = msg ? mcp_handle(p->srv, p->session, msg, &cctx) : err_resp;
    jsonrpc_msg_free(msg);
    json_t *result = json_object_get(resp, "result");
    json_t *error = json_object_get(resp, "error");
    json_t *out = NULL;
    if (result)
        out = json_incref(result);
    else
        dbmcp_error_set(err, DBMCP_EINVAL, "%s",
                        json_get_str(error, "message") ? json_get_str(error, "message")
                                                       : "the tool call was refused");
    json_decref(resp);
    return out;
}

int mcp_agent_port_open(void *ctx, const char *interface, agent_tool_port *out, dbmcp_error *err)
{
    mcp_agent_ports *ports = ctx;
    mcp_identity who = ports->who;
    snprintf(who.interface, sizeof who.interface, "%s", interface);
    catalog_snapshot *snap = mcp_snapshot_get(ports->srv, who.interface, err);
    if (!snap)
        return err->code ? err->code : DBMCP_ENOTFOUND;
    int enabled = snap->iface.enabled;
    catalog_snapshot_unref(snap);
    if (!enabled)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "interface '%s' is disabled", interface);
    port_state *p = calloc(1, sizeof *p);
    if (p)
        p->session = mcp_session_create(ports->srv, &who, "agent");
    if (!p || !p->session) {
        free(p);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "agent port: out of memory");
    }
    p->srv = ports->srv;
    out->list = port_list;
    out->call = port_call;
    out->ctx = p;
    return 0;
}

void mcp_agent_port_close(void *ctx, agent_tool_port *port)
{
    (void)ctx;
    port_state *p = port->ctx;
    if (!p)
        return;
    mcp_session_unref(p->session);
    free(p);
    port->ctx = NULL;
}

int mcp_agent_open_catalog(mcp_server *srv, store **out, dbmcp_error *err)
{
    int rc = store_open(srv->db_url, STORE_READWRITE, out, err);
    if (!rc)
        store_set_busy_timeout(*out, 5000);
    return rc;
}
