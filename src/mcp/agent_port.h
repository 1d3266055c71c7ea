/*
 * agent_port.h — the agent loop's door into the MCP server: tools/list and
 * tools/call for an interface, executed by mcp_handle exactly as a
 * `dbmcp call` or an MCP client's call is (validation, policy, caps, audit
 * with transport "agent" and the model's name), plus a catalog connection
 * for the orchestrator's own tables.
 *
 * The agent layer sits below mcp/ and cannot call it; the CLI and the HTTP
 * transport pass these functions to agent_chat (agent/run.h) instead.
 *
 * Ownership: mcp_agent_ports is the caller's (stack is fine) and must
 * outlive the run; ports opened with mcp_agent_port_open are closed with
 * mcp_agent_port_close; mcp_agent_open_catalog returns a handle the caller
 * closes with store_close.
 */
#ifndef DBMCP_MCP_AGENT_PORT_H
#define DBMCP_MCP_AGENT_PORT_H

#include "agent/loop.h"
#include "mcp/server.h"
#include "store/store.h"

/* What every port of one run shares: the server and the caller's identity
 * (its interface is replaced by the plan's when a port opens). */
typedef struct mcp_agent_ports {
    mcp_server *srv;
    mcp_identity who;
} mcp_agent_ports;

/* agent_port_open_fn: ctx is a mcp_agent_ports. The interface must exist
 * and be enabled (DBMCP_ENOTFOUND otherwise). */
int mcp_agent_port_open(void *ctx, const char *interface, agent_tool_port *out, dbmcp_error *err);
/* agent_port_close_fn. */
void mcp_agent_port_close(void *ctx, agent_tool_port *port);

/* A new read-write connection to the server's database (busy timeout
 * 5 s), for one chat run on one thread. */
int mcp_agent_open_catalog(mcp_server *srv, store **out, dbmcp_error *err);

#endif
