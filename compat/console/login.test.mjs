// serve --credentials FILE: the console asks for an access key id and its
// secret from that file first, keeps a session cookie, and signs out; a
// wrong secret is refused on the form. The API still wants SigV4 signed
// with the same keys (compat/auth covers the clients).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoProblems, launch, screenshot, startDynago, tempDir } from './lib.mjs';

let dynago;
let tls;
let b;
let tmp;

before(async () => {
  tmp = tempDir();
  const creds = path.join(tmp.dir, 'credentials');
  writeFileSync(creds, '[console]\naws_access_key_id = AKIDCONSOLETEST\naws_secret_access_key = console/secret+key\n');
  dynago = await startDynago(['--credentials', creds]);
  // A self-signed certificate as README.md "Authentication and TLS" makes one.
  const ssl = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', path.join(tmp.dir, 'key.pem'), '-out', path.join(tmp.dir, 'cert.pem')], { encoding: 'utf8' });
  if (ssl.status !== 0) throw new Error(`openssl: ${ssl.stderr}`);
  tls = await startDynago(['--credentials', creds, '--tls-cert', path.join(tmp.dir, 'cert.pem'), '--tls-key', path.join(tmp.dir, 'key.pem')]);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
  await tls?.stop();
  tmp?.remove();
});

test('the console asks for a key of --credentials, and signs out', async () => {
  const { page, context, problems } = b;
  await page.goto(new URL('/console/?after=login', dynago.url).href);
  await page.getByRole('heading', { name: 'Sign in to dynago' }).waitFor();
  await screenshot(page, 'login');
  await page.getByLabel('Access key id').fill('AKIDCONSOLETEST');
  await page.getByLabel('Secret access key').fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  assert.match(await page.getByRole('alert').textContent(), /not one of the server's --credentials/);
  // The access key id is kept, the secret is not.
  assert.equal(await page.getByLabel('Access key id').inputValue(), 'AKIDCONSOLETEST');
  assert.equal(await page.getByLabel('Secret access key').inputValue(), '');

  await page.getByLabel('Secret access key').fill('console/secret+key');
  await page.getByLabel('Secret access key').press('Enter');
  await page.waitForURL(/\/console\/\?after=login$/);
  const cookie = (await context.cookies()).find((c) => c.name === 'dynago_console');
  assert.ok(cookie, 'no session cookie');
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Strict');
  assert.equal(cookie.path, '/console/');
  assert.match(await page.locator('header').textContent(), /AKIDCONSOLETEST/);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to dynago' }).waitFor();
  await page.goto(new URL('/console/', dynago.url).href);
  await page.getByRole('heading', { name: 'Sign in to dynago' }).waitFor();
  // 4xx on the wrong secret is expected; only 5xx and page errors count.
  assertNoProblems(problems.filter((p) => !/status of 401/.test(p)));
});

test('the API still verifies signatures: an unsigned call is refused', async () => {
  const res = await fetch(dynago.url, {
    method: 'POST', headers: { 'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.ListTables' }, body: '{}',
  });
  assert.equal(res.status, 400);
  const body = await res.json();
  assert.match(body.__type, /MissingAuthenticationToken|IncompleteSignature|UnrecognizedClient/);
});

test('over TLS (--tls-cert) the session cookie is Secure', async () => {
  const context = await b.browser.newContext({ ignoreHTTPSErrors: true });
  const page = await context.newPage();
  try {
    assert.equal(tls.url.protocol, 'https:');
    await page.goto(new URL('/console/', tls.url).href);
    await page.getByLabel('Access key id').fill('AKIDCONSOLETEST');
    await page.getByLabel('Secret access key').fill('console/secret+key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Tables' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'dynago_console');
    assert.ok(cookie, 'no session cookie');
    assert.equal(cookie.secure, true);
    assert.equal(cookie.httpOnly, true);
  } finally {
    await context.close();
  }
});
