#!/usr/bin/env node
// generate.mjs — writes the generated part of the repair corpus
// (tests/cases/repair/gen_*.json) from a fixed set of realistic valid
// payloads and seeded mutations. Deterministic: the same script gives the
// same files byte for byte, so `node tests/cases/repair/generate.mjs &&
// git diff tests/cases/repair` shows exactly what a change to it changes.
// No dependencies (Node >= 18). The judging rule the expected results
// follow is in README.md beside this file.
//
//   node tests/cases/repair/generate.mjs          # rewrite the gen_*.json files
//   node tests/cases/repair/generate.mjs --check  # exit 1 when they are stale
//
// It also writes every 25th generated input as a seed of the fuzz target
// (fuzz/corpus_repair/gen_*.txt).
import { readFileSync, writeFileSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';

const SEED = 20261202;
const here = dirname(fileURLToPath(import.meta.url));

// ---- seeded randomness (mulberry32) ----------------------------------------
let state = SEED >>> 0;
function random() {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const chance = (p) => random() < p;

// ---- the valid payloads -----------------------------------------------------
// What models are asked for in dbmcp: tool-call arguments for the SQL,
// search and memory tools, whole tool calls, final answers, plans; with
// German, Japanese and Chinese text, numbers of every shape and escapes.
const call = (name, args) => ({ name, arguments: args });
const PAYLOADS = [
  ['sql aggregate', call('execute_query', {
    sql: "SELECT region, SUM(amount) AS total FROM orders WHERE created_at >= '2024-01-01' GROUP BY region ORDER BY total DESC LIMIT 10",
    max_rows: 100,
  })],
  ['sql German identifiers', {
    sql: "SELECT kunde, straße, ort FROM kunden WHERE ort = 'München' AND umsatz > 1500.75",
    explain: false,
  }],
  ['sql quoted identifiers', {
    sql: 'SELECT "Kunden-Nr", "Auftragsdatum" FROM "Aufträge" WHERE "Status" = \'offen\'',
    timeout_ms: 5000,
  }],
  ['search with filters', call('search_documents', {
    query: 'Tarifvertrag Überstunden Zuschlag Nachtarbeit',
    filters: { lang: 'de', year: { gte: 2020, lte: 2024 }, tarifgebiet: 'Bayern' },
    top_k: 5,
    hybrid: true,
  })],
  ['search Chinese', {
    query: '北京 销售额 2023年 第四季度',
    limit: 20,
    fields: ['标题', '内容', '作者'],
    highlight: true,
    cursor: null,
  }],
  ['search Japanese', call('search_documents', {
    query: '東京都の売上データを地域別に教えてください',
    lang: 'ja',
    top_k: 3,
  })],
  ['memory save Japanese', call('memory_save', {
    kind: 'episode',
    text: 'ユーザーは東京と大阪の売上比較を希望している。',
    tags: ['sales', 'tokyo', 'osaka'],
    importance: 0.8,
  })],
  ['memory search German', call('memory_search', {
    query: 'Vorlieben des Nutzers für Berichte',
    k: 3,
    session: 's-2024-05-01',
    include_archived: false,
  })],
  ['escapes', {
    path: 'C:\\data\\exports\\q1.csv',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    note: 'He said "ok"\nthen left.\tDone',
  }],
  ['numbers', {
    lat: 48.137154,
    lon: 11.576124,
    radius_km: 2.5,
    delta: -3,
    ratio: 1.5e-7,
    big: 1234567890123,
    zero: 0,
    neg_frac: -0.25,
  }],
  ['literals', { include_archived: false, since: null, dry_run: true, cursor: null, verbose: true }],
  ['openai tool_calls', [
    {
      id: 'call_8fj2kd93',
      type: 'function',
      function: { name: 'execute_query', arguments: { sql: 'SELECT count(*) FROM orders', max_rows: 1 } },
    },
    {
      id: 'call_2kd9f8aa',
      type: 'function',
      function: { name: 'search_documents', arguments: { query: 'Rückerstattung Frist', top_k: 4 } },
    },
  ]],
  ['final answer German', {
    answer: 'Der Umsatz in Bayern stieg 2023 um 12 % auf 4,2 Mio. €.',
    sources: [{ id: 'doc-17', page: 3 }, { id: 'doc-42', page: 11 }],
    confidence: 0.82,
  }],
  ['weather call Zürich', call('get_weather', { city: 'Zürich', unit: 'celsius', days: 3 })],
  ['city list', ['Berlin', 'Hamburg', 'München', 'Köln', 'Frankfurt am Main']],
  ['plan', {
    steps: [
      { tool: 'execute_query', args: { sql: 'SELECT * FROM tarife WHERE gebiet = :g' }, why: 'Tarife laden' },
      { tool: 'summarize', args: { max_words: 120 }, why: 'Antwort kürzen' },
    ],
    reason: 'Two steps: fetch, then summarise.',
  }],
  ['emoji', { text: 'Great job 🎉 — keep going!', reaction: '👍', score: 5 }],
  ['deep nesting', { a: { b: { c: { d: [1, [2, [3, { e: 'tief' }]]] } } } }],
  ['empty containers', { rows: [], meta: {}, columns: [], note: '' }],
  ['table rows', {
    columns: ['id', 'name', 'amount'],
    rows: [[1, 'Anna', 12.5], [2, 'Bernd', 7], [3, 'Chen Wei 陈伟', -4.25], [4, 'Dora', null]],
    truncated: false,
  }],
  ['markdown in string', {
    summary: '## Ergebnis\n- Umsatz: 4,2 Mio. €\n- Wachstum: 12 %\n\n**Hinweis:** vorläufige Zahlen',
    format: 'markdown',
  }],
  ['http request', {
    url: 'https://api.example.com/v1/items?q=a%20b&page=2',
    method: 'GET',
    headers: { Accept: 'application/json', 'X-Request-Id': 'req-77c1' },
    retry: { max: 3, backoff_ms: 250 },
  }],
  ['report spec', call('create_report', {
    title: 'Q3-Bericht: Umsätze nach Region',
    chart: { type: 'bar', x: 'region', y: 'total', stacked: false },
    columns: [{ name: 'region', label: 'Region' }, { name: 'total', label: 'Summe (€)', format: '0.00' }],
  })],
  ['quotes in text', {
    title: 'Der Film "Metropolis" (1927)',
    comment: 'Kunde sagt "dringend", bitte heute erledigen',
    reply: 'Er sagte: "Ja"',
  }],
  ['apostrophes', { message: "It's the user's third request today", lang: 'en' }],
  ['long text', {
    text: 'Die Sitzung begann um 9:00 Uhr. Es wurden drei Punkte besprochen: erstens das Budget, zweitens die Personalplanung und drittens der Zeitplan für die Migration der Datenbank.',
    words: 29,
  }],
];

// ---- serialisation with styles ------------------------------------------------
// ser(value, style) writes value the way a model might: style.layout is
// 'compact' (JSON.stringify), 'spaced' ({"a": 1, "b": 2}) or 'pretty'
// (two-space indent); the other style fields are the syntax mutations.
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function jsonEscape(s, st) {
  let out = JSON.stringify(s).slice(1, -1);
  if (st.asciiOnly)
    out = out.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  if (st.rawControl) out = out.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
  if (st.innerQuotes) out = out.replace(/\\"/g, '"');
  return out;
}

function quoteString(s, st, isKey) {
  if (isKey && st.unquotedKeys && IDENT.test(s)) return s;
  switch (st.quotes || 'double') {
    case 'single': // JavaScript style: ' escaped as \'
      return "'" + jsonEscape(s, st).replace(/\\"/g, '"').replace(/'/g, "\\'") + "'";
    case 'python': { // repr(): single quotes unless the text holds one
      const body = jsonEscape(s, st).replace(/\\"/g, '"');
      if (s.includes("'") && !s.includes('"')) return '"' + body + '"';
      return "'" + body.replace(/'/g, "\\'") + "'";
    }
    case 'typographic':
      return '\u201c' + jsonEscape(s, st) + '\u201d';
    default:
      return '"' + jsonEscape(s, st) + '"';
  }
}

function serString(s, st) {
  if (st.concat && s.length > 40) {
    const cut = s.indexOf(' ', Math.floor(s.length / 2));
    if (cut > 0) {
      const glue = st.layout === 'pretty' ? ' +\n    ' : ' + ';
      return quoteString(s.slice(0, cut + 1), st, false) + glue + quoteString(s.slice(cut + 1), st, false);
    }
  }
  return quoteString(s, st, false);
}

function serScalar(v, st) {
  if (v === null && st.nan) return pick(['NaN', 'undefined']);
  if (v === null) return st.python ? 'None' : 'null';
  if (v === true) return st.python ? 'True' : 'true';
  if (v === false) return st.python ? 'False' : 'false';
  if (typeof v === 'number') return JSON.stringify(v);
  return serString(v, st);
}

// The separator between items i and i+1 of a container, with the comma and
// comment mutations; pad is the line break and indent of the next item.
function separator(st, pad) {
  let sep = st.missingComma && chance(0.6) ? (pad ? '' : ' ') : ',';
  if (sep === ',' && st.extraComma && chance(0.3)) sep = ',,';
  if (st.comments && chance(0.35)) sep += pad ? ' // ' + pick(COMMENTS) : ' /* ' + pick(COMMENTS) + ' */';
  return sep + (pad || (st.layout === 'compact' ? '' : ' '));
}
const COMMENTS = ['the filter', 'siehe oben', 'optional', 'TODO: check', 'in EUR', '単位: 円', 'default'];

function ser(v, st, depth = 0) {
  if (v === null || typeof v !== 'object') return serScalar(v, st);
  const pretty = st.layout === 'pretty';
  const pad = pretty ? '\n' + '  '.repeat(depth + 1) : '';
  const endPad = pretty ? '\n' + '  '.repeat(depth) : '';
  const isArray = Array.isArray(v);
  const items = isArray
    ? v.map((x) => ser(x, st, depth + 1))
    : Object.entries(v).map(([k, x]) => {
        const colon = st.missingColon && chance(0.6) ? ' ' : st.layout === 'compact' ? ':' : ': ';
        return quoteString(k, st, true) + colon + ser(x, st, depth + 1);
      });
  if (st.placeholder && items.length >= 2 && chance(0.7)) items.push(st.placeholder);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  let body = pad + items[0];
  for (let i = 1; i < items.length; i++) body += separator(st, pad) + items[i];
  if (st.trailingComma) body += ',';
  return open + body + endPad + close;
}

const std = (v, layout) => ser(v, { layout });

// ---- cases ------------------------------------------------------------------
const files = {};
const seenInputs = new Set();
function add(file, c) {
  if (seenInputs.has(c.input)) return false;
  seenInputs.add(c.input);
  (files[file] ||= []).push(c);
  return true;
}
function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
// A repaired (not valid) input: false when the mutation left valid JSON.
function addRepair(file, c) {
  if (isJson(c.input)) return false;
  return add(file, c);
}

// 1. Valid JSON is returned unchanged.
for (const [name, v] of PAYLOADS) {
  for (const layout of ['compact', 'spaced', 'pretty'])
    add('gen_valid', { description: `valid ${layout}: ${name}`, input: std(v, layout), output: v, changed: false, lossy: false });
  if (/[^\x00-\x7f]/.test(JSON.stringify(v)))
    add('gen_valid', {
      description: `valid, \\u-escaped like Python's json.dumps: ${name}`,
      input: ser(v, { layout: 'spaced', asciiOnly: true }),
      output: v,
      changed: false,
      lossy: false,
    });
}

// 2. Truncation at every kind of point. The oracle below gives what a
// careful repair of a cut-off prefix of valid JSON text is (README.md).
function truncationOracle(t) {
  let i = 0;
  const n = t.length;
  const NOTHING = Symbol('nothing');
  const ws = () => {
    while (i < n && ' \t\n\r'.includes(t[i])) i++;
  };
  function string() { // at the opening quote; returns {s, cut}
    i++;
    let s = '';
    while (i < n) {
      const c = t[i];
      if (c === '"') {
        i++;
        return { s, cut: false };
      }
      if (c !== '\\') {
        s += c;
        i++;
        continue;
      }
      if (i + 1 >= n) return { s, cut: (i = n, true) };
      const e = t[i + 1];
      if (e !== 'u') {
        s += JSON.parse('"\\' + e + '"');
        i += 2;
        continue;
      }
      if (i + 6 > n) return { s, cut: (i = n, true) };
      const unit = parseInt(t.slice(i + 2, i + 6), 16);
      i += 6;
      if (unit >= 0xd800 && unit <= 0xdbff) {
        if (i + 6 > n) return { s, cut: (i = n, true) }; // half a surrogate pair: dropped
        s += String.fromCharCode(unit, parseInt(t.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        s += String.fromCharCode(unit);
      }
    }
    return { s, cut: true };
  }
  function value() {
    ws();
    if (i >= n) return NOTHING;
    const c = t[i];
    if (c === '{' || c === '[') {
      i++;
      const arr = c === '[';
      const out = arr ? [] : {};
      for (;;) {
        ws();
        if (i >= n) return out;
        if (t[i] === '}' || t[i] === ']') return (i++, out);
        if (t[i] === ',') {
          i++;
          continue;
        }
        if (arr) {
          const x = value();
          if (x === NOTHING) return out;
          out.push(x);
          continue;
        }
        const k = string();
        if (k.cut) return out; // a cut-off key: the member goes
        ws();
        if (i >= n) return out; // a key without its colon
        i++;
        const x = value();
        if (x === NOTHING) return out; // a key without a value
        out[k.s] = x;
      }
    }
    if (c === '"') return string().s;
    const word = /^(?:t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?)/.exec(t.slice(i));
    if (word && word[0].length) {
      i += word[0].length;
      return { t: true, f: false, n: null }[c];
    }
    const num = /^-?\d*(?:\.\d*)?(?:[eE][+-]?\d*)?/.exec(t.slice(i))[0];
    i += num.length;
    const valid = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(num);
    return valid ? Number(valid[0]) : NOTHING; // "12." is 12, "1e" is 1, "-" is nothing
  }
  const v = value();
  return v === NOTHING ? undefined : v;
}

// The kind of cut point before text[i] of valid JSON text t.
function cutKinds(t) {
  const kinds = [];
  let inString = false, isKey = false, escape = 0, unicode = 0, word = '';
  const stack = [];
  let expectKey = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    let kind = null, handled = inString;
    if (inString) {
      if (unicode) kind = 'in-unicode-escape';
      else if (escape) kind = 'after-backslash';
      else if (/\\u[dD][89abAB][0-9a-fA-F]{2}$/.test(t.slice(Math.max(0, i - 6), i))) kind = 'between-surrogates';
      else kind = isKey ? 'in-key' : 'in-string';
      if (/[\ud800-\udbff]/.test(t[i - 1])) kind = null; // never split a surrogate pair
      if (unicode) unicode--;
      else if (escape) {
        escape = 0;
        if (c === 'u') unicode = 4;
      } else if (c === '\\') escape = 1;
      else if (c === '"') inString = false;
    } else if (word) {
      kind = /[0-9.eE+-]/.test(word[0]) || word[0] === '-' ? 'in-number' : 'in-literal';
      if (/[A-Za-z0-9.+-]/.test(c)) word += c;
      else {
        word = '';
        kind = 'after-value';
      }
    }
    if (!inString && !word && kind === null) {
      const prev = t.slice(0, i).trimEnd().slice(-1);
      if (prev === '{' || prev === '[') kind = 'after-open';
      else if (prev === ',') kind = 'after-comma';
      else if (prev === ':') kind = 'after-colon';
      else if (prev === '}' || prev === ']') kind = stack.length ? 'after-close' : null;
      else if (prev === '"') kind = isKey ? 'after-key' : 'after-value';
    }
    if (!handled && !word) {
      if (c === '"') {
        inString = true;
        isKey = stack[stack.length - 1] === '{' && expectKey;
      } else if (c === '{' || c === '[') {
        stack.push(c);
        expectKey = c === '{';
      } else if (c === '}' || c === ']') stack.pop();
      else if (c === ',') expectKey = stack[stack.length - 1] === '{';
      else if (c === ':') expectKey = false;
      else if (/[-0-9tfn]/.test(c)) word = c;
    }
    if (kind && i > 0) kinds.push([i, kind]);
  }
  return kinds;
}

const KIND_ORDER = ['after-open', 'in-key', 'after-key', 'after-colon', 'in-string', 'after-backslash',
  'in-unicode-escape', 'between-surrogates', 'in-number', 'in-literal', 'after-value', 'after-comma', 'after-close'];
const PROSE_BEFORE = ['Sure! Here is the tool call:\n\n', 'Hier ist das Ergebnis:\n', '以下がJSONです：\n', 'Calling the tool now.\n'];

function truncationWrap(text, v) {
  const r = random();
  if (text.trim().length <= 1) return ['', text]; // a lone bracket after prose is not JSON
  if (r < 0.6) return ['', text];
  if (r < 0.75) return ['unterminated fence', '```json\n' + text];
  if (r < 0.85) return ['prose before', pick(PROSE_BEFORE) + text];
  if (r < 0.93 && !Array.isArray(v) && 'arguments' in v) return ['<tool_call>', '<tool_call>\n' + text];
  if (Array.isArray(v) && typeof v[0] === 'object') return ['[TOOL_CALLS]', '[TOOL_CALLS] ' + text];
  return ['', text];
}

for (const [name, v] of PAYLOADS) {
  const texts = [std(v, pick(['compact', 'spaced', 'pretty']))];
  if (/[^\x00-\x7f]|\\/.test(JSON.stringify(v))) texts.push(ser(v, { layout: 'spaced', asciiOnly: true }));
  const byKind = new Map();
  for (const text of texts)
    for (const [i, kind] of cutKinds(text)) {
      if (!byKind.has(kind)) byKind.set(kind, []);
      byKind.get(kind).push([text, i]);
    }
  for (const kind of KIND_ORDER) {
    const points = byKind.get(kind);
    if (!points) continue;
    const [text, i] = pick(points);
    const prefix = text.slice(0, i);
    const want = truncationOracle(prefix);
    if (want === undefined) continue;
    const [how, input] = truncationWrap(prefix, v);
    addRepair('gen_truncation', {
      description: `truncated ${kind}${how ? ' after ' + how : ''}: ${name}`,
      input,
      output: want,
      lossy: true,
    });
  }
}

// 3. Syntax mutations, alone and combined; the value stays the payload.
const SYNTAX = {
  'single quotes': { quotes: 'single' },
  'Python repr': { quotes: 'python', python: true },
  'Python literals': { python: true },
  'typographic quotes': { quotes: 'typographic' },
  'unescaped inner quotes': { innerQuotes: true },
  'raw control characters': { rawControl: true },
  'comments': { comments: true },
  'trailing commas': { trailingComma: true },
  'extra commas': { extraComma: true },
  'missing commas': { missingComma: true },
  'missing colons': { missingColon: true },
  'unquoted keys': { unquotedKeys: true },
  'placeholder ...': { placeholder: '...' },
  'placeholder …': { placeholder: '\u2026' },
  '+ concatenation': { concat: true },
  'NaN or undefined for null': { nan: true },
};
// Pairs that are ambiguous even to a careful reader are never combined
// (an unescaped quote next to a raw line break or a missing comma).
const CLASH = [['innerQuotes', 'rawControl'], ['innerQuotes', 'missingComma'], ['innerQuotes', 'missingColon'],
  ['innerQuotes', 'quotes'], ['unquotedKeys', 'missingColon'], ['missingComma', 'placeholder'],
  ['missingComma', 'extraComma'], ['concat', 'missingComma'], ['rawControl', 'quotes'], ['nan', 'python']];
const clashes = (st) => CLASH.some(([a, b]) => a in st && b in st);

for (const [mutation, style] of Object.entries(SYNTAX)) {
  for (const [name, v] of PAYLOADS) {
    const st = { layout: pick(['compact', 'spaced', 'pretty', 'pretty']), ...style };
    if (style.layout === undefined && style.comments) st.layout = pick(['spaced', 'pretty']);
    addRepair('gen_syntax', { description: `${mutation} (${st.layout}): ${name}`, input: ser(v, st), output: v, lossy: false });
  }
}
const syntaxNames = Object.keys(SYNTAX);
for (let n = 0, tries = 0; n < 60 && tries < 1000; tries++) {
  const [name, v] = pick(PAYLOADS);
  const chosen = [pick(syntaxNames), pick(syntaxNames), pick(syntaxNames)].filter((x, i, a) => a.indexOf(x) === i);
  const st = { layout: pick(['spaced', 'pretty']) };
  for (const m of chosen) Object.assign(st, SYNTAX[m]);
  if (clashes(st) || chosen.length < 2) continue;
  if (addRepair('gen_combined', { description: `${chosen.join(' + ')}: ${name}`, input: ser(v, st), output: v, lossy: false })) n++;
}

// 4. Extraction: prose, fences, tags, prefixes, several blocks.
const PROSE = [
  ['Sure! Here is the JSON you asked for:\n\n', '\n\nLet me know if you need anything else.'],
  ['Hier ist das Ergebnis (siehe unten):\n', '\nIch hoffe, das hilft!'],
  ['以下が結果です：\n', '\nご確認ください。'],
  ['结果如下：', '\n如有问题请告诉我。'],
  ['Based on the data, the answer is: ', ' (all figures in EUR).'],
  ['I will call the tool with these arguments: ', ''],
];
const THOUGHTS = [
  'The user wants sales by region. I could pass {"region": "all"} but a query is better.',
  'Hmm, the schema says {query: string, top_k: int}. Let me fill it in.',
  'Die Frage nennt [Bayern, 2023]; ich baue die Argumente.',
];
const asCall = (name, v) => (!Array.isArray(v) && 'arguments' in v ? v : call(name.replace(/\W+/g, '_'), v));
const toolCallsArray = (name, v) =>
  Array.isArray(v) && v[0] && typeof v[0] === 'object' ? v : [asCall(name, v)];

for (const [name, v] of PAYLOADS) {
  const text = std(v, pick(['spaced', 'pretty']));
  const [before, after] = pick(PROSE);
  add('gen_extraction', { description: `prose around: ${name}`, input: before + text + after, output: v, lossy: false });
  add('gen_extraction', { description: `fenced json: ${name}`, input: '```json\n' + text + '\n```', output: v, lossy: false });
  const [fb, fa] = pick(PROSE);
  add('gen_extraction', {
    description: `prose and fence: ${name}`,
    input: fb + '```' + pick(['json', 'JSON', '']) + '\n' + text + '\n```' + fa,
    output: v,
    lossy: false,
  });
  add('gen_extraction', { description: `unterminated fence: ${name}`, input: pick(PROSE)[0] + '```json\n' + text + '\n', output: v, lossy: false });
  const c = asCall(name, v);
  add('gen_extraction', {
    description: `<tool_call> tag: ${name}`,
    input: pick(['', '<think>\nThe user wants data, so I call the tool.\n</think>\n\n']) + '<tool_call>\n' + std(c, 'spaced') + '\n</tool_call>',
    output: c,
    lossy: false,
  });
  add('gen_extraction', {
    description: `<think> block with braces before the JSON: ${name}`,
    input: '<think>\n' + pick(THOUGHTS) + '\n</think>\n' + text,
    output: v,
    lossy: false,
  });
  const calls = toolCallsArray(name, v);
  add('gen_extraction', {
    description: `[TOOL_CALLS] prefix: ${name}`,
    input: '[TOOL_CALLS]' + pick(['', ' ']) + std(calls, 'compact'),
    output: calls,
    lossy: false,
  });
}
for (let n = 0; n < 24; n++) {
  const [[n1, v1], [n2, v2], [n3, v3]] = [pick(PAYLOADS), pick(PAYLOADS), pick(PAYLOADS)];
  const c1 = asCall(n1, v1), c2 = asCall(n2, v2), c3 = asCall(n3, v3);
  const three = chance(0.4);
  const blocks = (three ? [c1, c2, c3] : [c1, c2]).map((c) => '<tool_call>\n' + std(c, 'spaced') + '\n</tool_call>');
  add('gen_extraction', {
    description: `several <tool_call> blocks give an array: ${n1}, ${n2}${three ? ', ' + n3 : ''}`,
    input: blocks.join('\n'),
    output: three ? [c1, c2, c3] : [c1, c2],
    lossy: false,
  });
  const sql = 'SELECT region, SUM(amount) FROM orders GROUP BY region;';
  add('gen_extraction', {
    description: `a non-JSON fenced block, then the JSON block: ${n1}`,
    input: 'First the query:\n```sql\n' + sql + '\n```\nThen the call:\n```json\n' + std(v1, 'pretty') + '\n```',
    output: v1,
    lossy: false,
  });
  add('gen_extraction', {
    description: `two fenced JSON blocks: the first is taken: ${n2}`,
    input: '```json\n' + std(v2, 'spaced') + '\n```\nor, alternatively:\n```json\n' + std(v3, 'spaced') + '\n```',
    output: v2,
    lossy: false,
  });
}

// 5. Doubly-encoded JSON and arguments given as a string.
const BROKEN = [['single quotes', { quotes: 'single' }], ['trailing commas', { trailingComma: true }],
  ['Python repr', { quotes: 'python', python: true }], ['unquoted keys', { unquotedKeys: true }]];
for (const [name, v] of PAYLOADS) {
  add('gen_encoded', { description: `doubly-encoded: ${name}`, input: JSON.stringify(std(v, 'spaced')), output: v, lossy: false });
  add('gen_encoded', {
    description: `escaped JSON without its outer quotes: ${name}`,
    input: pick(['', 'Result: ']) + JSON.stringify(std(v, 'spaced')).slice(1, -1),
    output: v,
    lossy: false,
  });
  const [bn, bs] = pick(BROKEN);
  add('gen_encoded', {
    description: `doubly-encoded ${bn}: ${name}`,
    input: JSON.stringify(ser(v, { layout: 'spaced', ...bs })),
    output: v,
    lossy: false,
  });
  if (Array.isArray(v)) continue;
  const args = 'arguments' in v ? v.arguments : v;
  const toolName = 'arguments' in v ? v.name : name.replace(/\W+/g, '_');
  const openai = (argText) => ({ id: 'call_' + toolName.slice(0, 6), type: 'function', function: { name: toolName, arguments: argText } });
  const want = [{ id: 'call_' + toolName.slice(0, 6), type: 'function', function: { name: toolName, arguments: args } }];
  add('gen_encoded', {
    description: `arguments as a JSON string (option arguments): ${name}`,
    input: std([openai(std(args, 'compact'))], 'spaced'),
    output: want,
    options: { arguments: true },
    lossy: false,
  });
  add('gen_encoded', {
    description: `arguments as a string holding ${bn} JSON (option arguments): ${name}`,
    input: std([openai(ser(args, { layout: 'spaced', ...bs }))], 'spaced'),
    output: want,
    options: { arguments: true },
    lossy: false,
  });
  const argText = std(args, 'spaced');
  const cut = Math.floor(argText.length * (0.5 + random() * 0.4));
  const partial = truncationOracle(argText.slice(0, cut));
  if (partial !== undefined && cut < argText.length - 1)
    add('gen_encoded', {
      description: `arguments as a string holding cut-off JSON (option arguments): ${name}`,
      input: JSON.stringify({ name: toolName, arguments: argText.slice(0, cut) }),
      output: { name: toolName, arguments: partial },
      options: { arguments: true },
      lossy: true,
    });
}

// 6. Bodies that are not JSON and must be refused.
const REFUSED = [
  ['nginx 502 page', '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'],
  ['Cloudflare 524 page', '<!DOCTYPE html>\n<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->\n<html lang="en-US">\n<head><title>api.example.com | 524: A timeout occurred</title>\n<script>window._cf = {"ray": "8f1c"};</script></head>\n<body><div id="cf-error-details">Error code 524</div></body></html>'],
  ['Azure gateway page', '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Service Unavailable</title></head><body><h2>Service Unavailable</h2><p>{"code": 503}</p></body></html>'],
  ['HTML without doctype, leading spaces', '   \n<HTML><HEAD><TITLE>Error</TITLE></HEAD><BODY>[object Object]</BODY></HTML>'],
  ['HTML body only', '<body><h1>429 Too Many Requests</h1><p>You have sent too many requests.</p></body>'],
  ['plain 502 text', '502 Bad Gateway'],
  ['plain text refusal', "I'm sorry, but I can't help with that request."],
  ['plain German text', 'Leider konnte ich keine passenden Daten finden. Bitte präzisieren Sie die Anfrage.'],
  ['plain Japanese text', '申し訳ありませんが、そのリクエストにはお応えできません。'],
  ['Envoy error text', 'upstream connect error or disconnect/reset before headers. reset reason: connection termination'],
  ['rate limit text', 'Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29892, Requested 1200. Please try again in 2.2s.'],
  ['text with a bracketed number', 'Error [429]: too many requests, retry after 20 s'],
  ['text with footnotes', 'The revenue grew by 12 % [1] and costs fell [2].'],
  ['text with a brace placeholder', 'Use the format {name: value} for each field.'],
  ['Python traceback', 'Traceback (most recent call last):\n  File "server.py", line 88, in handle\n    payload = request.json()\nKeyError: \'messages\''],
  ['XML error', '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Server failed to authenticate the request.</Message></Error>'],
  ['SSE chunks', 'data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {"id":"chatcmpl-1","choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'],
  ['SSE error event', 'event: error\ndata: {"error": {"message": "overloaded", "type": "overloaded_error"}}\n\n'],
  ['SSE with comment line first', ': keep-alive\n\ndata: {"choices": []}\n\n'],
  ['SSE done only', 'data: [DONE]\n\n'],
  ['markdown without JSON', '## Ergebnis\n\n- Umsatz: 4,2 Mio. €\n- Wachstum: 12 %\n'],
  ['fence without JSON', '```text\nno structured output available\n```'],
  ['empty', ''],
  ['whitespace only', ' \n\t \n'],
  ['a bare word', 'undefined'],
  ['code that is not JSON', 'function f() { return x + 1; }'],
];
for (const [name, input] of REFUSED)
  add('gen_refused', { description: `refused: ${name}`, input, output: null });

// ---- writing ------------------------------------------------------------------
const check = process.argv.includes('--check');
let stale = false, total = 0;
const wanted = new Set();
for (const [file, cases] of Object.entries(files)) {
  for (const c of cases) c.kind = file.replace(/^gen_/, '');
  const path = join(here, file + '.json');
  wanted.add(file + '.json');
  const text = JSON.stringify(cases, null, 2) + '\n';
  total += cases.length;
  let old = null;
  try {
    old = readFileSync(path, 'utf8');
  } catch {}
  if (old === text) continue;
  stale = true;
  if (!check) writeFileSync(path, text);
}
for (const f of readdirSync(here))
  if (f.startsWith('gen_') && f.endsWith('.json') && !wanted.has(f)) {
    stale = true;
    if (!check) unlinkSync(join(here, f));
  }
// Every 25th generated input is also a seed of the fuzz target.
const seedDir = join(here, '../../../fuzz/corpus_repair');
const seeds = new Map();
Object.values(files).flat().forEach((c, i) => {
  if (i % 25 === 0) seeds.set(`gen_${c.kind}_${createHash('sha1').update(c.input).digest('hex').slice(0, 8)}.txt`, c.input);
});
for (const [name, input] of seeds) {
  let old = null;
  try {
    old = readFileSync(join(seedDir, name), 'utf8');
  } catch {}
  if (old === input) continue;
  stale = true;
  if (!check) writeFileSync(join(seedDir, name), input);
}
for (const f of readdirSync(seedDir))
  if (f.startsWith('gen_') && !seeds.has(f)) {
    stale = true;
    if (!check) unlinkSync(join(seedDir, f));
  }
for (const [file, cases] of Object.entries(files)) console.log(`${file}.json: ${cases.length} cases`);
console.log(`fuzz/corpus_repair: ${seeds.size} generated seeds`);
console.log(`total: ${total} generated cases`);
if (check && stale) {
  console.error('generated repair cases are stale: run node tests/cases/repair/generate.mjs');
  process.exit(1);
}
