-- Audit rows of ad-hoc execute_query calls (and a few that must not count),
-- written as the server would.
INSERT INTO dbmcp_audit (call_id, ts, principal, transport, method, target, status, duration_ms, sql_text) VALUES
('c-region-1', '2026-11-01T10:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'SELECT region, sum(revenue) AS revenue FROM sales WHERE region = ''Nord'' AND sale_date >= ''2024-01-01'' GROUP BY region'),
('c-region-2', '2026-11-02T10:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'select region,sum(revenue) as revenue
   from sales where region=''Süd'' and sale_date>=''2025-01-01'' group by region -- by region'),
('c-region-3', '2026-11-03T10:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'SELECT region, sum(revenue) AS revenue FROM sales WHERE region = ''West'' AND sale_date >= ''2025-06-01'' GROUP BY region'),
('c-err-1', '2026-11-04T10:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'error', 5,
 'SELECT region, sum(revenue) AS revenue FROM sales WHERE region = ''Ost'' AND sale_date >= ''2025-06-01'' GROUP BY region'),
('c-top-1', '2026-11-02T12:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'SELECT product, quantity FROM sales WHERE quantity BETWEEN 5 AND 10 AND category IN (''Garten'', ''Büro'') ORDER BY 2 DESC LIMIT 5'),
('c-top-2', '2026-11-03T12:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'SELECT product, quantity FROM sales WHERE quantity BETWEEN 1 AND 3 AND category IN (''Haushalt'') ORDER BY 2 DESC LIMIT 20'),
('c-substr', '2026-11-01T08:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 'SELECT ''x'' AS tag, count(*) AS n FROM sales WHERE substr(sale_date, 1, 4) = ''2024'''),
('c-tagged', '2026-11-01T09:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 5,
 '/* dbmcp call_id=c-tagged tool=execute_query */ SELECT product FROM sales WHERE quantity > 3 LIMIT 10'),
('c-echo-1', '2026-11-01T07:00:00.000Z', 'local', 'cli', 'tools/call', 'echo', 'ok', 1, NULL),
('c-nosql-1', '2026-11-01T06:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 1, NULL),
('c-bad-1', '2026-10-01T06:00:00.000Z', 'local', 'cli', 'tools/call', 'execute_query', 'ok', 1,
 'SELECT * FROM no_such_table WHERE a = 1');
