// vrf.js -- scheme fairshuf-vrf-1 (docs/provably-fair.md, "Scheme
// fairshuf-vrf-1"), written from the spec apart from fairshuf's C: the VRF
// ECVRF-EDWARDS25519-SHA512-TAI (RFC 9381 section 5, suite 0x03) on
// @noble/curves' Ed25519 points and @noble/hashes' SHA-512, a hand's alpha,
// its record, the check of one hand, and the rules of a whole log.
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import * as S from './scheme.js';
import { parseRecord, clientSeedError } from './check.js';

export const SCHEME = 'fairshuf-vrf-1';
const Point = ed25519.Point;
const L = Point.Fn.ORDER;
const SUITE = 0x03;
const SEATS_MAX = 10;
const NAME_MAX = 256;
const ALPHA_MAX = 16 + 65 + (NAME_MAX + 1) * (SEATS_MAX + 1) + 32 + 3 * 21;
const LINE_MAX = 32768;
const TSV_MAX = 1024 * 3 + 17; // FS_FAIR_TSV_MAX: the longest deal the C reads
const U64_MAX = (1n << 64n) - 1n;

const cat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
};
const wellFormed = (s) => (s.isWellFormed ? s.isWellFormed()
  : !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s));
const leInt = (b) => b.reduceRight((v, x) => (v << 8n) | BigInt(x), 0n);

// string_to_point (RFC 8032 5.1.3, strict): null when it does not decode.
function decode(bytes) {
  try { return Point.fromBytes(bytes); } catch { return null; }
}

// fairshuf's policy on the key and Gamma: in the prime-order subgroup, not
// of small order (include/fairshuf/vrf.h).
const inSubgroup = (p) => p !== null && !p.isSmallOrder() && p.isTorsionFree();

export function publicKeyOk(pk) {
  return pk.length === 32 && inSubgroup(decode(pk));
}

// ECVRF_encode_to_curve_try_and_increment, salt = the public key's bytes.
function encodeToCurve(pk, alpha) {
  for (let ctr = 0; ctr < 256; ctr++) {
    const h = sha512(cat(Uint8Array.of(SUITE, 0x01), pk, alpha, Uint8Array.of(ctr, 0x00)));
    const p = decode(h.subarray(0, 32));
    if (p) return p.clearCofactor();
  }
  return null;
}

function challenge(points) {
  const h = sha512(cat(Uint8Array.of(SUITE, 0x02), ...points.map((p) => p.toBytes()), Uint8Array.of(0)));
  return leInt(h.subarray(0, 16));
}

function proofToHash(gamma) {
  return sha512(cat(Uint8Array.of(SUITE, 0x03), gamma.clearCofactor().toBytes(), Uint8Array.of(0)));
}

// ECVRF_verify: beta (64 bytes) when pi (80 bytes) is a valid proof of alpha
// under pk (32 bytes), else null.
export function vrfVerify(pk, alpha, pi) {
  if (pk.length !== 32 || pi.length !== 80) return null;
  const Y = decode(pk);
  const gamma = decode(pi.subarray(0, 32));
  if (!inSubgroup(Y) || !inSubgroup(gamma)) return null;
  const c = leInt(pi.subarray(32, 48));
  const s = leInt(pi.subarray(48, 80));
  if (s >= L || s === 0n || c === 0n) return null;
  const H = encodeToCurve(pk, alpha);
  if (H === null || H.is0()) return null;
  const U = Point.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c)); // public data only
  const V = H.multiplyUnsafe(s).subtract(gamma.multiplyUnsafe(c));
  if (challenge([Y, H, gamma, U, V]) !== c) return null;
  return proofToHash(gamma);
}

// ---- the scheme ---------------------------------------------------------
// alpha: scheme, key (hex), table, game, players, decks, hand joined by NUL;
// then the client seeds joined by tabs.
export function alphaOf(r) {
  const fields = [SCHEME, r.publicKey, r.table, r.game, String(r.players), String(r.decks),
    BigInt(r.hand).toString(), r.clientSeeds.join('\t')];
  const bytes = fields.map(S.utf8);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0) + bytes.length - 1);
  let at = 0;
  bytes.forEach((b, i) => {
    if (i) out[at++] = 0;
    out.set(b, at);
    at += b.length;
  });
  return out;
}

