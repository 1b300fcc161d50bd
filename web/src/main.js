// main.js -- the verifier page: reads the inputs (a log, or one deal's parts,
// from the form or the query string), runs check.js and shows the verdict and
// the hands.  It makes no network request but the log the user asks for.
import * as S from './scheme.js';
import { checkOne, logText, MARK } from './check.js';
import { checkLog } from './chain.js'; // the records and their hash chain
import { installVrf } from './vrf_page.js';
import * as V from './vrf.js';

const $ = (id) => document.getElementById(id);
let lang = 'en';
let last = null; // the last result, redrawn when the language changes

const VERDICT_WORDS = {
  honest: { en: 'Honest', zh: '诚实' },
  dishonest: { en: 'Dishonest', zh: '不诚实' },
  inconclusive: { en: 'Inconclusive', zh: '无法判定' },
  waiting: { en: 'No deal yet', zh: '尚无发牌' },
  same: { en: 'same as yours', zh: '与你的相同' },
};
// English always (the rule slugs and messages are English), Chinese beside.
const word = (v) => (VERDICT_WORDS[v] ? VERDICT_WORDS[v].en + (lang === 'zh' ? ` ${VERDICT_WORDS[v].zh}` : '') : v);

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
}

// A message of check.js with its cards shown as the page shows them (A♠,
// 黑桃A, 五筒 …, in colour), not as codes.
function sayEl(message) {
  const out = [];
  let at = 0;
  for (const m of message.matchAll(MARK)) {
    out.push(message.slice(at, m.index));
    const tiles = m[1] === 't';
    out.push(el('span', { class: `c inline ${S.cardColour(m[2], tiles)}`, title: m[2],
      text: S.cardName(m[2], lang, tiles) }));
    at = m.index + m[0].length;
  }
  out.push(message.slice(at));
  return out;
}

// ---- the verdict element (a contract: id="verdict", data-verdict) --------
function showVerdict(r) {
  const v = $('verdict');
  v.dataset.verdict = r.verdict;
  if (r.rule) v.dataset.rule = r.rule; else delete v.dataset.rule;
  if (r.rule) v.dataset.line = String(r.line || 0); else delete v.dataset.line;
  v.replaceChildren(
    el('strong', { class: 'word' }, word(r.verdict),
      r.rule ? el('span', { class: 'rule', text: r.rule }) : null),
    el('span', { class: 'why' }, sayEl(r.message || '')),
    ...[r.scope ? scopeEl(r.scope) : null, r.rule === 'no-commitment' ? askCommitment() : null].filter(Boolean));
}

// What a check proved and what it did not, in the verdict itself.
function scopeEl(scope) {
  const list = (cls, head, items) => (items.length
    ? el('div', { class: cls }, el('strong', { text: head }), el('ul', {}, items.map((t) => el('li', { text: t }))))
    : null);
  return el('div', { class: 'scope' }, list('proved', 'Proved:', scope.proved),
    list('unproved', 'Not proved:', scope.unproved));
}

