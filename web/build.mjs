// build.mjs -- bundles src/main.js (with @noble/ciphers) by esbuild and
// inlines it and src/style.css into src/verify.html: ONE self-contained file.
// usage: node build.mjs OUT.html
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error('usage: node build.mjs OUT.html');
  process.exit(2);
}
const js = await build({
  entryPoints: [join(here, 'src/main.js')],
  bundle: true,
  format: 'iife',
  target: 'es2020',
  write: false,
  minify: false,          // readable: a player can audit what checks them
  legalComments: 'inline',
  charset: 'utf8',
  logLevel: 'warning',
});
const script = js.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
const style = readFileSync(join(here, 'src/style.css'), 'utf8');
const page = readFileSync(join(here, 'src/verify.html'), 'utf8')
  .replace('/*STYLE*/', () => style)
  .replace('/*SCRIPT*/', () => script);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out + '.tmp', page);
renameSync(out + '.tmp', out);
