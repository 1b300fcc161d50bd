// rowkey.mjs -- the row key of `fairshuf lines --seed=S`, from docs/rowkey.md
// alone, on node's ChaCha20 (node:crypto, OpenSSL): record i's key is word
// i mod 2^35 of the ChaCha20 keystream under K with the nonce
// (i >> 35, level, 0); records sorted by (key(i, 0), key(i, 1), ...) as
// unsigned 64-bit numbers are in fairshuf's order.  Numbers are BigInt.
// (The verifier page's @noble/ciphers refuses the block counter 2^32 - 1,
// the last block of every 2^35 records, by its policy: hence node:crypto.)
//
//   node rowkey.mjs SEED I [LEVEL]        prints the key (unsigned)
//   node rowkey.mjs --check < rows.tsv    "seed TAB i TAB level TAB key" lines
import { createCipheriv, createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const SEGMENT = 1n << 35n; // words per nonce

// K: 64 hex digits are the key itself; any other seed, SHA-256 of its UTF-8 bytes.
export function seedKey(seed) {
  if (seed === '') throw new Error('invalid seed: empty');
  let k;
  if (/^[0-9a-fA-F]{64}$/.test(seed)) k = Buffer.from(seed, 'hex');
  else k = createHash('sha256').update(seed, 'utf8').digest();
  return k; // seed derivation ends here
}

// The key of the order of groups (--group-by).
export const groupsKey = (key) => seedKey('fairshuf lines groups v1:' + Buffer.from(key).toString('hex'));

// count consecutive keys from record `first` at `level`: a BigUint64Array.
export function rowKeys(key, first, count, level = 0) {
  const out = new BigUint64Array(count);
  let done = 0;
  while (done < count) {
    const i = BigInt(first) + BigInt(done);
    const w = i & (SEGMENT - 1n);              // word in its nonce's stream
    const left = SEGMENT - w;
    const n = BigInt(count - done) < left ? count - done : Number(left);
    const skip = Number(w & 7n);               // words before i in its block
    const blocks = Math.ceil((skip + n) / 8);
    const iv = Buffer.alloc(16);               // OpenSSL: LE32 counter, then the 96-bit nonce
    iv.writeUInt32LE(Number(w >> 3n), 0);
    iv.writeUInt32LE(Number(i >> 35n), 4);
    iv.writeUInt32LE(level >>> 0, 8);
    const ks = createCipheriv('chacha20', key, iv).update(Buffer.alloc(64 * blocks));
    for (let j = 0; j < n; j++) out[done + j] = ks.readBigUInt64LE(8 * (skip + j));
    done += n;
  }
  return out;
}

export const rowKey = (key, i, level = 0) => rowKeys(key, i, 1, level)[0];

// A signed 64-bit value that sorts as the unsigned key (for signed-only engines).
export const sortKey = (k) => BigInt.asIntN(64, k ^ (1n << 63n));

// fairshuf's order of records i and j: level-0 keys, then levels 1, 2, ... (64), then i.
export function compare(key, i, j) {
  i = BigInt(i);
  j = BigInt(j);
  for (let level = 0; i !== j && level < 64; level++) {
    const a = rowKey(key, i, level), b = rowKey(key, j, level);
    if (a !== b) return a < b ? -1 : 1;
  }
  return i < j ? -1 : i > j ? 1 : 0;
}

// Reads "seed TAB i TAB level TAB key" lines; exit status 1 if any row differs.
async function check() {
  let rows = 0, bad = 0, seed = null, k = null;
  for await (const line of createInterface({ input: process.stdin })) {
    const f = line.split('\t');
    if (f[0] !== seed) {
      seed = f[0];
      k = seedKey(seed);
    }
    const got = rowKey(k, BigInt(f[1]), Number(f[2]));
    rows++;
    if (got !== BigInt(f[3]) && bad++ < 5) console.log(`differs: ${line} js ${got}`);
  }
  console.log(`${rows} rows, ${bad} differ`);
  process.exitCode = bad === 0 && rows > 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const a = process.argv.slice(2);
  if (a.length === 1 && a[0] === '--check') await check();
  else if (a.length === 2 && a[0] === '--groups-key') console.log(groupsKey(seedKey(a[1])).toString('hex'));
  else if (a.length === 2 || a.length === 3) console.log(String(rowKey(seedKey(a[0]), BigInt(a[1]), Number(a[2] ?? 0))));
  else {
    console.error('usage: node rowkey.mjs SEED I [LEVEL] | --check < rows.tsv | --groups-key SEED');
    process.exitCode = 2;
  }
}
