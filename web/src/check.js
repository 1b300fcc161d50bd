// check.js -- the period rules of docs/provably-fair.md over a whole log, and
// the player's own evidence (the commitment they saw, the client seed they
// chose, the deals they were dealt).  Verdicts and rule slugs are those of
// the spec: the FIRST broken rule is named with its 1-based log line.
import * as S from './scheme.js';

// ---- a strict JSON reader for one record -------------------------------
// A record is one flat JSON object whose values are strings or non-negative
// integers; each key once.  Integers stay decimal strings (a nonce may be
// above 2^53).  Throws Error(why) on anything else.
export function parseRecord(line) {
  let i = 0;
  const ws = () => { while (i < line.length && ' \t\n\r'.includes(line[i])) i++; };
  const fail = (why) => { throw new Error(why); };
  const str = () => {
    if (line[i] !== '"') fail('a string was expected');
    i++;
    let out = '';
    for (;;) {
      if (i >= line.length) fail('an unterminated string');
      const c = line[i++];
      if (c === '"') break;
      if (c === '\\') {
        const e = line[i++];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e in simple) out += simple[e];
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(line.substr(i, 4))) {
          out += String.fromCharCode(parseInt(line.substr(i, 4), 16));
          i += 4;
        } else fail('a bad escape in a string');
      } else if (c < ' ') fail('a control character in a string');
      else out += c;
    }
    return out;
  };
  ws();
  if (line[i] !== '{') fail('not a JSON object');
  i++;
  const rec = Object.create(null);
  ws();
  if (line[i] === '}') i++;
  else {
    for (;;) {
      ws();
      const k = str();
      if (k in rec) fail(`the key "${k}" twice`);
      ws();
      if (line[i] !== ':') fail("a ':' was expected");
      i++;
      ws();
      if (line[i] === '"') rec[k] = { s: str() };
      else {
        const m = /^(0|[1-9][0-9]*)(?![0-9.eE+-])/.exec(line.slice(i));
        if (!m) fail(`the value of "${k}" is neither a string nor a non-negative integer`);
        rec[k] = { n: m[1] };
        i += m[1].length;
      }
      ws();
      if (line[i] === ',') { i++; continue; }
      if (line[i] === '}') { i++; break; }
      fail("a ',' or '}' was expected");
    }
  }
  ws();
  if (i !== line.length) fail('text after the object');
  return rec;
}

// The keys of each record, by scheme and event.
const KEYS = {
  'fairshuf-pf-1': {
    commit: ['commitment'],
    deal: ['nonce', 'client_seed', 'game', 'players', 'decks', 'deal'],
    reveal: ['server_seed'],
  },
  'fairshuf-pf-2': {
    commit: ['commitment', 'game', 'players', 'decks'],
    client_seed: ['client_seed'],
    deal: ['nonce', 'client_seed', 'game', 'players', 'decks', 'deal'],
    reveal: ['server_seed'],
  },
};
const NUMERIC = new Set(['nonce', 'players', 'decks']);
const U64_MAX = (1n << 64n) - 1n;

// Why a client seed breaks the scheme's rule, or null.
export function clientSeedError(seed, scheme) {
  if (seed.includes('\0')) return 'the client seed holds a NUL byte';
  if (!seed.isWellFormed ? /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(seed)
    : !seed.isWellFormed())
    return 'the client seed is not valid UTF-8';
  const len = S.utf8(seed).length;
  if (len > S.CLIENT_SEED_MAX) return `the client seed is ${len} bytes (at most ${S.CLIENT_SEED_MAX})`;
  if (scheme === S.SCHEME_V2) {
    if (len === 0) return 'the client seed is empty';
    if (/[\x00-\x1f\x7f]/.test(seed)) return 'the client seed holds a control character';
  }
  return null;
}

