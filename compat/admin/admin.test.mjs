// dynamodb-admin (the npm GUI, pinned in package.json) pointed at dynago and
// driven in headless Chromium through playwright-core, as a person would use
// it: create a table with a GSI, add items, browse, query the table and the
// index, get, edit and delete an item, open the Meta and TTL pages, delete
// the table. Issue 11: every request dynamodb-admin makes must be answered
// without UnknownOperationException (or any 5xx), so dynamodb-admin talks to
// dynago through a recording proxy that keeps each request's X-Amz-Target and
// the answer's HTTP status and __type.
//
// dynamodb-admin's Create table form sends ReadCapacityUnits as the string
// "5". DynamoDB refuses that (SerializationException "STRING_VALUE cannot be
// converted to Long"; docs/dynamodb-behaviour.md §1.1) and so does dynago by
// default: the first test shows that answer in the GUI, against a dynago
// this test starts with default flags (its own, not the shared server at
// $DYNAGO_ENDPOINT, whose tables the other suites create and delete while
// dynamodb-admin's table list describes them). DynamoDB Local reads "5" as
// 5; the rest of the session runs against a dynago this test starts with
// --accept-string-numbers, which does the same.
//
// Needs $DYNAGO_BIN (a built dynago; every server it talks to is one it
// starts on 127.0.0.1) and
// Chromium (Debian's `chromium`; $CHROMIUM overrides /usr/bin/chromium).
// Screenshots of every step go to $DYNAGO_ARTIFACTS/admin (default:
// <repo>/artifacts/admin).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.join(process.env.DYNAGO_ARTIFACTS || path.join(here, '..', '..', 'artifacts'), 'admin');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

// calls: one entry per DynamoDB request dynamodb-admin made, in order, each
// with the server it went to (upstream.name).
const calls = [];

// upstream is where the proxy forwards: {name, url}; tests switch it.
let upstream;

// startProxy forwards every request to the upstream dynago unchanged (the
// Host header too, so the SigV4 signature still matches) and records target,
// status, __type.
function startProxy() {
  const server = http.createServer((req, res) => {
    const target = upstream.url;
    const name = upstream.name;
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const up = http.request({
        host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers,
      }, (upRes) => {
        const out = [];
        upRes.on('data', (c) => out.push(c));
        upRes.on('end', () => {
          const text = Buffer.concat(out).toString('utf8');
          let type = '';
          try { type = JSON.parse(text).__type || ''; } catch { /* not JSON */ }
          calls.push({
            server: name,
            target: String(req.headers['x-amz-target'] || ''),
            status: upRes.statusCode,
            type,
            request: body.toString('utf8'),
            answer: text.slice(0, 500),
          });
          res.writeHead(upRes.statusCode, upRes.headers);
          res.end(text);
        });
      });
      up.on('error', (err) => { res.writeHead(502); res.end(String(err)); });
      up.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// startDynago runs $DYNAGO_BIN serve --in-memory on a free loopback port
// with extra flags and resolves with {child, url}.
function startDynago(flags) {
  const bin = process.env.DYNAGO_BIN;
  if (!bin) throw new Error('DYNAGO_BIN is not set (a built dynago: go build -o /tmp/dynago ./cmd/dynago)');
  const child = spawn(bin, ['serve', '--in-memory', '--addr', '127.0.0.1:0', '--log-level', 'warn', ...flags],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynago did not start:\n${log.join('')}`)), 20000);
    const onData = (d) => {
      log.push(String(d));
      const m = log.join('').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) { clearTimeout(timer); resolve({ child, url: new URL(m[1]) }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`dynago exited ${code}:\n${log.join('')}`)); });
  });
}

// startAdmin runs the dynamodb-admin command (as `npx dynamodb-admin` would)
// on a free loopback port and resolves with its base URL.
function startAdmin(dynamoEndpoint) {
  const bin = path.join(here, 'node_modules', 'dynamodb-admin', 'dist', 'dynamodb-admin.js');
  const child = spawn(process.execPath, [bin, '--host', '127.0.0.1', '--port', '0', '--dynamo-endpoint', dynamoEndpoint], {
    env: {
      ...process.env,
      AWS_PROFILE: undefined, AWS_DEFAULT_PROFILE: undefined, AWS_SESSION_TOKEN: undefined,
      AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy',
      AWS_CONFIG_FILE: '/dev/null', AWS_SHARED_CREDENTIALS_FILE: '/dev/null', AWS_EC2_METADATA_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dynamodb-admin did not start:\n${log.join('')}`)), 20000);
    const onData = (d) => {
      log.push(String(d));
      const m = log.join('').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) { clearTimeout(timer); resolve({ child, url: m[1], log }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => log.push(String(d)));
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`dynamodb-admin exited ${code}:\n${log.join('')}`)); });
  });
}

