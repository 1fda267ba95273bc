// A table's page (/console/tables/NAME): page through the movies, query
// by year and title prefix through the builder (the same items as the
// SDK's Query, with the request and its consumed capacity shown), switch
// to an index, edit an item and see the change through boto3, duplicate
// and delete an item (each change redirected to a page a reload only
// reads), download the result as JSON lines, DynamoDB JSON lines and CSV
// (read back by dynago load); a filtered page reads on until it is full.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { assertNoProblems, boto3, clients, launch, loadMovies, screenshot, startDynago, tempDir } from './lib.mjs';

let dynago;
let b;
let doc;
let ddb;
let tmp;

before(async () => {
  dynago = await startDynago();
  ({ doc, ddb } = clients(dynago.url));
  await loadMovies(dynago.url);
  b = await launch();
  tmp = tempDir();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
  tmp?.remove();
});

const at = (p) => new URL(p, dynago.url).href;

// column returns the texts of one column of the items table.
async function column(page, name) {
  return page.locator('table.items').evaluate((t, name) => {
    const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
    const i = heads.indexOf(name);
    return [...t.querySelectorAll('tbody tr')].map((tr) => tr.children[i].textContent.trim());
  }, name);
}

async function headers(page) {
  return page.locator('table.items thead th[scope="col"]').allTextContents();
}

// byYearAndPrefix runs the builder's Query: year = 1985, title begins_with B.
async function byYearAndPrefix(page) {
  await page.goto(at('/console/tables/Movies'));
  await page.getByLabel('Query').check();
  await page.locator('#q-pk').fill('1985');
  await page.locator('#q-skop').selectOption('begins_with');
  await page.locator('#q-sk').fill('B');
  await Promise.all([page.waitForURL(/op=query/), page.getByRole('button', { name: 'Run' }).click()]);
}

test('page forward and back through the movies', async () => {
  const { page, problems } = b;
  await page.goto(at('/console/tables/Movies'));
  await page.getByRole('heading', { name: 'Movies' }).waitFor();
  assert.match(await page.locator('.meta').textContent(), /4610 items/);
  const first = await column(page, 'title');
  assert.equal(first.length, 50, 'a page is 50 items, as DynamoDB\'s console');
  assert.deepEqual((await headers(page)).slice(0, 2), ['year', 'title'], 'the keys come first');
  await screenshot(page, 'table-items');
  await page.locator('#r-next').click();
  await page.waitForURL(/p=/);
  const second = await column(page, 'title');
  assert.equal(second.length, 50);
  assert.ok(!second.some((t, i) => t === first[i] && second.join() === first.join()), 'page 2 is other items');
  await page.locator('#r-next').click();
  await page.waitForURL(/p=/);
  const third = await column(page, 'title');
  await page.locator('#r-back').click();
  await page.waitForLoadState();
  assert.deepEqual(await column(page, 'title'), second, 'Back shows page 2 again');
  await page.reload();
  assert.deepEqual(await column(page, 'title'), second, 'reload keeps the page');
  await page.goBack();
  assert.deepEqual(await column(page, 'title'), third, 'the browser\'s Back works too');
  await page.locator('#q-limit').fill('10');
  await page.locator('#q-limit').press('Enter');
  await page.waitForURL(/limit=10/);
  assert.equal((await column(page, 'title')).length, 10, 'the page size is the user\'s');
  assertNoProblems(problems);
});