// One line to a typed record {scheme, event, ...}, or throws Error(why).
export function readRecord(line) {
  const raw = parseRecord(line);
  const scheme = raw.scheme && raw.scheme.s;
  if (scheme === undefined) throw new Error('no "scheme"');
  if (!KEYS[scheme]) throw new Error(`scheme '${scheme}' is not one this page verifies`);
  const event = raw.event && raw.event.s;
  const keys = KEYS[scheme][event];
  if (!keys) throw new Error(`'${event}' is not an event of ${scheme}`);
  const want = new Set(['scheme', 'event', ...keys]);
  for (const k of Object.keys(raw)) if (!want.has(k)) throw new Error(`an unknown key "${k}"`);
  const rec = { scheme, event };
  for (const k of keys) {
    if (!(k in raw)) throw new Error(`no "${k}"`);
    const v = raw[k];
    if (NUMERIC.has(k)) {
      if (v.n === undefined) throw new Error(`"${k}" is not a number`);
      const n = BigInt(v.n);
      if (n > U64_MAX) throw new Error(`"${k}" is above 2^64-1`);
      rec[k] = k === 'nonce' ? n : Number(n);
    } else {
      if (v.s === undefined) throw new Error(`"${k}" is not a string`);
      rec[k] = v.s;
    }
  }
  for (const k of ['commitment', 'server_seed'])
    if (k in rec && !/^[0-9a-f]{64}$/.test(rec[k])) throw new Error(`"${k}" is not 64 lower-case hex digits`);
  if ('game' in rec) {
    const why = S.tableError(rec.game, rec.players, rec.decks);
    if (why) throw new Error(why);
  }
  if ('client_seed' in rec) {
    const why = clientSeedError(rec.client_seed, scheme);
    if (why) throw new Error(why);
  }
  if ('deal' in rec) {
    const why = S.tsvError(rec.deal, rec.game, rec.players);
    if (why) throw new Error(`the deal is not a deal of ${rec.game} for ${rec.players} players: ${why}`);
    if (rec.nonce === U64_MAX) throw new Error('nonce out of range');
  }
  return rec;
}

// ---- the check ----------------------------------------------------------
// The rules, in the order that breaks ties on one line (docs/provably-fair.md).
export const RULES = ['malformed', 'order', 'recommitted', 'client-seed-reused',
  'client-seed-changed', 'table-changed', 'nonce', 'bad-reveal', 'empty-period', 'bad-deal',
  'client-seed-mismatch', 'deal-differs', 'commitment-not-found', 'deal-missing',
  'unrevealed', 'empty-log', 'no-commitment'];
const INCONCLUSIVE = new Set(['unrevealed', 'empty-log', 'no-commitment']);

// The first broken rule: a dishonest finding before an inconclusive one,
// then the smallest line (0, the log as a whole, after every line), then
// the order above.
function firstOf(findings) {
  const key = (f) => [INCONCLUSIVE.has(f.rule) ? 1 : 0, f.line || Infinity, RULES.indexOf(f.rule)];
  let best = null;
  for (const f of findings) {
    if (!best) { best = f; continue; }
    const a = key(f);
    const b = key(best);
    for (let i = 0; i < 3; i++) if (a[i] !== b[i]) { if (a[i] < b[i]) best = f; break; }
  }
  return best;
}

// The lines of a log: a string (pasted), or its bytes (a file, a fetched
// log) split at each LF (0x0A) and each decoded as strict UTF-8 -- an
// invalid byte, an overlong form (C0 80), a surrogate (CESU-8) is a
// malformed line, and a byte order mark is kept, so that a log starting
// with one is malformed as in the spec (never decode a log leniently).  A
// CR is no line break.  The last line may lack its LF.
const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
function splitLines(input) {
  let lines = [];
  if (typeof input === 'string') lines = input.split('\n');
  else {
    const b = input instanceof Uint8Array ? input : new Uint8Array(input);
    let at = 0;
    for (;;) {
      const nl = b.indexOf(0x0a, at);
      lines.push(b.subarray(at, nl < 0 ? b.length : nl));
      if (nl < 0) break;
      at = nl + 1;
    }
  }
  if (lines.length && lines[lines.length - 1].length === 0) lines.pop();
  return lines;
}

function lineText(line) {
  if (typeof line === 'string') return line;
  try {
    return STRICT.decode(line);
  } catch {
    throw new Error('the line is not valid UTF-8');
  }
}

// The log's text as a person reads it (a file shown in the text box).
export function logText(input) {
  return typeof input === 'string' ? input : new TextDecoder('utf-8', { ignoreBOM: true }).decode(input);
}

