// trust.test.mjs -- issue 52 on the page itself: a log's bytes decoded
// strictly (file and ?table=: a BOM, CESU-8, overlong forms are malformed; a
// lone CR is no line break, also when pasted), the last period with a deal,
// the commitment asked for in the verdict when it is missing, data-line 0,
// the deals the player did not see, the long log's filter, jump and pages,
// card symbols in failure sentences, one hand's proved / not proved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { launch, open, serve, verdictOf, check, PAGE_URL, FS_BIN } from './browser.mjs';

let browser, server, dir, page;
let LOG, C1, C2, MINE; // a log of two revealed periods then the next commit

function fair(...a) {
  const r = spawnSync(FS_BIN, ['fair', ...a], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-trust-'));
  const f = [`--server-seed-file=${join(dir, 's.hex')}`, `--log=${join(dir, 'p.log')}`];
  C1 = fair('commit', '--game=holdem', '--players=3', ...f);
  MINE = [fair('deal', '--client-seed=alice', '--format=tsv', ...f)];
  for (let i = 1; i < 25; i++) MINE.push(fair('deal', '--format=tsv', ...f));
  C2 = fair('rotate', '--format=json', ...f);
  C2 = JSON.parse(C2).commitment;
  fair('deal', '--client-seed=bob', ...f);
  fair('rotate', ...f); // the log ends with the next period's commit
  LOG = readFileSync(join(dir, 'p.log'));
  const bad = Buffer.from(LOG.toString('utf8').replace('"client_seed":"alice"}', '"client_seed":"ali\uFFFDce"}'));
  const cesu = Buffer.from(LOG.toString('latin1').replace('"client_seed":"alice"}', '"client_seed":"ali\xed\xa0\x80ce"}'), 'latin1');
  server = await serve({
    '/v1/tables/good/log': LOG,
    '/v1/tables/bom/log': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), LOG]),
    '/v1/tables/cesu/log': cesu,
    '/v1/tables/overlong/log': Buffer.from(cesu.toString('latin1').replace('\xed\xa0\x80', '\xc0\x80'), 'latin1'),
    '/v1/tables/cr/log': Buffer.from(LOG.toString('utf8').replaceAll(',"event"', ',\r"event"')),
    '/v1/tables/fffd/log': bad,
  });
  browser = await launch();
  page = await open(browser, PAGE_URL);
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function at(url) {
  await page.goto(url);
  return verdictOf(page);
}

test('?table=: a log starting with a BOM, or holding CESU-8 or an overlong NUL, is malformed; a lone CR is not a line break', async () => {
  const t = (id, q = '') => at(`${server.base}/verify?table=${id}${q}`);
  let v = await t('good');
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  v = await t('bom');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 1], v.text);
  for (const id of ['cesu', 'overlong']) {
    v = await t(id);
    assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 2], `${id}: ${v.text}`);
  }
  v = await t('cr');
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  // a real U+FFFD is a valid character: the period's seed is then another
  v = await t('fffd');
  assert.equal(v.verdict, 'dishonest');
  assert.notEqual(v.rule, 'malformed');
});

test('a file: the same bytes, the same verdicts (decoded strictly, the BOM kept)', async () => {
  await page.goto(PAGE_URL);
  const file = async (buffer) => {
    await page.$eval('#verdict', (e) => { delete e.dataset.verdict; });
    await page.setInputFiles('#log-file', { name: 'p.log', mimeType: 'text/plain', buffer });
    return verdictOf(page);
  };
  let v = await file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), LOG]));
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 1], v.text);
  v = await file(Buffer.from(LOG.toString('utf8').replaceAll(',"event"', ',\r"event"')));
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  v = await file(Buffer.from(LOG.toString('latin1').replace('"alice"', '"ali\xc0\x80ce"'), 'latin1'));
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 2], v.text);
  // the text box shows it; pressing Check again checks the same bytes
  v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 2], v.text);
});

test('a paste keeps a lone CR (the text box alone would make it a line break)', async () => {
  await page.goto(PAGE_URL);
  const text = LOG.toString('utf8').replaceAll(',"event"', ',\r"event"');
  // typed into the box (as a paste's default does), each CR becomes a line
  // break: the control the paste handler exists for
  await page.fill('#log', text);
  let v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'malformed', 1], v.text);
  await page.fill('#log', '');
  await page.$eval('#log', (box, t) => {
    const dt = new DataTransfer();
    dt.setData('text/plain', t);
    box.focus();
    box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, text);
  v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
});