test('query year = 1985 and title begins_with "B" through the builder', async () => {
  const { page, problems } = b;
  await byYearAndPrefix(page);
  const out = await doc.send(new QueryCommand({
    TableName: 'Movies', KeyConditionExpression: '#y = :y AND begins_with(title, :t)',
    ExpressionAttributeNames: { '#y': 'year' }, ExpressionAttributeValues: { ':y': 1985, ':t': 'B' },
    ReturnConsumedCapacity: 'INDEXES',
  }));
  assert.ok(out.Items.length > 0);
  assert.deepEqual(await column(page, 'title'), out.Items.map((m) => m.title));
  const req = JSON.parse(await page.locator('#r-request').textContent());
  assert.equal(req.KeyConditionExpression, '#year = :pk AND begins_with(#title, :sk)');
  assert.deepEqual(req.ExpressionAttributeValues, { ':pk': { N: '1985' }, ':sk': { S: 'B' } });
  assert.equal(req.ReturnConsumedCapacity, 'INDEXES');
  assert.ok(await page.locator('#r-request').isVisible(), 'the request is shown');
  const cap = await page.locator('#r-capacity').textContent();
  const units = String(Math.round(out.ConsumedCapacity.CapacityUnits * 10) / 10);
  assert.match(cap, new RegExp(`Consumed ${units.replace('.', '\\.')} RCU`));
  assert.match(cap, /table Movies/);
  assert.match(await page.locator('#r-count').textContent(), new RegExp(`${out.Count} items`));
  // A filter on a reserved word, descending: the form keeps it all.
  await page.locator('#q-order').selectOption('desc');
  await page.locator('input[name="fa"]').last().fill('info.rating');
  await page.locator('select[name="fo"]').last().selectOption('>=');
  await page.locator('select[name="ft"]').last().selectOption('N');
  await page.locator('input[name="fv"]').last().fill('7');
  await Promise.all([page.waitForURL(/fa=info.rating/), page.getByRole('button', { name: 'Run' }).click()]);
  const good = out.Items.filter((m) => m.info?.rating >= 7).map((m) => m.title).reverse();
  assert.deepEqual(await column(page, 'title'), good);
  await screenshot(page, 'table-query');
  // DynamoDB's own error, as it words it, the form kept.
  await page.locator('input[name="fa"]').first().fill('title');
  await page.locator('select[name="ft"]').first().selectOption('S');
  await page.locator('input[name="fv"]').first().fill('Brazil');
  await Promise.all([page.waitForURL(/fa=title/), page.getByRole('button', { name: 'Run' }).click()]);
  assert.match(await page.locator('.error').textContent(), /ValidationException.*Filter Expression can only contain non-primary key attributes/s);
  assert.equal(await page.locator('#q-pk').inputValue(), '1985');
  // Chromium reports the 400 of that page on its console: expected here.
  assertNoProblems(problems.splice(0).filter((p) => !/status of 400/.test(p)));
});

test('switch to an index', async () => {
  const { page, problems } = b;
  await ddb.send(new CreateTableCommand({
    TableName: 'Shop', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }, { AttributeName: 'color', AttributeType: 'S' },
      { AttributeName: 'price', AttributeType: 'N' }],
    KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    GlobalSecondaryIndexes: [{ IndexName: 'byColor', KeySchema: [{ AttributeName: 'color', KeyType: 'HASH' }, { AttributeName: 'price', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'ALL' } }],
  }));
  await waitUntilTableExists({ client: ddb, maxWaitTime: 30 }, { TableName: 'Shop' });
  for (const [id, color, price] of [['a', 'red', 5], ['b', 'blue', 12], ['c', 'red', 100], ['d', 'red', 20]]) {
    await doc.send(new PutCommand({ TableName: 'Shop', Item: { id, color, price, name: `thing ${id}` } }));
  }
  await page.goto(at('/console/tables/Shop'));
  assert.equal((await headers(page))[0], 'id');
  // By the keys: ArrowDown steps to the index without leaving the page;
  // Enter reads it, and the select has the focus again.
  await page.locator('#q-index').focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.locator('#q-index').inputValue(), 'byColor');
  assert.doesNotMatch(page.url(), /index=/, 'a step with the arrow keys does not reload');
  assert.ok(await page.locator('#q-index-hint').isVisible());
  await Promise.all([page.waitForURL(/index=byColor/), page.keyboard.press('Enter')]);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'q-index', 'the focus is back on the select');
  await Promise.all([page.waitForURL(/index=&/), page.keyboard.press('ArrowUp').then(() => page.keyboard.press('Enter'))]);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'q-index');
  // With the mouse (a choice in the list), at once.
  await Promise.all([page.waitForURL(/index=byColor/), page.locator('#q-index').selectOption('byColor')]);
  assert.deepEqual((await headers(page)).slice(0, 3), ['color', 'price', 'id'], 'the index\'s keys first');
  assert.equal(JSON.parse(await page.locator('#r-request').textContent()).IndexName, 'byColor');
  // Query the index: price is N, so 5 < 20 < 100.
  await page.getByLabel('Query').check();
  await page.locator('#q-pk').fill('red');
  await page.locator('#q-skop').selectOption('>');
  await page.locator('#q-sk').fill('6');
  await Promise.all([page.waitForURL(/op=query/), page.getByRole('button', { name: 'Run' }).click()]);
  assert.deepEqual(await column(page, 'price'), ['20', '100']);
  assertNoProblems(problems);
});

