// The tables page: create a table with a GSI through the form (by its
// labels, as a keyboard user would), see it listed with its index and
// status (the list refreshes itself while the table is CREATING: the
// server runs with --create-delay), see DynamoDB's validation message in
// the form with the fields kept, and delete a protected table: refused
// by DynamoDB, protection turned off, deleted.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CreateTableCommand, DescribeTableCommand, DescribeTimeToLiveCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { assertNoProblems, clients, launch, screenshot, startDynago } from './lib.mjs';

let dynago;
let b;

before(async () => {
  dynago = await startDynago(['--create-delay', '1s']);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
});

const at = (p) => new URL(p, dynago.url).href;

test('create a table with a GSI through the form and see it listed', async () => {
  const { page, problems } = b;
  await page.goto(at('/console/'));
  await page.getByRole('link', { name: 'Create table' }).first().click();
  await page.getByRole('heading', { name: 'Create table' }).waitFor();
  // The table name field has the focus: type straight away.
  await page.keyboard.type('Music');
  await page.getByLabel('Partition key', { exact: true }).fill('artist');
  await page.getByLabel('Sort key', { exact: true }).fill('song');
  await page.getByRole('button', { name: 'Add global secondary index' }).click();
  // The new row's name has the focus.
  await page.keyboard.type('byGenre');
  await page.getByLabel('GSI 1 Partition key', { exact: true }).fill('genre');
  await page.getByLabel('GSI 1 Sort key', { exact: true }).fill('year');
  await page.getByLabel('GSI 1 Sort key type', { exact: true }).selectOption('N');
  await page.getByLabel('GSI 1 Projection', { exact: true }).selectOption('INCLUDE');
  await page.getByLabel('GSI 1 Non-key attributes', { exact: true }).fill('album, length');
  await page.getByLabel('Stream', { exact: true }).check();
  await page.getByLabel('Stream view type').selectOption('NEW_IMAGE');
  await page.getByLabel('TTL attribute').fill('expires');
  await screenshot(page, 'tables-create-form');
  // Enter in a field creates the table.
  await page.getByLabel('TTL attribute').press('Enter');
  await page.waitForURL(/\/console\/\?flash=/);
  const ok = page.locator('.flash .ok');
  await assert.doesNotReject(ok.waitFor());
  // What CreateTable answered, and (the console waited for ACTIVE to
  // set the TTL) what the table is now: no "CREATING" next to ACTIVE.
  assert.match(await ok.textContent(), /Table Music created: CreateTable answered CREATING; the table is now ACTIVE\./);
  assert.match(await ok.textContent(), /waited .*s for it to be ACTIVE, then turned time to live on with attribute expires/);
  const row = page.locator('tr[data-table="Music"]');
  await assert.doesNotReject(row.locator('.status', { hasText: 'ACTIVE' }).first().waitFor());
  const text = await row.textContent();
  assert.match(text, /byGenre\s*GSI\s*ACTIVE/);
  assert.match(text, /NEW_IMAGE/);
  assert.match(text, /expires/);
  await screenshot(page, 'tables-list');
  // The request that was sent is shown.
  await page.locator('.flash summary', { hasText: 'CreateTable request and response' }).click();
  assert.match(await page.locator('.flash pre.json').first().textContent(), /"IndexName": "byGenre"/);
  // A client sees the same table.
  const { ddb } = clients(dynago.url);
  const { Table } = await ddb.send(new DescribeTableCommand({ TableName: 'Music' }));
  assert.equal(Table.GlobalSecondaryIndexes[0].IndexName, 'byGenre');
  assert.deepEqual(Table.GlobalSecondaryIndexes[0].Projection, { ProjectionType: 'INCLUDE', NonKeyAttributes: ['album', 'length'] });
  const ttl = await ddb.send(new DescribeTimeToLiveCommand({ TableName: 'Music' }));
  assert.equal(ttl.TimeToLiveDescription.AttributeName, 'expires');
  // Its settings: the table's tabs, Settings the current one, and the
  // TTL button that applies (it is ENABLING or ENABLED: off).
  await page.getByRole('link', { name: 'Settings of Music' }).click();
  await page.getByRole('heading', { name: 'Music: settings' }).waitFor();
  assert.equal(await page.locator('nav.tabs [aria-current="page"]').textContent(), 'Settings');
  assert.equal((await page.locator('p.crumbs').textContent()).trim(), 'Tables / Music / settings');
  assert.equal(await page.getByRole('button', { name: 'Turn time to live on' }).count(), 0);
  await page.getByLabel('TTL attribute').fill('');
  await page.getByRole('button', { name: 'Turn time to live off' }).click();
  await assert.doesNotReject(page.getByText('Name the TTL attribute: UpdateTimeToLive needs the attribute\'s name to turn time to live off. Nothing was sent.').waitFor());
  // With the name, the request is sent. Within the cooldown after the
  // TTL was turned on (dynago's lasts --create-delay, 1 s here; DynamoDB's
  // up to an hour: docs/research-ttl.md) DynamoDB's refusal is shown as
  // DynamoDB words it; after it, time to live is off. Which one depends
  // on how long the steps above took.
  await page.getByLabel('TTL attribute').fill('expires');
  await page.getByRole('button', { name: 'Turn time to live off' }).click();
  const answer = page.locator('.flash .warn, .flash .ok').first();
  await assert.doesNotReject(answer.waitFor());
  assert.match(await answer.textContent(),
    /UpdateTimeToLive answered:\s*ValidationException: Time to live has been modified multiple times within a fixed interval|Time to live turned off for Music\./);
  await page.locator('nav.tabs').getByRole('link', { name: 'Stream' }).click();
  await page.getByRole('heading', { name: 'Stream of Music' }).waitFor();
  assert.equal(await page.locator('nav.tabs [aria-current="page"]').textContent(), 'Stream');
  assertNoProblems(problems);
});