export function dealOfBeta(beta, game, players, decks) {
  const parts = S.layout(game, players, decks, S.shuffleWith(beta.slice(0, 32), game, decks));
  return { parts, tsv: S.toTsv(parts) };
}

const COMMON = ['public_key', 'table', 'game', 'players', 'decks'];
const KEYS = {
  table: [...COMMON, 'commitments'],
  hand: [...COMMON, 'hand', 'client_seeds', 'alpha', 'pi', 'deal'],
};
KEYS.void = KEYS.hand;
const NUMERIC = new Set(['players', 'decks', 'hand']);
const HEX64 = /^[0-9a-f]{64}$/;

// One line to a typed record, or throws Error(why) (malformed).
export function readVrfRecord(line) {
  if (S.utf8(line).length > LINE_MAX) throw new Error('the line is too long');
  const raw = parseRecord(line);
  if (!raw.scheme || raw.scheme.s !== SCHEME) throw new Error(`scheme must be ${SCHEME}`);
  const event = raw.event && raw.event.s;
  const keys = KEYS[event];
  if (!keys) throw new Error('event must be table, hand or void');
  const want = new Set(['scheme', 'event', ...keys]);
  for (const k of Object.keys(raw))
    if (!want.has(k)) throw new Error('a key that does not belong to this event');
  for (const k of want) if (!(k in raw)) throw new Error('a key of this event is missing');
  for (const k of want) {
    if (NUMERIC.has(k) ? raw[k].n === undefined : raw[k].s === undefined)
      throw new Error(`"${k}" must be ${NUMERIC.has(k) ? 'a number' : 'a string'}`);
    // what the C reader refuses in any string: a NUL, a lone surrogate
    if (raw[k].s !== undefined && raw[k].s.includes('\0')) throw new Error('a NUL byte inside a string');
    if (raw[k].s !== undefined && !wellFormed(raw[k].s)) throw new Error('a lone surrogate in a \\u escape');
  }
  if (raw.deal && S.utf8(raw.deal.s).length > TSV_MAX) throw new Error('a string is too long');
  const r = { event, publicKey: raw.public_key.s, table: raw.table.s, game: raw.game.s };
  if (!HEX64.test(r.publicKey)) throw new Error('public_key must be 64 lower-case hex digits');
  if (clientSeedError(r.table, S.SCHEME_V2)) throw new Error('the table name breaks the client seed rule');
  const players = BigInt(raw.players.n), decks = BigInt(raw.decks.n);
  if (players < 1n || players > 1000n || decks < 1n || decks > 1000n)
    throw new Error('players and decks must be 1 to 1000');
  r.players = Number(players);
  r.decks = Number(decks);
  if (event === 'table') {
    r.commitments = raw.commitments.s.split(' ');
    if (r.commitments.length > SEATS_MAX || !r.commitments.every((c) => HEX64.test(c)))
      throw new Error('commitments must be 1 to 10 hex SHA-256s joined by spaces');
  } else {
    r.hand = BigInt(raw.hand.n);
    if (r.hand > U64_MAX) throw new Error('a number is too large');
    r.clientSeeds = raw.client_seeds.s.split('\t');
    if (r.clientSeeds.length > SEATS_MAX || r.clientSeeds.some((s) => clientSeedError(s, S.SCHEME_V2)))
      throw new Error('client_seeds must be 1 to 10 seeds joined by tabs, each following the client seed rule');
    r.alpha = raw.alpha.s;
    if (!/^([0-9a-f]{2})*$/.test(r.alpha) || r.alpha.length / 2 > ALPHA_MAX) throw new Error('alpha must be lower-case hex');
    r.pi = raw.pi.s;
    if (!/^[0-9a-f]{160}$/.test(r.pi)) throw new Error('pi must be 160 lower-case hex digits');
    r.deal = raw.deal.s;
  }
  const bad = S.tableError(r.game, r.players, r.decks);
  if (bad) throw new Error(S.GAMES[r.game] ? 'a table the game does not allow' : 'an unknown game');
  return r;
}

