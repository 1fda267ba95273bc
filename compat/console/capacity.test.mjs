// Capacity and partitions: with --throttle --capacity-scale 100 (a
// partition serves 10 write units a second), a loadgen burst of open
// orders (every one on GSI1PK = STATUS#open, seed 001's hot GSI key)
// lights up the GSI's hot partition in the heat map with throttle marks,
// and, once the page's button enabled Contributor Insights, lists
// STATUS#open as the hottest key. The table's own figures match GET
// /insights for the same window.
//
// Needs $DYNAGO_BIN; the load generator is built from bench/loadgen
// ($LOADGEN_BIN to use a built one).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CreateTableCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { assertNoProblems, clients, launch, repo, screenshot, startDynago } from './lib.mjs';

let dynago;
let b;
let loadgen = process.env.LOADGEN_BIN;
let built = false;

before(async () => {
  if (!loadgen) {
    loadgen = path.join(os.tmpdir(), `dynago-console-loadgen-${process.pid}`);
    const r = spawnSync('go', ['build', '-o', loadgen, './bench/loadgen'], { cwd: repo, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`go build ./bench/loadgen: ${r.stderr}`);
    built = true;
  }
  dynago = await startDynago(['--throttle', '--capacity-scale', '100']);
  b = await launch();
});

after(async () => {
  await b?.browser.close();
  await dynago?.stop();
  if (built) rmSync(loadgen, { force: true });
});

// runLoadgen drives put-open at rate a second for seconds against the
// table; resolves with its output.
function runLoadgen(table, rate, seconds) {
  return new Promise((resolve, reject) => {
    const child = spawn(loadgen, ['-endpoint', dynago.url.href.replace(/\/$/, ''), '-op', 'put-open', '-gsis', '1', '-table', table,
      '-c', '4', '-rate', String(rate), '-duration', `${seconds}s`, '-warmup', '0s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`loadgen exited ${code}:\n${out}`))));
  });
}

test('a loadgen burst on one GSI key lights up its partition, throttles marked, the hot key listed', async () => {
  const { page, problems } = b;
  const { ddb } = clients(dynago.url);
  // loadgen's own table shape (bench/loadgen ensureTable with -gsis 1).
  await ddb.send(new CreateTableCommand({
    TableName: 'hot', BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((n) => ({ AttributeName: n, AttributeType: 'S' })),
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
    GlobalSecondaryIndexes: [{
      IndexName: 'GSI1', Projection: { ProjectionType: 'ALL' },
      KeySchema: [{ AttributeName: 'GSI1PK', KeyType: 'HASH' }, { AttributeName: 'GSI1SK', KeyType: 'RANGE' }],
    }],
  }));
  await waitUntilTableExists({ client: ddb, maxWaitTime: 30 }, { TableName: 'hot' });

  await page.goto(new URL('/console/capacity?table=hot&window=1m', dynago.url).href);
  await page.getByRole('heading', { name: 'Capacity and partitions' }).waitFor();
  assert.match(await page.locator('.capacity-throttle').textContent(), /10 write units a second/);
  const gsi = page.locator('section.keyspace', { has: page.getByRole('heading', { name: 'GSI GSI1' }) });
  // Enable Contributor Insights on the GSI with the page's button.
  await gsi.getByRole('button', { name: 'Enable Contributor Insights on GSI1' }).click();
  await page.getByRole('status').filter({ hasText: 'Contributor Insights enabled' }).waitFor();
  await assert.doesNotReject(gsi.locator('.ci-status', { hasText: /^ENABLED$/ }).waitFor());
  assert.equal(await gsi.getByRole('button', { name: /Enable Contributor Insights/ }).count(), 0);

  // 24 open orders a second for 8 s: the table's four partitions take
  // about 6 each (of 10), the GSI's STATUS#open partition all 24.
  const out = await runLoadgen('hot', 24, 8);
  assert.match(out, /put-open/);

  // The hot partition's row in the numbers, then the map.
  const hotRow = gsi.locator('table.partitions tr.throttled');
  await hotRow.first().waitFor({ state: 'attached', timeout: 10000 });
  assert.equal(await hotRow.count(), 1, 'one GSI partition throttled');
  assert.equal(await page.locator('section.keyspace').first().locator('table.partitions tr.throttled').count(), 0, 'no table partition throttled');
  await gsi.locator('ol[data-view="mostAccessedPartitionKeys"] li', { hasText: 'GSI1PK=STATUS#open' }).waitFor();
  await gsi.locator('ol[data-view="mostThrottledPartitionKeys"] li', { hasText: 'GSI1PK=STATUS#open' }).waitFor();

  // The heat map: red where the hot partition ran over its limit.
  const canvas = gsi.locator('canvas.ks-heat');
  await canvas.waitFor();
  const red = await canvas.evaluate((c) => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i] > 140 && px[i + 1] < 60 && px[i + 2] < 60) n++;
    return n;
  });
  assert.ok(red > 50, `the hot partition is drawn red (${red} red pixels)`);

  // Hovering a throttled cell tells its numbers.
  const data = await page.evaluate(async () => (await fetch(document.getElementById('capacity').dataset.src)).json());
  const heat = data.keySpaces[1].heat;
  const p = heat.partitions.findIndex((x) => x.writeThrottled.some((n) => n > 0));
  const ks = heat.partitions[p].writeThrottled.map((n, k) => (n > 0 ? k : -1)).filter((k) => k >= 0);
  const k = ks[Math.floor(ks.length / 2)];
  const box = await canvas.boundingBox();
  const cellW = (box.width - 104) / heat.seconds.length;
  await canvas.hover({ position: { x: 104 + (k + 0.5) * cellW, y: p * 24 + 12 } });
  const tip = gsi.locator('.heat-tip');
  await tip.waitFor();
  assert.match(await tip.textContent(), new RegExp(`Partition ${p + 1} \\(hash from ${heat.partitions[p].hashStart}\\)[\\s\\S]*writes [\\d.]+/s of 10\\.00[\\s\\S]*throttled: 0 reads, \\d+ writes`));

  // The keyboard reaches the cells too: focus the map, move with the arrows.
  await page.mouse.move(0, 0);
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowLeft');
  assert.match(await tip.textContent(), /^Partition \d \(hash from [0-9a-f]{16}\)/);
  await page.keyboard.press('Escape');
  assert.equal(await tip.isVisible(), false);

  // The table's figures are GET /insights' for the same window.
  const [mine, insights] = await Promise.all([
    fetch(new URL('/console/capacity/data?table=hot&window=1m', dynago.url)).then((r) => r.json()),
    fetch(new URL('/insights?table=hot&window=1m', dynago.url)).then((r) => r.json()),
  ]);
  for (const i of [0, 1]) {
    const a = mine.keySpaces[i];
    const z = insights.keySpaces[i];
    // Fetched a moment apart: the same units over windows that differ by
    // that moment.
    const units = (x, r) => x.writeUnitsPerSecond * r.windowSeconds;
    assert.ok(Math.abs(units(a, mine) - units(z, insights)) < 1.01, `key space ${i}: ${units(a, mine)} vs ${units(z, insights)} write units`);
    assert.equal(a.partitions.length, z.partitions.length);
  }
  await canvas.scrollIntoViewIfNeeded();
  await screenshot(page, 'capacity-heat');
  assertNoProblems(problems);
});

