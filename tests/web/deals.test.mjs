// deals.test.mjs -- the page's independent implementation against the CLI:
// 1,000 random deals made by `fairshuf fair deal` over every game, player
// count and deck count the CLI supports, recomputed in one page session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { launch, open, PAGE_URL, FS_BIN } from './browser.mjs';

const DEALS = 1000;
let browser, page, dir;
const seeds = [];

function cli(args) {
  const r = spawnSync(FS_BIN, args, { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

// The same for many calls at once: one sh runs them in turn (a fork of sh
// costs much less than one of node here, and this file makes ~1,300 calls),
// each call's stdout, status and stderr framed by bytes no output holds.
function clis(argsList) {
  const q = (a) => `'${a.replace(/'/g, "'\\''")}'`;
  const script = join(dir, 'calls.sh');
  writeFileSync(script, argsList.map((args) =>
    `${q(FS_BIN)} ${args.map(q).join(' ')} 2>"$E"; s=$?; printf '\\036%d\\037' $s; cat "$E"; printf '\\035'\n`).join(''));
  const r = spawnSync('sh', [script], { encoding: 'utf8', maxBuffer: 1 << 28,
    env: { ...process.env, E: join(dir, 'calls.err') } });
  assert.equal(r.status, 0, `sh ${script}: ${r.stderr}`);
  const parts = r.stdout.split('\x1d');
  assert.equal(parts.pop(), '');
  assert.equal(parts.length, argsList.length);
  return parts.map((p) => {
    const m = /^([^]*)\x1e(\d+)\x1f([^]*)$/.exec(p);
    return { status: Number(m[2]), out: m[1], err: m[3] };
  });
}

// A deterministic stream for the choices (the seeds themselves are random:
// any seed must work); FS_WEB_SEED makes a failing run repeatable.
let state = BigInt(process.env.FS_WEB_SEED || Date.now());
const rand = (n) => {
  state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
  return Number((state >> 33n) % BigInt(n));
};
const CHARS = ['a', 'b', 'Z', '0', '9', ' ', '-', '_', '"', '\\', 'é', '王', '🂡', 'ß', '/'];
function clientSeed() {
  if (rand(10) === 0) return 'x'.repeat(256); // the longest a seed may be
  let s = '';
  const n = 1 + rand(24);
  for (let i = 0; i < n; i++) s += CHARS[rand(CHARS.length)];
  return s;
}
function nonce() {
  switch (rand(3)) {
    case 0: return String(rand(10));
    case 1: return String(rand(1e9));
    default: return (BigInt.asUintN(64, BigInt('0x' + randomBytes(8).toString('hex'))) % ((1n << 64n) - 1n)).toString();
  }
}

// Every table the CLI deals: for each game, the player counts and deck
// counts it accepts (found by asking it, from 1 up to where it refuses).
function tables(games) {
  const base = ['fair', 'deal', `--server-seed-file=${seeds[0].file}`, '--client-seed=a', '--nonce=0'];
  const ps = [...Array(12).keys()].map((i) => i + 1);
  const ds = [...Array(25).keys()].map((i) => i + 1);
  const pr = clis(games.flatMap((g) => ps.map((p) => [...base, `--game=${g}`, `--players=${p}`, '--format=tsv'])));
  const players = games.map((g, i) => ps.filter((p, j) => pr[i * ps.length + j].status === 0));
  const dr = clis(games.flatMap((g, i) => ds.map((d) => [...base, `--game=${g}`,
    `--players=${players[i][players[i].length - 1]}`, `--decks=${d}`, '--format=tsv'])));
  return games.map((g, i) => ({ game: g, players: players[i],
    decks: ds.filter((d, j) => dr[i * ds.length + j].status === 0) }));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-deals-'));
  for (let i = 0; i < 20; i++) {
    const hex = randomBytes(32).toString('hex');
    const file = join(dir, `seed${i}.hex`);
    writeFileSync(file, hex + '\n', { mode: 0o600 });
    seeds.push({ hex, file });
  }
  browser = await launch();
  page = await open(browser, PAGE_URL);
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the CLI and the page deal the same 1,000 random deals over every game, player and deck count', async () => {
  const games = await page.evaluate(() => Object.keys(window.fairshufVerify.scheme.GAMES));
  const json = JSON.parse(cli(['fair', 'deal', `--server-seed-file=${seeds[0].file}`, '--client-seed=a',
    '--nonce=0', '--format=json']).out);
  const scheme = json.scheme;
  assert.match(scheme, /^fairshuf-pf-[12]$/);
  const all = tables(games);
  // The page knows exactly the tables the CLI deals.
  const refused = await page.evaluate((all) => all.map(({ game }) => {
    const S = window.fairshufVerify.scheme;
    const ok = [];
    for (let p = 1; p <= 12; p++) for (let d = 1; d <= 25; d++) if (!S.tableError(game, p, d)) ok.push([p, d]);
    return ok;
  }), all);
  all.forEach((t, i) => {
    const ps = [...new Set(refused[i].map(([p]) => p))];
    assert.deepEqual(ps, t.players, `${t.game}: players the page accepts`);
    for (const p of t.players)
      assert.deepEqual(refused[i].filter(([q]) => q === p).map(([, d]) => d), t.decks, `${t.game}: decks`);
  });
  // Every (game, players, decks) the CLI deals once, then random ones.
  const jobs = [];
  for (const t of all) for (const p of t.players) for (const d of t.decks) jobs.push({ game: t.game, players: p, decks: d });
  assert.ok(jobs.length <= DEALS);
  while (jobs.length < DEALS) {
    const t = all[rand(all.length)];
    jobs.push({ game: t.game, players: t.players[rand(t.players.length)], decks: t.decks[rand(t.decks.length)] });
  }
  const calls = jobs.map((j) => {
    const s = seeds[rand(seeds.length)];
    Object.assign(j, { seed: s.hex, clientSeed: clientSeed(), nonce: nonce() });
    return ['fair', 'deal', `--server-seed-file=${s.file}`, `--client-seed=${j.clientSeed}`,
      `--nonce=${j.nonce}`, `--game=${j.game}`, `--players=${j.players}`, `--decks=${j.decks}`, '--format=tsv'];
  });
  clis(calls).forEach((r, i) => {
    const j = jobs[i];
    assert.equal(r.status, 0, `fairshuf fair deal ${JSON.stringify(j)}: ${r.err}`);
    j.cli = r.out.replace(/\n$/, '');
  });
  const t0 = Date.now();
  const got = await page.evaluate(async ({ jobs, scheme }) => {
    const S = window.fairshufVerify.scheme;
    const out = [];
    for (const j of jobs) {
      const d = await S.deal(scheme, S.hexToBytes(j.seed), j.game, j.players, j.decks, j.clientSeed, j.nonce);
      out.push(d.tsv);
    }
    return out;
  }, { jobs, scheme });
  const ms = Date.now() - t0;
  let same = 0;
  jobs.forEach((j, i) => {
    assert.equal(got[i], j.cli, `deal ${i} differs: ${JSON.stringify({ ...j, cli: undefined })}`);
    same++;
  });
  assert.equal(same, DEALS);
  const combos = new Set(jobs.map((j) => `${j.game}/${j.players}/${j.decks}`));
  console.log(`# ${DEALS} deals (${scheme}), ${combos.size} distinct tables, recomputed in the page in ${ms} ms`);
});

test('the page computes the commitment the CLI prints for each seed', async () => {
  const cliC = seeds.map((s) => JSON.parse(cli(['fair', 'deal', `--server-seed-file=${s.file}`,
    '--client-seed=a', '--nonce=0', '--format=json']).out).commitment);
  const pageC = await page.evaluate(async (hexes) => {
    const S = window.fairshufVerify.scheme;
    return Promise.all(hexes.map(async (h) => S.bytesToHex(await S.sha256(S.hexToBytes(h)))));
  }, seeds.map((s) => s.hex));
  assert.deepEqual(pageC, cliC);
  assert.deepEqual(pageC, seeds.map((s) => createHash('sha256').update(Buffer.from(s.hex, 'hex')).digest('hex')));
});

test('negative control: a deal under another scheme, nonce or client seed is not the CLI\'s', async () => {
  const s = seeds[0];
  const want = cli(['fair', 'deal', `--server-seed-file=${s.file}`, '--client-seed=alice', '--nonce=7',
    '--game=bridge', '--format=tsv']).out.replace(/\n$/, '');
  const scheme = JSON.parse(cli(['fair', 'deal', `--server-seed-file=${s.file}`, '--client-seed=a',
    '--nonce=0', '--format=json']).out).scheme;
  const other = scheme === 'fairshuf-pf-1' ? 'fairshuf-pf-2' : 'fairshuf-pf-1';
  const got = await page.evaluate(async ({ hex, scheme, other }) => {
    const S = window.fairshufVerify.scheme;
    const seed = S.hexToBytes(hex);
    const t = async (sc, c, n) => (await S.deal(sc, seed, 'bridge', 4, 1, c, n)).tsv;
    return [await t(scheme, 'alice', 7), await t(other, 'alice', 7), await t(scheme, 'alice', 8),
      await t(scheme, 'alicf', 7)];
  }, { hex: s.hex, scheme, other });
  assert.equal(got[0], want);
  for (const g of got.slice(1)) assert.notEqual(g, want);
});

// below(n) where the random words fall in Lemire's rejection zone: no random
// deal shows it (a word is rejected with probability < 2^-54), so the words
// are given here.  n = 3: t = 2^64 mod 3 = 1, so a word x with x*3 mod 2^64
// < 1 (x = 0) must be redrawn; 2^63 then gives floor(3 * 2^63 / 2^64) = 1.
test('below(n) redraws a word in the rejection zone and is exact at the edges', async () => {
  const got = await page.evaluate(() => {
    const S = window.fairshufVerify.scheme;
    const words = (...xs) => ({ next: () => xs.shift() });
    const M = (1n << 64n) - 1n;
    return [
      S.below(words(0n, 1n << 63n), 3), // 0 rejected, then 1
      S.below(words(0n, 0n, M), 3),     // two rejected, then the top word: 2
      S.below(words(M), 1024),          // the largest word: n - 1
      S.below(words(0n), 1024),         // t = 0 for a power of two: 0 accepted
      S.below(words(0n, 5n), 1),        // n = 1: always 0, never redrawn
      // n = 52: t = 2^64 mod 52 = 16; x = 2^64/52 rounded up gives m mod 2^64 = 36 >= 16: kept
      S.below(words((1n << 64n) / 52n + 1n), 52),
    ].map(String);
  });
  assert.deepEqual(got, ['1', '2', '1023', '0', '0', '1']);
});