// One hand or void record alone against the dealer's key (pk hex, or null:
// the record's own): {rule, why, beta, computed} with rule null when honest.
export function checkHand(r, pk) {
  const out = { rule: null, why: null, beta: null, computed: null };
  const bad = (rule, why) => Object.assign(out, { rule, why });
  if (pk && pk !== r.publicKey) return bad('other-key', 'the record is of another public key');
  if (S.tableError(r.game, r.players, r.decks)) return bad('malformed', 'a table the game does not allow');
  const alpha = alphaOf(r);
  if (S.bytesToHex(alpha) !== r.alpha) return bad('bad-alpha', "alpha is not the encoding of the hand's fields");
  const beta = vrfVerify(S.hexToBytes(r.publicKey), alpha, S.hexToBytes(r.pi));
  if (beta === null) return bad('bad-proof', 'pi is not a valid proof of alpha under the public key');
  out.beta = beta;
  out.computed = dealOfBeta(beta, r.game, r.players, r.decks);
  if (out.computed.tsv !== r.deal) return bad('bad-deal', 'the deal is not the deal of beta');
  return out;
}

export const RULES = ['malformed', 'other-key', 'order', 'table-reused', 'abandoned', 'table-changed',
  'seed-not-committed', 'hand-number', 'bad-alpha', 'bad-proof', 'bad-deal', 'hand-differs',
  'hand-missing', 'empty-log'];