test('without --throttle the page says partition heat needs it, and still charts the units', async () => {
  const plain = await startDynago();
  const ctx = await b.browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await ctx.newPage();
    const problems = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
    const { ddb } = clients(plain.url);
    for (const TableName of ['plain', 'plain2']) {
      await ddb.send(new CreateTableCommand({
        TableName, BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }));
    }
    await page.goto(new URL('/console/capacity', plain.url).href);
    assert.match(await page.locator('.capacity-throttle').textContent(), /Partition heat needs dynago serve --throttle/);
    await page.locator('section.keyspace .ks-chart .uplot').waitFor();
    assert.equal(await page.locator('canvas.ks-heat').count(), 0);

    // The table picker and the keyboard: an arrow key moves the choice
    // and stays on the page, focus on the select; Enter shows the table.
    const pick = page.locator('#capacity-table');
    const url = page.url();
    await pick.focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await pick.inputValue(), 'plain2');
    await page.waitForTimeout(300);
    assert.equal(page.url(), url, 'an arrow key reloaded the page');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'capacity-table', 'the focus left the select');
    await page.keyboard.press('Enter');
    await page.waitForURL(/table=plain2/);
    await page.getByRole('heading', { name: 'Table plain2' }).waitFor();
    // After the reload the focus is back on the picker it was sent from.
    await page.waitForFunction(() => document.activeElement?.id === 'capacity-table');
    // The window picker, with the mouse and the Show button.
    await page.getByLabel('Window').selectOption('1m');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/window=1m/);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
    await plain.stop();
  }
});
