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

export async function chainWalk(text) {
  const lines = text.split('\n');
  const last = lines.length && lines[lines.length - 1] === '' ? lines.pop() : null;
  let prev = '0'.repeat(64);
  let start = 0;
  let finding = null;
  const plain = [];
  for (let k = 0; k < lines.length; k++) {
    const no = k + 1;
    const line = lines[k];
    const m = line.length >= EXTRA + 2 ? LINK.exec(line) : null;
    plain.push(m ? line.slice(0, line.length - EXTRA - 1) + '}' : line);
    if (m && !start) start = no;
    if (!finding && m && m[1] !== prev)
      finding = { rule: 'chain-broken', line: no, message: no === 1
        ? `line 1: the first record's prev is not 64 zeros: records before it were dropped`
        : `line ${no}: prev is not the hash of line ${no - 1}: a record was edited, dropped, ` +
          'inserted or moved before this line' };
    else if (!finding && !m && start)
      finding = { rule: 'chain-missing', line: no, message: `line ${no}: no prev, but the log is ` +
        `chained from line ${start}: a record was edited or inserted here` };
    prev = S.bytesToHex(await S.sha256(S.utf8(line)));
  }
  if (last !== null) plain.push('');
  return { text: plain.join('\n'), start, finding };
}

export async function checkLog(text, player = {}) {
  const chain = await chainWalk(text);
  const r = await checkRecords(chain.text, player);
  r.chainStart = chain.start;
  const f = chain.finding;
  if (!f) return r;
  r.findings.push(f);
  if (r.verdict !== 'dishonest' || r.line === 0 || f.line < r.line)
    return { ...r, verdict: 'dishonest', rule: f.rule, line: f.line, message: f.message };
  return r;
}