let proxy;
let strict;
let lenient;
let admin;
let browser;
let page;
const pageErrors = [];
const badResponses = [];
let shot = 0;

async function screenshot(name) {
  shot++;
  const file = path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
}

// errorShown is the text of dynamodb-admin's error banner, '' when hidden.
async function errorShown() {
  return page.evaluate(() => {
    const el = document.querySelector('.error-container, #error-container, .alert-danger');
    return el && el.offsetParent !== null ? el.textContent.trim() : '';
  });
}

// filterRow is the Filter row whose key field holds key (Query adds one for
// the partition key and one for the sort key of the table or index chosen).
async function filterRow(key) {
  const i = await page.evaluate((k) => [...document.querySelectorAll('#filters-table tr')]
    .findIndex((tr) => tr.querySelector('.filter-row-key').value === k), key);
  assert.ok(i >= 0, `no filter row for ${key}`);
  return page.locator('#filters-table tr').nth(i);
}

// rows returns the items table as an array of {column: value}; cells show
// values as JSON.
async function rows() {
  await page.waitForFunction(() => {
    const p = document.querySelector('#table-placeholder');
    return p && p.classList.contains('d-none');
  }, null, { timeout: 15000 }).catch(() => {});
  return page.evaluate(() => {
    const heads = [...document.querySelectorAll('#actions-row th')].map((th) => th.textContent.trim());
    return [...document.querySelectorAll('#items-container tr')].map((tr) => {
      const row = {};
      [...tr.querySelectorAll('td')].forEach((td, i) => {
        const text = td.textContent.trim();
        try { row[heads[i]] = JSON.parse(text); } catch { row[heads[i]] = text; }
      });
      return row;
    });
  });
}

const table = `compat-admin-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;

before(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}: apt-get install chromium, or set CHROMIUM`);
  }
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  strict = await startDynago([]);
  upstream = { name: 'strict', url: strict.url };
  lenient = await startDynago(['--accept-string-numbers']);
  proxy = await startProxy();
  admin = await startAdmin(`http://127.0.0.1:${proxy.address().port}`);
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Chromium as root needs --no-sandbox; the rest keep it off the network.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(15000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('dialog', (d) => d.accept());
  page.on('response', (r) => { if (r.status() >= 400) badResponses.push(`${r.status()} ${r.request().method()} ${r.url()}`); });
});

after(async () => {
  await browser?.close();
  admin?.child.kill();
  strict?.child.kill();
  lenient?.child.kill();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve()));
});

// fillCreateTable fills the Create table form: PK/SK strings, 5/5 units,
// and a GSI1 on GSI1PK/GSI1SK.
async function fillCreateTable() {
  await page.click('text=Create table');
  await page.waitForURL(/\/create-table$/);
  await page.fill('#TableName', table);
  await page.fill('#HashAttributeName', 'PK');
  await page.selectOption('select[name=HashAttributeType]', 'S');
  await page.fill('#RangeAttributeName', 'SK');
  await page.selectOption('select[name=RangeAttributeType]', 'S');
  await page.fill('#ReadCapacityUnits', '5');
  await page.fill('#WriteCapacityUnits', '5');
  await page.click('#new-index');
  // The form numbers its secondary indexes from 1.
  await page.fill('input[name=secondary-index-1-IndexName]', 'GSI1');
  await page.selectOption('select[name=secondary-index-1-IndexType]', 'global');
  await page.fill('input[name=secondary-index-1-HashAttributeName]', 'GSI1PK');
  await page.selectOption('select[name=secondary-index-1-HashAttributeType]', 'S');
  await page.fill('input[name=secondary-index-1-RangeAttributeName]', 'GSI1SK');
  await page.selectOption('select[name=secondary-index-1-RangeAttributeType]', 'S');
}

