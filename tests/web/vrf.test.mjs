// vrf.test.mjs -- the page's scheme fairshuf-vrf-1 (web/src/vrf.js) against
// the C: RFC 9381 Examples 16-18, 1,000 random keys and inputs proven by
// `fairshuf fair vrf-prove` and verified by the page (and changed proofs
// refused by both), the link for one hand (?scheme=&public_key=&record=),
// and a differential test of `fair check --public-key` against the page on
// an honest vrf log and its tampered forms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, open, verdictOf, check, PAGE_URL, FS_BIN, ROOT } from './browser.mjs';

let browser, page, dir;
before(async () => {
  browser = await launch();
  page = await open(browser, PAGE_URL);
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-vrf-'));
});
after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const run = promisify(execFile);
const fs = (...args) => execFileSync(FS_BIN, args, { encoding: 'utf8' });
const keyFile = (skHex, name) => {
  const f = join(dir, name);
  writeFileSync(f, `${skHex}\n`, { mode: 0o600 });
  return f;
};

// RFC 9381 Appendix B.3, Examples 16-18.
const RFC = [
  ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', '',
    '8657106690b5526245a92b003bb079ccd1a92130477671f6fc01ad16f26f723f26f8a57ccaed74ee1b190bed1f479d9727d2d0f9b005a6e456a35d4fb0daab1268a1b0db10836d9826a528ca76567805',
    '90cf1df3b703cce59e2a35b925d411164068269d7b2d29f3301c03dd757876ff66b71dda49d2de59d03450451af026798e8f81cd2e333de5cdf4f3e140fdd8ae'],
  ['3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', '72',
    'f3141cd382dc42909d19ec5110469e4feae18300e94f304590abdced48aed5933bf0864a62558b3ed7f2fea45c92a465301b3bbf5e3e54ddf2d935be3b67926da3ef39226bbc355bdc9850112c8f4b02',
    'eb4440665d3891d668e7e0fcaf587f1b4bd7fbfe99d0eb2211ccec90496310eb5e33821bc613efb94db5e5b54c70a848a0bef4553a41befc57663b56373a5031'],
  ['fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025', 'af82',
    '9bc0f79119cc5604bf02d23b4caede71393cedfbb191434dd016d30177ccbf8096bb474e53895c362d8628ee9f9ea3c0e52c7a5c691b6c18c9979866568add7a2d41b00b05081ed0f58ee5e31b3a970e',
    '645427e5d00c62a23fb703732fa5d892940935942101e456ecca7bb217c61c452118fec1219202a0edcf038bb6373241578be7217ba85a2687f7a0310b2df19f'],
];

// The page verifies [pk, alpha, pi] triples: beta hex, or null.
const pageVerify = (items) => page.evaluate((items) => {
  const { vrf, scheme: S } = window.fairshufVerify;
  return items.map(([pk, alpha, pi]) => {
    const b = vrf.vrfVerify(S.hexToBytes(pk), S.hexToBytes(alpha), S.hexToBytes(pi));
    return b && S.bytesToHex(b);
  });
}, items);

test('RFC 9381 Examples 16-18: the page gets each beta; a changed proof is refused', async () => {
  assert.deepEqual(await pageVerify(RFC.map((v) => v.slice(0, 3))), RFC.map((v) => v[3]));
  const flipped = RFC.map(([pk, a, pi]) => [pk, a, pi.slice(0, 70) + (pi[70] === '0' ? '1' : '0') + pi.slice(71)]);
  assert.deepEqual(await pageVerify(flipped), [null, null, null]);
});

test('1,000 random keys and inputs: the CLI proves, the page verifies the same beta', async () => {
  const { ed25519 } = await import(pathToFileURL(join(ROOT, 'web/node_modules/@noble/curves/ed25519.js')).href);
  const items = [];
  const want = [];
  // four at a time: each key file is its own, written before its proof
  for (let i = 0; i < 1000; i += 4) {
    const batch = [0, 1, 2, 3].map(async (k) => {
      const sk = randomBytes(32).toString('hex');
      const f = keyFile(sk, `k${k}`);
      const alpha = randomBytes((i + k) % 48).toString('hex');
      const { stdout } = await run(FS_BIN, ['fair', 'vrf-prove', `--key-file=${f}`, `--alpha=${alpha}`]);
      return [sk, alpha, JSON.parse(stdout)];
    });
    for (const [sk, alpha, r] of await Promise.all(batch)) {
      // the public key is RFC 8032's, as @noble/curves derives it
      assert.equal(Buffer.from(ed25519.getPublicKey(Buffer.from(sk, 'hex'))).toString('hex'), r.public_key);
      items.push([r.public_key, alpha, r.pi]);
      want.push(r.beta);
    }
  }
  assert.deepEqual(await pageVerify(items), want);
  // and each with one byte of pi, of alpha or the key changed: refused
  const bad = items.slice(0, 200).map(([pk, a, pi], i) => {
    const at = i % 3 === 0 ? 2 * (i % 80) : 0;
    if (i % 3 === 0) return [pk, a, pi.slice(0, at) + (pi[at] === 'f' ? 'e' : 'f') + pi.slice(at + 1)];
    if (i % 3 === 1) return [pk, `${a}00`, pi];
    return [items[(i + 1) % items.length][0], a, pi];
  });
  assert.deepEqual(await pageVerify(bad), bad.map(() => null));
});

