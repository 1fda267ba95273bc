// Shared by the console's browser tests (*.test.mjs): start a dynago of
// the test's own, drive Debian's Chromium through playwright-core, reach
// the server with the JS SDK and boto3, and take screenshots.
//
// Needs $DYNAGO_BIN (a built dynago) and Chromium ($CHROMIUM, default
// /usr/bin/chromium). Screenshots go to $DYNAGO_ARTIFACTS/console
// (default <repo>/artifacts/console); with CONSOLE_DOCS_SHOTS=1 the ones
// docs/console.md shows are written to docs/console/ as well.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
export const artifacts = path.join(process.env.DYNAGO_ARTIFACTS || path.join(repo, 'artifacts'), 'console');
const docsShots = path.join(repo, 'docs', 'console');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

// moviesFile is ../shared/data/moviedata.json (4,610 movies), or a copy
// in $DYNAGO_MOVIES.
export const moviesFile = process.env.DYNAGO_MOVIES || path.resolve(repo, '..', 'shared', 'data', 'moviedata.json');

// startDynago runs `$DYNAGO_BIN serve --in-memory` on a free loopback port
// with extra flags; resolves with {child, url (a URL), log (its output
// lines), stop()}.
export function startDynago(flags = []) {
  const bin = process.env.DYNAGO_BIN;
  if (!bin) throw new Error('DYNAGO_BIN is not set (a built dynago: go build -o /tmp/dynago ./cmd/dynago)');
  const args = flags.includes('--data-dir') ? flags : ['--in-memory', ...flags];
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--log-level', 'warn', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynago did not start:\n${log.join('')}`)), 20000);
    const onData = (d) => {
      log.push(String(d));
      const m = log.join('').match(/listening on (https?:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({
          child, url: new URL(m[1]), log,
          stop: () => new Promise((res) => { if (child.exitCode !== null) res(); else { child.once('exit', res); child.kill(); } }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`dynago exited ${code}:\n${log.join('')}`)); });
  });
}

// launch starts headless Chromium with one page of 1280x800; resolves
// with {browser, page, problems}: problems collects page errors, console
// errors and every response of status 500 or more, which a test should
// end with none of (assertNoProblems).
export async function launch() {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}: apt-get install chromium, or set CHROMIUM`);
  }
  mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Chromium as root needs --no-sandbox; the rest keep it off the network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  const problems = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 500) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`); });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.hostname !== '127.0.0.1' && u.protocol !== 'data:') problems.push(`request off loopback: ${r.url()}`);
  });
  return { browser, context, page, problems };
}

// assertNoProblems fails on any page error, console error, 5xx or
// request that left loopback.
export function assertNoProblems(problems) {
  assert.deepEqual(problems, [], 'the console had problems');
}

// screenshot saves a full-page screenshot as artifacts/console/NAME.png
// (and docs/console/NAME.png with CONSOLE_DOCS_SHOTS=1).
export async function screenshot(page, name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  if (process.env.CONSOLE_DOCS_SHOTS === '1') {
    mkdirSync(docsShots, { recursive: true });
    await page.screenshot({ path: path.join(docsShots, `${name}.png`), fullPage: false });
  }
}

// clients returns a low-level JS SDK client and a document client for url,
// with dummy credentials (never a real account).
export function clients(url) {
  const ddb = new DynamoDBClient({
    endpoint: String(url).replace(/\/$/, ''), region: 'us-east-1',
    credentials: { accessKeyId: 'dummy', secretAccessKey: 'dummy' },
  });
  return { ddb, doc: DynamoDBDocumentClient.from(ddb) };
}

// boto3 runs a Python snippet with `ddb` a boto3 DynamoDB client for url
// (dummy credentials) and returns what it prints, parsed as JSON.
export function boto3(url, code) {
  const script = [
    'import boto3, json, sys',
    `ddb = boto3.client("dynamodb", endpoint_url=${JSON.stringify(String(url).replace(/\/$/, ''))}, region_name="us-east-1", aws_access_key_id="dummy", aws_secret_access_key="dummy")`,
    code,
  ].join('\n');
  const env = { ...process.env, AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null', AWS_EC2_METADATA_DISABLED: 'true' };
  delete env.AWS_PROFILE;
  const r = spawnSync('python3', ['-c', script], { encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`boto3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// loadMovies writes the movies (or the first n of them) into a table
// Movies (year N, title S) through the document client, 25 a batch.
export async function loadMovies(url, n = Infinity) {
  const { CreateTableCommand, waitUntilTableExists } = await import('@aws-sdk/client-dynamodb');
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { ddb, doc } = clients(url);
  await ddb.send(new CreateTableCommand({
    TableName: 'Movies', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'year', AttributeType: 'N' }, { AttributeName: 'title', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'year', KeyType: 'HASH' }, { AttributeName: 'title', KeyType: 'RANGE' }],
  }));
  await waitUntilTableExists({ client: ddb, maxWaitTime: 30 }, { TableName: 'Movies' });
  const movies = JSON.parse(readFileSync(moviesFile, 'utf8')).slice(0, n);
  for (let i = 0; i < movies.length; i += 25) {
    let req = { Movies: movies.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (req && Object.keys(req).length) {
      const out = await doc.send(new BatchWriteCommand({ RequestItems: req }));
      req = out.UnprocessedItems;
    }
  }
  return movies;
}

// tempDir makes a temporary directory, removed by the returned function.
export function tempDir() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dynago-console-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
