// A table's stream (/console/tables/NAME/stream): records written with
// the SDK appear without reloading (INSERT, then MODIFY with its old and
// new images side by side), the shard lineage grows as shards roll over
// (--stream-rollover 1s), and a table without a stream gets one from the
// enable button.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { assertNoProblems, clients, launch, screenshot, startDynago } from './lib.mjs';

let dynago;
let b;
let sdk;

async function createTable(name, stream) {
  await sdk.ddb.send(new CreateTableCommand({
    TableName: name, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } } : {}),
  }));
  await waitUntilTableExists({ client: sdk.ddb, maxWaitTime: 30 }, { TableName: name });
}

before(async () => {
  dynago = await startDynago(['--stream-rollover', '1s', '--stream-shards', '2']);
  sdk = clients(dynago.url);
  await createTable('Orders', true);
  await createTable('Plain', false);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
});

test('records appear live, newest first, with old and new images side by side', async () => {
  const { page, problems } = b;
  await page.goto(new URL('/console/tables/Orders/stream', dynago.url).href);
  await page.getByRole('heading', { name: 'Stream of Orders' }).waitFor();
  assert.match(await page.locator('#records-summary').textContent(), /No records yet/);
  assert.match(await page.locator('.st-meta').textContent(), /NEW_AND_OLD_IMAGES[\s\S]*ENABLED/);
  await page.evaluate(() => { window.stillHere = true; });

  await sdk.doc.send(new PutCommand({ TableName: 'Orders', Item: { id: 'o-1', status: 'new', total: 12 } }));
  const insert = page.locator('#records article.st-INSERT');
  await insert.waitFor({ timeout: 10000 });
  assert.match(await insert.locator('.st-keys').textContent(), /id\s*=\s*o-1/);
  assert.deepEqual(await insert.locator('thead th').allTextContents(), ['Attribute', 'New image']);

  await sdk.doc.send(new UpdateCommand({
    TableName: 'Orders', Key: { id: 'o-1' }, UpdateExpression: 'SET #s = :s, #t = :t',
    ExpressionAttributeNames: { '#s': 'status', '#t': 'total' }, ExpressionAttributeValues: { ':s': 'paid', ':t': 15 },
  }));
  const modify = page.locator('#records article.st-MODIFY');
  await modify.waitFor({ timeout: 10000 });
  assert.equal(await page.evaluate(() => window.stillHere), true, 'the page was not reloaded');
  const order = await page.locator('#records article').evaluateAll((els) => els.map((e) => e.className.match(/st-(INSERT|MODIFY|REMOVE)/)[1]));
  assert.deepEqual(order, ['MODIFY', 'INSERT'], 'newest first');
  assert.deepEqual(await modify.locator('thead th').allTextContents(), ['Attribute', 'Old image', 'New image']);
  const status = modify.locator('tbody tr', { has: page.locator('th', { hasText: 'status' }) });
  assert.deepEqual(await status.locator('td').allTextContents(), ['new', 'paid']);
  assert.match(await status.getAttribute('class'), /st-changed/);
  const id = modify.locator('tbody tr', { has: page.locator('th', { hasText: /^id$/ }) });
  assert.equal(await id.getAttribute('class'), null, 'an unchanged attribute is not marked');
  assert.match(await modify.locator('.st-changed.badge').textContent(), /2 attributes changed/);
  assert.match(await page.locator('#records-summary').textContent(), /2 records/);
  await screenshot(page, 'stream-records');
  assertNoProblems(problems);
});

test('the shard lineage shows closed parents and their open children', async () => {
  const { page, problems } = b;
  await page.goto(new URL('/console/tables/Orders/stream', dynago.url).href);
  // With --stream-rollover 1s a shard that holds records is closed within
  // a couple of seconds and a child continues it; the poll redraws the
  // lineage in place.
  for (let i = 0; i < 6; i++) {
    await sdk.doc.send(new PutCommand({ TableName: 'Orders', Item: { id: `l-${i}` } }));
  }
  const child = page.locator('#lineage li.st-shard:not([data-parent=""])').first();
  await child.waitFor({ timeout: 15000 });
  const parentId = await child.getAttribute('data-parent');
  const parent = page.locator(`#lineage li.st-shard[data-shard="${parentId}"]`);
  assert.match(await parent.locator('.badge').textContent(), /closed/);
  const ids = await page.locator('#lineage li.st-shard').evaluateAll((els) => els.map((e) => e.dataset.shard));
  assert.ok(ids.indexOf(parentId) < ids.indexOf(await child.getAttribute('data-shard')), 'a parent is drawn above its child');
  assert.ok(await page.locator('#lineage .st-open').count() >= 1, 'some shard is open');
  // The records of every shard are read: parents' and children's.
  await sdk.doc.send(new PutCommand({ TableName: 'Orders', Item: { id: 'after-rollover' } }));
  await page.locator('#records article .st-keys', { hasText: 'after-rollover' }).waitFor({ timeout: 10000 });
  for (let i = 0; i < 6; i++) {
    assert.equal(await page.locator('#records article .st-keys', { hasText: new RegExp(`l-${i}$`) }).count(), 1, `l-${i} once`);
  }
  assertNoProblems(problems);
});

test('a table without a stream offers to enable one', async () => {
  const { page, problems } = b;
  await page.goto(new URL('/console/tables/Plain/stream', dynago.url).href);
  assert.match(await page.locator('.st-off').textContent(), /Streams are off for Plain/);
  assert.equal(await page.getByLabel('Records carry').inputValue(), 'NEW_AND_OLD_IMAGES');
  await page.getByRole('button', { name: 'Enable stream' }).click();
  await page.locator('.st-meta').waitFor();
  assert.match(await page.locator('.st-meta').textContent(), /NEW_AND_OLD_IMAGES/);
  const t = (await sdk.ddb.send(new DescribeTableCommand({ TableName: 'Plain' }))).Table;
  assert.deepEqual(t.StreamSpecification, { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  await sdk.doc.send(new PutCommand({ TableName: 'Plain', Item: { id: 'p-1' } }));
  await page.locator('#records article.st-INSERT').waitFor({ timeout: 10000 });

  // Pause holds the polls (streams.js); Resume brings what came meanwhile.
  const pause = page.getByRole('button', { name: 'Pause' });
  await pause.click();
  assert.equal(await page.getByRole('button', { name: 'Resume' }).getAttribute('aria-pressed'), 'true');
  await sdk.doc.send(new PutCommand({ TableName: 'Plain', Item: { id: 'p-2' } }));
  await page.waitForTimeout(4500);
  assert.equal(await page.locator('#records article').count(), 1, 'no record arrives while paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.locator('#records article .st-keys', { hasText: 'p-2' }).waitFor({ timeout: 10000 });
  assertNoProblems(problems);
});
