// browser.mjs -- the tests' Chromium: Debian's /usr/bin/chromium driven by
// playwright-core (which never downloads a browser), and a small static
// server for the page over http://127.0.0.1.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(here, '../..');
const require = createRequire(join(ROOT, 'web/package.json'));
const { chromium } = require('playwright-core');

export const BUILD = process.env.BUILD || 'build';
export const PAGE = join(ROOT, BUILD, 'web/verify.html');
export const PAGE_URL = pathToFileURL(PAGE).href;
export const FS_BIN = process.env.FS_BIN || join(ROOT, BUILD, 'fairshuf');

export async function launch() {
  // playwright-core starts it with a new empty profile of its own.
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],
  });
}

// Serves the page at /verify (and /verify.html) and `routes` (path -> text).
export async function serve(routes = {}) {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(req.url);
    const path = req.url.split('?')[0];
    if (path === '/verify' || path === '/verify.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(readFileSync(PAGE));
    } else if (path in routes) {
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      res.end(routes[path]);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, seen, close: () => new Promise((ok) => server.close(ok)) };
}

// A page that records every request it makes.
export async function open(browser, url) {
  const page = await browser.newPage();
  page.setDefaultTimeout(10000);
  page.requests = [];
  page.on('request', (r) => page.requests.push(r.url()));
  page.on('pageerror', (e) => { page.errors = (page.errors || []).concat(String(e)); });
  await page.goto(url);
  return page;
}

// Waits for the check to finish; returns {verdict, rule, line}.
export async function verdictOf(page) {
  await page.waitForSelector('#verdict[data-verdict]');
  return page.$eval('#verdict', (v) => ({ verdict: v.dataset.verdict, rule: v.dataset.rule || null,
    line: v.dataset.line ? Number(v.dataset.line) : 0, text: v.textContent }));
}

// Presses a form's Check button and waits for ITS verdict (the old one is
// cleared first, so a press that starts no check cannot pass as one).
export async function check(page, button) {
  await page.$eval('#verdict', (v) => { delete v.dataset.verdict; });
  await page.click(button);
  return verdictOf(page);
}
