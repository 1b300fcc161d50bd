// scheme.js -- the provably-fair schemes fairshuf-pf-1 and fairshuf-pf-2,
// written from docs/provably-fair.md and docs/cards.md alone (not from the
// C): the key message, HMAC-SHA256 and SHA-256 (WebCrypto), the ChaCha20
// keystream (@noble/ciphers), Lemire's exact below(n), Durstenfeld's
// shuffle, the games' fresh decks and layouts, and the TSV form of a deal.
import { chacha20 } from '@noble/ciphers/chacha.js';

export const SCHEMES = ['fairshuf-pf-1', 'fairshuf-pf-2'];
export const SCHEME_V2 = 'fairshuf-pf-2';
export const MAX_CARDS = 1024;      // the most cards a shoe holds
export const MAX_DECKS = 1000;
export const CLIENT_SEED_MAX = 256; // bytes of UTF-8

// Each game (docs/provably-fair.md, "Layouts"; docs/cards.md): deck kind,
// default decks, players (min, max, default), cards per hand, round robin or
// blocks, a dealer's seat, extra parts {key, en, zh, burn, count}, the rest
// (wall/shoe) dealt in order, the display order of hands.
const P = (key, en, zh, burn, count) => ({ key, en, zh, burn, count });
export const GAMES = {
  doudizhu: { deck: 54, decks: 1, min: 3, max: 3, players: 3, hand: 17, rr: false, dealer: false,
    extras: [P('kitty', 'Landlord cards', '地主牌', 0, 3)], rest: null, order: 'doudizhu' },
  holdem: { deck: 52, decks: 1, min: 2, max: 10, players: 6, hand: 2, rr: true, dealer: false,
    extras: [P('flop', 'Flop', '翻牌', 1, 3), P('turn', 'Turn', '转牌', 1, 1),
      P('river', 'River', '河牌', 1, 1)], rest: null, order: 'poker' },
  poker5: { deck: 52, decks: 1, min: 1, max: 10, players: 4, hand: 5, rr: false, dealer: false,
    extras: [], rest: null, order: 'poker' },
  bridge: { deck: 52, decks: 1, min: 4, max: 4, players: 4, hand: 13, rr: false, dealer: false,
    extras: [], rest: null, order: 'bridge' },
  shengji: { deck: 54, decks: 2, min: 4, max: 4, players: 4, hand: 25, rr: false, dealer: false,
    extras: [P('bottom', 'Bottom cards', '底牌', 0, 8)], rest: null, order: 'shengji' },
  mahjong: { deck: 136, decks: 1, min: 4, max: 4, players: 4, hand: 13, rr: false, dealer: false,
    extras: [P('dealer14', "Dealer's 14th", '庄家第14张', 0, 1)],
    rest: P('wall', 'Wall', '牌墙', 0, 0), order: 'mahjong' },
  blackjack: { deck: 52, decks: 6, min: 1, max: 7, players: 1, hand: 2, rr: true, dealer: true,
    extras: [], rest: P('shoe', 'Shoe', '牌靴', 0, 0), order: 'deal' },
};

// ---- cards --------------------------------------------------------------
const RANKS = 'A23456789TJQK';
const SUITS = 'shdc';

// The fresh order of one deck of the kind (docs/cards.md "Decks").
function oneDeck(kind) {
  const out = [];
  if (kind === 52 || kind === 54) {
    for (const s of SUITS) for (const r of RANKS) out.push(r + s);
    if (kind === 54) out.push('BJ', 'RJ');
  } else {
    const kinds = [];
    for (const s of 'mps') for (let k = 1; k <= 9; k++) kinds.push(k + s);
    for (let k = 1; k <= 7; k++) kinds.push(k + 'z');
    for (let i = 0; i < 4; i++) out.push(...kinds);
    if (kind === 144) for (let k = 1; k <= 8; k++) out.push(k + 'f');
  }
  return out;
}

export function freshDeck(kind, decks) {
  const one = oneDeck(kind);
  const out = [];
  for (let d = 0; d < decks; d++) out.push(...one);
  return out;
}

// Is `code` a card (or tile) of this deck kind?
export function validCode(code, kind) {
  if (kind === 136 || kind === 144)
    return /^([1-9][mps]|[1-7]z)$/.test(code) || (kind === 144 && /^[1-8]f$/.test(code));
  return /^[A2-9TJQK][shdc]$/.test(code) || (kind === 54 && (code === 'BJ' || code === 'RJ'));
}