test('the player\'s deals alone go to the last period with a deal; without the commitment the verdict asks for it', async () => {
  const q = new URLSearchParams({ table: 'good', client_seed: 'alice' });
  let v = await at(`${server.base}/verify?${q}`);
  assert.deepEqual([v.verdict, v.rule, v.line], ['inconclusive', 'no-commitment', 0], v.text);
  assert.equal(await page.getAttribute('#verdict', 'data-line'), '0', 'data-line is 0 for the log as a whole');
  assert.ok(await page.isVisible('#verdict #ask-commitment'), 'the verdict asks for the commitment');
  await page.fill('#ask-commitment', C1);
  v = await check(page, '#verdict .ask button');
  assert.deepEqual([v.verdict, v.rule], ['honest', null], v.text);
  assert.match(v.text, /your commitment is period 1's, your client seed is its/);
  // deals alone: period 2 (the last with a deal), not period 3 (the next commit)
  await page.$eval('#inputs', (d) => { d.open = true; });
  await page.$eval('#mine', (d) => { d.open = true; });
  await page.fill('#my-commitment', '');
  await page.fill('#my-client-seed', '');
  const p2 = JSON.parse(LOG.toString('utf8').split('\n').find((l) => l.includes('"bob","game"')));
  await page.fill('#my-deals', p2.deal);
  v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule], ['inconclusive', 'no-commitment'], v.text);
  // another commitment: not found (line 0, data-line "0")
  await page.fill('#my-commitment', 'ab'.repeat(32));
  v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'commitment-not-found', 0], v.text);
  assert.equal(await page.getAttribute('#verdict', 'data-line'), '0');
});

test('a long log: the deals you did not see, a filter, a jump to a deal, pages; failures in card symbols', async () => {
  const lines = LOG.toString('utf8').split('\n');
  const k = lines.findIndex((l) => l.includes('"nonce":20,'));
  const r = JSON.parse(lines[k]);
  const ps = r.deal.split('\t').map((p) => p.split(' '));
  [ps[0][0], ps[1][0]] = [ps[1][0], ps[0][0]];
  r.deal = ps.map((p) => p.join(' ')).join('\t');
  lines[k] = JSON.stringify(r);
  await page.goto(PAGE_URL);
  await page.fill('#log', lines.join('\n'));
  await page.$eval('#mine', (d) => { d.open = true; });
  await page.fill('#my-commitment', C1);
  await page.fill('#my-deals', [`3\t${MINE[3]}`, `4\t${MINE[4]}`, `9\t${MINE[9]}`].join('\n'));
  let v = await check(page, '#form-log button.go');
  assert.deepEqual([v.verdict, v.rule, v.line], ['dishonest', 'bad-deal', k + 1], v.text);
  // the failure sentence shows the cards as the page does (10♥, not Th)
  const named = await page.$$eval('#verdict .why .c', (e) => e.map((x) => x.textContent));
  assert.equal(named.length, 2, v.text);
  assert.ok(named.every((n) => /^(10|[2-9AJQK])[♠♥♦♣]$|^[BR]J$/.test(n)), named.join(' '));
  // M10: 3 before the first, 4 between (5..8), said, not judged
  assert.match(await page.textContent('#unseen'), /has 7 deals you did not see: 3 before your first \(nonce 0, 1, 2\), 4 between yours/);
  // pages of 20 deals
  assert.equal(await page.locator('#log-list .deal').count(), 20);
  assert.match(await page.textContent('#page-at'), /page 1 of 2 · 26 deals/);
  await page.click('#page-next');
  assert.equal(await page.locator('#log-list .deal').count(), 6);
  // the filter: only the deal with a finding
  await page.selectOption('#log-filter', 'problems');
  assert.deepEqual(await page.$$eval('#log-list .deal', (e) => e.map((x) => x.dataset.nonce)), ['20']);
  await page.selectOption('#log-filter', 'yours');
  assert.deepEqual(await page.$$eval('#log-list .deal', (e) => e.map((x) => x.dataset.nonce)), ['3', '4', '9']);
  // a jump: to a nonce, then to a line
  await page.fill('#log-jump', '17');
  await page.click('.tools .jump button');
  assert.equal(await page.getAttribute('#log-list .deal.focus', 'data-nonce'), '17');
  await page.fill('#log-jump', `line ${k + 1}`);
  await page.click('.tools .jump button');
  assert.equal(await page.getAttribute('#log-list .deal.focus', 'data-nonce'), '20');
  await page.fill('#log-jump', '999');
  await page.click('.tools .jump button');
  assert.match(await page.textContent('#jump-note'), /no deal at 999/);
  // in Chinese, the same sentence names the cards in Chinese
  await page.selectOption('#lang', 'zh');
  const zh = await page.$$eval('#verdict .why .c', (e) => e.map((x) => x.textContent));
  assert.ok(zh.every((n) => /^(黑桃|红桃|方块|梅花)|王$/.test(n)), zh.join(' '));
});

test('one hand: the verdict says what it proved and what it did not', async () => {
  const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
  const q = { server_seed: seed, commitment: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
    client_seed: 'alice', nonce: '7', game: 'doudizhu' };
  let v = await at(`${PAGE_URL}?${new URLSearchParams(q)}`);
  assert.equal(v.verdict, 'honest');
  const proved = await page.$$eval('#verdict .proved li', (e) => e.map((x) => x.textContent));
  const not = await page.$$eval('#verdict .unproved li', (e) => e.map((x) => x.textContent));
  assert.match(proved.join('|'), /the server seed is the committed one/);
  assert.match(not.join('|'), /no deal given/);
  assert.match(not.join('|'), /only the period's whole log shows that/);
  v = await at(`${PAGE_URL}?${new URLSearchParams({ ...q, commitment: '' })}`);
  assert.equal(v.verdict, 'inconclusive');
  assert.match(await page.textContent('#verdict .unproved'), /give the commitment/);
});
