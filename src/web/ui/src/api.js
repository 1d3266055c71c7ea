// api.js — the one way the console talks to dbmcp: fetch on the JSON API
// under /admin/api/v1/ (docs/console.md). Changes carry the session's CSRF
// token; a 401 means the session ended and sends the user to the login page.

const PREFIX = '/admin/api/v1/';
let csrf = '';
let onLoggedOut = () => {};

export function setCsrf(token) {
  csrf = token || '';
}

export function whenLoggedOut(fn) {
  onLoggedOut = fn;
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function call(method, route, body) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/json';
    headers['X-CSRF-Token'] = csrf;
  }
  const res = await fetch(PREFIX + route, {
    method,
    headers,
    credentials: 'same-origin',
    body: method === 'GET' ? undefined : JSON.stringify(body || {}),
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const e = (data && data.error) || {};
    if (res.status === 401 && route !== 'login') onLoggedOut();
    throw new ApiError(res.status, e.code || 'http', e.message || `HTTP ${res.status}`);
  }
  return data;
}

export const get = (route, params) => {
  const q = params
    ? '?' +
      Object.entries(params)
        .filter(([, v]) => v !== '' && v !== undefined && v !== null)
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&')
    : '';
  return call('GET', route + (q === '?' ? '' : q));
};
export const post = (route, body) => call('POST', route, body);