// ---- the table: game, players, decks ------------------------------------
// Returns null when the table is one this scheme deals, else why not.
export function tableError(game, players, decks) {
  const g = GAMES[game];
  if (!g) return `unknown game '${game}'`;
  if (!Number.isInteger(players) || players < g.min || players > g.max)
    return `${game} takes ${g.min === g.max ? g.min : `${g.min} to ${g.max}`} players, not ${players}`;
  if (!Number.isInteger(decks) || decks < 1 || decks > MAX_DECKS)
    return `the number of decks must be 1 to ${MAX_DECKS}, not ${decks}`;
  const size = g.deck * decks;
  if (size > MAX_CARDS) return `${decks} decks: at most ${MAX_CARDS} cards per shoe`;
  const seats = players + (g.dealer ? 1 : 0);
  const need = seats * g.hand + g.extras.reduce((n, e) => n + e.burn + e.count, 0);
  if (need > size) return `${game}: not enough cards (${need} needed, ${size} in ${decks} decks)`;
  return null;
}

// ---- bytes --------------------------------------------------------------
const enc = new TextEncoder();
export const utf8 = (s) => enc.encode(s);

export function hexToBytes(hex) {
  if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error('not lower-case hex');
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

export const bytesToHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

function subtle() {
  const s = globalThis.crypto && globalThis.crypto.subtle;
  if (!s)
    throw new Error('this browser gives no WebCrypto here (crypto.subtle): open the page from ' +
      'disk, from localhost or over HTTPS');
  return s;
}

export async function sha256(bytes) {
  return new Uint8Array(await subtle().digest('SHA-256', bytes));
}

export async function hmacSha256(key, msg) {
  const k = await subtle().importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', k, msg));
}

// The key message: scheme, game, players, decks, client seed, nonce joined by
// single NUL bytes, no terminator.
export function keyMessage(scheme, game, players, decks, clientSeed, nonce) {
  const parts = [scheme, game, String(players), String(decks), clientSeed, BigInt(nonce).toString()];
  const bytes = parts.map(utf8);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0) + bytes.length - 1);
  let at = 0;
  bytes.forEach((b, i) => {
    if (i) out[at++] = 0;
    out.set(b, at);
    at += b.length;
  });
  return out;
}

// ---- the random words ---------------------------------------------------
// ChaCha20 (RFC 8439) keystream under `key`, a 96-bit zero nonce, the block
// counter from 0, read as unsigned 64-bit little-endian words.
export class Words {
  constructor(key) {
    this.key = key;
    this.block = 0;     // next block counter
    this.view = null;
    this.at = 0;
  }
  refill() {
    const blocks = 16;
    const ks = chacha20(this.key, new Uint8Array(12), new Uint8Array(64 * blocks), undefined, this.block);
    this.block += blocks;
    this.view = new DataView(ks.buffer, ks.byteOffset, ks.byteLength);
    this.at = 0;
  }
  next() {
    if (!this.view || this.at >= this.view.byteLength) this.refill();
    const w = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return w;
  }
}

const TWO64 = 1n << 64n;
const MASK64 = TWO64 - 1n;

// Lemire's exact method: uniform on [0, n) for 1 <= n < 2^64.
export function below(words, n) {
  const N = BigInt(n);
  const t = (TWO64 - N) % N;
  for (;;) {
    const m = words.next() * N;
    if ((m & MASK64) >= t) return m >> 64n;
  }
}

// ---- the deal -----------------------------------------------------------
// Durstenfeld from the back over the fresh deck, then the game's layout.
// Returns the parts in layout order: [{label: {en, zh, n}, cards, ordered}].
export function layout(game, players, decks, a) {
  const g = GAMES[game];
  const seats = players + (g.dealer ? 1 : 0);
  const parts = [];
  for (let s = 0; s < seats; s++) {
    const cards = [];
    for (let r = 0; r < g.hand; r++) cards.push(g.rr ? a[r * seats + s] : a[s * g.hand + r]);
    const dealerSeat = g.dealer && s === players;
    parts.push({ key: dealerSeat ? 'dealer' : 'hand', seat: s + 1, cards, hand: true,
      en: dealerSeat ? 'Dealer' : `Player ${s + 1}`, zh: dealerSeat ? '庄家' : `玩家${s + 1}` });
  }
  let pos = seats * g.hand;
  for (const e of g.extras) {
    pos += e.burn;
    parts.push({ key: e.key, en: e.en, zh: e.zh, cards: a.slice(pos, pos + e.count), hand: false });
    pos += e.count;
  }
  if (g.rest) parts.push({ key: g.rest.key, en: g.rest.en, zh: g.rest.zh, cards: a.slice(pos),
    hand: false, ordered: true });
  return parts;
}

export async function dealKey(scheme, serverSeed, game, players, decks, clientSeed, nonce) {
  return hmacSha256(serverSeed, keyMessage(scheme, game, players, decks, clientSeed, nonce));
}

export function shuffleWith(key, game, decks) {
  const a = freshDeck(GAMES[game].deck, decks);
  const w = new Words(key);
  for (let i = a.length - 1; i >= 1; i--) {
    const j = Number(below(w, i + 1));
    const x = a[i];
    a[i] = a[j];
    a[j] = x;
  }
  return a;
}

// The whole deal: {key, parts, tsv}.
export async function deal(scheme, serverSeed, game, players, decks, clientSeed, nonce) {
  const key = await dealKey(scheme, serverSeed, game, players, decks, clientSeed, nonce);
  const parts = layout(game, players, decks, shuffleWith(key, game, decks));
  return { key, parts, tsv: toTsv(parts) };
}