// The torsion case of include/fairshuf/vrf.h: Gamma' = x*H + T (T of order 2)
// for RFC 9381 Example 18's key and alpha, with an even challenge (made as
// tests/unit/test_vrf.c makes it).  An RFC-exact verifier accepts it with
// Example 18's beta; fairshuf (the page and the CLI) refuses it.
const TORSION_PI = '523f086ee633a9fb40fd2dc4b351218ec6c312044e6ebcb22fe92cfe8833407fdca03473d2ba9f7e9e26b652b23a2b18aea01e3231f8382b38174d7ddc15df74d1a7e6175e2bb0217816f27b91160105';

test('a Gamma with a torsion component: RFC-exact valid, same beta; the page and the CLI refuse it', async () => {
  const { ed25519 } = await import(pathToFileURL(join(ROOT, 'web/node_modules/@noble/curves/ed25519.js')).href);
  const { sha512 } = await import(pathToFileURL(join(ROOT, 'web/node_modules/@noble/hashes/sha2.js')).href);
  const P = ed25519.Point;
  const hex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));
  const le = (b) => BigInt(`0x${Buffer.from(b).reverse().toString('hex') || '0'}`);
  const [pkHex, alphaHex, , betaHex] = RFC[2];
  const pk = hex(pkHex), pi = hex(TORSION_PI);
  const Y = P.fromBytes(pk), G = P.fromBytes(pi.subarray(0, 32));
  assert.equal(G.isTorsionFree(), false); // the point has a torsion component
  const c = le(pi.subarray(32, 48)), s = le(pi.subarray(48, 80));
  let H = null;
  for (let ctr = 0; H === null; ctr++) {
    const h = sha512(Buffer.concat([Buffer.from([3, 1]), pk, hex(alphaHex), Buffer.from([ctr, 0])]));
    try { H = P.fromBytes(h.subarray(0, 32)).clearCofactor(); } catch { /* next ctr */ }
  }
  const U = P.BASE.multiplyUnsafe(s).subtract(Y.multiplyUnsafe(c));
  const V = H.multiplyUnsafe(s).subtract(G.multiplyUnsafe(c));
  const c2 = le(sha512(Buffer.concat([Buffer.from([3, 2]), ...[Y, H, G, U, V].map((p) => p.toBytes()), Buffer.from([0])])).subarray(0, 16));
  assert.equal(c2, c, 'RFC 9381 verification accepts it');
  const beta = sha512(Buffer.concat([Buffer.from([3, 3]), G.clearCofactor().toBytes(), Buffer.from([0])]));
  assert.equal(Buffer.from(beta).toString('hex'), betaHex);
  assert.deepEqual(await pageVerify([[pkHex, alphaHex, TORSION_PI]]), [null]);
  const r = spawnSync(FS_BIN, ['fair', 'vrf-verify', `--public-key=${pkHex}`, `--alpha=${alphaHex}`, `--pi=${TORSION_PI}`]);
  assert.equal(r.status, 3);
});

test('s + L (another encoding of the same s) is refused by the page and the CLI', async () => {
  const [pkHex, alphaHex, piHex] = RFC[2];
  const L = (1n << 252n) + 27742317777372353535851937790883648493n;
  const s = BigInt(`0x${Buffer.from(piHex.slice(96), 'hex').reverse().toString('hex')}`) + L;
  const sHex = Buffer.from(s.toString(16).padStart(64, '0'), 'hex').reverse().toString('hex');
  const bad = piHex.slice(0, 96) + sHex;
  assert.deepEqual(await pageVerify([[pkHex, alphaHex, bad]]), [null]);
  assert.equal(spawnSync(FS_BIN, ['fair', 'vrf-verify', `--public-key=${pkHex}`, `--alpha=${alphaHex}`, `--pi=${bad}`]).status, 3);
});

