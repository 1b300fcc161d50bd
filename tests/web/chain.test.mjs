// chain.test.mjs -- the hash chain of a table's log (fairshuf/chain.h,
// web/src/chain.js): a log made by `fairshuf serve`, then tampered; each
// case goes to the page and to `fairshuf fair check --format=json`, which
// must give the same verdict, rule and line.  Cases the chain cannot see
// (the last line, the tail, every "prev" taken out) are here too, with the
// verdict they get: docs/provably-fair.md, "The hash chain", says why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { launch, open, check, PAGE_URL, FS_BIN } from './browser.mjs';

const HAVE_SERVE = spawnSync(FS_BIN, ['serve', '--help']).status === 0;
const TOKEN = 'web-chain-token-0123456789';
let browser, page, dir, proc, base;
let L = []; // the served log's lines (L[0] is line 1)

async function api(method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
  return path.endsWith('/log') ? text : JSON.parse(text);
}

// The served log: 1 commit holdem/3, 2 client seed, 3-5 deals 0-2,
// 6 reveal, 7 commit, 8 client seed, 9-10 deals 0-1, 11 reveal, 12 commit.
before(async () => {
  if (!HAVE_SERVE) return;
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-chain-'));
  writeFileSync(join(dir, 'token'), TOKEN + '\n', { mode: 0o600 });
  const portFile = join(dir, 'port');
  proc = spawn(FS_BIN, ['serve', `--db=${join(dir, 'db.sqlite')}`, `--token-file=${join(dir, 'token')}`,
    '--listen=127.0.0.1:0', `--port-file=${portFile}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100 && !(existsSync(portFile) && readFileSync(portFile, 'utf8').trim()); i++) await sleep(50);
  base = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
  const { table } = await api('POST', '/v1/tables', { game: 'holdem', players: 3 });
  await api('POST', `/v1/tables/${table}/client-seed`, { client_seed: 'alice' });
  for (let i = 0; i < 3; i++) await api('POST', `/v1/tables/${table}/deals`);
  await api('POST', `/v1/tables/${table}/rotate`);
  await api('POST', `/v1/tables/${table}/client-seed`, { client_seed: 'bob' });
  for (let i = 0; i < 2; i++) await api('POST', `/v1/tables/${table}/deals`);
  await api('POST', `/v1/tables/${table}/rotate`);
  L = (await api('GET', `/v1/tables/${table}/log`)).split('\n');
  assert.equal(L.pop(), '');
  assert.equal(L.length, 12);
  browser = await launch();
  page = await open(browser, PAGE_URL);
});
after(async () => {
  await browser?.close();
  if (proc) {
    proc.kill('SIGTERM');
    await new Promise((ok) => proc.once('exit', ok));
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const skip = HAVE_SERVE ? false : 'this fairshuf has no serve command';
const hash = (s) => createHash('sha256').update(s, 'utf8').digest('hex');
const PREV = /,"prev":"[0-9a-f]{64}"\}$/;
const unchain = (l) => l.replace(PREV, '}');
const setPrev = (l, hex) => l.replace(PREV, `,"prev":"${hex}"}`);
const edited = (n, f) => L.map((l, i) => (i === n - 1 ? f(l) : l));
const without = (...ns) => L.filter((_, i) => !ns.includes(i + 1));
const text = (lines) => lines.map((l) => l + '\n').join('');

// [what, lines, verdict, rule, line]
const cases = () => [
  ['the served log', L, 'honest', null, 0],
  ['a deal dropped at the end of a period (the nonces still run)', without(5), 'dishonest', 'chain-broken', 5],
  ['the first period dropped (the log starts at a commit)', without(1, 2, 3, 4, 5, 6), 'dishonest', 'chain-broken', 1],
  ['the two periods swapped', [...L.slice(6, 11), ...L.slice(0, 6), L[11]], 'dishonest', 'chain-broken', 1],
  ['a commitment edited (its reveal fails later)', edited(7, (l) => l.replace(/"commitment":"(.)/, (m, c) => `"commitment":"${c === '0' ? '1' : '0'}`)), 'dishonest', 'chain-broken', 8],
  ['a prev edited', edited(9, (l) => setPrev(l, hash('x'))), 'dishonest', 'chain-broken', 9],
  ['a prev taken out of one line', edited(9, unchain), 'dishonest', 'chain-missing', 9],
  ['a line re-chained to itself after an edit of the line before', edited(4, (l) => l.replace('"nonce":1', '"nonce":1 ')), 'dishonest', 'chain-broken', 5],
  ['a deal copied after itself (the record rules see it on the same line)', [...L.slice(0, 4), L[3], ...L.slice(4)], 'dishonest', 'nonce', 5],
  ['a deal edited (bad-deal on its own line comes first)', edited(3, (l) => l.replace(/"deal":"(\S+) (\S+)/, '"deal":"$2 $1')), 'dishonest', 'bad-deal', 3],
  ['the first line dropped (the record rules see it on the same line)', without(1), 'dishonest', 'order', 1],
  // What the chain cannot see (docs/provably-fair.md, "The hash chain"):
  ['the last line edited: nothing after it links to it', edited(12, (l) => l.replace(/"commitment":"(.)/, (m, c) => `"commitment":"${c === '0' ? '1' : '0'}`)), 'honest', null, 0],
  ['the tail cut (the last reveal and commit)', L.slice(0, 10), 'inconclusive', 'unrevealed', 7],
  ['every prev taken out: an unchained log', L.map(unchain), 'honest', null, 0],
];

async function pageCheck(lines) {
  await page.$eval('#mine', (d) => { d.open = true; });
  await page.fill('#log', text(lines));
  await page.fill('#my-commitment', '');
  await page.fill('#my-client-seed', '');
  await page.fill('#my-deals', '');
  return check(page, '#form-log button.go');
}

function cliCheck(lines, n) {
  const log = join(dir, `chain${n}.log`);
  writeFileSync(log, text(lines));
  const r = spawnSync(FS_BIN, ['fair', 'check', `--log=${log}`, '--format=json'], { encoding: 'utf8' });
  const j = JSON.parse(r.stdout);
  return { status: r.status, verdict: j.verdict, rule: j.rule, line: j.line || 0 };
}

test('every line of the served log is chained to the one before it', { skip }, () => {
  let prev = '0'.repeat(64);
  for (const l of L) {
    assert.match(l, PREV);
    assert.equal(l.slice(-66, -2), prev);
    prev = hash(l);
  }
});

test('the page says the log is hash-chained, and from which line', { skip }, async () => {
  await pageCheck(L);
  assert.match(await page.$eval('#results .summary', (e) => e.textContent), /; hash-chained from line 1\.$/);
  await pageCheck(L.map(unchain));
  assert.doesNotMatch(await page.$eval('#results .summary', (e) => e.textContent), /hash-chained/);
});

let n = 0;
test('the tampered chained logs: the page and fair check agree on every case', { skip }, async () => {
  for (const [what, lines, verdict, rule, at] of cases()) {
    const k = ++n;
    const got = await pageCheck(lines);
    assert.deepEqual([got.verdict, got.rule, got.line], [verdict, rule, at], `page, ${what}: ${got.text}`);
    const cli = cliCheck(lines, k);
    assert.deepEqual([cli.verdict, cli.rule, cli.line], [verdict, rule, at], `fair check, ${what}`);
    assert.equal(cli.status, { honest: 0, dishonest: 3, inconclusive: 4 }[verdict]);
  }
});