export const toTsv = (parts) => parts.map((p) => p.cards.join(' ')).join('\t');

// Is `tsv` shaped like a deal of this game (as many fields as the layout
// has parts, separated by one tab; codes of the game's deck separated by
// one space)?  The number of cards in each part is not checked here: a
// card moved to another part is another deal, not a malformed one.
export function tsvError(tsv, game, players) {
  const g = GAMES[game];
  const tiles = g.deck === 136 || g.deck === 144;
  const fields = tsv.split('\t');
  const want = players + (g.dealer ? 1 : 0) + g.extras.length + (g.rest ? 1 : 0);
  if (fields.length !== want)
    return `${fields.length} tab-separated parts where the layout has ${want}`;
  let n = 0;
  for (const field of fields) {
    for (const c of field.split(' ')) {
      if (!(tiles ? validCode(c, 144) : validCode(c, 54)))
        return c === '' ? 'an empty card (cards are separated by one space, parts by one tab)'
          : `'${c}' is not a card code of ${game}`;
      n++;
    }
  }
  if (n > MAX_CARDS) return 'too many cards';
  return null;
}

// Splits a TSV deal into parts shaped like the game's (the labels of the
// layout; fields beyond them get none).
export function partsOfTsv(tsv, game, players) {
  const fields = tsv.split('\t').map((f) => f.split(' '));
  const labels = layout(game, players, 1, new Array(MAX_CARDS).fill('?'));
  return fields.map((cards, i) => ({ ...(labels[i] || { key: 'extra', en: `Part ${i + 1}`, zh: `第${i + 1}部分` }), cards }));
}

// ---- names and display order (docs/cards.md) ----------------------------
const RANK_NAMES = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUIT_SYMBOLS = ['♠', '♥', '♦', '♣'];
const SUIT_ZH = ['黑桃', '红桃', '方块', '梅花'];
const NUM_ZH = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const TILE_SUIT_ZH = { m: '万', p: '筒', s: '条' };
const HONOUR_ZH = ['东', '南', '西', '北', '白', '发', '中'];
const FLOWER_ZH = ['春', '夏', '秋', '冬', '梅', '兰', '竹', '菊'];

// The colour class of a card: red, black, or a tile suit.
export function cardColour(code, tiles) {
  if (tiles) return 'tile-' + code[1];
  if (code === 'RJ') return 'red';
  if (code === 'BJ') return 'black';
  return code[1] === 'h' || code[1] === 'd' ? 'red' : 'black';
}

export function cardName(code, lang, tiles) {
  const zh = lang === 'zh';
  if (tiles) {
    if (!zh) return code;
    const k = Number(code[0]);
    if ('mps'.includes(code[1])) return NUM_ZH[k - 1] + TILE_SUIT_ZH[code[1]];
    return code[1] === 'z' ? HONOUR_ZH[k - 1] : FLOWER_ZH[k - 1];
  }
  if (code === 'BJ') return zh ? '小王' : 'BJ';
  if (code === 'RJ') return zh ? '大王' : 'RJ';
  const r = RANKS.indexOf(code[0]);
  const s = SUITS.indexOf(code[1]);
  if (r < 0 || s < 0) return code;
  return zh ? SUIT_ZH[s] + RANK_NAMES[r] : RANK_NAMES[r] + SUIT_SYMBOLS[s];
}

// Sort key of a card in the game's display order (the CLI's text output).
const ALTERNATE = [0, 1, 3, 2]; // suits s h c d: colours alternate
function sortKey(code, order) {
  if (code === 'BJ') return 2000;
  if (code === 'RJ') return 2001;
  const r = RANKS.indexOf(code[0]) + 1; // 1..13
  const s = SUITS.indexOf(code[1]);
  const aceHigh = r === 1 ? 14 : r;
  switch (order) {
    case 'poker': return (aceHigh - 2) * 4 + s;
    case 'doudizhu': return (r >= 3 ? r - 3 : r + 10) * 4 + s;
    case 'bridge': return ALTERNATE[s] * 16 + (14 - aceHigh);
    case 'shengji': return ALTERNATE[s] * 16 + aceHigh;
    default: return 0;
  }
}

// The cards of a part as a player reads them: hands and extra parts sorted
// in the game's order, the wall and the shoe as dealt.
export function displayOrder(cards, game, ordered) {
  const g = GAMES[game];
  if (ordered || g.order === 'deal') return cards.slice();
  const tiles = g.deck === 136 || g.deck === 144;
  const keyed = cards.map((c, i) => [tiles ? 1000 + tileIndex(c) : sortKey(c, g.order), i, c]);
  keyed.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  return keyed.map((k) => k[2]);
}

function tileIndex(code) {
  return { m: 0, p: 9, s: 18, z: 27, f: 34 }[code[1]] + Number(code[0]);
}