test('edit an item and see the change through boto3', async () => {
  const { page, problems } = b;
  await byYearAndPrefix(page);
  const row = page.locator('table.items tbody tr', { hasText: 'Brazil' });
  await row.getByRole('link', { name: 'open' }).click();
  await page.getByRole('heading', { name: /Item/ }).waitFor();
  const text = await page.locator('#i-text').inputValue();
  const item = JSON.parse(text);
  assert.equal(item.title, 'Brazil');
  assert.match(await page.locator('form.editor').textContent(), /Plain JSON has no set types/);
  item.info.rating = 9.25;
  await page.locator('#i-text').fill(JSON.stringify(item, null, 2));
  // The DynamoDB JSON view of the edited text, then back.
  await page.locator('#i-to-ddb').click();
  await page.locator('#i-to-plain').waitFor();
  assert.match(await page.locator('#i-text').inputValue(), /"rating": \{\s*"N": "9.25"/);
  await screenshot(page, 'item-edit');
  await page.locator('#i-to-plain').click();
  await page.locator('#i-to-ddb').waitFor();
  await page.locator('#i-save').click();
  await page.locator('#i-notice').waitFor();
  assert.equal(await page.locator('#i-notice').textContent(), 'Saved.');
  // Post, redirect, get: the address is the item's, and a reload reads it
  // (the confirmation is gone, nothing is put again).
  assert.match(page.url(), /\/console\/tables\/Movies\/item\?key=/);
  await page.reload();
  assert.equal(await page.locator('#i-notice').count(), 0, 'the confirmation is shown once');
  assert.equal(JSON.parse(await page.locator('#i-text').inputValue()).info.rating, 9.25);
  const got = boto3(dynago.url, 'print(json.dumps(ddb.get_item(TableName="Movies", Key={"year": {"N": "1985"}, "title": {"S": "Brazil"}})["Item"]["info"]["M"]["rating"]))');
  assert.deepEqual(got, { N: '9.25' });
  // Ctrl+Enter saves too.
  const again = JSON.parse(await page.locator('#i-text').inputValue());
  again.info.rating = 8;
  await page.locator('#i-text').fill(JSON.stringify(again));
  await page.locator('#i-text').press('Control+Enter');
  await page.waitForLoadState();
  await page.locator('#i-notice').waitFor();
  const got2 = boto3(dynago.url, 'print(json.dumps(ddb.get_item(TableName="Movies", Key={"year": {"N": "1985"}, "title": {"S": "Brazil"}})["Item"]["info"]["M"]["rating"]))');
  assert.deepEqual(got2, { N: '8' });
  assertNoProblems(problems);
});

test('duplicate and delete an item', async () => {
  const { page, problems } = b;
  const key = JSON.stringify({ year: { N: '1985' }, title: { S: 'Brazil' } });
  await page.goto(at(`/console/tables/Movies/item?key=${encodeURIComponent(key)}`));
  await page.locator('#i-duplicate').click();
  await page.getByRole('heading', { name: 'Duplicate an item' }).waitFor();
  const item = JSON.parse(await page.locator('#i-text').inputValue());
  item.title = 'Brazil (copy)';
  await page.locator('#i-text').fill(JSON.stringify(item, null, 2));
  await page.getByRole('button', { name: 'Create' }).click();
  await page.locator('#i-notice').waitFor();
  assert.match(await page.locator('#i-notice').textContent(), /Created the item/);
  const copy = await doc.send(new GetCommand({ TableName: 'Movies', Key: { year: 1985, title: 'Brazil (copy)' } }));
  const orig = await doc.send(new GetCommand({ TableName: 'Movies', Key: { year: 1985, title: 'Brazil' } }));
  assert.deepEqual({ ...copy.Item, title: 'Brazil' }, orig.Item);
  // Delete the copy: it asks first.
  await page.locator('#i-delete').click();
  await page.locator('#i-delete-confirm').waitFor();
  assert.ok((await doc.send(new GetCommand({ TableName: 'Movies', Key: { year: 1985, title: 'Brazil (copy)' } }))).Item, 'not deleted before the confirm');
  // The question is in sight, its button focused: Enter deletes.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'i-delete-confirm');
  const box = await page.locator('#i-delete-confirm').boundingBox();
  assert.ok(box && box.y + box.height <= page.viewportSize().height, `the confirmation is in sight (y=${box?.y})`);
  await Promise.all([page.waitForURL(/\/console\/tables\/Movies\?flash=/), page.keyboard.press('Enter')]);
  assert.match(await page.locator('.flash .ok').textContent(), /Deleted the item year = 1985, title = Brazil \(copy\) from Movies/);
  assert.equal((await doc.send(new GetCommand({ TableName: 'Movies', Key: { year: 1985, title: 'Brazil (copy)' } }))).Item, undefined);
  assertNoProblems(problems);
});

test('download the result as JSON and CSV', async () => {
  const { page, problems } = b;
  await byYearAndPrefix(page);
  const want = (await doc.send(new QueryCommand({
    TableName: 'Movies', KeyConditionExpression: '#y = :y AND begins_with(title, :t)',
    ExpressionAttributeNames: { '#y': 'year' }, ExpressionAttributeValues: { ':y': 1985, ':t': 'B' },
  }))).Items;
  const save = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(id).click()]);
    const file = path.join(tmp.dir, dl.suggestedFilename());
    await dl.saveAs(file);
    return file;
  };
  assert.equal((await page.locator('#d-json').textContent()).trim(), 'JSON lines');
  assert.equal((await page.locator('#d-dynamodb-json').textContent()).trim(), 'DynamoDB JSON lines');
  const jsonFile = await save('#d-json');
  assert.equal(path.basename(jsonFile), 'Movies.jsonl', 'JSON Lines, not one JSON document');
  const lines = readFileSync(jsonFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((m) => m.title), want.map((m) => m.title));
  assert.deepEqual(lines[0], want[0], 'plain JSON is the document client\'s item');
  const ddbFile = await save('#d-dynamodb-json');
  assert.equal(path.basename(ddbFile), 'Movies.dynamodb.jsonl');
  const csvFile = await save('#d-csv');
  assert.equal(path.basename(csvFile), 'Movies.csv');
  const csv = readFileSync(csvFile, 'utf8').trim().split(/\r?\n/);
  assert.equal(csv.length, want.length + 1, 'a header and a row an item');
  assert.ok(csv[0].split(',').includes('year:N') && csv[0].split(',').includes('title:S'), `typed headers: ${csv[0]}`);
  // dynago load reads both back to the same items.
  for (const [table, file] of [['FromJSON', jsonFile], ['FromDDB', ddbFile], ['FromCSV', csvFile]]) {
    const r = spawnSync(process.env.DYNAGO_BIN, ['load', table, file, '--create', '--key', 'year:N,title:S', '--endpoint', String(dynago.url).replace(/\/$/, ''), '--quiet'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const back = (await doc.send(new ScanCommand({ TableName: table }))).Items.sort((x, y) => x.title.localeCompare(y.title));
    assert.deepEqual(back, [...want].sort((x, y) => x.title.localeCompare(y.title)), `${table}: the items read back`);
  }
  assertNoProblems(problems);
});