// checkLog(input, {commitment, clientSeed, deals}) ->
//   {verdict, rule, line, message, findings[], periods[], deals[], checked}
// findings: {rule, line, message} in the order found (log rules by line,
// then the player's).  periods: {index, scheme, firstLine, lastLine,
// commitment, game, players, decks, clientSeed, revealed, verdict, rule, deals[]}.
// deals: {line, nonce, rec, verdict, rule, parts, computed}.
export async function checkLog(input, player = {}) {
  const findings = [];
  const add = (rule, line, message, owner) => {
    findings.push({ rule, line, message });
    if (owner && !owner.rule) { owner.rule = rule; owner.line = line; }
  };
  const lines = splitLines(input);
  const periods = [];
  const allDeals = [];
  const result = { findings, periods, deals: allDeals, lines: lines.length, stopped: 0 };
  const commitments = new Map();  // commitment -> period
  const clientSeeds = new Map();  // client seed -> period
  let period = null;              // the open period (commit seen, no reveal)
  const open = (no, rec) => {
    period = { index: periods.length + 1, scheme: rec.scheme, firstLine: no, lastLine: no,
      commitment: rec.commitment, game: rec.game, players: rec.players, decks: rec.decks,
      clientSeed: undefined, revealed: false, serverSeed: null, deals: [], due: 0n, rule: null };
    periods.push(period);
  };
  for (let k = 0; k < lines.length; k++) {
    const no = k + 1;
    let rec;
    try {
      rec = readRecord(lineText(lines[k]));
    } catch (e) {
      // A line that is not a record stops the check: what follows cannot
      // be placed in a period.
      add('malformed', no, `line ${no}: ${e.message}`, period);
      result.stopped = no;
      break;
    }
    if (period) period.lastLine = no;
    if (period && rec.event !== 'commit' && rec.scheme !== period.scheme) {
      add('malformed', no, `line ${no}: a ${rec.scheme} record in a ${period.scheme} period ` +
        '(one scheme per period)', period);
      result.stopped = no;
      break;
    }
    if (rec.event === 'commit') {
      if (period) {
        add('order', no, `line ${no}: a commitment before the previous period's reveal`, period);
      }
      const earlier = commitments.get(rec.commitment);
      open(no, rec);
      if (earlier)
        add('recommitted', no, `line ${no}: commitment ${rec.commitment.slice(0, 12)}… was already ` +
          `committed on line ${earlier.firstLine}${earlier.revealed ? ' and revealed' : ''}`, period);
      else commitments.set(rec.commitment, period);
    } else if (rec.event === 'client_seed') {
      if (!period) { add('order', no, `line ${no}: a client seed outside a period`); continue; }
      if (period.clientSeed !== undefined) {
        add('order', no, `line ${no}: a second client seed in the period`, period);
        continue;
      }
      period.clientSeed = rec.client_seed;
      period.clientLine = no;
      reuse(no, rec.client_seed);
    } else if (rec.event === 'deal') {
      if (!period) { add('order', no, `line ${no}: a deal outside a period`); continue; }
      if (period.scheme === S.SCHEME_V2 && period.clientSeed === undefined) {
        add('order', no, `line ${no}: a deal before the period's client seed`, period);
        continue;
      }
      const d = { line: no, nonce: rec.nonce, rec, period, verdict: null, rule: null };
      period.deals.push(d);
      allDeals.push(d);
      if (period.scheme !== S.SCHEME_V2 && period.deals.length === 1) {
        // v1: the first deal fixes the client seed and the table.
        period.clientSeed = rec.client_seed;
        period.clientLine = no;
        period.game = rec.game;
        period.players = rec.players;
        period.decks = rec.decks;
        reuse(no, rec.client_seed, d);
      }
      if (period.clientSeed !== undefined && rec.client_seed !== period.clientSeed) {
        add('client-seed-changed', no, `line ${no}: nonce ${rec.nonce} uses client seed ` +
          `${JSON.stringify(rec.client_seed)}, the period's is ${JSON.stringify(period.clientSeed)}`, period);
        markDeal(d, 'client-seed-changed', no);
      }
      if (rec.game !== period.game || rec.players !== period.players || rec.decks !== period.decks) {
        add('table-changed', no, `line ${no}: ${rec.game} ${rec.players} players ${rec.decks} decks ` +
          `in a period of ${period.game} ${period.players} players ${period.decks} decks`, period);
        markDeal(d, 'table-changed', no);
      }
      if (rec.nonce !== period.due) {
        add('nonce', no, `line ${no}: nonce ${rec.nonce} where ${period.due} is due`, period);
        markDeal(d, 'nonce', no);
      }
      period.due = rec.nonce + 1n;
    } else if (rec.event === 'reveal') {
      if (!period) { add('order', no, `line ${no}: a reveal outside a period`); continue; }
      const p = period;
      period = null;
      p.revealed = true;
      p.revealLine = no;
      p.serverSeed = rec.server_seed;
      const seed = S.hexToBytes(rec.server_seed);
      if (S.bytesToHex(await S.sha256(seed)) !== p.commitment) {
        add('bad-reveal', no, `line ${no}: SHA-256 of the server seed is not the period's ` +
          `commitment ${p.commitment.slice(0, 12)}…`, p);
        for (const d of p.deals) markDeal(d, 'bad-reveal', no);
      } else {
        if (p.scheme === S.SCHEME_V2 && p.deals.length === 0)
          add('empty-period', no, `line ${no}: period ${p.index} (committed on line ${p.firstLine}) ` +
            'was revealed with no deal: a server that rotates before dealing can choose its seed', p);
        for (const d of p.deals) {
          const r = d.rec;
          d.computed = await S.deal(p.scheme, seed, r.game, r.players, r.decks, r.client_seed, r.nonce);
          if (d.computed.tsv !== r.deal) {
            add('bad-deal', d.line, `line ${d.line}: nonce ${r.nonce} is not the deal the seeds give` +
              ` (${firstDifference(r.deal, d.computed.tsv, r.game, r.players)})`, p);
            markDeal(d, 'bad-deal', d.line);
          } else if (!d.verdict) d.verdict = 'honest';
        }
      }
    }
  }
  function reuse(no, seed, d) {
    const earlier = clientSeeds.get(seed);
    if (earlier && earlier !== period) {
      add('client-seed-reused', no, `line ${no}: client seed ${JSON.stringify(seed)} was already used ` +
        `in period ${earlier.index} (line ${earlier.firstLine})`, period);
      if (d) markDeal(d, 'client-seed-reused', no);
    } else clientSeeds.set(seed, period);
  }
  for (const p of periods) {
    for (const d of p.deals) if (!d.verdict) d.verdict = p.revealed ? 'dishonest' : 'inconclusive';
    p.verdict = p.rule ? 'dishonest' : p.revealed ? 'honest' : p.deals.length ? 'inconclusive' : 'waiting';
  }
  if (!result.stopped) {
    playerChecks(result, player, add);
    const lastP = periods[periods.length - 1];
    if (lastP && !lastP.revealed && lastP.deals.length)
      add('unrevealed', lastP.firstLine, `period ${lastP.index} (committed on line ${lastP.firstLine}) ` +
        `is not revealed yet: its ${lastP.deals.length} deal${lastP.deals.length === 1 ? ' is' : 's are'} ` +
        'not checked');
    if (allDeals.length === 0) add('empty-log', 0, 'the log has no deal: nothing was checked');
  }
  return summarise(result);
}

