// differential.test.mjs -- one verdict from three checkers written apart:
// the page's (web/src/check.js, the code the page bundles, run in node),
// `fairshuf fair check --log` (the C library) and the reference checker of
// docs/provably-fair.md (python).  tests/web/fair_corpus.py makes the
// corpus with a fixed seed: honest logs of both schemes, the same logs
// tampered with record by record and byte by byte (a BOM, invalid UTF-8, a
// lone CR, number forms, …), and the player's evidence, right and wrong.
// Every case must get the same verdict, rule and line from all three.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync, execFile } from 'node:child_process';
import { FS_BIN } from './browser.mjs';
import { checkLog } from '../../web/src/check.js';

const here = dirname(fileURLToPath(import.meta.url));
const COUNT = Number(process.env.FS_DIFF_COUNT || 1200);
const SEED = Number(process.env.FS_DIFF_SEED || 20261128);
const PYTHON = process.env.PYTHON || 'python3';
let dir;
let cases;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'fairshuf-web-diff-'));
  const r = spawnSync(PYTHON, [join(here, 'fair_corpus.py'), dir, String(COUNT), String(SEED)], { encoding: 'utf8' });
  assert.equal(r.status, 0, `fair_corpus.py: ${r.stderr}`);
  cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const VERDICT = { 0: 'honest', 3: 'dishonest', 4: 'inconclusive' };

// `fairshuf fair check --log --format=json`: [verdict, rule, line]; a
// refusal of the player's input (exit 1 or 2) is "error".
function cli(c) {
  const args = ['fair', 'check', `--log=${join(dir, `${c.id}.log`)}`, '--format=json'];
  if (c.commitment !== undefined) args.push(`--commitment=${c.commitment}`);
  if (c.client_seed !== undefined) args.push(`--client-seed=${c.client_seed}`);
  if (c.deals) args.push(`--my-deals=${join(dir, `${c.id}.deals`)}`);
  return new Promise((ok) => {
    execFile(FS_BIN, args, { encoding: 'utf8' }, (err, stdout, stderr) => {
      const status = err ? err.code : 0;
      if (!(status in VERDICT)) return ok(['error', null, null, stderr.trim()]);
      const j = JSON.parse(stdout);
      ok([j.verdict, j.rule, j.line, j.message, j.unseen_before, j.unseen_between]);
    });
  });
}

// The page's checker on the log's bytes, as a file or ?table= gives them.
async function page(c) {
  const bytes = readFileSync(join(dir, `${c.id}.log`));
  const player = { commitment: c.commitment, clientSeed: c.client_seed };
  try {
    if (c.deals) player.deals = readFileSync(join(dir, `${c.id}.deals`), 'utf8').split('\n');
    const r = await checkLog(new Uint8Array(bytes), player);
    const u = r.unseen || { before: [], between: [] };
    return [r.verdict, r.rule, r.rule ? r.line : null, r.message, u.before.length, u.between.length];
  } catch (e) {
    return ['error', null, null, e.message];
  }
}

// Runs f over the cases, `width` at a time.
async function pool(items, width, f) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]);
    }
  }));
  return out;
}

test('the corpus: at least 1,000 logs, honest and tampered, every verdict and most rules', () => {
  assert.ok(cases.length >= 1000, `${cases.length} cases`);
  const by = (v) => cases.filter((c) => c.ref[0] === v).length;
  assert.ok(by('honest') >= 150, `${by('honest')} honest`);
  assert.ok(by('dishonest') >= 400, `${by('dishonest')} dishonest`);
  assert.ok(by('inconclusive') >= 100, `${by('inconclusive')} inconclusive`);
  const rules = new Set(cases.map((c) => c.ref[1]).filter(Boolean));
  assert.ok(rules.size >= 15, `rules hit: ${[...rules].sort().join(' ')}`);
});

test('the page, fairshuf fair check and the reference checker agree on every log', async () => {
  const [clis, pages] = [await pool(cases, 4, cli), await pool(cases, 8, page)];
  const bad = [];
  cases.forEach((c, i) => {
    const want = JSON.stringify(c.ref);
    const a = JSON.stringify(clis[i].slice(0, 3));
    const b = JSON.stringify(pages[i].slice(0, 3));
    // the deals the player did not see (M10): the CLI's counts are the page's
    const ua = JSON.stringify(clis[i].slice(4, 6));
    const ub = JSON.stringify(pages[i].slice(4, 6));
    if (a !== want || b !== want || (clis[i][0] !== 'error' && pages[i][0] !== 'error' && ua !== ub))
      bad.push(`case ${c.id} (${c.what}; player ${JSON.stringify({ c: c.commitment, s: c.client_seed, d: !!c.deals })}):\n` +
        `  reference ${want}\n  fair check ${a} ${ua} ${clis[i][3] || ''}\n  page ${b} ${ub} ${pages[i][3] || ''}`);
  });
  assert.equal(bad.length, 0, `${bad.length} of ${cases.length} disagree:\n${bad.slice(0, 12).join('\n')}`);
});
