// main.jsx — the console's shell: login, navigation by URL hash
// (#/catalog/tools, #/keys, #/audit, #/audit/CALL_ID) and the pages.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, post, setCsrf, whenLoggedOut } from './api.js';
import { Catalog } from './catalog.jsx';
import { Keys } from './keys.jsx';
import { Audit, AuditCall } from './audit.jsx';
import { oneLine } from './text.js';

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/catalog/tools');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/catalog/tools');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function Login({ onLogin }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    setError('');
    try {
      onLogin(await post('login', { key: key.trim() }));
    } catch (err) {
      setError(err.message);
    }
  };
  return (
    <main class="login">
      <h2>dbmcp console</h2>
      <form onSubmit={submit}>
        <label for="login-key">
          Admin API key
          <input id="login-key" name="key" type="password" autocomplete="off" required
            value={key} onInput={(e) => setKey(e.target.value)} />
        </label>
        <p>Create one with <code>dbmcp keys create --admin</code>.</p>
        <button class="primary" type="submit">Log in</button>
        {error && <p class="error" role="alert">{error}</p>}
      </form>
    </main>
  );
}

function Nav({ hash, session, onLogout }) {
  const link = (href, text) => (
    <a href={href} aria-current={hash.startsWith(href) ? 'page' : undefined}>{text}</a>
  );
  return (
    <header>
      <h1>dbmcp console</h1>
      <nav aria-label="Pages">
        {link('#/catalog', 'Catalog')}
        {link('#/keys', 'Keys')}
        {link('#/audit', 'Audit')}
      </nav>
      <span class="who">{oneLine(session.principal)}</span>
      <button type="button" onClick={onLogout}>Log out</button>
    </header>
  );
}

function Page({ hash }) {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'keys') return <Keys />;
  if (parts[0] === 'audit' && parts[1]) return <AuditCall callId={decodeURIComponent(parts[1])} />;
  if (parts[0] === 'audit') return <Audit />;
  return <Catalog kind={parts[1] || 'tools'} />;
}

function App() {
  const hash = useHash();
  const [session, setSession] = useState(undefined);
  const adopt = (s) => {
    setCsrf(s && s.csrf_token);
    setSession(s);
  };
  useEffect(() => {
    whenLoggedOut(() => adopt(null));
    get('session').then((s) => adopt(s.authenticated ? s : null), () => adopt(null));
  }, []);
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (!session) return <Login onLogin={adopt} />;
  const logout = async () => {
    try {
      await post('logout');
    } finally {
      adopt(null);
    }
  };
  return (
    <>
      <Nav hash={hash} session={session} onLogout={logout} />
      <main>
        <Page hash={hash} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app'));
