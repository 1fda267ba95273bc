// The console's frame: it is served at /console/ by default and not with
// --console=false, its assets are the binary's own (nothing is fetched off
// loopback), an empty server says how to start, and a POST without the
// session's CSRF token is refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertNoProblems, launch, screenshot, startDynago } from './lib.mjs';

let dynago;
let off;
let b;

before(async () => {
  dynago = await startDynago();
  off = await startDynago(['--console=false']);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
  await off?.stop();
});

test('an empty server says how to start', async () => {
  const { page, problems } = b;
  await page.goto(new URL('/console/', dynago.url).href);
  await assert.doesNotReject(page.getByRole('heading', { name: 'Tables' }).waitFor());
  const empty = await page.locator('.empty').first().textContent();
  assert.match(empty, /No tables yet/);
  assert.match(empty, new RegExp(dynago.url.host.replace(/\./g, '\\.')));
  await screenshot(page, 'tables-empty');
  assertNoProblems(problems);
});

test('--console=false serves no console', async () => {
  const res = await fetch(new URL('/console/', off.url));
  assert.equal(res.status, 404);
});

test('a POST without the CSRF token is refused', async () => {
  const res = await fetch(new URL('/console/logout', dynago.url), { method: 'POST' });
  assert.equal(res.status, 403);
});
