// The inbox page. Every string from a session (model text, tool args and output, file names, hook
// messages) reaches the DOM through textContent or an attribute, never as HTML.
const state = {
  sessions: new Map(),
  current: decodeURIComponent(location.hash.slice(1)) || undefined,
  cards: new Map(),
  order: [],
  focus: -1,
};
const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

// "127.0.0.1 (Mozilla/5.0 … Chrome/120 …)" becomes "127.0.0.1 (Chrome)".
function shortFrom(from) {
  const m = /^(\S*) \((.*)\)$/s.exec(String(from));
  if (!m) return String(from);
  const ua = m[2];
  const names = [
    [/Edg\//, 'Edge'],
    [/OPR\//, 'Opera'],
    [/Firefox\//, 'Firefox'],
    [/Chrom(e|ium)\//, 'Chrome'],
    [/Safari\//, 'Safari'],
    [/^curl\//, 'curl'],
  ];
  const known = names.find(([re]) => re.test(ua));
  const name = known ? known[1] : ua.split(/[\s/]/)[0].slice(0, 24);
  return `${m[1]} (${name})`;
}

const str = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

function renderSessions() {
  const list = $('sessions');
  const rank = { waiting: 0, running: 1, failed: 2, done: 3 };
  const sessions = [...state.sessions.values()].sort(
    (a, b) => rank[a.status] - rank[b.status] || String(b.lastAt).localeCompare(String(a.lastAt)),
  );
  list.replaceChildren(
    ...sessions.map((s) =>
      el(
        'li',
        {},
        el(
          'button',
          { type: 'button', 'data-session': s.id, 'aria-current': String(s.id === state.current), onclick: () => choose(s.id) },
          el('span', { class: 'label', text: s.label }),
          el('span', { class: `badge s-${s.status}`, text: s.status === 'waiting' ? `waiting (${s.waiting})` : s.status }),
          el('span', { class: 'meta', text: `${s.source} · ${s.events} events` }),
        ),
      ),
    ),
  );
}

function cardOf(call) {
  let card = state.cards.get(call);
  if (card === undefined) {
    card = { call, events: [], hooks: [] };
    state.cards.set(call, card);
    state.order.push(call);
  }
  return card;
}

function fold(event) {
  if (event.call === undefined) return;
  const card = cardOf(event.call);
  const d = event.data ?? {};
  switch (event.type) {
    case 'tool/call':
      Object.assign(card, { name: d.name, args: d.args, startedAt: event.at, agent: d.agent });
      break;
    case 'approval/request':
      Object.assign(card, { asking: true, requested: true, reason: d.reason, askedBy: d.by, effectiveArgs: d.args });
      break;
    case 'approval/answer':
      Object.assign(card, { asking: false, answer: d });
      break;
    case 'inbox/answer':
      card.answeredBy = d;
      break;
    case 'tool/result':
      Object.assign(card, { asking: false, outcome: d.outcome, endedAt: event.at, effectiveArgs: d.args ?? card.effectiveArgs });
      break;
    case 'hook/result':
    case 'permissions/decision':
      card.hooks.push({ type: event.type, data: d });
      break;
    default:
      card.events.push(event.type);
  }
}

function argsView(args) {
  if (args === null || typeof args !== 'object') return el('pre', { text: str(args) });
  if (typeof args.command === 'string') return el('pre', { class: 'command', text: `$ ${args.command}` });
  if (typeof args.url === 'string') return el('pre', { class: 'url', text: args.url });
  const edits = Array.isArray(args.edits) ? args.edits : typeof args.old_string === 'string' ? [args] : undefined;
  if (edits !== undefined || typeof args.content === 'string') {
    const diff = el('pre', { class: 'diff' });
    if (typeof args.file_path === 'string') diff.append(el('div', { class: 'meta', text: args.file_path }));
    for (const e of edits ?? []) {
      for (const line of String(e.old_string ?? '').split('\n')) diff.append(el('div', { class: 'del', text: `- ${line}` }));
      for (const line of String(e.new_string ?? '').split('\n')) diff.append(el('div', { class: 'add', text: `+ ${line}` }));
    }
    if (typeof args.content === 'string')
      for (const line of args.content.split('\n')) diff.append(el('div', { class: 'add', text: `+ ${line}` }));
    return diff;
  }
  return el('pre', { text: str(args) });
}

function outcomeView(o) {
  if (o === undefined) return undefined;
  const body =
    o.status === 'ok' ? str(o.output) : o.status === 'error' ? `${o.error?.code}: ${o.error?.message}` : `${o.code}: ${o.reason}`;
  return el(
    'div',
    {},
    el('span', { class: `st-${o.status}`, text: `${o.status} (${o.stage}${o.by ? `, ${o.by}` : ''})` }),
    el('pre', { class: 'output', text: body }),
  );
}

function renderCard(card) {
  const ms =
    card.startedAt && card.endedAt ? `${Date.parse(card.endedAt) - Date.parse(card.startedAt)} ms` : card.asking ? 'waiting' : 'running';
  const node = el(
    'article',
    { class: `card${card.asking ? ' waiting' : ''}`, tabindex: '-1', 'data-call': card.call },
    el(
      'h3',
      {},
      el('span', { text: card.name ?? '(call)' }),
      el('span', { class: 'meta', text: `${card.call} · ${ms}${card.agent ? ` · agent ${card.agent.id}` : ''}` }),
    ),
    argsView(card.effectiveArgs ?? card.args),
  );
  if (card.requested) {
    node.append(
      el('p', {
        class: 'why',
        text: `Asks because: ${card.reason ?? 'the default decision is ask'}${card.askedBy ? ` (${card.askedBy})` : ''}`,
      }),
    );
  }
  for (const h of card.hooks) {
    const d = h.data;
    node.append(
      el('p', {
        class: 'meta',
        text:
          h.type === 'hook/result'
            ? `hook ${d.hook} (${d.event}): ${d.decision ?? `exit ${d.exitCode}`} in ${d.durationMs} ms`
            : `permissions: ${d.decision}${d.reason ? ` — ${d.reason}` : ''}`,
      }),
    );
  }
  if (card.answer !== undefined) {
    const who = card.answeredBy ? ` by ${card.answeredBy.by} from ${shortFrom(card.answeredBy.from)}` : ` (${card.answer.source})`;
    node.append(
      el('p', {
        class: 'meta answer',
        // The whole user agent stays in the event (and here, on hover); the card names the browser.
        title: card.answeredBy ? card.answeredBy.from : '',
        text: `Answer: ${card.answer.answer}${who}${card.answer.message ? ` — “${card.answer.message}”` : ''} after ${card.answer.elapsedMs} ms`,
      }),
    );
  }
  const out = outcomeView(card.outcome);
  if (out) node.append(out);
  if (card.asking) node.append(actions(card));
  return node;
}

function actions(card) {
  const message = el('input', { type: 'text', placeholder: 'Message for the model (deny)', 'aria-label': 'Message for the model' });
  const scope = el(
    'select',
    { 'aria-label': 'Remember for' },
    el('option', { value: 'session', text: 'this session' }),
    el('option', { value: 'project', text: 'this project' }),
  );
  const status = el('span', { class: 'notice', role: 'status' });
  const send = async (decision) => {
    const body = { decision };
    if (decision === 'allow-always') body.scope = scope.value;
    if (decision === 'deny' && message.value) body.message = message.value;
    const res = await fetch(`/api/sessions/${encodeURIComponent(state.current)}/calls/${encodeURIComponent(card.call)}/answer`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      const problem = await res.json().catch(() => ({ error: { message: res.statusText } }));
      status.textContent = problem.error?.message ?? 'failed';
    } else status.textContent = 'sent';
  };
  message.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') send('deny');
  });
  return el(
    'div',
    { class: 'actions' },
    el('button', {
      type: 'button',
      class: 'allow',
      'data-action': 'allow-once',
      onclick: () => send('allow-once'),
      text: 'Allow once (a)',
    }),
    el('button', {
      type: 'button',
      class: 'allow',
      'data-action': 'allow-always',
      onclick: () => send('allow-always'),
      text: 'Allow always (A)',
    }),
    scope,
    message,
    el('button', { type: 'button', class: 'deny', 'data-action': 'deny', onclick: () => send('deny'), text: 'Deny (d)' }),
    status,
  );
}

function renderSession() {
  const root = $('session');
  const s = state.sessions.get(state.current);
  if (s === undefined) return root.replaceChildren(el('p', { class: 'empty', text: 'Choose a session.' }));
  const head = el('div', {}, el('h2', { text: s.label }), el('span', { class: `badge s-${s.status}`, text: s.status }));
  if (s.problems.length > 0) head.append(el('ul', { class: 'problems' }, ...s.problems.map((p) => el('li', { text: p }))));
  root.replaceChildren(head, ...state.order.map((call) => renderCard(state.cards.get(call))));
}

// Only the card an event touched is drawn again: a 10,000-event session stays cheap to update.
function update(event) {
  const isNew = event.call !== undefined && !state.cards.has(event.call);
  fold(event);
  if (event.call === undefined) return;
  const fresh = renderCard(state.cards.get(event.call));
  const old = isNew ? null : document.querySelector(`[data-call="${CSS.escape(event.call)}"]`);
  if (old) old.replaceWith(fresh);
  else $('session').append(fresh);
}

let stream;
function connect() {
  stream?.close();
  stream = new EventSource(`/api/stream${state.current ? `?session=${encodeURIComponent(state.current)}` : ''}`);
  stream.addEventListener('open', () => ($('live').textContent = 'live'));
  stream.addEventListener('error', () => ($('live').textContent = 'reconnecting…'));
  stream.addEventListener('sessions', (m) => {
    state.sessions = new Map(JSON.parse(m.data).map((s) => [s.id, s]));
    renderSessions();
  });
  stream.addEventListener('session', (m) => {
    const s = JSON.parse(m.data);
    state.sessions.set(s.id, s);
    renderSessions();
    if (s.id === state.current) {
      const head = $('session').querySelector('h2 + .badge');
      if (head) {
        head.textContent = s.status;
        head.className = `badge s-${s.status}`;
      }
    }
  });
  stream.addEventListener('snapshot', (m) => {
    const snap = JSON.parse(m.data);
    state.cards = new Map();
    state.order = [];
    for (const e of snap.events) fold(e);
    renderSession();
  });
  stream.addEventListener('event', (m) => update(JSON.parse(m.data)));
}

function choose(id) {
  state.current = id;
  history.replaceState(null, '', `#${encodeURIComponent(id)}`);
  state.cards = new Map();
  state.order = [];
  renderSessions();
  renderSession();
  connect();
}

function waitingCards() {
  return [...document.querySelectorAll('.card.waiting')];
}

document.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
  const cards = waitingCards();
  const active = document.activeElement?.closest?.('.card.waiting') ?? cards[0];
  if (e.key === 'j' || e.key === 'k') {
    const i = cards.indexOf(active);
    cards[(i + (e.key === 'j' ? 1 : cards.length - 1)) % cards.length]?.focus();
  } else if (e.key === 'a' || e.key === 'A') {
    active?.querySelector(`[data-action="${e.key === 'a' ? 'allow-once' : 'allow-always'}"]`)?.click();
  } else if (e.key === 'd') {
    e.preventDefault();
    active?.querySelector('input[type="text"]')?.focus();
  } else if (e.key === '[' || e.key === ']') {
    const ids = [...document.querySelectorAll('nav button')].map((b) => b.dataset.session);
    const i = ids.indexOf(state.current);
    const next = ids[(i + (e.key === ']' ? 1 : ids.length - 1)) % ids.length];
    if (next) choose(next);
  } else if (e.key === '?') toggleHelp();
});

function toggleHelp() {
  const help = $('help');
  help.hidden = !help.hidden;
  $('help-toggle').setAttribute('aria-expanded', String(!help.hidden));
}
$('help-toggle').addEventListener('click', toggleHelp);
connect();