test("the Create table form's \"5\" gets DynamoDB's answer from a default dynago", async () => {
  await page.goto(`${admin.url}/`);
  await screenshot('tables-before');
  await fillCreateTable();
  await page.click('#saveButton');
  await page.waitForFunction(() => /cannot be converted/.test(document.querySelector('#error-wrapper')?.textContent || ''));
  assert.match(await page.textContent('#error-wrapper'), /STRING_VALUE cannot be converted to Long/);
  await screenshot('create-table-strict');
  const create = calls.filter((c) => c.target.endsWith('.CreateTable')).at(-1);
  assert.equal(create.server, 'strict');
  assert.equal(create.status, 400);
  assert.equal(create.type, 'com.amazon.coral.service#SerializationException');
});

test('create a table with a GSI from the Create table form (--accept-string-numbers)', async () => {
  upstream = { name: 'lenient', url: lenient.url };
  await page.goto(`${admin.url}/`);
  await fillCreateTable();
  await screenshot('create-table-form');
  await Promise.all([page.waitForURL(`${admin.url}/`), page.click('#saveButton')]);
  await page.waitForSelector(`li[data-table-name="${table}"]`);
  await screenshot('tables-after-create');
  const create = calls.filter((c) => c.target.endsWith('.CreateTable')).at(-1);
  assert.equal(create.server, 'lenient');
  assert.equal(create.status, 200, create.answer);
  assert.match(create.request, /"ReadCapacityUnits":"5"/);
});

const items = [
  { PK: 'USER#alice', SK: 'PROFILE', GSI1PK: 'EMAIL#alice@example.com', GSI1SK: 'USER', name: 'Alice', age: 31 },
  { PK: 'USER#alice', SK: 'ORDER#2026-11-01', GSI1PK: 'STATUS#open', GSI1SK: '2026-11-01', total: 42.5 },
  { PK: 'USER#bob', SK: 'PROFILE', GSI1PK: 'EMAIL#bob@example.com', GSI1SK: 'USER', name: 'Bob', tags: ['a', 'b'] },
];

test('add items with the Create item editor', async () => {
  for (const [i, item] of items.entries()) {
    await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}/add-item`);
    await page.waitForFunction(() => typeof window.editor !== 'undefined' || typeof editor !== 'undefined');
    await page.evaluate((json) => editor.setValue(json), JSON.stringify(item, null, 2));
    if (i === 0) await screenshot('create-item');
    await Promise.all([page.waitForURL(/\/items\/[^/]+$/), page.click('#saveButton')]);
    const shown = JSON.parse(await page.evaluate(() => editor.getValue()));
    assert.deepEqual(shown, item);
  }
  await screenshot('item-saved');
});

test('browse the table: a Scan shows every item', async () => {
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}`);
  const got = await rows();
  await screenshot('scan');
  assert.equal(got.length, items.length, JSON.stringify(got));
  assert.deepEqual(got.map((r) => `${r.PK}|${r.SK}`).sort(), items.map((it) => `${it.PK}|${it.SK}`).sort());
  assert.equal(await errorShown(), '');
});

test('query the table by partition key and sort key prefix', async () => {
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}`);
  await rows();
  await page.selectOption('select[name=operationType]', 'query');
  // Choosing Query adds a required partition key and a sort key filter row.
  await (await filterRow('PK')).locator('.filter-row-value').fill('USER#alice');
  const sk = await filterRow('SK');
  await sk.locator('.filter-row-operator').selectOption('begins_with');
  await sk.locator('.filter-row-value').fill('ORDER#');
  await Promise.all([page.waitForURL(/operationType=query/), page.click('button[type=submit]')]);
  const got = await rows();
  await screenshot('query-table');
  assert.deepEqual(got.map((r) => `${r.PK}|${r.SK}`), ['USER#alice|ORDER#2026-11-01']);
  const q = calls.filter((c) => c.target.endsWith('.Query')).at(-1);
  assert.ok(q, 'dynamodb-admin sent Query');
  assert.match(JSON.parse(q.request).KeyConditionExpression, /begins_with/);
});

test('query the GSI', async () => {
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}`);
  await rows();
  await page.selectOption('select[name=operationType]', 'query');
  await page.selectOption('select[name=queryableSelection]', 'GSI1');
  await (await filterRow('GSI1PK')).locator('.filter-row-value').fill('EMAIL#bob@example.com');
  // Remove the GSI sort key row: a partition-key-only Query.
  await (await filterRow('GSI1SK')).locator('.filter-remove').click();
  await Promise.all([page.waitForURL(/queryableSelection=GSI1/), page.click('button[type=submit]')]);
  const got = await rows();
  await screenshot('query-gsi');
  assert.deepEqual(got.map((r) => `${r.PK}|${r.SK}`), ['USER#bob|PROFILE']);
  const q = calls.filter((c) => c.target.endsWith('.Query')).at(-1);
  assert.equal(JSON.parse(q.request).IndexName, 'GSI1');
  assert.equal(q.status, 200, q.answer);
});

