// catalog.jsx — interfaces, tools, prompts, resources and templates:
// list, filter, enable/disable, membership. Changes go through the API
// (the CLI's store functions, audited); MCP clients get list_changed.
import { useEffect, useState } from 'preact/hooks';
import { get, post } from './api.js';
import { oneLine, visible } from './text.js';

const KINDS = [
  ['tools', 'Tools'],
  ['prompts', 'Prompts'],
  ['resources', 'Resources'],
  ['templates', 'Templates'],
  ['interfaces', 'Interfaces'],
];

function Membership({ kind, row, interfaces, onSaved }) {
  const [chosen, setChosen] = useState(new Set(row.interfaces));
  const [error, setError] = useState('');
  const toggle = (name) => {
    const next = new Set(chosen);
    next.has(name) ? next.delete(name) : next.add(name);
    setChosen(next);
  };
  const save = async () => {
    try {
      await post(`catalog/${kind}/membership`, { key: row.key, interfaces: [...chosen] });
      onSaved();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <div class="members" role="group" aria-label={`Interfaces of ${oneLine(row.key)}`}>
      {interfaces.map((i) => (
        <label class="check" key={i.key}>
          <input type="checkbox" checked={chosen.has(i.key)} onChange={() => toggle(i.key)} />
          {oneLine(i.key)}
        </label>
      ))}
      <button type="button" onClick={save}>Save membership</button>
      {error && <span class="error" role="alert">{error}</span>}
    </div>
  );
}

export function Catalog({ kind }) {
  const [rows, setRows] = useState(null);
  const [interfaces, setInterfaces] = useState([]);
  const [filter, setFilter] = useState('');
  const [editing, setEditing] = useState(null);
  const [error, setError] = useState('');
  const load = () =>
    get(`catalog/${kind}`).then(
      (d) => setRows(d.items),
      (e) => setError(e.message),
    );
  useEffect(() => {
    setRows(null);
    setEditing(null);
    setError('');
    load();
    get('catalog/interfaces').then((d) => setInterfaces(d.items), () => {});
  }, [kind]);
  const setEnabled = async (row, enabled) => {
    setError('');
    try {
      await post(`catalog/${kind}/enabled`, { key: row.key, enabled });
      await load();
    } catch (e) {
      setError(e.message);
    }
  };
  const f = filter.toLowerCase();
  const shown = (rows || []).filter(
    (r) => !f || r.key.toLowerCase().includes(f) || (r.description || '').toLowerCase().includes(f),
  );
  return (
    <section>
      <h2>Catalog</h2>
      <nav class="tabs" aria-label="Catalog kinds">
        {KINDS.map(([k, label]) => (
          <a key={k} href={`#/catalog/${k}`} aria-current={k === kind ? 'page' : undefined}>{label}</a>
        ))}
      </nav>
      <div class="row">
        <label for="catalog-filter">
          Filter
          <input id="catalog-filter" type="search" value={filter} onInput={(e) => setFilter(e.target.value)} />
        </label>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {rows === null ? (
        <p class="loading">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>{kind === 'resources' ? 'URI' : kind === 'templates' ? 'URI template' : 'Name'}</th>
              <th>Title</th>
              <th>Description</th>
              {kind !== 'interfaces' && <th>Interfaces</th>}
              <th>State</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.key} data-key={r.key}>
                <td class="mono">{oneLine(r.key)}</td>
                <td>{oneLine(r.title)}</td>
                <td class="desc">{visible(r.description)}</td>
                {kind !== 'interfaces' && (
                  <td>
                    {[...r.interfaces, ...r.by_pattern.map((p) => p + ' (pattern)')].map(oneLine).join(', ') || '—'}
                    {editing === r.key && (
                      <Membership kind={kind} row={r} interfaces={interfaces}
                        onSaved={() => { setEditing(null); load(); }} />
                    )}
                  </td>
                )}
                <td class={r.enabled ? 'on' : 'off'}>{r.enabled ? 'enabled' : 'disabled'}</td>
                <td>
                  <button type="button" onClick={() => setEnabled(r, !r.enabled)}
                    aria-label={`${r.enabled ? 'Disable' : 'Enable'} ${oneLine(r.key)}`}>
                    {r.enabled ? 'Disable' : 'Enable'}
                  </button>{' '}
                  {kind !== 'interfaces' && (
                    <button type="button" onClick={() => setEditing(editing === r.key ? null : r.key)}
                      aria-label={`Membership of ${oneLine(r.key)}`}>
                      Membership
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