function markDeal(d, rule, line) {
  if (!d.rule) { d.rule = rule; d.ruleLine = line; }
  d.verdict = 'dishonest';
}

// The player's own evidence against the log.
function playerChecks(result, player, add) {
  const { periods } = result;
  let target = null;
  const commitment = (player.commitment || '').trim().toLowerCase();
  const seed = player.clientSeed === '' ? undefined : player.clientSeed;
  const theirs = seenDeals(player.deals || []);
  if (commitment) {
    target = periods.find((p) => p.commitment === commitment) || null;
    if (!target) {
      add('commitment-not-found', 0, `no period of the log has your commitment ${commitment.slice(0, 16)}…`);
      return;
    }
  } else if (seed !== undefined) {
    target = periods.find((p) => p.clientSeed === seed) || null;
    if (!target) {
      add('client-seed-mismatch', 0, `no period of the log has your client seed ${JSON.stringify(seed)}`);
      return;
    }
  } else {
    // neither: the last period that has a deal (a server's log after a
    // rotation ends with the next period's commit), else the last
    for (let i = periods.length; i-- > 0 && !target;) if (periods[i].deals.length) target = periods[i];
    target = target || periods[periods.length - 1] || null;
  }
  // Without the commitment the player saw, nothing ties this log to the
  // table they were shown: a dealer can open many tables with their client
  // seed and show the one whose deals it likes (docs/provably-fair.md).
  if (!commitment && (seed !== undefined || theirs.length))
    add('no-commitment', 0, 'without the commitment you were shown before you chose your client seed, ' +
      'this check cannot tell that this log is the table you were shown: a dealer that opens many ' +
      'tables with your client seed can show you the one whose deals it likes. Give the commitment');
  if (!target) {
    if (theirs.length)
      add('deal-missing', 0, `the log has no period: your deal at nonce ${theirs[0].nonce} is not in it`);
    return;
  }
  result.gave = { commitment: !!commitment, seed: seed !== undefined, deals: theirs.length, period: target.index };
  if (seed !== undefined && target.clientSeed !== seed) {
    if (target.clientSeed !== undefined)
      add('client-seed-mismatch', target.clientLine, `line ${target.clientLine}: period ${target.index} ` +
        `(committed on line ${target.firstLine}) uses the client seed ${JSON.stringify(target.clientSeed)}, ` +
        `not yours (${JSON.stringify(seed)})`);
    else
      add('client-seed-mismatch', target.firstLine, `line ${target.firstLine}: period ${target.index} ` +
        `has no client seed, not yours (${JSON.stringify(seed)})`);
  }
  if (!theirs.length) return;
  result.playerPeriod = target;
  result.playerDeals = [];
  result.unseen = unseen(target, theirs);
  for (const { nonce, tsv } of theirs) {
    const d = target.deals.find((x) => x.nonce === nonce);
    const mine = { nonce, tsv, logDeal: d || null, verdict: 'same' };
    result.playerDeals.push(mine);
    if (!d) {
      mine.verdict = 'deal-missing';
      add('deal-missing', 0, `your deal at nonce ${nonce} is not in period ${target.index} ` +
        `(committed on line ${target.firstLine})`);
    } else if (d.rec.deal !== tsv) {
      mine.verdict = 'deal-differs';
      add('deal-differs', d.line, `line ${d.line}: the log's deal at nonce ${nonce} is not the one you saw ` +
        `(${firstDifference(tsv, d.rec.deal, d.rec.game, d.rec.players)})`);
      if (!d.rule) { d.rule = 'deal-differs'; d.verdict = 'dishonest'; }
    }
  }
}

