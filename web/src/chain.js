// chain.js -- the hash chain of a provably-fair log, the page's side of
// fairshuf/chain.h (docs/provably-fair.md, "The hash chain"): a chained
// record ends in ,"prev":"HEX"} where HEX is the SHA-256 of the line before
// it as written (64 zeros on line 1).  checkLog here walks the chain, takes
// the "prev" fields out (line numbers unchanged), checks the records with
// check.js and puts the chain's first broken link in front when it is on
// an earlier line than the records' first finding (or they found nothing
// dishonest) -- the rule of fs_fair_log_check_chained, so `fairshuf fair
// check` and the page give one verdict.
import * as S from './scheme.js';
import { checkLog as checkRecords } from './check.js';

const LINK = /,"prev":"([0-9a-f]{64})"\}$/;
const EXTRA = 74; // ,"prev":"HEX" -- FS_CHAIN_EXTRA

// A log as loaded (bytes, checked as bytes by check.js) or as typed (text).
const NL = 10;
function splitLines(input) {
  if (typeof input === 'string') return input.split('\n');
  const lines = [];
  let from = 0;
  for (let i = 0; i < input.length; i++)
    if (input[i] === NL) { lines.push(input.subarray(from, i)); from = i + 1; }
  lines.push(input.subarray(from));
  return lines;
}
const latin1 = new TextDecoder('latin1');
// The link at the end of a line, [hex, the line without it], or null.
function unlink(line) {
  const n = line.length;
  if (n < EXTRA + 2) return null;
  const tail = typeof line === 'string' ? line.slice(n - EXTRA - 1) : latin1.decode(line.subarray(n - EXTRA - 1));
  const m = LINK.exec(tail);
  if (!m) return null;
  if (typeof line === 'string') return [m[1], line.slice(0, n - EXTRA - 1) + '}'];
  const plain = new Uint8Array(n - EXTRA);
  plain.set(line.subarray(0, n - EXTRA - 1));
  plain[n - EXTRA - 1] = 0x7d; // '}'
  return [m[1], plain];
}
function joinLines(lines, asText) {
  if (asText) return lines.join('\n');
  const out = new Uint8Array(lines.reduce((a, l) => a + l.length + 1, 0) - 1);
  let at = 0;
  lines.forEach((l, k) => { out.set(l, at); at += l.length; if (k < lines.length - 1) out[at++] = NL; });
  return out;
}

export async function chainWalk(input) {
  const asText = typeof input === 'string';
  const lines = splitLines(input);
  const empty = (l) => l.length === 0;
  const last = lines.length && empty(lines[lines.length - 1]) ? lines.pop() : null;
  let prev = '0'.repeat(64);
  let start = 0;
  let finding = null;
  const plain = [];
  for (let k = 0; k < lines.length; k++) {
    const no = k + 1;
    const line = lines[k];
    const m = unlink(line);
    plain.push(m ? m[1] : line);
    if (m && !start) start = no;
    if (!finding && m && m[0] !== prev)
      finding = { rule: 'chain-broken', line: no, message: no === 1
        ? `line 1: the first record's prev is not 64 zeros: records before it were dropped`
        : `line ${no}: prev is not the hash of line ${no - 1}: a record was edited, dropped, ` +
          'inserted or moved before this line' };
    else if (!finding && !m && start)
      finding = { rule: 'chain-missing', line: no, message: `line ${no}: no prev, but the log is ` +
        `chained from line ${start}: a record was edited or inserted here` };
    prev = S.bytesToHex(await S.sha256(asText ? S.utf8(line) : line));
  }
  if (last !== null) plain.push(last);
  return { text: joinLines(plain, asText), start, finding };
}

export async function checkLog(input, player = {}) {
  const chain = await chainWalk(input);
  const r = await checkRecords(chain.text, player);
  r.chainStart = chain.start;
  const f = chain.finding;
  if (!f) return r;
  r.findings.push(f);
  if (r.verdict !== 'dishonest' || r.line === 0 || f.line < r.line)
    return { ...r, verdict: 'dishonest', rule: f.rule, line: f.line, message: f.message };
  return r;
}