// Escapes log bytes as the C does: printable ASCII kept, the rest \xNN.
const esc = (s) => Array.from(S.utf8(s), (b) => (b >= 0x20 && b < 0x7f && b !== 0x5c
  ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');

// The whole log against the dealer's public key (hex); mine: hand records
// (typed) the player received.  The same verdict, rule and line as
// `fairshuf fair check --log --public-key`.
export async function checkVrfLog(text, publicKey, mine = []) {
  const findings = [];
  const res = { mode: 'vrf', scheme: SCHEME, publicKey, findings, tables: [], hands: [],
    nhands: 0, voids: 0, proven: 0, lines: 0 };
  const say = (line, verdict, rule, message) => findings.push({ line, verdict, rule, message });
  const open = new Map(); // table name -> its entry
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  let stopped = false;
  for (let i = 0; i < lines.length && !stopped; i++) {
    const n = i + 1;
    res.lines = n;
    const line = lines[i].replace(/\r$/, '');
    let r;
    try {
      r = readVrfRecord(line);
    } catch (e) {
      say(n, 'dishonest', 'malformed', `not a ${SCHEME} record: ${e.message}`);
      stopped = true;
      break;
    }
    if (r.publicKey !== publicKey) {
      say(n, 'dishonest', 'other-key', 'the record is of another public key than the dealer\'s');
      continue;
    }
    if (r.event === 'table') {
      const old = open.get(r.table);
      if (old) say(n, 'dishonest', 'table-reused', `table '${esc(r.table)}' was opened before (line ${old.line}): its hand numbers would start again`);
      const t = { line: n, rec: r, next: 0n, records: 0, hands: [] };
      open.set(r.table, t);
      res.tables.push(t);
      continue;
    }
    if (r.event === 'void') res.voids++; else res.nhands++;
    const t = open.get(r.table);
    const h = { line: n, rec: r, verdict: 'honest', rule: null, computed: null };
    if (!t) {
      say(n, 'dishonest', 'order', `hand ${r.hand} of table '${esc(r.table)}' comes before any table record of that name: its client seeds were never committed`);
      h.verdict = 'dishonest';
      h.rule = 'order';
      res.hands.push(h);
      continue;
    }
    t.records++;
    t.hands.push(h);
    res.hands.push(h);
    const mark = (rule, message) => {
      say(n, 'dishonest', rule, message);
      if (!h.rule) { h.verdict = 'dishonest'; h.rule = rule; }
    };
    if (r.game !== t.rec.game || r.players !== t.rec.players || r.decks !== t.rec.decks)
      mark('table-changed', `hand ${r.hand} is not dealt for the table's game (line ${t.line})`);
    let committed = r.clientSeeds.length === t.rec.commitments.length;
    for (let k = 0; committed && k < r.clientSeeds.length; k++)
      committed = S.bytesToHex(await S.sha256(S.utf8(r.clientSeeds[k]))) === t.rec.commitments[k];
    if (!committed) mark('seed-not-committed', `hand ${r.hand}'s client seeds are not the ones committed at line ${t.line}`);
    if (r.hand !== t.next)
      mark('hand-number', `hand ${r.hand} where hand ${t.next} is due: a hand number ${r.hand < t.next ? 'used twice' : 'skipped (a hand never proven)'}`);
    t.next = r.hand + 1n;
    const c = checkHand(r, publicKey);
    h.computed = c.computed;
    if (c.rule) mark(c.rule, `hand ${r.hand}: ${c.why}`);
    else res.proven++;
  }
  if (!stopped) {
    res.tables.forEach((t, i) => {
      if (i + 1 < res.tables.length && t.records === 0)
        say(t.line, 'dishonest', 'abandoned', `table '${esc(t.rec.table)}' was opened and never dealt a hand before the next table`);
    });
    res.mine = [];
    for (const m of mine) {
      const h = res.hands.find((x) => x.rec.hand === m.hand && x.rec.table === m.table);
      if (!h) {
        say(0, 'dishonest', 'hand-missing', `your hand ${m.hand} of table '${esc(m.table)}' is not in the log`);
        res.mine.push({ rec: m, verdict: 'hand-missing' });
      } else if (h.rec.pi !== m.pi || h.rec.deal !== m.deal) {
        say(h.line, 'dishonest', 'hand-differs', `the log's hand ${m.hand} is not the one you received`);
        res.mine.push({ rec: m, verdict: 'hand-differs', log: h });
      } else res.mine.push({ rec: m, verdict: 'same', log: h });
    }
    if (res.nhands + res.voids === 0) say(0, 'inconclusive', 'empty-log', 'the log has no hand: nothing was checked');
  }
  // The first finding: dishonest before inconclusive, smallest line (0
  // last), then the order of RULES.
  const key = (f) => [f.verdict === 'dishonest' ? 0 : 1, f.line || Infinity, RULES.indexOf(f.rule)];
  let first = null;
  for (const f of findings) {
    if (!first) { first = f; continue; }
    const a = key(f), b = key(first);
    if (a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))) first = f;
  }
  res.verdict = first ? first.verdict : 'honest';
  res.rule = first ? first.rule : null;
  res.line = first ? first.line : null;
  res.message = first ? first.message : `${res.nhands} hand${res.nhands === 1 ? '' : 's'} and ` +
    `${res.voids} void: every proof holds under the dealer's key, every deal is its output's, ` +
    'hands numbered without gaps or repeats on the committed seeds';
  return res;
}

// One hand record (JSON text) against the key: the page's ?record=.
export function checkVrfRecord(recordText, publicKey) {
  let r;
  try {
    r = readVrfRecord(recordText.replace(/\r?\n$/, ''));
    if (r.event === 'table') throw new Error('a table record is not a hand');
  } catch (e) {
    return { mode: 'vrf-one', verdict: 'dishonest', rule: 'malformed', line: null,
      message: `not a ${SCHEME} hand record: ${e.message}`, findings: [], publicKey };
  }
  const c = checkHand(r, publicKey);
  return { mode: 'vrf-one', verdict: c.rule ? 'dishonest' : 'honest', rule: c.rule, line: null,
    message: c.why || `hand ${r.hand} of table '${r.table}': the proof holds under the dealer's key ` +
      'and the deal is the deal of its output',
    rec: r, computed: c.computed, publicKey,
    findings: c.rule ? [{ line: 0, verdict: 'dishonest', rule: c.rule, message: c.why }] : [] };
}