// The period's deals the player did not see: before their first nonce and
// between their first and last (a dealer who burns deals until one suits
// it shows the player only that one).  {before, between}: the nonces of
// those deal records, ascending (the counts are the CLI's unseen_*).
function unseen(p, theirs) {
  const seen = new Set(theirs.map((d) => d.nonce));
  let lo = null;
  let hi = null;
  for (const n of seen) {
    if (lo === null || n < lo) lo = n;
    if (hi === null || n > hi) hi = n;
  }
  const before = [];
  const between = [];
  for (const d of p.deals) {
    if (seen.has(d.nonce)) continue;
    if (d.nonce < lo) before.push(d.nonce);
    else if (d.nonce < hi) between.push(d.nonce);
  }
  const up = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return { before: before.sort(up), between: between.sort(up) };
}

// The deals the player saw: one per line (a final CR ignored), as `fair
// deal --format=tsv` prints them; a line may start with its nonce (decimal
// digits, leading zeros allowed) and a tab ("7<TAB>…": a card or tile code
// is never all digits), else the lines are nonces 0, 1, 2, …; blank lines
// are skipped.  Throws Error on a nonce above 2^64-1 (the CLI refuses it).
export function seenDeals(lines) {
  const out = [];
  let next = 0n;
  let no = 0;
  for (const raw of lines) {
    no++;
    const line = raw.replace(/\n$/, '').replace(/\r$/, '');
    if (line === '') continue;
    const m = /^([0-9]+)\t(.*)$/s.exec(line);
    const nonce = m ? BigInt(m[1]) : next;
    if (nonce > U64_MAX) throw new Error(`your deals, line ${no}: nonce ${m[1]} is above 2^64-1`);
    out.push({ nonce, tsv: m ? m[2] : line });
    next = nonce + 1n;
  }
  return out;
}