test("DynamoDB's validation message is shown in the form, the fields kept", async () => {
  const { page, problems } = b;
  await page.goto(at('/console/create-table'));
  await page.getByLabel('Table name').fill('ab');
  await page.getByLabel('Partition key', { exact: true }).fill('id');
  await page.getByLabel('Provisioned').check();
  await page.getByLabel('Read capacity units', { exact: true }).fill('2');
  await page.getByRole('button', { name: 'Create table' }).last().click();
  const err = page.locator('#create-error [role="alert"]');
  await assert.doesNotReject(err.waitFor());
  assert.match(await err.textContent(), /ValidationException: 1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3/);
  assert.equal(await page.getByLabel('Table name').inputValue(), 'ab');
  assert.equal(await page.getByLabel('Partition key', { exact: true }).inputValue(), 'id');
  assert.equal(await page.getByLabel('Provisioned').isChecked(), true);
  assert.equal(await page.getByLabel('Read capacity units', { exact: true }).inputValue(), '2');
  await screenshot(page, 'tables-create-error');
  await page.locator('details.call summary').click();
  assert.match(await page.locator('details.call pre.json').first().textContent(), /"TableName": "ab"/);
  assertNoProblems(problems);
});

test('index rows are added and removed in place, renumbered', async () => {
  const { page, problems } = b;
  await page.goto(at('/console/create-table'));
  let posts = 0;
  const count = (r) => { if (r.method() === 'POST') posts++; };
  page.on('request', count);
  const addGSI = page.getByRole('button', { name: 'Add global secondary index' });
  await addGSI.click();
  await page.keyboard.type('first');
  await addGSI.click();
  await page.keyboard.type('second');
  await page.getByRole('button', { name: 'Remove GSI 1' }).click();
  assert.equal(await page.getByLabel('GSI 1 Index name', { exact: true }).inputValue(), 'second');
  assert.equal(await page.getByLabel('GSI 2 Index name', { exact: true }).count(), 0);
  await page.getByRole('button', { name: 'Add local secondary index' }).click();
  await page.keyboard.type('byDate');
  assert.equal(await page.getByLabel('LSI 1 Index name', { exact: true }).inputValue(), 'byDate');
  page.off('request', count);
  assert.equal(posts, 0, 'rows were added with a round trip');
  assertNoProblems(problems);
});

test('a protected table: DynamoDB refuses, protection off, deleted', async () => {
  const { page, problems } = b;
  const { ddb } = clients(dynago.url);
  await ddb.send(new CreateTableCommand({
    TableName: 'Ledger', BillingMode: 'PAY_PER_REQUEST', DeletionProtectionEnabled: true,
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
  }));
  // The server keeps new tables CREATING for a second (--create-delay),
  // and DynamoDB changes no table being created.
  await waitUntilTableExists({ client: ddb, minDelay: 1, maxWaitTime: 30 }, { TableName: 'Ledger' });
  await page.goto(at('/console/'));
  const row = page.locator('tr[data-table="Ledger"]');
  await assert.doesNotReject(row.locator('.badge.on', { hasText: 'on' }).waitFor());
  await page.getByRole('link', { name: 'Delete Ledger' }).click();
  // A wrong name is refused by the console.
  const confirm = page.getByLabel('Type the table name, Ledger, to confirm');
  await confirm.fill('ledger');
  await confirm.press('Enter');
  await assert.doesNotReject(page.getByText("Type the table's name, Ledger, to confirm deleting it. Nothing was deleted.").waitFor());
  // The right one is sent, and DynamoDB refuses: the table is protected.
  await page.getByLabel('Type the table name, Ledger, to confirm').fill('Ledger');
  await page.getByRole('button', { name: 'Delete table' }).click();
  const err = page.locator('#delete [role="alert"]');
  await assert.doesNotReject(err.waitFor());
  assert.equal((await err.textContent()).trim(),
    'ValidationException: Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.');
  await screenshot(page, 'tables-delete-protected');
  await page.locator('#delete').getByRole('button', { name: 'Turn deletion protection off' }).click();
  await assert.doesNotReject(page.getByText('Deletion protection is off for Ledger.').waitFor());
  // The confirmation field has the focus again.
  await page.keyboard.type('Ledger');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/console\/\?flash=/);
  assert.match(await page.locator('.flash .ok').textContent(), /Table Ledger deleted/);
  await assert.rejects(ddb.send(new DescribeTableCommand({ TableName: 'Ledger' })), /ResourceNotFoundException|not found/i);
  assert.equal(await page.locator('tr[data-table="Ledger"]').count(), 0);
  assertNoProblems(problems);
});
