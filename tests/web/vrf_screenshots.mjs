// vrf_screenshots.mjs -- docs/verify-vrf-desktop.png (1280x900: a
// fairshuf-vrf-1 log checked against the dealer's key) and
// docs/verify-vrf-phone.png (390 px wide: a link to one vrf hand).
// usage: node tests/web/vrf_screenshots.mjs   (after make web and make all)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, verdictOf, check, PAGE_URL, ROOT, FS_BIN } from './browser.mjs';

const dir = mkdtempSync(join(tmpdir(), 'fairshuf-vrf-shots-'));
const key = join(dir, 'k.vrf-key');
writeFileSync(key, '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60\n', { mode: 0o600 });
const PK = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const fs = (...a) => execFileSync(FS_BIN, ['fair', ...a, `--key-file=${key}`], { encoding: 'utf8' }).trim();
const seeds = ['--client-seed=alice', '--client-seed=bob', '--client-seed=carol'];
const log = [fs('vrf-table', '--table=t1', '--game=holdem', '--players=3', ...seeds)];
for (let h = 0; h < 3; h++)
  log.push(fs('vrf-deal', '--table=t1', `--hand=${h}`, '--game=holdem', '--players=3', ...seeds, ...(h === 1 ? ['--void'] : [])));

const browser = await launch();
const desk = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await desk.goto(PAGE_URL);
await desk.fill('#log', `${log.join('\n')}\n`);
await desk.fill('#vrf-public-key', PK);
const v = await check(desk, '#form-log button.go');
if (v.verdict !== 'honest') throw new Error(`desktop: ${v.text}`);
await desk.$eval('#inputs', (d) => { d.open = false; });
await desk.screenshot({ path: join(ROOT, 'docs/verify-vrf-desktop.png') });

const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
const q = new URLSearchParams({ scheme: 'fairshuf-vrf-1', public_key: PK, record: log[3] });
await phone.goto(`${PAGE_URL}?${q}`);
const p = await verdictOf(phone);
if (p.verdict !== 'honest') throw new Error(`phone: ${p.text}`);
await phone.screenshot({ path: join(ROOT, 'docs/verify-vrf-phone.png'), fullPage: true });
await browser.close();
rmSync(dir, { recursive: true, force: true });
console.log('docs/verify-vrf-desktop.png docs/verify-vrf-phone.png');
