// main.js -- the verifier page: reads the inputs (a log, or one deal's parts,
// from the form or the query string), runs check.js and shows the verdict and
// the hands.  It makes no network request but the log the user asks for.
import * as S from './scheme.js';
import { checkOne } from './check.js';
import { checkLog } from './chain.js'; // the records and their hash chain

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

// ---- the verdict element (a contract: id="verdict", data-verdict) --------
function showVerdict(r) {
  const v = $('verdict');
  v.dataset.verdict = r.verdict;
  if (r.rule) v.dataset.rule = r.rule; else delete v.dataset.rule;
  if (r.line) v.dataset.line = String(r.line); else delete v.dataset.line;
  v.replaceChildren(
    el('strong', { class: 'word' }, word(r.verdict),
      r.rule ? el('span', { class: 'rule', text: r.rule }) : null),
    el('span', { class: 'why', text: r.message || '' }));
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
  r.findings.slice(0, 50).forEach((f) => ol.append(el('li', {}, el('code', { text: f.rule }), ' ', f.message)));
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

function periodEl(p) {
  const meta = [];
  if (p.game) meta.push(`${p.game}, ${p.players} player${p.players === 1 ? '' : 's'}, ${p.decks} deck${p.decks === 1 ? '' : 's'}`);
  if (p.clientSeed !== undefined) meta.push(`client seed ${JSON.stringify(p.clientSeed)}`);
  meta.push(`${p.deals.length} deal${p.deals.length === 1 ? '' : 's'}`);
  const sec = el('section', { class: 'period', 'data-verdict': p.verdict },
    el('h2', {}, `Period ${p.index}`, badge(p.verdict, p.rule ? `${word(p.verdict)}: ${p.rule}` : undefined),
      el('span', { class: 'meta', text: `lines ${p.firstLine}–${p.lastLine} · ${meta.join(' · ')}` })),
    el('div', { class: 'kv', style: 'padding:4px 12px 0' }, `commitment ${p.commitment}`),
    el('div', { class: 'kv', style: 'padding:0 12px' },
      p.revealed ? `server seed ${p.serverSeed}` : 'server seed not revealed yet'));
  const shown = p.deals.slice(0, 200);
  for (const d of shown) sec.append(dealEl(d, d.rec.game, d.rec.players));
  if (p.deals.length > shown.length)
    sec.append(el('div', { class: 'deal note', text: `… ${p.deals.length - shown.length} more deals checked, not shown` }));
  return sec;
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

function showLogResult(r) {
  const periods = r.periods.length;
  const summary = el('p', { class: 'summary', text:
    `${r.lines} line${r.lines === 1 ? '' : 's'}, ${periods} period${periods === 1 ? '' : 's'}, ` +
    `${r.deals.length} deal${r.deals.length === 1 ? '' : 's'}, ${r.checked} recomputed` +
    (r.chainStart ? `; hash-chained from line ${r.chainStart}.` : '.') });
  $('results').replaceChildren(summary, findingsEl(r) || '', playerEl(r) || '', ...r.periods.map(periodEl));
}

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

function show(r) {
  last = r;
  showVerdict(r);
  if (r.mode === 'one') showOneResult(r); else showLogResult(r);
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
  const deals = $('my-deals').value.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
  return { commitment: $('my-commitment').value.trim(), clientSeed: $('my-client-seed').value || undefined, deals };
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

async function fetchLog(url) {
  const res = await fetch(url, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.text();
}

// ---- start ---------------------------------------------------------------
function start() {
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
    run(() => checkLog($('log').value, playerInput()));
  });
  $('form-one').addEventListener('submit', (e) => {
    e.preventDefault();
    run(() => checkOne(oneInput()));
  });
  $('log-file').addEventListener('change', async () => {
    const f = $('log-file').files[0];
    if (!f) return;
    $('log').value = await f.text();
    run(() => checkLog($('log').value, playerInput()));
  });
  $('log-fetch').addEventListener('click', () => {
    const url = $('log-url').value.trim();
    if (!url) return;
    run(async () => {
      $('log').value = await fetchLog(url);
      return checkLog($('log').value, playerInput());
    });
  });

  const q = new URLSearchParams(location.search);
  if (q.get('lang') === 'zh') { $('lang').value = 'zh'; lang = 'zh'; document.documentElement.lang = 'zh'; }
  const table = q.get('table');
  // A link (one hand, or a table's log) shows its result first: the inputs
  // fold away, one click brings them back.
  if (table !== null || ONE_FIELDS.some((k) => q.has(k))) $('inputs').open = false;
  if (table !== null) {
    // Served by `fairshuf serve`: the table's public log from the same origin.
    if (q.get('commitment')) $('my-commitment').value = q.get('commitment');
    if (q.get('client_seed')) $('my-client-seed').value = q.get('client_seed');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(table)) { showError(`'${table}' is not a table id`); return; }
    $('log-url').value = `/v1/tables/${table}/log`;
    run(async () => {
      $('log').value = await fetchLog(`/v1/tables/${encodeURIComponent(table)}/log`);
      return checkLog($('log').value, playerInput());
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
window.fairshufVerify = { checkLog, checkOne, scheme: S };
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
