// screenshots.mjs -- docs/verify-desktop.png (1280x900: a whole log checked)
// and docs/verify-phone.png (390 px wide: a casino's link to one hand).
// usage: node tests/web/screenshots.mjs   (after make web; `make web-screenshots`)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, verdictOf, check, PAGE_URL, ROOT } from './browser.mjs';

const spec = readFileSync(join(ROOT, 'docs/provably-fair.md'), 'utf8');
const log = /\*\*A whole pf-2 log\*\*[\s\S]*?```\n([\s\S]*?)```/.exec(spec)[1];
const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const commitment = '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd';

const browser = await launch();
const desk = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await desk.goto(PAGE_URL);
await desk.fill('#log', log);
await desk.$eval('#mine', (d) => { d.open = true; });
await desk.fill('#my-commitment', commitment);
await desk.fill('#my-client-seed', 'alice');
const v = await check(desk, '#form-log button.go');
if (v.verdict !== 'honest') throw new Error(`desktop: ${v.text}`);
await desk.$eval('#mine', (d) => { d.open = false; });
await desk.screenshot({ path: join(ROOT, 'docs/verify-desktop.png') });

const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
const q = new URLSearchParams({ server_seed: seed, commitment, client_seed: 'alice', nonce: '7', game: 'doudizhu',
  players: '3', decks: '1', lang: 'zh' });
await phone.goto(`${PAGE_URL}?${q}`);
const p = await verdictOf(phone);
if (p.verdict !== 'honest') throw new Error(`phone: ${p.text}`);
// The hands first: scroll so the verdict and the hands share the screen.
await phone.screenshot({ path: join(ROOT, 'docs/verify-phone.png'), fullPage: false });
await browser.close();
console.log('docs/verify-desktop.png docs/verify-phone.png');
