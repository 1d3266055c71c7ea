// audit.jsx — the audit log: filter by time, principal, tool and status;
// open one call with every column (the operator-only error detail too).
import { useEffect, useState } from 'preact/hooks';
import { get } from './api.js';
import { oneLine, visible } from './text.js';

const EMPTY = { since: '', until: '', principal: '', tool: '', status: '', limit: '100' };

export function Audit() {
  const [filter, setFilter] = useState(EMPTY);
  const [rows, setRows] = useState(null);
  const [error, setError] = useState('');
  const load = (f) => {
    setError('');
    get('audit', f).then((d) => setRows(d.items), (e) => setError(e.message));
  };
  useEffect(() => load(EMPTY), []);
  const field = (name) => (e) => setFilter({ ...filter, [name]: e.target.value });
  const submit = (e) => {
    e.preventDefault();
    load(filter);
  };
  const input = (name, label, type = 'text') => (
    <label for={`audit-${name}`}>
      {label}
      <input id={`audit-${name}`} type={type} value={filter[name]} onInput={field(name)} />
    </label>
  );
  return (
    <section>
      <h2>Audit</h2>
      <form class="row" onSubmit={submit} aria-label="Filter the audit">
        {input('since', 'Since (UTC, e.g. 2026-12-01T09:00)')}
        {input('until', 'Until (UTC)')}
        {input('principal', 'Principal')}
        {input('tool', 'Tool, URI or prompt')}
        <label for="audit-status">
          Status
          <select id="audit-status" value={filter.status} onChange={field('status')}>
            <option value="">any</option>
            <option value="ok">ok</option>
            <option value="error">error</option>
            <option value="denied">denied</option>
            <option value="cancelled">cancelled</option>
          </select>
        </label>
        {input('limit', 'Newest rows', 'number')}
        <button class="primary" type="submit">Filter</button>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      {rows === null ? (
        <p class="loading">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Time</th><th>Call</th><th>Principal</th><th>Client</th><th>Transport</th>
              <th>Method</th><th>Target</th><th>Status</th><th>ms</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.call_id + r.ts} data-call={r.call_id}>
                <td>{r.ts}</td>
                <td class="mono"><a href={`#/audit/${encodeURIComponent(r.call_id)}`}>{r.call_id.slice(0, 8)}</a></td>
                <td>{oneLine(r.principal)}</td>
                <td>{oneLine(r.client_name)}</td>
                <td>{r.transport}</td>
                <td>{oneLine(r.method)}</td>
                <td class="mono">{oneLine(r.target)}</td>
                <td class={`status-${r.status}`}>{r.status}</td>
                <td>{r.duration_ms.toFixed(1)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {rows && rows.length === 0 && <p>No audited calls match.</p>}
    </section>
  );
}

export function AuditCall({ callId }) {
  const [rows, setRows] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    get('audit', { call_id: callId }).then((d) => setRows(d.items), (e) => setError(e.message));
  }, [callId]);
  return (
    <section>
      <h2>Call {callId}</h2>
      <p><a href="#/audit">Back to the audit</a></p>
      {error && <p class="error" role="alert">{error}</p>}
      {rows && rows.length === 0 && <p>No audited call has this id.</p>}
      {(rows || []).map((r) => (
        <dl key={r.ts}>
          {Object.entries(r).map(([k, v]) => [
            <dt key={k + ':t'}>{k}</dt>,
            <dd key={k + ':d'} class={k === 'sql_text' || k === 'change' ? 'mono' : undefined}>
              {v === null ? '—' : visible(v)}
            </dd>,
          ])}
        </dl>
      ))}
    </section>
  );
}
