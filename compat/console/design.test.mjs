// The design views with serve --design examples/ecommerce.design.yaml:
// the worksheet as tables, the item-collection view of dynago design
// show, and the live traffic, where an SDK GetItem counts under the
// access pattern it follows and a Scan shows as an undeclared Scan.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CreateTableCommand, GetItemCommand, PutItemCommand, ScanCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { assertNoProblems, clients, launch, repo, screenshot, startDynago } from './lib.mjs';

let dynago;
let b;

before(async () => {
  dynago = await startDynago(['--design', path.join(repo, 'examples', 'ecommerce.design.yaml')]);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
});

test('a design: worksheet, item collections, and a pattern counted after an SDK request', async () => {
  const { page, problems } = b;
  const { ddb } = clients(dynago.url);
  await ddb.send(new CreateTableCommand({
    TableName: 'ecommerce', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'Type'].map((n) => ({ AttributeName: n, AttributeType: 'S' })),
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
    GlobalSecondaryIndexes: [
      { IndexName: 'GSI1', Projection: { ProjectionType: 'ALL' }, KeySchema: [{ AttributeName: 'GSI1PK', KeyType: 'HASH' }, { AttributeName: 'GSI1SK', KeyType: 'RANGE' }] },
      { IndexName: 'GSI2', Projection: { ProjectionType: 'ALL' }, KeySchema: [{ AttributeName: 'Type', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }] },
    ],
  }));
  await waitUntilTableExists({ client: ddb, maxWaitTime: 30 }, { TableName: 'ecommerce' });

  // The nav's Design link opens the worksheet.
  await page.goto(new URL('/console/', dynago.url).href);
  await page.getByRole('link', { name: 'Design', exact: true }).click();
  await page.getByRole('heading', { name: 'Access patterns' }).waitFor();
  const patterns = page.locator('table.worksheet-table').last();
  assert.match(await patterns.locator('tbody tr').first().textContent(), /Get a user by username/);

  // The item collections: the table's partitions, keys spanning their rows.
  await page.getByRole('link', { name: 'Item collections' }).click();
  const table = page.locator('section#view-ecommerce');
  await table.waitFor();
  assert.ok(await table.locator('td.pk').count() > 3, 'partitions drawn');
  assert.match(await table.locator('td.pk').first().textContent(), /#/);
  assert.ok(await page.locator('section#view-GSI1').count() === 1 && await page.locator('section#view-GSI2').count() === 1);
  await page.getByRole('heading', { name: 'Findings (dynago design check)' }).waitFor();
  // At 1280 px the load chart has its own row, at its own width (its
  // 12-unit text readable), and the tables fit their column unclipped.
  const chart = await page.locator('.design-show .chart svg').boundingBox();
  assert.ok(chart.width >= 900, `the load chart is ${chart.width} px wide`);
  const views = await page.locator('.design-show .views').evaluate((v) => [v.scrollWidth, v.clientWidth]);
  assert.ok(views[0] <= views[1] + 1, `the tables are ${views[0]} px in a ${views[1]} px column`);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= 1280, `the page is ${pageWidth} px wide in a 1280 px window`);
  // One index alone: the arrow keys move the choice without leaving the
  // page (no reload per step), Enter or Show applies it.
  const space = page.getByLabel('Key space');
  const url = page.url();
  await space.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(page.url(), url, 'an arrow key reloaded the page');
  assert.equal(await page.evaluate(() => document.activeElement?.name), 'index', 'the focus left the select');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  assert.equal(await space.inputValue(), 'GSI2');
  await page.keyboard.press('Enter');
  await page.waitForURL(/index=GSI2/);
  assert.equal(await page.locator('section#view-ecommerce').count(), 0);
  await page.locator('section#view-GSI2').waitFor();
  // After the reload the focus is back on the picker it was sent from.
  await page.waitForFunction(() => document.activeElement?.id === 'design-index');
  await page.getByLabel('Key space').selectOption('');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/index=(&|$)/);
  await table.waitFor();
  await screenshot(page, 'design-collections');

  // Live traffic: pattern 1 (GetItem of a user) counts an SDK GetItem,
  // a Scan is an undeclared Scan.
  await page.getByRole('link', { name: 'Live traffic' }).click();
  const row = (p) => page.locator(`table.traffic tr[data-path="${p}"]`);
  await row('1').waitFor();
  assert.equal((await row('1').locator('td.requests').textContent()).trim(), '0');
  await ddb.send(new PutItemCommand({ TableName: 'ecommerce', Item: { PK: { S: 'USER#alice' }, SK: { S: 'USER#alice' }, Type: { S: 'USER' }, UserName: { S: 'alice' } } }));
  const got = await ddb.send(new GetItemCommand({ TableName: 'ecommerce', Key: { PK: { S: 'USER#alice' }, SK: { S: 'USER#alice' } } }));
  assert.equal(got.Item.UserName.S, 'alice');
  await ddb.send(new ScanCommand({ TableName: 'ecommerce' }));
  // htmx refreshes the table every 3 s.
  await page.locator('table.traffic tr[data-path="1"].seen td.requests', { hasText: /^1$/ }).waitFor({ timeout: 10000 });
  const scan = page.locator('table.traffic tr.scan');
  await scan.waitFor();
  assert.match(await scan.textContent(), /UNDECLARED SCAN[\s\S]*1[\s\S]*Scan table/);
  assert.match(await page.locator('.traffic-total').textContent(), /3 requests/);
  await screenshot(page, 'design-traffic');
  assertNoProblems(problems);
});
