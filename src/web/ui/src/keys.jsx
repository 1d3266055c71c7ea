// keys.jsx — API keys: create (the secret is shown once, here), list with
// last use, revoke (with a second click to confirm; no browser dialogs).
import { useEffect, useState } from 'preact/hooks';
import { get, post } from './api.js';
import { oneLine } from './text.js';

export function Keys() {
  const [keys, setKeys] = useState(null);
  const [interfaces, setInterfaces] = useState([]);
  const [form, setForm] = useState({ interface: 'default', principal: '', description: '', admin: false });
  const [created, setCreated] = useState(null);
  const [confirming, setConfirming] = useState(null);
  const [error, setError] = useState('');
  const load = () => get('keys').then((d) => setKeys(d.items), (e) => setError(e.message));
  useEffect(() => {
    load();
    get('catalog/interfaces').then((d) => setInterfaces(d.items), () => {});
  }, []);
  const field = (name) => (e) =>
    setForm({ ...form, [name]: e.target.type === 'checkbox' ? e.target.checked : e.target.value });
  const create = async (e) => {
    e.preventDefault();
    setError('');
    try {
      setCreated(await post('keys', form));
      setForm({ ...form, principal: '', description: '', admin: false });
      await load();
    } catch (err) {
      setError(err.message);
    }
  };
  const revoke = async (id) => {
    setError('');
    setConfirming(null);
    try {
      await post('keys/revoke', { id });
      await load();
    } catch (err) {
      setError(err.message);
    }
  };
  return (
    <section>
      <h2>API keys</h2>
      <form class="row" onSubmit={create} aria-label="Create a key">
        <label for="key-interface">
          Interface
          <select id="key-interface" value={form.interface} onChange={field('interface')}>
            {interfaces.map((i) => (
              <option key={i.key} value={i.key}>{oneLine(i.key)}</option>
            ))}
          </select>
        </label>
        <label for="key-principal">
          Principal
          <input id="key-principal" value={form.principal} onInput={field('principal')} placeholder="(the interface)" />
        </label>
        <label for="key-description">
          Description
          <input id="key-description" value={form.description} onInput={field('description')} />
        </label>
        <label class="check" for="key-admin">
          <input id="key-admin" type="checkbox" checked={form.admin} onChange={field('admin')} />
          Admin (may open this console)
        </label>
        <button class="primary" type="submit">Create key</button>
      </form>
      {created && (
        <div class="notice" role="status">
          <p>
            Key <code>{created.id}</code> created. Copy it now: it is shown only once.
          </p>
          <pre id="created-key">{created.key}</pre>
          <button type="button" onClick={() => setCreated(null)}>Done</button>
        </div>
      )}
      {error && <p class="error" role="alert">{error}</p>}
      {keys === null ? (
        <p class="loading">Loading…</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>ID</th><th>Principal</th><th>Interface</th><th>Role</th><th>Description</th>
              <th>Created</th><th>Last used</th><th>Status</th><th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} data-key={k.id}>
                <td class="mono">{k.id}</td>
                <td>{oneLine(k.principal)}</td>
                <td>{oneLine(k.interface)}</td>
                <td>{k.role}</td>
                <td>{oneLine(k.description)}</td>
                <td>{k.created_at}</td>
                <td>{k.last_used_at || '—'}</td>
                <td class={k.revoked_at ? 'off' : 'on'}>{k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}</td>
                <td>
                  {!k.revoked_at &&
                    (confirming === k.id ? (
                      <button type="button" class="danger" onClick={() => revoke(k.id)}>
                        Confirm revoke {k.id}
                      </button>
                    ) : (
                      <button type="button" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.id}`}>
                        Revoke
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