// ---- one hand from a link ------------------------------------------------
const SK = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const PK = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const hand = (key, n, seeds = ['alice', 'bob'], extra = []) => fs('fair', 'vrf-deal', `--key-file=${key}`,
  '--table=t1', `--hand=${n}`, '--game=holdem', '--players=2', ...seeds.map((s) => `--client-seed=${s}`), ...extra).trim();

async function link(record, pk = PK) {
  const p = await open(browser, `${PAGE_URL}?scheme=fairshuf-vrf-1&public_key=${pk}&record=${encodeURIComponent(record)}`);
  const v = await verdictOf(p);
  const text = await p.$eval('#results', (e) => e.textContent);
  await p.close();
  return { ...v, text };
}

test('?scheme=fairshuf-vrf-1&public_key=&record=: honest, and each tampered record dishonest, as fair check --record says', async () => {
  const key = keyFile(SK, 'rfc16');
  const rec = hand(key, 0);
  const ok = await link(rec);
  assert.equal(ok.verdict, 'honest');
  assert.match(ok.text, /does not stop players from colluding/);
  assert.match(ok.text, /one and only deal/);
  const other = keyFile(randomBytes(32).toString('hex'), 'other');
  const cases = [
    [rec.replace('"deal":"5h Qs', '"deal":"Qs 5h'), 'bad-deal'],
    [rec.replace(/"pi":"(.)/, (m, c) => `"pi":"${c === 'a' ? 'b' : 'a'}`), 'bad-proof'],
    [rec.replace('"hand":0', '"hand":1'), 'bad-alpha'],
    [hand(other, 0), 'other-key'],
    [rec.replace('"table"', '"tablE"'), 'malformed'],
  ];
  const cli = (r) => {
    const x = spawnSync(FS_BIN, ['fair', 'check', `--public-key=${PK}`, `--record=${r}`], { encoding: 'utf8' });
    return { status: x.status, rule: (/rule '([a-z-]+)'/.exec(x.stdout) || [])[1] || null };
  };
  assert.deepEqual(cli(rec), { status: 0, rule: null });
  for (const [r, rule] of cases) {
    const v = await link(r);
    assert.equal(v.verdict, 'dishonest', rule);
    assert.equal(v.rule, rule);
    assert.deepEqual(cli(r), { status: 3, rule }, `fair check --record: ${rule}`);
  }
});

// ---- the differential test: fair check against the page ---------------------
function cliCheck(logText, pk = PK) {
  const f = join(dir, 'log');
  writeFileSync(f, logText);
  const r = spawnSync(FS_BIN, ['fair', 'check', `--log=${f}`, `--public-key=${pk}`, '--format=json'], { encoding: 'utf8' });
  const j = JSON.parse(r.stdout);
  assert.equal(r.status, { honest: 0, dishonest: 3, inconclusive: 4 }[j.verdict]);
  return { verdict: j.verdict, rule: j.rule, line: j.line, proven: j.proven };
}

const pageCheck = (logText, pk = PK) => page.evaluate(async ([t, k]) => {
  const r = await window.fairshufVerify.vrf.checkVrfLog(t, k);
  return { verdict: r.verdict, rule: r.rule, line: r.line, proven: r.proven };
}, [logText, pk]);

test('fair check --public-key and the page agree on an honest vrf log and 27 tampered ones', async () => {
  const key = keyFile(SK, 'rfc16b');
  const other = keyFile(randomBytes(32).toString('hex'), 'other2');
  const table = (name, k = key, seeds = ['alice', 'bob']) => fs('fair', 'vrf-table', `--key-file=${k}`,
    `--table=${name}`, '--game=holdem', '--players=2', ...seeds.map((s) => `--client-seed=${s}`)).trim();
  const lines = [table('t1'), hand(key, 0), hand(key, 1), hand(key, 2, undefined, ['--void']), hand(key, 3)];
  const t2 = fs('fair', 'vrf-table', `--key-file=${key}`, '--table=t2', '--game=doudizhu', '--client-seed=c').trim();
  const h2 = fs('fair', 'vrf-deal', `--key-file=${key}`, '--table=t2', '--hand=0', '--game=doudizhu', '--client-seed=c').trim();
  const honest = [...lines, t2, h2];
  const j = (ls) => `${ls.join('\n')}\n`;
  const swap = (ls, i, f) => ls.map((l, k) => (k === i ? f(l) : l));
  const logs = {
    honest: j(honest),
    'no final newline': honest.join('\n'),
    'CR LF': honest.join('\r\n'),
    'a deal changed': j(swap(honest, 2, (l) => l.replace(/"deal":"(..) (..)/, '"deal":"$2 $1'))),
    'pi changed': j(swap(honest, 1, (l) => l.replace(/"pi":"(.)/, (m, c) => `"pi":"${c === '0' ? '1' : '0'}`))),
    'alpha changed': j(swap(honest, 3, (l) => l.replace(/"alpha":"(.)/, (m, c) => `"alpha":"${c === '0' ? '1' : '0'}`))),
    'a hand skipped': j(honest.filter((_, k) => k !== 2)),
    'a hand repeated': j([...honest.slice(0, 3), honest[2], ...honest.slice(3)]),
    'hands swapped': j([honest[0], honest[2], honest[1], ...honest.slice(3)]),
    'a seed not committed': j([...lines, hand(key, 4, ['alice', 'eve'])]),
    'one seed fewer': j([...lines, hand(key, 4, ['alice'])]),
    'a hand before its table': j([hand(key, 0), ...honest]),
    'another key throughout': j([table('t1', other), hand(other, 0)]),
    'one record of another key': j([...lines, hand(other, 4)]),
    'a table reused': j([...lines, table('t1'), hand(key, 0)]),
    'a table abandoned': j([table('t0'), ...honest]),
    'the game changed': j([...lines, fs('fair', 'vrf-deal', `--key-file=${key}`, '--table=t1', '--hand=4',
      '--game=poker5', '--players=2', '--client-seed=alice', '--client-seed=bob').trim()]),
    'malformed: cut short': j([...honest.slice(0, 3), honest[3].slice(0, 40), ...honest.slice(4)]),
    'malformed: an extra key': j(swap(honest, 1, (l) => l.replace('{', '{"x":1,'))),
    'malformed: upper-case hex': j(swap(honest, 1, (l) => l.replace(/"pi":"([0-9a-f]*)"/, (m, p) => `"pi":"${p.toUpperCase()}"`))),
    'malformed: players out of range': j(swap(honest, 1, (l) => l.replace('"players":2', '"players":11'))),
    'malformed: a seed with a control character': j(swap(honest, 1, (l) => l.replace('alice', 'al\\u0001ice'))),
    'malformed: a NUL in the deal': j(swap(honest, 1, (l) => l.replace('"deal":"', '"deal":"\\u0000'))),
    'malformed: a lone surrogate in the deal': j(swap(honest, 1, (l) => l.replace('"deal":"', '"deal":"\\ud800'))),
    'malformed: a deal longer than any': j(swap(honest, 1, (l) => l.replace('"deal":"', `"deal":"${'As '.repeat(1100)}`))),
    'empty log': '',
    'a table and no hand': j([honest[0]]),
    'a void with a bad proof': j(swap(honest, 3, (l) => l.replace(/"pi":"(.)/, (m, c) => `"pi":"${c === '0' ? '1' : '0'}`))),
  };
  const verdicts = new Set();
  for (const [name, text] of Object.entries(logs)) {
    const c = cliCheck(text);
    const p = await pageCheck(text);
    assert.deepEqual(p, c, name);
    verdicts.add(`${c.verdict}:${c.rule}`);
  }
  assert.deepEqual(cliCheck(logs.honest), { verdict: 'honest', rule: null, line: null, proven: 5 });
  // every rule the log alone can break is in the set (so the test set is not all honest)
  for (const rule of ['malformed', 'other-key', 'order', 'table-reused', 'abandoned', 'table-changed',
    'seed-not-committed', 'hand-number', 'bad-alpha', 'bad-proof', 'bad-deal', 'empty-log'])
    assert.ok([...verdicts].some((v) => v.endsWith(`:${rule}`)), rule);
  // and through the page's own form: paste the log, give the key, press Check
  const p2 = await open(browser, PAGE_URL);
  await p2.fill('#log', logs['a hand skipped']);
  await p2.fill('#vrf-public-key', PK);
  assert.deepEqual(await check(p2, '#form-log button.go'),
    { verdict: 'dishonest', rule: 'hand-number', line: 3, text: await p2.$eval('#verdict', (v) => v.textContent) });
  await p2.fill('#log', logs.honest);
  const v = await check(p2, '#form-log button.go');
  assert.equal(v.verdict, 'honest');
  assert.match(await p2.$eval('#results', (e) => e.textContent), /2 tables, 4 hands and 1 void hand, 5 proven/);
  await p2.fill('#vrf-public-key', '');
  assert.equal((await check(p2, '#form-log button.go')).verdict, 'error');
  assert.deepEqual(p2.errors || [], []);
  await p2.close();
});