test('get an item by key, edit it, save', async () => {
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}/get`);
  await page.fill('input[name=hash]', 'USER#bob');
  await page.fill('input[name=range]', 'PROFILE');
  await Promise.all([page.waitForURL(/\/items\//), page.click('button[type=submit]')]);
  const item = JSON.parse(await page.evaluate(() => editor.getValue()));
  assert.equal(item.name, 'Bob');
  item.name = 'Robert';
  item.visits = 7;
  await page.evaluate((json) => editor.setValue(json), JSON.stringify(item, null, 2));
  const saved = page.waitForResponse((r) => r.request().method() === 'PUT');
  await page.click('#saveButton');
  assert.equal((await saved).status(), 200);
  await screenshot('item-edited');
  const get = calls.filter((c) => c.target.endsWith('.GetItem')).at(-1);
  assert.equal(JSON.parse(get.answer).Item.name.S, 'Robert');
});

test('Meta and TTL pages', async () => {
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}/meta`);
  await screenshot('meta');
  const meta = await page.textContent('body');
  assert.match(meta, /GSI1/);
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}/ttl`);
  await screenshot('ttl');
  assert.ok(calls.some((c) => c.target.endsWith('.DescribeTimeToLive') && c.status === 200));
});

test('delete an item from its page', async () => {
  // The item page's address holds the key values joined by commas.
  const key = encodeURIComponent('USER#alice,PROFILE');
  await page.goto(`${admin.url}/tables/${encodeURIComponent(table)}/items/${key}`);
  await Promise.all([page.waitForURL(`${admin.url}/tables/${encodeURIComponent(table)}`), page.click('button.btn-danger')]);
  const got = await rows();
  await screenshot('after-delete-item');
  assert.deepEqual(got.map((r) => `${r.PK}|${r.SK}`).sort(), ['USER#alice|ORDER#2026-11-01', 'USER#bob|PROFILE']);
  assert.ok(calls.some((c) => c.target.endsWith('.DeleteItem') && c.status === 200));
});

test('delete the table from the table list', async () => {
  await page.goto(`${admin.url}/`);
  const li = page.locator(`li[data-table-name="${table}"]`);
  await Promise.all([page.waitForEvent('load'), li.locator('text=Delete').click()]);
  await page.waitForSelector(`li[data-table-name="${table}"]`, { state: 'detached' });
  await screenshot('tables-after-delete');
  assert.ok(calls.some((c) => c.target.endsWith('.DeleteTable') && c.status === 200));
});

test('every request dynamodb-admin made was answered', () => {
  const ops = [...new Set(calls.map((c) => c.target.replace(/^DynamoDB_20120810\./, '')))].sort();
  console.log(`dynamodb-admin called: ${ops.join(', ')} (${calls.length} requests); screenshots in ${artifacts}`);
  const unknown = calls.filter((c) => /UnknownOperation/.test(c.type));
  assert.deepEqual(unknown, [], 'UnknownOperationException');
  // The one expected failure is the first test's strict CreateTable.
  const failed = calls.filter((c) => c.status >= 400 && !(c.server === 'strict' && c.target.endsWith('.CreateTable')));
  assert.deepEqual(failed, [], 'DynamoDB requests that failed');
  assert.deepEqual(badResponses.filter((r) => !r.endsWith('/create-table')).concat(
    badResponses.filter((r) => r.endsWith('/create-table')).slice(1)), [], 'dynamodb-admin pages that failed');
  assert.deepEqual(pageErrors, [], 'JavaScript errors in the page');
  for (const op of ['ListTables', 'CreateTable', 'DescribeTable', 'PutItem', 'GetItem', 'Scan', 'Query',
    'DescribeTimeToLive', 'DeleteItem', 'DeleteTable']) {
    assert.ok(ops.includes(op), `dynamodb-admin never sent ${op}`);
  }
});