// What the player's evidence showed, only of what they gave (as the CLI).
function gaveText(g) {
  if (!g || !(g.commitment || g.seed || g.deals)) return '';
  const deals = g.deals ? `your ${g.deals} deal${g.deals === 1 ? ' is' : 's are'} in it, the same` : '';
  if (!g.commitment && !g.seed) return `; your ${g.deals} deal${g.deals === 1 ? ' is' : 's are'} in period ${g.period}, the same`;
  return `; your ${g.commitment ? 'commitment' : 'client seed'} is period ${g.period}'s` +
    (g.commitment && g.seed ? ', your client seed is its' : '') + (deals ? `, ${deals}` : '');
}

function summarise(r) {
  const first = firstOf(r.findings);
  const checked = r.deals.filter((d) => d.computed).length;
  if (!first)
    return { ...r, verdict: 'honest', rule: null, line: 0, checked,
      message: `every rule holds; ${checked} deal${checked === 1 ? '' : 's'} recomputed${gaveText(r.gave)}` };
  return { ...r, verdict: INCONCLUSIVE.has(first.rule) ? 'inconclusive' : 'dishonest',
    rule: first.rule, line: first.line, message: first.message, checked };
}

// A card in a message: main.js shows it by the name and symbol the page
// shows (A♠, 黑桃A, 五筒); as text it stays its code.  Tiles and cards
// differ ("2s" is both), so the kind is in the mark.
const OPEN = '\u27e6';
const CLOSE = '\u27e7';
export const cardMark = (code, tiles) => (code ? `${OPEN}${tiles ? 't' : 'c'}:${code}${CLOSE}` : 'none');
export const MARK = /\u27e6([tc]):([^\u27e7]*)\u27e7/g;
export const plain = (message) => String(message).replace(MARK, '$2');

