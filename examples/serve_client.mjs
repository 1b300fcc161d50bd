// serve_client.mjs -- a game server's side of `fairshuf serve` in Node
// (node:http with a keep-alive agent, no npm package; docs/service.md).
// Opens a table, shows the player its commitment, takes the player's
// client seed, deals (three hands, or --deals=N, timed), rotates (reveals
// the seed), then checks the table's public log with `fairshuf fair check`
// as the player would.  One connection is kept open for every call: a new
// connection per request (bare fetch) made a deal cost a TCP handshake.
//
//   node examples/serve_client.mjs --url=http://127.0.0.1:8080 \
//       --token-file=token [--game=doudizhu] [--deals=3] [--fairshuf=fairshuf]
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const opt = { url: 'http://127.0.0.1:8080', game: 'doudizhu', fairshuf: 'fairshuf', deals: '3' };
for (const a of process.argv.slice(2)) {
  const m = /^--([a-z-]+)=(.*)$/.exec(a);
  if (!m) { console.error(`serve_client: unknown argument '${a}'`); process.exit(2); }
  opt[m[1]] = m[2];
}
if (!opt['token-file']) { console.error('serve_client: --token-file is required'); process.exit(2); }
const token = readFileSync(opt['token-file'], 'ascii').split('\n')[0].trim();
const base = opt.url.replace(/\/$/, '');
const web = base.startsWith('https:') ? https : http;
// Keep-alive: the connection is reused (the service closes one that stays
// silent longer than its --idle-timeout, 15 s by default).
const agent = new web.Agent({ keepAlive: true, maxSockets: 1 });

// One request: the decoded JSON answer (the log as text), or exit with the
// service's {"error": {"code", "message"}}.
function call(method, path, body) {
  const data = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = web.request(base + path, {
      method,
      agent,
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(data),
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode < 200 || res.statusCode > 299) {
          const e = JSON.parse(text).error;
          console.error(`${method} ${path}: ${res.statusCode} ${e.code}: ${e.message}`);
          process.exit(1);
        }
        resolve(path.endsWith('/log') ? text : JSON.parse(text));
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

const table = await call('POST', '/v1/tables', { game: opt.game });
const { table: id, commitment } = table;
console.log(`table ${id} (${opt.game}): commitment ${commitment}`);
// The player chooses the client seed after seeing the commitment.
const clientSeed = `node-${randomBytes(8).toString('hex')}`;
await call('POST', `/v1/tables/${id}/client-seed`, { client_seed: clientSeed });
const seen = [];
const ndeals = Number(opt.deals);
const t0 = process.hrtime.bigint();
for (let i = 0; i < ndeals; i++) {
  const d = await call('POST', `/v1/tables/${id}/deals`);
  seen.push(d);
  if (i < 3) console.log(`deal ${d.nonce}: ${d.deal.replaceAll('\t', ' | ')}`);
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
if (ndeals > 3) console.log(`${ndeals} deals in ${secs.toFixed(2)} s: ${(ndeals / secs).toFixed(0)} deals/s`);
const rot = await call('POST', `/v1/tables/${id}/rotate`);
if (createHash('sha256').update(Buffer.from(rot.server_seed, 'hex')).digest('hex') !== commitment) {
  console.error('the revealed seed is not the commitment\'s');
  process.exit(1);
}
console.log(`revealed ${rot.server_seed}; next commitment ${rot.commitment}`);

const dir = mkdtempSync(join(tmpdir(), 'serve-client-'));
try {
  writeFileSync(join(dir, 'table.log'), await call('GET', `/v1/tables/${id}/log`));
  writeFileSync(join(dir, 'mine.tsv'), seen.map((d) => `${d.nonce}\t${d.deal}\n`).join(''));
  let out, status = 0;
  try {
    out = execFileSync(opt.fairshuf, ['fair', 'check', `--log=${join(dir, 'table.log')}`,
      `--commitment=${commitment}`, `--client-seed=${clientSeed}`,
      `--my-deals=${join(dir, 'mine.tsv')}`], { encoding: 'utf8' });
  } catch (e) {
    out = (e.stdout || '') + (e.stderr || '');
    status = e.status || 1;
  }
  console.log(`check: ${out.trim()}`);
  process.exitCode = status;
} finally {
  rmSync(dir, { recursive: true, force: true });
  agent.destroy();
}
