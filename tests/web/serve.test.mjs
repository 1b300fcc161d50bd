// serve.test.mjs -- the page served by `fairshuf serve` at /verify checks a
// table's log through ?table=ID (fetched from the same origin), as a player
// would after playing at that table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { launch, open, verdictOf, check, FS_BIN } from './browser.mjs';

const HAVE_SERVE = spawnSync(FS_BIN, ['serve', '--help']).status === 0;
const TOKEN = 'web-test-token-0123456789';
let browser, dir, proc, base, vrfKey;

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

before(async () => {
  if (!HAVE_SERVE) return;
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-serve-'));
  writeFileSync(join(dir, 'token'), TOKEN + '\n', { mode: 0o600 });
  const portFile = join(dir, 'port');
  vrfKey = spawnSync(FS_BIN, ['fair', 'vrf-keygen', `--key-file=${join(dir, 'd.vrf-key')}`]).stdout.toString().trim();
  proc = spawn(FS_BIN, ['serve', `--db=${join(dir, 'db.sqlite')}`, `--token-file=${join(dir, 'token')}`,
    '--listen=127.0.0.1:0', `--port-file=${portFile}`, `--vrf-key-file=${join(dir, 'd.vrf-key')}`],
  { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100 && !(existsSync(portFile) && readFileSync(portFile, 'utf8').trim()); i++) await sleep(50);
  base = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}`;
  browser = await launch();
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

test('a table played through fairshuf serve: inconclusive while unrevealed, honest after rotation; the player\'s seed checked', { skip }, async () => {
  const t = await api('POST', '/v1/tables', { game: 'doudizhu', players: 3, decks: 1 });
  const id = t.table;
  const commitment1 = t.commitment;
  await api('POST', `/v1/tables/${id}/client-seed`, { client_seed: 'web-player' });
  const seen = [];
  for (let i = 0; i < 3; i++) seen.push((await api('POST', `/v1/tables/${id}/deals`)).deal);
  const page = await open(browser, `${base}/verify?table=${id}`);
  let v = await verdictOf(page);
  assert.deepEqual([v.verdict, v.rule], ['inconclusive', 'unrevealed'], v.text);
  assert.deepEqual(page.requests, [`${base}/verify?table=${id}`, `${base}/v1/tables/${id}/log`]);
  await page.close();

  await api('POST', `/v1/tables/${id}/rotate`);
  const q = new URLSearchParams({ table: id, commitment: commitment1, client_seed: 'web-player' });
  const p2 = await open(browser, `${base}/verify?${q}`);
  v = await verdictOf(p2);
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  // The log the page fetched is the one the service serves, and the deals
  // it shows are the ones the player was dealt.
  const log = await api('GET', `/v1/tables/${id}/log`);
  assert.equal(await p2.inputValue('#log'), log);
  for (const d of seen) assert.ok(log.includes(JSON.stringify(d).slice(1, -1)), 'each dealt hand is in the log');
  assert.equal(await p2.locator('#results .deal[data-verdict=honest]').count(), 3);
  // The player's deals, pasted: the same; one changed: deal-differs.
  await p2.$eval('#inputs', (d) => { d.open = true; });
  await p2.$eval('#mine', (d) => { d.open = true; });
  await p2.fill('#my-deals', seen.join('\n'));
  v = await check(p2, '#form-log button.go');
  assert.equal(v.verdict, 'honest', v.text);
  const changed = seen[1].replace(/^(\S\S) (\S\S)/, '$2 $1');
  assert.notEqual(changed, seen[1], JSON.stringify(seen[1]));
  await p2.fill('#my-deals', [seen[0], changed].join('\n'));
  v = await check(p2, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule], ['dishonest', 'deal-differs'], v.text);
  await p2.close();

  // Another player's client seed is not this period's.
  const p3 = await open(browser, `${base}/verify?${new URLSearchParams({ table: id, commitment: commitment1, client_seed: 'someone-else' })}`);
  v = await verdictOf(p3);
  assert.deepEqual([v.verdict, v.rule], ['dishonest', 'client-seed-mismatch'], v.text);
  await p3.close();
});

test('a fairshuf-vrf-1 table dealt by fairshuf serve: each hand\'s record checked at once from a link, the table\'s log through ?table=ID&public_key=HEX; another key is dishonest', { skip }, async () => {
  const sha = async (s) => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s))).toString('hex');
  const t = await api('POST', '/v1/tables', {
    scheme: 'fairshuf-vrf-1', game: 'holdem', players: 2, commitments: [await sha('ann'), await sha('ben')],
  });
  assert.equal(t.public_key, vrfKey);
  await api('POST', `/v1/tables/${t.table}/client-seeds`, { client_seeds: ['ann', 'ben'] });
  const hands = [];
  for (let i = 0; i < 3; i++) hands.push(await api('POST', `/v1/tables/${t.table}/deals`));
  assert.deepEqual(hands.map((h) => h.hand), [0, 1, 2]);
  const one = await open(browser, `${base}/verify?${new URLSearchParams({
    scheme: 'fairshuf-vrf-1', public_key: vrfKey, record: JSON.stringify(hands[2].record) })}`);
  let v = await verdictOf(one);
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  await one.close();
  const page = await open(browser, `${base}/verify?table=${t.table}&public_key=${vrfKey}`);
  v = await verdictOf(page);
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  assert.equal(await page.inputValue('#log'), await api('GET', `/v1/tables/${t.table}/log`));
  await page.close();
  const other = spawnSync(FS_BIN, ['fair', 'vrf-keygen', `--key-file=${join(dir, 'other.vrf-key')}`]).stdout.toString().trim();
  const p2 = await open(browser, `${base}/verify?table=${t.table}&public_key=${other}`);
  v = await verdictOf(p2);
  assert.deepEqual([v.verdict, v.rule], ['dishonest', 'other-key'], v.text);
  await p2.close();
});