// Where two TSV deals first differ, in words.
export function firstDifference(claim, truth, game, players) {
  const tiles = S.GAMES[game].deck === 136 || S.GAMES[game].deck === 144;
  const a = S.partsOfTsv(claim, game, players);
  const b = S.partsOfTsv(truth, game, players);
  if (a.length !== b.length) return `${a.length} parts where the deal has ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    const x = a[i].cards;
    const y = b[i].cards;
    for (let j = 0; j < Math.max(x.length, y.length); j++)
      if (x[j] !== y[j])
        return `${b[i].en}, card ${j + 1}: ${cardMark(x[j], tiles)} where the deal has ${cardMark(y[j], tiles)}`;
  }
  return 'the same cards';
}

// ---- one deal from its parts -------------------------------------------
// q: {server_seed, commitment, client_seed, nonce, game, players, decks,
//     deal, scheme}; every value a string as typed (or missing).  A value
// that is not one the check can use (an unknown game, a nonce that is not
// a number, a deal that is not a TSV of the game, …) is a usage error, as
// in `fair check`: {verdict: 'error'}, no verdict on the dealer.  The
// result's scope says, in the verdict, what the check proved and what not.
export async function checkOne(q) {
  const out = { mode: 'one', findings: [] };
  const usage = (message) => Object.assign(out, { verdict: 'error', rule: null, line: 0, message });
  const bad = (rule, message) => {
    out.findings.push({ rule, line: 0, message });
    return Object.assign(out, { verdict: 'dishonest', rule, line: 0, message });
  };
  const scheme = q.scheme || S.SCHEME_V2;
  if (!S.SCHEMES.includes(scheme)) return usage(`scheme '${scheme}' is not one this page verifies`);
  const game = q.game || 'doudizhu';
  const g = S.GAMES[game];
  if (!g) return usage(`unknown game '${game}'`);
  // decimal digits (leading zeros allowed, as the CLI's --nonce=07)
  const int = (v, dflt, what) => {
    if (v === undefined || v === null || v === '') return dflt;
    if (!/^[0-9]+$/.test(v)) throw new Error(`${what} '${v}' is not a non-negative integer`);
    return BigInt(v);
  };
  let players, decks, nonce;
  try {
    players = Number(int(q.players, g.players, 'players'));
    decks = Number(int(q.decks, g.decks, 'decks'));
    nonce = int(q.nonce, null, 'the nonce');
  } catch (e) {
    return usage(e.message);
  }
  if (nonce === null) return usage('no nonce given');
  if (nonce >= U64_MAX) return usage('the nonce must be below 2^64-1 (a period never reaches 2^64-1)');
  const why = S.tableError(game, players, decks);
  if (why) return usage(why);
  const clientSeed = q.client_seed ?? '';
  // the CLI's rule for a seed checked alone: pf-2's, the empty seed allowed
  const seedWhy = clientSeed === '' ? null : clientSeedError(clientSeed, S.SCHEME_V2);
  if (seedWhy) return usage(seedWhy);
  const commitment = (q.commitment || '').trim().toLowerCase();
  if (commitment && !/^[0-9a-f]{64}$/.test(commitment))
    return usage('the commitment is not 64 hex digits');
  Object.assign(out, { scheme, game, players, decks, nonce, clientSeed, commitment });
  // the deal as `fair deal --format=tsv` prints it; a final LF, CR LF or
  // CR is the line's end (as the CLI's --deal and the player's deals)
  const claim = (q.deal || '').replace(/\n$/, '').replace(/\r$/, '');
  if (claim) {
    const tw = S.tsvError(claim, game, players);
    if (tw) return usage(`the deal is not a deal of ${game} for ${players} players: ${tw}`);
    out.claim = claim;
  }
  const which = `nonce ${nonce}, client seed ${JSON.stringify(clientSeed)}`;
  const always = ['that the server could not pick this nonce or client seed among many: ' +
    'only the period\'s whole log shows that'];
  const seedHex = (q.server_seed || '').trim().toLowerCase();
  if (!seedHex) {
    return Object.assign(out, { verdict: 'inconclusive', rule: 'unrevealed', line: 0,
      message: 'the server seed is not revealed yet: nothing can be checked until it is',
      scope: { proved: [], unproved: ['anything yet: a deal is checked once the server reveals its seed'] } });
  }
  if (!/^[0-9a-f]{64}$/.test(seedHex)) return usage('the server seed is not 64 hex digits');
  const seed = S.hexToBytes(seedHex);
  out.serverSeed = seedHex;
  out.computedCommitment = S.bytesToHex(await S.sha256(seed));
  out.computed = await S.deal(scheme, seed, game, players, decks, clientSeed, nonce);
  if (!commitment)
    return Object.assign(out, { verdict: 'inconclusive', rule: null, line: 0,
      message: 'no commitment given: the hands below are the seeds\' deal, but nothing ' +
        'shows the seed was fixed before play',
      scope: { proved: [`the hands below are these seeds' deal (${which})`],
        unproved: ['that the seed was fixed before play: give the commitment', ...always] } });
  if (out.computedCommitment !== commitment)
    return bad('bad-reveal', `SHA-256 of the server seed is ${out.computedCommitment.slice(0, 12)}…, ` +
      `not the commitment ${commitment.slice(0, 12)}…`);
  if (claim && claim !== out.computed.tsv)
    return bad('bad-deal', `the deal is not the one the seeds give ` +
      `(${firstDifference(claim, out.computed.tsv, game, players)})`);
  const proved = ['the server seed is the committed one',
    claim ? `your deal is exactly the seeds' deal, card by card (${which})`
      : `the hands below are the seeds' deal (${which})`];
  const unproved = claim ? always
    : ['that these are your cards: no deal given, compare them with yours', ...always];
  return Object.assign(out, { verdict: 'honest', rule: null, line: 0,
    message: claim ? 'the seed matches the commitment and the deal is the one the seeds give'
      : 'the seed matches the commitment; no deal was given: compare the hands below with yours',
    scope: { proved, unproved } });
}
