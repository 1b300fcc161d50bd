// page.test.mjs -- the verifier page as a player and a casino's link use it:
// the query-string contract (id="verdict", data-verdict), from disk
// (file://) and over http, no network request but the log asked for, the
// card names and order of the CLI in English and Chinese, a phone's width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, open, serve, verdictOf, check, PAGE_URL, FS_BIN } from './browser.mjs';

// docs/provably-fair.md's test vector (scheme fairshuf-pf-1).
const V = {
  server_seed: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  commitment: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
  client_seed: 'alice', nonce: '7', game: 'doudizhu', players: '3', decks: '1', scheme: 'fairshuf-pf-1',
};
const VDEAL = ['Td 2d 7s 6h 5s Jh 4c Ks Qd 8h 9c As 8s Jc 8c Js 4d',
  '8d 7h Qh Jd 3h 7c 9s 5c Kh 3d Kd Qc 9h 5d 5h 3c Tc',
  'Th 6d Qs 2s BJ 4s 3s Ts 2c RJ 4h 2h 6c 7d 6s Ad Ah', '9d Ac Kc'].join('\t');

let browser, server, dir, shared;
const url = (base, q) => `${base}?${new URLSearchParams(q)}`;

before(async () => {
  browser = await launch();
  shared = await open(browser, 'about:blank');
  // Every value #verdict's data-verdict takes, in order: the contract is
  // that it is set once the check has run, never to a provisional value.
  await shared.addInitScript(() => {
    window.__verdicts = [];
    new MutationObserver((list) => {
      for (const m of list) if (m.attributeName === 'data-verdict' && m.target.id === 'verdict')
        window.__verdicts.push(m.target.dataset.verdict ?? null);
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ['data-verdict'] });
  });
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-page-'));
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// One page for all: each check is a new navigation (its requests alone).
async function verdictAt(u) {
  const page = shared;
  page.requests = [];
  page.errors = undefined;
  await page.goto(u);
  const v = await verdictOf(page);
  const seen = (await page.evaluate(() => window.__verdicts)).filter((x) => x !== null);
  assert.deepEqual(seen, [v.verdict], 'data-verdict is set once, to the verdict');
  return { page, ...v };
}

test('query string, file://: the spec\'s test vector is honest and shows the hands', async () => {
  const { page, verdict, rule } = await verdictAt(url(PAGE_URL, V));
  assert.equal(verdict, 'honest');
  assert.equal(rule, null);
  const text = await page.textContent('#results');
  assert.match(text, /39df643a90b9eb35f1090c119bf44c620a73080c46f7f3f919c8ac81f19272e8/); // the key
  assert.equal(await page.locator('#results .part').count(), 4);
  assert.deepEqual(page.requests, [url(PAGE_URL, V)], 'no request but the page itself');
  assert.equal(page.errors, undefined);
});

test('query string: the deal shown (deal=TSV) is the seeds\' deal: honest', async () => {
  const { page, verdict } = await verdictAt(url(PAGE_URL, { ...V, deal: VDEAL }));
  assert.equal(verdict, 'honest');
});

const cases = [
  ['two cards swapped between hands', { deal: VDEAL.replace('Td 2d', 'Td 8d').replace('\t8d 7h', '\t2d 7h') }, 'dishonest', 'bad-deal'],
  ['a card moved to the next hand', { deal: VDEAL.replace(' 4d\t8d', '\t4d 8d') }, 'dishonest', 'bad-deal'],
  ['another nonce', { nonce: '8', deal: VDEAL }, 'dishonest', 'bad-deal'],
  ['another client seed', { client_seed: 'alicE', deal: VDEAL }, 'dishonest', 'bad-deal'],
  ['the same deal under scheme pf-2', { scheme: 'fairshuf-pf-2', deal: VDEAL }, 'dishonest', 'bad-deal'],
  ['a seed that is not the commitment', { server_seed: V.server_seed.replace(/f$/, 'e') }, 'dishonest', 'bad-reveal'],
  ['a commitment one digit off', { commitment: V.commitment.replace(/d$/, 'e') }, 'dishonest', 'bad-reveal'],
  // usage errors: no check can run, so no verdict on the dealer (as the CLI)
  ['a deal that is not TSV', { deal: VDEAL.replaceAll('\t', ' , ') }, 'error', null],
  ['an unknown game', { game: 'canasta' }, 'error', null],
  ['players the game refuses', { players: '4' }, 'error', null],
  ['a nonce that is not a number', { nonce: '7x' }, 'error', null],
  ['no nonce', { nonce: '' }, 'error', null],
  ['nonce 2^64-1 (no period reaches it)', { nonce: '18446744073709551615' }, 'error', null],
  // M3: as the CLI, a nonce with a leading zero is that nonce and the
  // deal's final line feed is its end
  ['nonce 07', { nonce: '07', deal: VDEAL }, 'honest', null],
  ['a deal ending in a line feed (%0A)', { deal: VDEAL + '\n' }, 'honest', null],
  ['a deal ending in CR LF', { deal: VDEAL + '\r\n' }, 'honest', null],
  ['no server seed yet', { server_seed: '' }, 'inconclusive', 'unrevealed'],
];
for (const [what, change, want, rule] of cases) {
  test(`query string: ${what} -> ${want} (${rule})`, async () => {
    const q = { ...V, ...change };
    if (q.server_seed === '') delete q.server_seed;
    const { page, verdict, rule: got } = await verdictAt(url(PAGE_URL, q));
    assert.equal(verdict, want);
    assert.equal(got, rule);
  });
}

test('served over http (/verify): the same verdicts, and a log fetched by ?table=', async () => {
  const log = spawnLog();
  server = await serve({ '/v1/tables/t1/log': log });
  const a = await verdictAt(url(`${server.base}/verify`, V));
  assert.equal(a.verdict, 'honest');
  const b = await verdictAt(url(`${server.base}/verify`, { ...V, deal: VDEAL.replace('Td', 'Jd') }));
  assert.equal(b.verdict, 'dishonest');
  const c = await verdictAt(`${server.base}/verify?table=t1`);
  assert.equal(c.verdict, 'honest', c.text);
  assert.deepEqual(c.page.requests, [`${server.base}/verify?table=t1`, `${server.base}/v1/tables/t1/log`],
    'the page and the table\'s log, nothing else');
  assert.equal(await c.page.locator('#results .period').count(), 3, 'two revealed periods and the open one');
  const d = await verdictAt(`${server.base}/verify?table=nosuch`);
  assert.equal(d.verdict, 'error', 'a table with no log is an error, not a verdict');
});

// A small honest log made by the CLI (its own scheme): two periods.
function spawnLog() {
  const seedFile = join(dir, 'seed.hex');
  const logFile = join(dir, 'play.log');
  rmSync(seedFile, { force: true });
  rmSync(logFile, { force: true });
  const run = (...a) => {
    const r = spawnSync(FS_BIN, ['fair', ...a, `--server-seed-file=${seedFile}`, `--log=${logFile}`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  };
  run('commit', '--game=holdem', '--players=3');
  run('deal', '--client-seed=page-test-1');
  run('rotate');
  run('deal', '--client-seed=page-test-2');
  run('rotate');
  return spawnSync('cat', [logFile], { encoding: 'utf8' }).stdout;
}

test('the log form: paste, Check; the player\'s deals compared', async () => {
  const log = spawnLog();
  const page = await open(browser, PAGE_URL);
  await page.fill('#log', log);
  assert.equal((await check(page, '#form-log button.go')).verdict, 'honest');
  const first = JSON.parse(log.split('\n')[2]); // 1 commit, 2 client_seed, 3 deal
  await page.click('#mine summary');
  await page.fill('#my-commitment', JSON.parse(log.split('\n')[0]).commitment);
  await page.fill('#my-deals', first.deal.replace(/^(\S\S) (\S\S)/, '$2 $1'));
  const v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'deal-differs', 3]);
  assert.equal(await page.locator('#your-deals .c.diff').count(), 4, 'the two cards that differ are marked, in your deal and in the log\'s');
  assert.deepEqual(page.requests, [PAGE_URL]);
  await page.close();
});

// The names and order of `fairshuf fair deal` text output, in both languages.
test('card names and hand order are the CLI\'s, in English and Chinese', async () => {
  const seedFile = join(dir, 'names.hex');
  writeFileSync(seedFile, V.server_seed + '\n', { mode: 0o600 });
  for (const [game, lang] of [['doudizhu', 'zh'], ['doudizhu', 'en'], ['bridge', 'en'], ['shengji', 'zh'],
    ['holdem', 'zh'], ['mahjong', 'zh'], ['mahjong', 'en'], ['blackjack', 'en']]) {
    const r = spawnSync(FS_BIN, ['fair', 'deal', `--server-seed-file=${seedFile}`, '--client-seed=alice',
      '--nonce=7', `--game=${game}`, `--lang=${lang}`], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const scheme = /^(fairshuf-pf-\d)/.exec(r.stdout)[1];
    const want = r.stdout.split('\n').filter((l) => /^ {2}\S/.test(l))
      .map((l) => l.replace(/^ {2}[^:：]*[:：] ?/, '').replace(/[（(].*$/, '').trim());
    const { page } = await verdictAt(url(PAGE_URL, { ...V, game, scheme, lang, players: '', decks: '' }));
    const got = await page.$$eval('#results .part .cards', (els) => els.map((e) =>
      [...e.querySelectorAll('.c')].map((c) => c.textContent).join(' ')));
    assert.deepEqual(got.map((g) => g.split(' ').slice(0, 160).join(' ')),
      want.map((w) => w.split(' ').slice(0, 160).join(' ')), `${game} --lang=${lang}`);
    const red = await page.$$eval('#results .c.red', (els) => els.map((e) => e.textContent));
    if (game !== 'mahjong') assert.ok(red.length > 0 && red.every((n) => /[♥♦]|红桃|方块|RJ|大王/.test(n)), 'red suits in red');
  }
});

test('a phone (390 px): no horizontal scrolling; the verdict and the hands are on the first screen', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 });
  await page.goto(url(PAGE_URL, { ...V, game: 'mahjong', players: '', decks: '' }));
  await verdictOf(page);
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
  assert.ok(m.sw <= m.cw, `the page is ${m.sw} px wide in a ${m.cw} px window`);
  const v = await page.locator('#verdict').boundingBox();
  assert.ok(v.y + v.height <= 844 && v.x >= 0 && v.x + v.width <= 390, 'the verdict is on screen');
  const hand = await page.locator('#results .part').first().boundingBox();
  assert.ok(hand && hand.y + hand.height <= 844, 'the first hand is on the first screen');
  // The inputs are folded after a link, and one click brings them back.
  assert.equal(await page.isVisible('#server_seed'), false);
  await page.click('#inputs > summary');
  assert.equal(await page.inputValue('#server_seed'), V.server_seed);
  await page.goto(url(PAGE_URL, { ...V, game: 'blackjack', players: '7', decks: '8', lang: 'zh' }));
  await verdictOf(page);
  const m2 = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(m2 <= 390, `blackjack in Chinese is ${m2} px wide`);
  await page.close();
});
