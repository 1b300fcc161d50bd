// mutants.mjs -- the browser tests can fail: each mutant below plants one
// small bug in a scratch copy of web/src, builds the page from it and runs
// the test file that must catch it; a mutant that passes is a failure.
// Opt-in (a minute or two): `make web-mutants`, or node tests/web/mutants.mjs [id,...]
import { cpSync, mkdtempSync, readFileSync, writeFileSync, symlinkSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, BUILD } from './browser.mjs';

const MUTANTS = [
  ['below-no-rejection', 'scheme.js', 'if ((m & MASK64) >= t) return m >> 64n;', 'return m >> 64n;', 'deals'],
  ['below-modulo', 'scheme.js', 'if ((m & MASK64) >= t) return m >> 64n;', 'return words.next() % N;', 'deals'],
  ['round-robin-as-blocks', 'scheme.js', 'cards.push(g.rr ? a[r * seats + s] : a[s * g.hand + r]);', 'cards.push(a[s * g.hand + r]);', 'deals'],
  ['burn-ignored', 'scheme.js', '    pos += e.burn;\n', '', 'deals'],
  ['key-without-nonce', 'scheme.js', "clientSeed, BigInt(nonce).toString()];", "clientSeed, ''];", 'deals'],
  ['nonce-rule-off', 'check.js', 'if (rec.nonce !== period.due) {', 'if (rec.nonce < period.due) {', 'tamper'],
  ['reveal-not-checked', 'check.js', 'if (S.bytesToHex(await S.sha256(seed)) !== p.commitment) {', 'if (false) {', 'tamper'],
  ['client-seed-reuse-allowed', 'check.js', 'if (earlier && earlier !== period) {', 'if (false) {', 'tamper'],
  ['empty-period-allowed', 'check.js', 'if (p.scheme === S.SCHEME_V2 && p.deals.length === 0)', 'if (false)', 'tamper'],
  ['player-deals-ignored', 'check.js', '  for (const { nonce, tsv } of theirs) {', '  for (const { nonce, tsv } of []) {', 'tamper'],
  ['unrevealed-is-honest', 'check.js', "const INCONCLUSIVE = new Set(['unrevealed', 'empty-log', 'no-commitment']);", "const INCONCLUSIVE = new Set(['empty-log', 'no-commitment']);", 'vectors'],
  // issue 52: each caught by the differential test (page = CLI = the spec's checker) or the page's own
  ['utf8-lenient', 'check.js', "const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });", "const STRICT = new TextDecoder('utf-8');", 'differential'],
  ['deals-alone-last-period', 'check.js', '    for (let i = periods.length; i-- > 0 && !target;) if (periods[i].deals.length) target = periods[i];\n', '', 'differential'],
  ['no-commitment-off', 'check.js', "  if (!commitment && (seed !== undefined || theirs.length))\n    add('no-commitment'", "  if (false)\n    add('no-commitment'", 'differential'],
  ['deal-nonce-no-leading-zero', 'check.js', '    const m = /^([0-9]+)\\t(.*)$/s.exec(line);', '    const m = /^(0|[1-9][0-9]*)\\t(.*)$/s.exec(line);', 'differential'],
  ['paste-as-typed', 'main.js', '    if (!all || !text) return;', '    return;', 'trust'],
  ['data-line-zero-absent', 'main.js', 'if (r.rule) v.dataset.line = String(r.line || 0);', 'if (r.line) v.dataset.line = String(r.line);', 'trust'],
  ['commitment-not-asked', 'main.js', "r.rule === 'no-commitment' ? askCommitment() : null", 'null', 'trust'],
  ['one-hand-usage-dishonest', 'check.js', "const usage = (message) => Object.assign(out, { verdict: 'error',", "const usage = (message) => Object.assign(out, { verdict: 'dishonest',", 'page'],
  ['one-hand-deal-newline-kept', 'check.js', "const claim = (q.deal || '').replace(/\\n$/, '').replace(/\\r$/, '');", "const claim = q.deal || '';", 'page'],
  ['verdict-attribute-early', 'main.js', '  delete v.dataset.verdict;\n  v.replaceChildren(el(\'strong\', { class: \'word\', text: \'Checking…\' }));',
    "  v.dataset.verdict = 'honest';\n  v.replaceChildren(el('strong', { class: 'word', text: 'Checking…' }));", 'page'],
  // scheme fairshuf-vrf-1 (vrf.js): each caught by vrf.test.mjs
  ['vrf-torsion-gamma-accepted', 'vrf.js', 'if (!inSubgroup(Y) || !inSubgroup(gamma)) return null;', 'if (!inSubgroup(Y) || gamma === null) return null;', 'vrf'],
  ['vrf-s-not-below-l', 'vrf.js', 'if (s >= L || s === 0n || c === 0n) return null;', 'if (s === 0n || c === 0n) return null;', 'vrf'],
  ['vrf-alpha-not-checked', 'vrf.js', 'if (S.bytesToHex(alpha) !== r.alpha) return bad(', 'if (false) return bad(', 'vrf'],
  ['vrf-hand-number-off', 'vrf.js', 'if (r.hand !== t.next)', 'if (false)', 'vrf'],
  ['vrf-seeds-not-committed', 'vrf.js', 'if (!committed) mark(', 'if (false) mark(', 'vrf'],
  ['vrf-deal-from-beta-tail', 'vrf.js', 'S.shuffleWith(beta.slice(0, 32), game, decks)', 'S.shuffleWith(beta.slice(32, 64), game, decks)', 'vrf'],
];

