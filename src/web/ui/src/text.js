// text.js — everything shown may have been written by an agent, a client
// or a document: it is rendered as text (Preact text nodes, never HTML),
// and control characters (ANSI escapes, newlines in names) are shown as
// visible escapes, as `dbmcp audit` does, so they cannot fake rows.

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function visible(s) {
  if (s === null || s === undefined) return '';
  const text = typeof s === 'string' ? s : JSON.stringify(s, null, 2);
  return text.replace(CONTROL, (ch) => {
    const n = ch.charCodeAt(0);
    return n < 0x80 ? '\\x' + n.toString(16).padStart(2, '0') : '\\u' + n.toString(16).padStart(4, '0');
  });
}

// A single-line form: newlines and tabs escaped too.
export function oneLine(s) {
  return visible(s).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}
