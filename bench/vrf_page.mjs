// vrf_page.mjs -- milliseconds per vrf hand check in the page (Chromium):
// 200 hand records made by `fairshuf fair vrf-deal`, checked by the page's
// vrf.checkHand (verify + deal) in 9 rounds; median and min-max.
// usage: BUILD=build node bench/vrf_page.mjs   (bench/vrf.sh runs it)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, open, PAGE_URL, FS_BIN } from '../tests/web/browser.mjs';

const dir = mkdtempSync(join(tmpdir(), 'fairshuf-vrf-bench-'));
const key = join(dir, 'k.vrf-key');
const pk = execFileSync(FS_BIN, ['fair', 'vrf-keygen', `--key-file=${key}`], { encoding: 'utf8' }).trim();
const records = [];
for (let h = 0; h < 200; h++)
  records.push(execFileSync(FS_BIN, ['fair', 'vrf-deal', `--key-file=${key}`, '--table=t1', `--hand=${h}`,
    '--game=holdem', '--client-seed=alice', '--client-seed=bob'], { encoding: 'utf8' }).trim());
rmSync(dir, { recursive: true, force: true });
const browser = await launch();
const page = await open(browser, PAGE_URL);
const ms = await page.evaluate(([recs, pk]) => {
  const V = window.fairshufVerify.vrf;
  const typed = recs.map((r) => V.readVrfRecord(r));
  const out = [];
  for (let round = 0; round < 9; round++) {
    const t0 = performance.now();
    for (const r of typed) if (V.checkHand(r, pk).rule) throw new Error('not honest');
    out.push((performance.now() - t0) / typed.length);
  }
  return out.sort((a, b) => a - b);
}, [records, pk]);
await browser.close();
console.log(`page checkHand (verify + deal)      ${ms[4].toFixed(2)} ms  (min ${ms[0].toFixed(2)}, max ${ms[8].toFixed(2)}; 9 rounds of 200)`);