// H3: without the commitment the player saw, nothing ties the log to their
// table -- ask for it here, in the verdict.
function askCommitment() {
  const input = el('input', { id: 'ask-commitment', spellcheck: 'false', placeholder: 'the commitment: 64 hex digits',
    'aria-label': 'The commitment you were shown before you chose your client seed' });
  const form = el('form', { class: 'ask' }, el('label', { for: 'ask-commitment',
    text: 'The commitment you were shown before you chose your client seed:' }), input,
  el('button', { type: 'submit', class: 'go', text: 'Check with it' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    $('my-commitment').value = input.value.trim();
    run(() => checkLog(logInput(), playerInput()));
  });
  return form;
}

function showError(message) {
  const v = $('verdict');
  v.dataset.verdict = 'error';
  delete v.dataset.rule;
  delete v.dataset.line;
  v.replaceChildren(el('strong', { class: 'word', text: 'Could not check' }),
    el('span', { class: 'why', text: message }));
  $('results').replaceChildren();
}

// ---- cards ---------------------------------------------------------------
const MAX_SHOWN = 160; // a wall or a shoe beyond this is folded

function cardsEl(cards, game, diffAt) {
  const tiles = S.GAMES[game].deck === 136;
  const box = el('span', { class: 'cards' });
  const shown = cards.slice(0, MAX_SHOWN);
  shown.forEach((c, i) => box.append(el('span', {
    class: `c ${S.cardColour(c, tiles)}${diffAt && diffAt.has(i) ? ' diff' : ''}`,
    title: c, text: S.cardName(c, lang, tiles) })));
  if (cards.length > MAX_SHOWN) box.append(el('span', { class: 'more', text: `… ${cards.length - MAX_SHOWN} more` }));
  return box;
}

// The parts of a deal as rows of cards; hands sorted as players read them.
function partsEl(parts, game, other) {
  const box = el('div', { class: 'parts' });
  parts.forEach((p, i) => {
    let cards = p.cards;
    let diff = null;
    if (other) { // mark the cards that differ from the other deal, in deal order
      const o = other[i] ? other[i].cards : [];
      diff = new Set(cards.map((c, j) => (c !== o[j] ? j : -1)).filter((j) => j >= 0));
    } else cards = S.displayOrder(cards, game, p.ordered);
    box.append(el('div', { class: 'part' },
      el('span', { class: 'label', text: (lang === 'zh' ? p.zh : p.en) + ` (${p.cards.length})` }),
      cardsEl(cards, game, diff)));
  });
  return box;
}

// ---- results -------------------------------------------------------------
function badge(v, text) {
  return el('span', { class: `badge ${v}`, text: text || word(v) });
}

function findingsEl(r) {
  if (!r.findings || !r.findings.length) return null;
  const ol = el('ol', { class: 'findings' });
  r.findings.slice(0, 50).forEach((f) => {
    const li = el('li', {}, el('code', { text: f.rule }), ' ', sayEl(f.message));
    if (f.line && r.deals && r.deals.some((d) => d.line === f.line)) {
      const b = el('button', { type: 'button', class: 'link', text: `show line ${f.line}` });
      b.addEventListener('click', () => goTo(r, `line ${f.line}`));
      li.append(' ', b);
    }
    ol.append(li);
  });
  if (r.findings.length > 50) ol.append(el('li', { text: `… ${r.findings.length - 50} more` }));
  return ol;
}

function dealEl(d, game, players) {
  const rec = d.rec;
  const head = el('div', { class: 'head' }, el('strong', { text: `nonce ${rec.nonce}` }),
    badge(d.verdict, d.rule ? `${word(d.verdict)}: ${d.rule}` : undefined),
    el('span', { class: 'note', text: `line ${d.line}` }));
  const box = el('div', { class: 'deal', 'data-nonce': String(rec.nonce), 'data-verdict': d.verdict }, head);
  if (d.rule === 'bad-deal' && d.computed) {
    const claimed = S.partsOfTsv(rec.deal, game, players);
    box.append(el('div', { class: 'note', text: 'The log says (as dealt; cards that differ are marked):' }),
      partsEl(claimed, game, d.computed.parts),
      el('div', { class: 'note', text: 'The seeds give:' }), partsEl(d.computed.parts, game, claimed));
  } else {
    box.append(partsEl(d.computed ? d.computed.parts : S.partsOfTsv(rec.deal, rec.game, rec.players), rec.game));
    if (!d.computed) box.append(el('div', { class: 'note', text: 'as the log states it (not recomputed)' }));
  }
  return box;
}

function periodHead(p, more) {
  const meta = [];
  if (p.game) meta.push(`${p.game}, ${p.players} player${p.players === 1 ? '' : 's'}, ${p.decks} deck${p.decks === 1 ? '' : 's'}`);
  if (p.clientSeed !== undefined) meta.push(`client seed ${JSON.stringify(p.clientSeed)}`);
  meta.push(`${p.deals.length} deal${p.deals.length === 1 ? '' : 's'}`);
  const sec = el('section', { class: 'period', 'data-verdict': p.verdict, 'data-period': String(p.index) },
    el('h2', {}, `Period ${p.index}${more ? ' (continued)' : ''}`,
      badge(p.verdict, p.rule ? `${word(p.verdict)}: ${p.rule}` : undefined),
      el('span', { class: 'meta', text: `lines ${p.firstLine}–${p.lastLine} · ${meta.join(' · ')}` })));
  if (!more)
    sec.append(el('div', { class: 'kv', style: 'padding:4px 12px 0' }, `commitment ${p.commitment}`),
      el('div', { class: 'kv', style: 'padding:0 12px' },
        p.revealed ? `server seed ${p.serverSeed}` : 'server seed not revealed yet'));
  return sec;
}

// ---- a long log: filter, jump to a deal, pages -----------------------------
const PAGE = 20; // deals a page
const view = { filter: 'all', page: 0, focus: null };

// The items of the log list under the filter: {p, d} (d null: a period
// with no deal, shown under "all").
function items(r) {
  const mine = new Set((r.playerDeals || []).map((m) => m.nonce));
  const keep = (p, d) => view.filter === 'all' || (view.filter === 'problems' && d.verdict !== 'honest')
    || (view.filter === 'yours' && p === r.playerPeriod && mine.has(d.nonce));
  const out = [];
  for (const p of r.periods) {
    if (!p.deals.length) { if (view.filter === 'all') out.push({ p, d: null }); continue; }
    for (const d of p.deals) if (keep(p, d)) out.push({ p, d });
  }
  return out;
}

function listEl(r) {
  const all = items(r);
  const pages = Math.max(1, Math.ceil(all.length / PAGE));
  view.page = Math.min(view.page, pages - 1);
  const box = el('div', { id: 'log-list' });
  let sec = null;
  let shownP = null;
  for (const { p, d } of all.slice(view.page * PAGE, (view.page + 1) * PAGE)) {
    if (p !== shownP) {
      sec = periodHead(p, d && p.deals[0] !== d && view.filter === 'all' && shownP === null);
      box.append(sec);
      shownP = p;
    }
    if (d) {
      const e = dealEl(d, d.rec.game, d.rec.players);
      if (view.focus === d) e.classList.add('focus');
      sec.append(e);
    }
  }
  if (!all.length) box.append(el('p', { class: 'note', text: 'No deal matches the filter.' }));
  return { box, pages, count: all.filter((x) => x.d).length };
}

function toolsEl(r, list) {
  const filter = el('select', { id: 'log-filter', 'aria-label': 'Show' },
    el('option', { value: 'all', text: 'all deals' }),
    el('option', { value: 'problems', text: 'deals with a finding' }),
    r.playerDeals ? el('option', { value: 'yours', text: 'your deals' }) : null);
  filter.value = view.filter;
  filter.addEventListener('change', () => { view.filter = filter.value; view.page = 0; view.focus = null; redraw(r); });
  const jump = el('input', { id: 'log-jump', inputmode: 'numeric', spellcheck: 'false',
    placeholder: 'nonce or line N', 'aria-label': 'Go to a deal: its nonce, or "line N"' });
  const go = el('form', { class: 'jump' }, jump, el('button', { type: 'submit', text: 'Go' }));
  go.addEventListener('submit', (e) => { e.preventDefault(); goTo(r, jump.value); });
  const pager = el('span', { class: 'pager' },
    el('button', { type: 'button', id: 'page-prev', text: '‹ Prev', disabled: view.page === 0 ? '' : null }),
    el('span', { id: 'page-at', text: `page ${view.page + 1} of ${list.pages} · ${list.count} deal${list.count === 1 ? '' : 's'}` }),
    el('button', { type: 'button', id: 'page-next', text: 'Next ›', disabled: view.page >= list.pages - 1 ? '' : null }));
  pager.children[0].addEventListener('click', () => { view.page--; view.focus = null; redraw(r, true); });
  pager.children[2].addEventListener('click', () => { view.page++; view.focus = null; redraw(r, true); });
  return el('div', { class: 'tools' }, el('label', {}, el('span', { class: 'show-word', text: 'Show ' }), filter), go, pager);
}

// "7": the deal with nonce 7 (in your period, else the last period that
// has it); "line 15" or "l15": the deal on that log line.
function goTo(r, what) {
  const t = what.trim().toLowerCase();
  let m;
  let target = null;
  if ((m = /^(?:line|l)\s*([0-9]+)$/.exec(t))) {
    const n = Number(m[1]);
    target = r.deals.find((d) => d.line === n) || null;
  } else if ((m = /^(?:nonce\s*)?([0-9]+)$/.exec(t))) {
    const n = BigInt(m[1]);
    const inP = (p) => p && p.deals.find((d) => d.nonce === n);
    target = inP(r.playerPeriod) || null;
    for (let i = r.periods.length; !target && i-- > 0;) target = inP(r.periods[i]) || null;
  }
  const note = $('jump-note');
  if (!target) {
    if (note) note.textContent = `no deal at ${what.trim() || '…'}`;
    return;
  }
  view.filter = 'all';
  view.focus = target;
  view.page = Math.floor(items(r).findIndex((x) => x.d === target) / PAGE);
  redraw(r);
  const e = document.querySelector('#log-list .deal.focus');
  if (e) e.scrollIntoView({ block: 'start' });
}

function redraw(r, toTop) {
  const list = listEl(r);
  $('log-view').replaceChildren(toolsEl(r, list), el('div', { id: 'jump-note', class: 'note' }), list.box);
  if (toTop) $('log-view').scrollIntoView({ block: 'start' });
}

function playerEl(r) {
  if (!r.playerDeals) return null;
  const sec = el('section', { class: 'period', id: 'your-deals' },
    el('h2', {}, 'Your deals against the log',
      el('span', { class: 'meta', text: r.playerPeriod ? `period ${r.playerPeriod.index}` : 'no period' })));
  for (const m of r.playerDeals) {
    const v = m.verdict === 'same' ? 'same' : 'dishonest';
    const box = el('div', { class: 'deal', 'data-nonce': String(m.nonce), 'data-verdict': m.verdict },
      el('div', { class: 'head' }, el('strong', { text: `nonce ${m.nonce}` }),
        badge(v, m.verdict === 'same' ? word('same') : m.verdict)));
    const game = m.logDeal ? m.logDeal.rec.game : null;
    if (game && m.verdict === 'deal-differs') {
      const log = S.partsOfTsv(m.logDeal.rec.deal, game, m.logDeal.rec.players);
      const mine = S.partsOfTsv(m.tsv, game, m.logDeal.rec.players);
      box.append(el('div', { class: 'note', text: 'You saw (as dealt; cards that differ are marked):' }),
        partsEl(mine, game, log),
        el('div', { class: 'note', text: 'The log has:' }), partsEl(log, game, mine));
    } else if (m.verdict === 'deal-missing') {
      box.append(el('div', { class: 'note', text: `The log has no deal at nonce ${m.nonce}: ${m.tsv.slice(0, 120)}` }));
    }
    sec.append(box);
  }
  return sec;
}

// What the player's evidence showed, and the deals of their period they
// did not see (not a rule: others at the table may have had them).
function evidenceEl(r) {
  if (!r.unseen) return null;
  const { before, between } = r.unseen;
  const n = before.length + between.length;
  if (!n) return null;
  const list = (a) => (a.length > 8 ? `${a.slice(0, 8).join(', ')}, …` : a.join(', '));
  return el('p', { class: 'unseen', id: 'unseen' },
    `Period ${r.playerPeriod.index} has ${n} deal${n === 1 ? '' : 's'} you did not see: ` +
    `${before.length} before your first${before.length ? ` (nonce ${list(before)})` : ''}, ` +
    `${between.length} between yours${between.length ? ` (nonce ${list(between)})` : ''}. ` +
    'If you played alone at this table, the dealer dealt them without showing you: a dealer may burn ' +
    'deals until one suits it.');
}

function showLogResult(r) {
  const periods = r.periods.length;
  const summary = el('p', { class: 'summary', text:
    `${r.lines} line${r.lines === 1 ? '' : 's'}, ${periods} period${periods === 1 ? '' : 's'}, ` +
    `${r.deals.length} deal${r.deals.length === 1 ? '' : 's'}, ${r.checked} recomputed` +
    (r.chainStart ? `; hash-chained from line ${r.chainStart}.` : '.') });
  if (r !== lastShown) { view.filter = 'all'; view.page = 0; view.focus = null; lastShown = r; }
  $('results').replaceChildren(summary, findingsEl(r) || '', evidenceEl(r) || '', playerEl(r) || '',
    el('div', { id: 'log-view' }));
  redraw(r);
}
let lastShown = null;

function showOneResult(r) {
  const kids = [findingsEl(r)];
  if (r.computed) {
    const box = el('section', { class: 'period', 'data-verdict': r.verdict },
      el('h2', {}, `${r.game}, nonce ${r.nonce}`, badge(r.verdict, r.rule ? `${word(r.verdict)}: ${r.rule}` : undefined),
        el('span', { class: 'meta', text: `${r.players} player${r.players === 1 ? '' : 's'} · ${r.decks} deck${r.decks === 1 ? '' : 's'} · client seed ` +
          `${JSON.stringify(r.clientSeed)} · ${r.scheme}` })),
      el('div', { class: 'kv', style: 'padding:4px 12px 0' }, `SHA-256(server seed) = ${r.computedCommitment}`),
      el('div', { class: 'kv', style: 'padding:0 12px' }, `key = ${S.bytesToHex(r.computed.key)}`));
    const deal = el('div', { class: 'deal' });
    if (r.claim && r.rule === 'bad-deal') {
      const claimed = S.partsOfTsv(r.claim, r.game, r.players);
      deal.append(el('div', { class: 'note', text: 'You were shown (as dealt; cards that differ are marked):' }),
        partsEl(claimed, r.game, r.computed.parts),
        el('div', { class: 'note', text: 'The seeds give:' }), partsEl(r.computed.parts, r.game, claimed));
    } else deal.append(partsEl(r.computed.parts, r.game));
    box.append(deal);
    kids.push(box);
  }
  $('results').replaceChildren(...kids.filter(Boolean));
}

let vrf = null; // scheme fairshuf-vrf-1's part of the page (vrf_page.js)

function show(r) {
  last = r;
  if (r.verdict === 'error') { showError(r.message); return; }
  showVerdict(r);
  if (r.mode === 'vrf' || r.mode === 'vrf-one') vrf.show(r);
  else if (r.mode === 'one') showOneResult(r); else showLogResult(r);
}

// ---- running a check -----------------------------------------------------
async function run(fn) {
  const v = $('verdict');
  delete v.dataset.verdict;
  v.replaceChildren(el('strong', { class: 'word', text: 'Checking…' }));
  try {
    show(await fn());
  } catch (e) {
    showError(e && e.message ? e.message : String(e));
  }
}

function playerInput() {
  return { commitment: $('my-commitment').value.trim(), clientSeed: $('my-client-seed').value || undefined,
    deals: $('my-deals').value.split('\n') };
}

// The log as it was loaded (a file's or a fetched log's bytes, a pasted
// text with its CRs), checked as long as the text box still shows it: the
// box turns every CR into a line break and cannot hold invalid UTF-8.
let source = null;
function setLog(raw) {
  $('log').value = logText(raw);
  source = { raw, shown: $('log').value };
}
function logInput() {
  return source && $('log').value === source.shown ? source.raw : $('log').value;
}

const ONE_FIELDS = ['server_seed', 'commitment', 'client_seed', 'nonce', 'game', 'players', 'decks', 'scheme', 'deal'];

function oneInput() {
  const q = {};
  for (const k of ONE_FIELDS) q[k] = $(k).value.replace(/\r?\n$/, '');
  for (const k of ['server_seed', 'commitment', 'nonce', 'players', 'decks']) q[k] = q[k].trim();
  return q;
}

function setMode(mode) {
  $('tab-log').setAttribute('aria-selected', String(mode === 'log'));
  $('tab-one').setAttribute('aria-selected', String(mode === 'one'));
  $('form-log').hidden = mode !== 'log';
  $('form-one').hidden = mode !== 'one';
}

// A fetched log's bytes (decoded line by line, strictly, by the check).
async function fetchLog(url) {
  const res = await fetch(url, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

// A pasted, loaded or fetched log (text, or bytes as loaded): a
// fairshuf-vrf-1 log goes to vrf.js, any other to check.js with its bytes.
const checkAny = (raw) => {
  const text = typeof raw === 'string' ? raw : logText(raw);
  return vrf.isVrfLog(text) ? vrf.checkLog(text) : checkLog(raw, playerInput());
};

// ---- start ---------------------------------------------------------------
function start() {
  vrf = installVrf({ el, $, badge, word, partsEl, findingsEl, partsOfTsv: S.partsOfTsv, run });
  for (const g of Object.keys(S.GAMES)) $('game').append(el('option', { value: g, text: g }));
  $('lang').addEventListener('change', () => {
    lang = $('lang').value;
    document.documentElement.lang = lang === 'zh' ? 'zh' : 'en';
    if (last) show(last);
  });
  $('tab-log').addEventListener('click', () => setMode('log'));
  $('tab-one').addEventListener('click', () => setMode('one'));
  $('form-log').addEventListener('submit', (e) => {
    e.preventDefault();
    run(() => checkAny(logInput()));
  });
  // A paste that replaces the whole box keeps the text as pasted (a lone
  // CR is no line break in a log).
  $('log').addEventListener('paste', (e) => {
    const box = $('log');
    const all = box.value === '' || (box.selectionStart === 0 && box.selectionEnd === box.value.length);
    const text = e.clipboardData && e.clipboardData.getData('text/plain');
    if (!all || !text) return;
    e.preventDefault();
    setLog(text);
  });
  $('form-one').addEventListener('submit', (e) => {
    e.preventDefault();
    run(() => checkOne(oneInput()));
  });
  $('log-file').addEventListener('change', async () => {
    const f = $('log-file').files[0];
    if (!f) return;
    const bytes = new Uint8Array(await f.arrayBuffer());
    setLog(bytes);
    run(() => checkAny(bytes));
  });
  $('log-fetch').addEventListener('click', () => {
    const url = $('log-url').value.trim();
    if (!url) return;
    run(async () => {
      const bytes = await fetchLog(url);
      setLog(bytes);
      return checkAny(bytes);
    });
  });

  const q = new URLSearchParams(location.search);
  if (q.get('lang') === 'zh') { $('lang').value = 'zh'; lang = 'zh'; document.documentElement.lang = 'zh'; }
  if (vrf.start(q)) return;
  const table = q.get('table');
  // A link (one hand, or a table's log) shows its result first: the inputs
  // fold away, one click brings them back.
  if (table !== null || ONE_FIELDS.some((k) => q.has(k))) $('inputs').open = false;
  if (table !== null) {
    // Served by `fairshuf serve`: the table's public log from the same origin.
    if (q.get('commitment')) $('my-commitment').value = q.get('commitment');
    if (q.get('client_seed')) $('my-client-seed').value = q.get('client_seed');
    // a fairshuf-vrf-1 table's log is checked against the dealer's key
    if (q.get('public_key')) $('vrf-public-key').value = q.get('public_key').trim().toLowerCase();
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(table)) { showError(`'${table}' is not a table id`); return; }
    $('log-url').value = `/v1/tables/${table}/log`;
    run(async () => {
      const bytes = await fetchLog(`/v1/tables/${encodeURIComponent(table)}/log`);
      setLog(bytes);
      return checkAny(bytes);
    });
    return;
  }
  if (ONE_FIELDS.some((k) => q.has(k))) {
    setMode('one');
    for (const k of ONE_FIELDS) if (q.has(k)) $(k).value = q.get(k);
    const given = {};
    for (const k of ONE_FIELDS) if (q.has(k)) given[k] = q.get(k);
    run(() => checkOne(given));
  }
}

// The checks, for scripts and the tests (the same code the page runs).
window.fairshufVerify = { checkLog, checkOne, scheme: S, vrf: V };
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
