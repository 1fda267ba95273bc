// The PartiQL editor (/console/partiql): a SELECT's items as a table and
// its next page, an error as DynamoDB words it (compared with what the JS
// SDK gets for the same statement), and the tab's statement history.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ExecuteStatementCommand } from '@aws-sdk/client-dynamodb';
import { assertNoProblems, clients, launch, loadMovies, screenshot, startDynago } from './lib.mjs';

let dynago;
let b;

before(async () => {
  dynago = await startDynago();
  await loadMovies(dynago.url, 300);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
});

const select = 'SELECT * FROM "Movies" WHERE "year" = 2011';
const bad = 'SELECT * FROM "Movies" WHERE year = 1985';

test('a SELECT shows its items, a bad statement DynamoDB\'s error, and the history reuses statements', async () => {
  const { page, problems } = b;
  const { ddb } = clients(dynago.url);
  const want = (await ddb.send(new ExecuteStatementCommand({ Statement: select }))).Items;

  await page.goto(new URL('/console/partiql?table=Movies', dynago.url).href);
  const editor = page.getByLabel('Statement');
  assert.equal(await editor.inputValue(), 'SELECT * FROM "Movies"');
  assert.equal(await page.locator('#history li').count(), 0);

  // Ctrl+Enter runs the statement; htmx swaps the result in place.
  await editor.fill(select);
  await editor.press('Control+Enter');
  const rows = page.locator('#result table.items tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), want.length);
  const summary = await page.locator('.pq-summary').textContent();
  assert.match(summary, new RegExp(`${want.length} items`));
  assert.match(summary, /consumed [\d.]+ capacity units? on Movies/);
  const heads = await page.locator('#result table.items thead th').allTextContents();
  assert.deepEqual(heads.slice(0, 2), ['year', 'title'], 'the key attributes come first');
  const titles = await page.locator('#result table.items tbody tr td:nth-child(2)').allTextContents();
  assert.deepEqual(titles.sort(), want.map((i) => i.title.S).sort());
  assert.equal(page.url(), new URL('/console/partiql?table=Movies', dynago.url).href, 'htmx swapped the result in place');
  await screenshot(page, 'partiql-results');

  // An error, as DynamoDB words it.
  let sdkErr;
  try { await ddb.send(new ExecuteStatementCommand({ Statement: bad })); } catch (e) { sdkErr = e; }
  assert.equal(sdkErr?.name, 'ValidationException');
  await editor.fill(bad);
  await page.getByRole('button', { name: 'Run' }).click();
  const alert = page.locator('#result .error[role="alert"]');
  await alert.waitFor();
  assert.equal((await alert.textContent()).trim(), `ValidationException: ${sdkErr.message}`);
  assert.match(sdkErr.message, /Unexpected keyword/);
  assert.equal(await editor.inputValue(), bad, 'the statement stays in the editor');
  await screenshot(page, 'partiql-error');

  // The history: newest first; a statement run again moves up, not twice.
  const history = page.locator('#history li button');
  assert.deepEqual(await history.allTextContents(), [bad, select]);
  await history.nth(1).click();
  assert.equal(await editor.inputValue(), select);
  await editor.press('Control+Enter');
  await rows.first().waitFor();
  assert.deepEqual(await history.allTextContents(), [select, bad]);

  // It lasts the tab's session.
  await page.reload();
  assert.deepEqual(await page.locator('#history li button').allTextContents(), [select, bad]);
  assertNoProblems(problems);
});

test('Limit pages through the result with the NextToken', async () => {
  const { page, problems } = b;
  await page.goto(new URL('/console/partiql', dynago.url).href);
  await page.getByLabel('Statement').fill(select);
  await page.getByLabel('Limit').fill('8');
  await page.getByRole('button', { name: 'Run' }).click();
  const rows = page.locator('#result table.items tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 8);
  const seen = new Set(await page.locator('#result table.items tbody tr td:nth-child(2)').allTextContents());
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.locator('.pq-summary', { hasText: 'on page 2' }).waitFor();
  for (const t of await page.locator('#result table.items tbody tr td:nth-child(2)').allTextContents()) {
    assert.ok(!seen.has(t), `${t} shown on both pages`);
    seen.add(t);
  }
  assertNoProblems(problems);
});
