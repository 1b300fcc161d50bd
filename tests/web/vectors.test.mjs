// vectors.test.mjs -- the page against the published vectors: the test
// vectors of docs/provably-fair.md (pf-2 and pf-1: message, key, deal; the
// whole pf-2 log and its tampered forms with their verdicts) and every
// provably-fair row of docs/vectors.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, open, verdictOf, check, PAGE_URL, ROOT } from './browser.mjs';

const SPEC = readFileSync(join(ROOT, 'docs/provably-fair.md'), 'utf8');
const VECTORS = readFileSync(join(ROOT, 'docs/vectors.md'), 'utf8');
let browser, page, dir;

before(async () => {
  browser = await launch();
  page = await open(browser, PAGE_URL);
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-vectors-'));
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const section = (text, title) => {
  const at = text.search(new RegExp(`^## ${title}`, 'm'));
  assert.ok(at >= 0, `no section '${title}'`);
  const rest = text.slice(at + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
};
const V = section(SPEC, 'Test vectors');
const SEED = /`server_seed` = [^(]*\(`([0-9a-f]{64})`\)/.exec(V)[1];
const COMMITMENT = /commitment `([0-9a-f]{64})`/.exec(V)[1];

// The single-deal vectors: **pf-N** blocks with message, key and deal.
function dealVectors() {
  const out = [];
  const head = /`client_seed` = `([^`]*)`, `nonce` = (\d+), game `(\w+)` \((\d+) players,\s*(\d+) deck/.exec(V);
  assert.ok(head, 'the inputs of the test vectors');
  for (const m of V.matchAll(/\*\*(pf-\d)\*\*([\s\S]*?)(?=\*\*pf-\d\*\*|\*\*A whole|$)/g)) {
    const body = m[2];
    out.push({
      scheme: `fairshuf-${m[1]}`,
      message: /message(?: \(NUL bytes shown as `\\0`\):)?\s*`([^`]+)`/.exec(body)[1],
      key: /key `([0-9a-f]{64})`/.exec(body)[1],
      deal: /deal(?: \(tabs shown as `\|`\))?:\s*`([^`]+)`/.exec(body)[1].split(' | ').join('\t'),
      client: head[1], nonce: head[2], game: head[3], players: Number(head[4]), decks: Number(head[5]),
    });
  }
  return out;
}

test('docs/provably-fair.md: the commitment of the test seed', async () => {
  const c = await page.evaluate(async (seed) => {
    const S = window.fairshufVerify.scheme;
    return S.bytesToHex(await S.sha256(S.hexToBytes(seed)));
  }, SEED);
  assert.equal(c, COMMITMENT);
});

for (const v of dealVectors()) {
  test(`docs/provably-fair.md: the ${v.scheme} vector (message, key, deal), through the query string too`, async () => {
    const got = await page.evaluate(async (v) => {
      const S = window.fairshufVerify.scheme;
      const msg = S.keyMessage(v.scheme, v.game, v.players, v.decks, v.client, v.nonce);
      const d = await S.deal(v.scheme, S.hexToBytes(v.seed), v.game, v.players, v.decks, v.client, v.nonce);
      return { message: new TextDecoder().decode(msg).replaceAll('\0', '\\0'), key: S.bytesToHex(d.key), deal: d.tsv };
    }, { ...v, seed: SEED });
    assert.deepEqual(got, { message: v.message, key: v.key, deal: v.deal });
    const q = new URLSearchParams({ server_seed: SEED, commitment: COMMITMENT, client_seed: v.client,
      nonce: v.nonce, game: v.game, players: String(v.players), decks: String(v.decks), deal: v.deal });
    if (v.scheme !== 'fairshuf-pf-2') q.set('scheme', v.scheme);
    await page.goto(`${PAGE_URL}?${q}`);
    assert.equal((await verdictOf(page)).verdict, 'honest');
    q.set('deal', v.deal.replace(/^(\S\S) (\S\S)/, '$2 $1'));
    await page.goto(`${PAGE_URL}?${q}`);
    const bad = await verdictOf(page);
    assert.deepEqual([bad.verdict, bad.rule], ['dishonest', 'bad-deal']);
  });
}

// The whole pf-2 log and the table of its tampered forms.
const LOG = /\*\*A whole pf-2 log\*\*[\s\S]*?```\n([\s\S]*?)```/.exec(V)[1].split('\n').filter(Boolean);
function tampered(change) {
  let lines = LOG.slice();
  const player = {};
  const c = change.replace(/\s+/g, ' ').trim();
  let m;
  if (c === 'none') return { lines, player };
  if (c === 'the empty log') return { lines: [], player };
  if ((m = /^player's client seed `([^`]*)`$/.exec(c))) return { lines, player: { clientSeed: m[1] } };
  if ((m = /^line (\d+) `([^`]*)` → `([^`]*)`/.exec(c))) {
    const n = Number(m[1]);
    assert.ok(lines[n - 1].includes(m[2]), `line ${n} has ${m[2]}`);
    lines[n - 1] = lines[n - 1].replace(m[2], m[3]);
    return { lines, player };
  }
  if ((m = /^lines? ([\d and,]+) deleted(, with the player's deals \(nonces ([\d and,]+)\))?$/.exec(c))) {
    const gone = m[1].split(/,| and /).map(Number);
    if (m[3]) {
      const nonces = m[3].split(/,| and /).map(Number);
      player.deals = nonces.map((k) => `${k}\t${JSON.parse(LOG.find((l) => l.includes(`"nonce":${k},`))).deal}`);
    }
    lines = lines.filter((_, i) => !gone.includes(i + 1));
    return { lines, player };
  }
  throw new Error(`a change this test cannot apply: ${change}`);
}
const ROWS = [...V.matchAll(/^\| (.+?) \| (honest|dishonest|inconclusive)(?:, `([a-z-]+)`, (\d+))? \|$/gm)]
  .map((m) => ({ change: m[1], verdict: m[2], rule: m[3] || null, line: Number(m[4] || 0) }));

test('docs/provably-fair.md lists the whole log\'s tampered forms', () => {
  assert.ok(LOG.length >= 4);
  assert.ok(ROWS.length >= 10, `${ROWS.length} rows`);
});

for (const row of ROWS) {
  test(`docs/provably-fair.md, the whole pf-2 log: ${row.change} -> ${row.verdict}${row.rule ? ` (${row.rule}, ${row.line})` : ''}`, async () => {
    const { lines, player } = tampered(row.change);
    await page.goto(PAGE_URL);
    await page.fill('#log', lines.map((l) => l + '\n').join(''));
    await page.$eval('#mine', (d) => { d.open = true; });
    await page.fill('#my-client-seed', player.clientSeed || '');
    await page.fill('#my-deals', (player.deals || []).join('\n'));
    const v = await check(page, '#form-log button.go');
    assert.deepEqual([v.verdict, v.rule, v.line], [row.verdict, row.rule, row.line], v.text);
  });
}

// docs/vectors.md, "Provably fair": a table of deals (scheme, seeds, nonce,
// table -> key and TSV) and a table of whole logs (records, the player's
// input -> verdict, rule, line).
const PF = section(VECTORS, 'Provably fair');
const DEAL_ROWS = [...PF.matchAll(/^\| `(fairshuf-pf-\d)` \| `([0-9a-f]{64})` \| `(".*")` \| `(\d+)` \| `(\w+)` \| `(\d+)` \| `(\d+)` \| `([0-9a-f]{64})` \| `(.*)` \|$/gm)]
  .map((m) => ({ scheme: m[1], seed: m[2], client: JSON.parse(m[3]), nonce: m[4], game: m[5],
    players: Number(m[6]), decks: Number(m[7]), key: m[8], deal: m[9].replaceAll('\\t', '\t') }));
const LOG_ROWS = [...PF.matchAll(/^\| ([^`|]+?) \| (.+) \| (-|`\{.*?\}`) \| `(\w+)` \| `([a-z-]+|-)` \| `(\d+|-)` \|$/gm)]
  .map((m) => {
    const player = m[3] === '-' ? {} : JSON.parse(m[3].slice(1, -1));
    return { what: m[1], lines: m[2] === '(empty)' ? [] : m[2].split(' <br> ').map((c) => c.replace(/^`|`$/g, '')),
      player: { commitment: player.commitment, clientSeed: player.client_seed,
        deals: (player.deals || []).map(([n, tsv]) => `${n}\t${tsv}`) },
      verdict: m[4], rule: m[5] === '-' ? null : m[5], line: m[6] === '-' ? 0 : Number(m[6]) };
  });

test('docs/vectors.md has provably-fair rows (deals of every game, in both schemes, and logs)', () => {
  assert.ok(DEAL_ROWS.length >= 14, `${DEAL_ROWS.length} deal rows`);
  assert.deepEqual(new Set(DEAL_ROWS.map((r) => r.game)).size, 7);
  assert.ok(LOG_ROWS.length >= 20, `${LOG_ROWS.length} log rows`);
});

test('docs/vectors.md: every provably-fair deal row (key and deal)', async () => {
  const got = await page.evaluate(async (rows) => {
    const S = window.fairshufVerify.scheme;
    const out = [];
    for (const r of rows) {
      const d = await S.deal(r.scheme, S.hexToBytes(r.seed), r.game, r.players, r.decks, r.client, r.nonce);
      out.push({ key: S.bytesToHex(d.key), deal: d.tsv });
    }
    return out;
  }, DEAL_ROWS);
  DEAL_ROWS.forEach((r, i) => assert.deepEqual(got[i], { key: r.key, deal: r.deal },
    `${r.scheme} ${r.game} ${JSON.stringify(r.client)} ${r.nonce}`));
});

for (const row of LOG_ROWS) {
  test(`docs/vectors.md log: ${row.what} -> ${row.verdict}${row.rule ? ` (${row.rule}, ${row.line})` : ''}`, async () => {
    await page.goto(PAGE_URL);
    await page.fill('#log', row.lines.map((l) => l + '\n').join(''));
    await page.$eval('#mine', (d) => { d.open = true; });
    await page.fill('#my-commitment', row.player.commitment || '');
    await page.fill('#my-client-seed', row.player.clientSeed || '');
    await page.fill('#my-deals', row.player.deals.join('\n'));
    const v = await check(page, '#form-log button.go');
    assert.deepEqual([v.verdict, v.rule, v.line], [row.verdict, row.rule, row.line], v.text);
  });
}