const only = (process.argv[2] || '').split(',').filter(Boolean);
let killed = 0, run = 0;
for (const [id, file, from, to, tests] of MUTANTS) {
  if (only.length && !only.includes(id)) continue;
  run++;
  const dir = mkdtempSync(join(tmpdir(), `fairshuf-web-mutant-${id}-`));
  try {
    cpSync(join(ROOT, 'web/src'), join(dir, 'web/src'), { recursive: true });
    cpSync(join(ROOT, 'web/build.mjs'), join(dir, 'web/build.mjs'));
    symlinkSync(join(ROOT, 'web/node_modules'), join(dir, 'web/node_modules'));
    const path = join(dir, 'web/src', file);
    const text = readFileSync(path, 'utf8');
    if (!text.includes(from)) throw new Error(`${id}: '${from}' is not in web/src/${file} (update the mutant)`);
    writeFileSync(path, text.replace(from, to));
    const out = join(dir, BUILD, 'web/verify.html');
    mkdirSync(join(dir, BUILD), { recursive: true });
    const b = spawnSync('node', [join(dir, 'web/build.mjs'), out], { encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`${id}: the page did not build: ${b.stderr}`);
    // The tests of the tree, the page of the mutant, the CLI of the build.
    symlinkSync(join(ROOT, BUILD, 'fairshuf'), join(dir, BUILD, 'fairshuf'));
    cpSync(join(ROOT, 'tests/web'), join(dir, 'tests/web'), { recursive: true });
    cpSync(join(ROOT, 'docs'), join(dir, 'docs'), { recursive: true });
    const t = spawnSync('node', ['--test', '--test-reporter=tap', `tests/web/${tests}.test.mjs`],
      { cwd: dir, encoding: 'utf8', env: { ...process.env, BUILD } });
    const failed = (t.stdout.match(/^not ok /gm) || []).length;
    if (t.status !== 0 && failed > 0) {
      killed++;
      console.log(`killed   ${id} (${failed} failing in ${tests})`);
    } else console.log(`SURVIVED ${id}: tests/web/${tests}.test.mjs passed with it`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`${killed} of ${run} mutants killed`);
process.exit(killed === run ? 0 : 1);
