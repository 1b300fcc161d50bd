// tamper.test.mjs -- tampered logs and deal sets, each caught by the page
// with the rule slug of docs/provably-fair.md and the line; every case is
// also put to `fairshuf fair check --format=json`, which must name the same
// rule and line (two implementations of the rules, one verdict).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { launch, open, verdictOf, check, PAGE_URL, FS_BIN } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
let browser, page, dir;
let L;          // the honest log's lines (L[0] is line 1)
let seeds;      // the server seeds of the periods, from the reveals

function fair(...args) {
  const r = spawnSync(FS_BIN, ['fair', ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

// The honest log, made by the CLI (scheme fairshuf-pf-2):
//  1 commit holdem/3   2 client_seed alice   3-5 deals 0,1,2   6 reveal
//  7 commit bridge     8 client_seed bob     9-10 deals 0,1    11 reveal
// 12 commit mahjong   13 client_seed carol  14-15 deals 0,1    16 reveal
// 17 commit mahjong (open, no client seed yet)
function honestLog() {
  const seed = join(dir, 'seed.hex');
  const log = join(dir, 'honest.log');
  const run = (...a) => {
    const r = fair(...a, `--server-seed-file=${seed}`, `--log=${log}`);
    assert.equal(r.status, 0, `fair ${a.join(' ')}: ${r.err}`);
  };
  run('commit', '--game=holdem', '--players=3');
  run('deal', '--client-seed=alice'); run('deal'); run('deal');
  run('rotate', '--game=bridge');
  run('deal', '--client-seed=bob'); run('deal');
  run('rotate', '--game=mahjong');
  run('deal', '--client-seed=carol'); run('deal');
  run('rotate');
  return readFileSync(log, 'utf8');
}

// Made before the tests are named: each case is a test of its own.
dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-tamper-'));
L = honestLog().split('\n');
assert.equal(L.pop(), '');
assert.equal(L.length, 17);
seeds = L.map((l) => JSON.parse(l)).filter((r) => r.event === 'reveal').map((r) => r.server_seed);

before(async () => {
  browser = await launch();
  page = await open(browser, PAGE_URL);
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- helpers to tamper --------------------------------------------------
const rec = (n) => JSON.parse(L[n - 1]);
const line = (r) => JSON.stringify(r);
const withLine = (n, r) => L.map((l, i) => (i === n - 1 ? line(r) : l));
const edit = (n, f) => { const r = rec(n); f(r); return withLine(n, r); };
const without = (...ns) => L.filter((_, i) => !ns.includes(i + 1));
const parts = (tsv) => tsv.split('\t').map((p) => p.split(' '));
const join2 = (ps) => ps.map((p) => p.join(' ')).join('\t');
const editDeal = (n, f) => edit(n, (r) => { const ps = parts(r.deal); f(ps); r.deal = join2(ps); });
const swap = (a, i, j) => { [a[i], a[j]] = [a[j], a[i]]; };
const text = (lines) => lines.map((l) => l + '\n').join('');

// Each case: [what, log lines, player's input, verdict, rule, line].
const cases = () => {
  const d3 = rec(3).deal, d4 = rec(4).deal, d14 = rec(14).deal, d15 = rec(15).deal;
  const c1 = rec(1).commitment;
  return [
    ['the honest log', L, {}, 'honest', null, 0],
    ['the honest log with the player\'s commitment, client seed and deals', L,
      { commitment: rec(12).commitment, clientSeed: 'carol', deals: [d14, d15] }, 'honest', null, 0],
    ['the honest log, the player\'s deals with their nonces', L,
      { commitment: rec(7).commitment, clientSeed: 'bob', deals: [`1\t${rec(10).deal}`] }, 'honest', null, 0],
    // H3: without the commitment the player saw, a dealer may have ground
    // the table; H1: the deals alone go to the last period WITH a deal (the
    // log ends with the next period's commit), where they are
    ['the player\'s client seed and deals without the commitment', L,
      { clientSeed: 'carol', deals: [d14, d15] }, 'inconclusive', 'no-commitment', 0],
    ['the player\'s deals alone, the log ending with the next commit (H1)', L,
      { deals: [d14, d15] }, 'inconclusive', 'no-commitment', 0],
    ['the player\'s deals alone, one differs from the last period with a deal (H1)', L,
      { deals: [d14, d14] }, 'dishonest', 'deal-differs', 15],
    ['the player\'s deals (nonce 00, a final CR) with their commitment (M2)', L,
      { commitment: rec(12).commitment, deals: [`00\t${d14}\r`, d15] }, 'honest', null, 0],
    ['a card moved from hand 1 to hand 2', editDeal(3, (ps) => ps[1].unshift(ps[0].pop())), {}, 'dishonest', 'bad-deal', 3],
    ['two cards swapped inside a hand', editDeal(4, (ps) => swap(ps[0], 0, 1)), {}, 'dishonest', 'bad-deal', 4],
    ['two cards swapped between hands', editDeal(9, (ps) => { const x = ps[0][3]; ps[0][3] = ps[2][5]; ps[2][5] = x; }), {}, 'dishonest', 'bad-deal', 9],
    ['the flop and the turn swapped', editDeal(5, (ps) => { const x = ps[3][0]; ps[3][0] = ps[4][0]; ps[4][0] = x; }), {}, 'dishonest', 'bad-deal', 5],
    ['a mahjong wall tile moved', editDeal(15, (ps) => ps[5].push(ps[5].shift())), {}, 'dishonest', 'bad-deal', 15],
    ['the deals of nonce 0 and 1 swapped', edit(4, (r) => { r.deal = d3; }).map((l, i) => (i === 2 ? line({ ...rec(3), deal: d4 }) : l)), {}, 'dishonest', 'bad-deal', 3],
    ['a deal of another table pasted in', edit(14, (r) => { r.deal = d15; }), {}, 'dishonest', 'bad-deal', 14],
    ['a skipped nonce', edit(4, (r) => { r.nonce = 2; }), {}, 'dishonest', 'nonce', 4],
    ['a repeated nonce', edit(4, (r) => { r.nonce = 0; }), {}, 'dishonest', 'nonce', 4],
    ['nonces not starting at 0', edit(9, (r) => { r.nonce = 1; }), {}, 'dishonest', 'nonce', 9],
    ['a deal deleted in the middle', without(4), {}, 'dishonest', 'nonce', 4],
    ['a changed client seed in a deal', edit(10, (r) => { r.client_seed = 'bobby'; }), {}, 'dishonest', 'client-seed-changed', 10],
    ['a changed client seed record', edit(8, (r) => { r.client_seed = 'robert'; }), {}, 'dishonest', 'client-seed-changed', 9],
    ['a reveal that does not match (one digit)', edit(6, (r) => { r.server_seed = r.server_seed.replace(/^./, (c) => (c === '0' ? '1' : '0')); }), {}, 'dishonest', 'bad-reveal', 6],
    ['another period\'s seed revealed', edit(11, (r) => { r.server_seed = seeds[0]; }), {}, 'dishonest', 'bad-reveal', 11],
    ['a deleted last deal, with the player\'s deals given', without(15), { clientSeed: 'carol', deals: [d14, d15] }, 'dishonest', 'deal-missing', 0],
    ['a deal the player saw differs from the log\'s', L, { clientSeed: 'alice', deals: [d3, join2(parts(d4).reverse())] }, 'dishonest', 'deal-differs', 4],
    ['a changed game (bridge to poker5)', edit(10, (r) => { r.game = 'poker5'; }), {}, 'dishonest', 'table-changed', 10],
    ['changed decks in a deal', edit(4, (r) => { r.decks = 2; }), {}, 'dishonest', 'table-changed', 4],
    ['a commit whose table differs from its deals', edit(7, (r) => { r.game = 'poker5'; }), {}, 'dishonest', 'table-changed', 9],
    ['a malformed line (not JSON)', L.map((l, i) => (i === 9 ? l.slice(0, -1) : l)), {}, 'dishonest', 'malformed', 10],
    ['a blank line', [...L.slice(0, 5), '', ...L.slice(5)], {}, 'dishonest', 'malformed', 6],
    ['a key twice', L.map((l, i) => (i === 2 ? l.replace('{', '{"nonce":0,') : l)), {}, 'dishonest', 'malformed', 3],
    ['an unknown key', edit(3, (r) => { r.note = 'x'; }), {}, 'dishonest', 'malformed', 3],
    ['an unknown scheme', edit(7, (r) => { r.scheme = 'fairshuf-pf-3'; }), {}, 'dishonest', 'malformed', 7],
    ['a v1 record inside a v2 period', edit(4, (r) => { r.scheme = 'fairshuf-pf-1'; }), {}, 'dishonest', 'malformed', 4],
    ['a deal with commas for tabs', edit(3, (r) => { r.deal = r.deal.replaceAll('\t', ','); }), {}, 'dishonest', 'malformed', 3],
    ['a client seed with a control character', edit(13, (r) => { r.client_seed = 'car\u0001ol'; }), {}, 'dishonest', 'malformed', 13],
    ['an upper-case commitment', edit(1, (r) => { r.commitment = r.commitment.toUpperCase(); }), {}, 'dishonest', 'malformed', 1],
    ['a rotation with no deal', without(14, 15), {}, 'dishonest', 'empty-period', 14],
    ['a rotation with no deal and no client seed', without(13, 14, 15), {}, 'dishonest', 'empty-period', 13],
    ['a client seed carried into the next period', edit(8, (r) => { r.client_seed = 'alice'; }).map((l, i) => (i === 8 || i === 9 ? l.replace('"bob"', '"alice"') : l)), {}, 'dishonest', 'client-seed-reused', 8],
    ['a revealed seed committed again', edit(17, (r) => { r.commitment = c1; }), {}, 'dishonest', 'recommitted', 17],
    ['a deal before the client seed', [L[0], L[2], L[1], ...L.slice(3)], {}, 'dishonest', 'order', 2],
    ['a second client seed in a period', [...L.slice(0, 3), L[1], ...L.slice(3)], {}, 'dishonest', 'order', 4],
    ['a commit before the previous reveal', without(6), {}, 'dishonest', 'order', 6],
    ['a deal outside a period', [...L.slice(0, 6), L[3], ...L.slice(6)], {}, 'dishonest', 'order', 7],
    ['the player\'s commitment is not in the log', L, { commitment: 'ab'.repeat(32) }, 'dishonest', 'commitment-not-found', 0],
    ['the player\'s client seed is in no period (alone)', L, { clientSeed: 'mallory' }, 'dishonest', 'client-seed-mismatch', 0],
    ['the player\'s client seed is not the period\'s (with the commitment)', L, { commitment: c1, clientSeed: 'bob' }, 'dishonest', 'client-seed-mismatch', 2],
    ['an empty log', [], {}, 'inconclusive', 'empty-log', 0],
    ['a log with a commitment only', L.slice(0, 1), {}, 'inconclusive', 'empty-log', 0],
    ['a period not revealed yet', L.slice(0, 15), {}, 'inconclusive', 'unrevealed', 12],
  ];
};

// The page: paste, give the player's input, press Check.
async function pageCheck(lines, player) {
  await page.$eval('#mine', (d) => { d.open = true; });
  await page.fill('#log', text(lines));
  await page.fill('#my-commitment', player.commitment || '');
  await page.fill('#my-client-seed', player.clientSeed || '');
  await page.fill('#my-deals', (player.deals || []).join('\n'));
  return check(page, '#form-log button.go');
}

// The CLI: fair check --log --format=json (and the player's input).
function cliCheck(lines, player, n) {
  const log = join(dir, `case${n}.log`);
  writeFileSync(log, text(lines));
  const args = ['check', `--log=${log}`, '--format=json'];
  if (player.commitment) args.push(`--commitment=${player.commitment}`);
  if (player.clientSeed) args.push(`--client-seed=${player.clientSeed}`);
  if (player.deals) {
    writeFileSync(join(dir, `case${n}.deals`), player.deals.join('\n') + '\n');
    args.push(`--my-deals=${join(dir, `case${n}.deals`)}`);
  }
  const r = fair(...args);
  const j = JSON.parse(r.out);
  return { status: r.status, verdict: j.verdict, rule: j.rule, line: j.line || 0 };
}

test('at least 30 tampered logs and deal sets', () => {
  assert.ok(cases().filter((c) => c[3] !== 'honest').length >= 30);
});

let n = 0;
for (const [what, lines, player, verdict, rule, at] of cases()) {
  const k = ++n;
  test(`${verdict === 'honest' ? '' : 'caught: '}${what} -> ${verdict}${rule ? ` (${rule}, line ${at})` : ''}`, async () => {
    const got = await pageCheck(lines, player);
    assert.deepEqual([got.verdict, got.rule, got.line], [verdict, rule, at], `page: ${got.text}`);
    // The CLI's checker, written apart from the page, must agree.
    const cli = cliCheck(lines, player, k);
    assert.deepEqual([cli.verdict, cli.rule, cli.line], [verdict, rule, at], 'fairshuf fair check');
    assert.equal(cli.status, { honest: 0, dishonest: 3, inconclusive: 4 }[verdict]);
  });
}

test('an old fairshuf-pf-1 log (made by fairshuf 0.x before v2) still checks, and its tampering is caught', async () => {
  const v1 = readFileSync(join(here, 'fixtures/pf1.log'), 'utf8').split('\n').filter(Boolean);
  let got = await pageCheck(v1, {});
  assert.deepEqual([got.verdict, got.rule], ['honest', null], got.text);
  const bad = v1.slice();
  const r = JSON.parse(bad[2]);
  r.deal = join2(parts(r.deal).reverse());
  bad[2] = line(r);
  got = await pageCheck(bad, {});
  assert.deepEqual([got.verdict, got.rule, got.line], ['dishonest', 'bad-deal', 3]);
  const cli = cliCheck(bad, {}, 'v1');
  assert.deepEqual([cli.verdict, cli.rule, cli.line], ['dishonest', 'bad-deal', 3]);
});
