-- 0013: the W3C trace id of each audited request (issue #15, operations).
-- A request that names a trace (traceparent header or params._meta) keeps
-- it; with span export on (trace.otlp_endpoint) every request starts one
-- when it names none. Spans exported to a collector carry the same id, so
-- an audit row joins its trace: docs/operations.md, "Traces". NULL for
-- rows written before, and for requests without a trace.

ALTER TABLE dbmcp_audit ADD COLUMN trace_id TEXT;

CREATE INDEX dbmcp_audit_trace ON dbmcp_audit (trace_id) WHERE trace_id IS NOT NULL;