test('a filtered page reads on until it is full, and pages on', async () => {
  const { page, problems } = b;
  // 4 movies of the 4,610 have a rating above 9 (or so: count them).
  const all = [];
  let start;
  do {
    const out = await doc.send(new ScanCommand({ TableName: 'Movies', FilterExpression: 'info.rating > :r', ExpressionAttributeValues: { ':r': 9 }, ExclusiveStartKey: start }));
    all.push(...out.Items);
    start = out.LastEvaluatedKey;
  } while (start);
  assert.ok(all.length > 0 && all.length < 50, `${all.length} matches`);
  await page.goto(at('/console/tables/Movies'));
  await page.locator('input[name="fa"]').first().fill('info.rating');
  await page.locator('select[name="fo"]').first().selectOption('>');
  await page.locator('select[name="ft"]').first().selectOption('N');
  await page.locator('input[name="fv"]').first().fill('9');
  await Promise.all([page.waitForURL(/fa=info.rating/), page.getByRole('button', { name: 'Run' }).click()]);
  // All of them on page 1: the page read the table through (93 requests
  // of Limit 50), with the sums shown and the first request as sent.
  const shown = await column(page, 'title');
  assert.deepEqual([...shown].sort(), all.map((m) => m.title).sort());
  assert.match(await page.locator('#r-count').textContent(), new RegExp(`^${all.length} items? \\(Count\\)$`));
  assert.match(await page.locator('#r-scanned').textContent(), /ScannedCount 4610/);
  assert.match(await page.locator('#r-requests').textContent(), /^93 requests$/);
  const req = JSON.parse(await page.locator('#r-request').textContent());
  assert.equal(req.Limit, 50);
  assert.equal(req.ExclusiveStartKey, undefined, 'the first request is shown');
  assert.match(await page.locator('#r-reads-note').textContent(), /ExclusiveStartKey/);
  assert.equal(await page.locator('#r-next').count(), 0, 'the table ended');
  await screenshot(page, 'table-filter-fill');
  // One request a page: DynamoDB's Limit alone.
  await page.locator('#q-one').check();
  await Promise.all([page.waitForURL(/one=1/), page.getByRole('button', { name: 'Run' }).click()]);
  assert.match(await page.locator('#r-scanned').textContent(), /ScannedCount 50/);
  assert.equal(await page.locator('#r-requests').count(), 0);
  // A commoner filter and a page size of 10: pages of 10 or more; Next
  // and Back page on.
  await page.locator('#q-one').uncheck();
  await page.locator('input[name="fv"]').first().fill('7.5');
  await page.locator('#q-limit').fill('10');
  await Promise.all([page.waitForURL(/limit=10/), page.getByRole('button', { name: 'Run' }).click()]);
  const first = await column(page, 'title');
  assert.ok(first.length >= 10, `page 1 holds ${first.length}`);
  await Promise.all([page.waitForURL(/p=/), page.locator('#r-next').click()]);
  const second = await column(page, 'title');
  assert.ok(second.length >= 10 && !second.some((t) => first.includes(t)), `page 2 holds ${second.length}, other items`);
  await page.locator('#r-back').click();
  await page.waitForLoadState();
  assert.deepEqual(await column(page, 'title'), first, 'Back shows page 1 again');
  assertNoProblems(problems);
});
