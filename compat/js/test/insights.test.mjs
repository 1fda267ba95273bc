// Contributor Insights through @aws-sdk/client-dynamodb and the document
// client: enabling on a table, the Describe and List answers (Date for
// LastUpdateDateTime, rule names), a missing index, and dynago's insights
// report (GET /insights) naming the partition key a document-client
// workload hammers. Shapes and messages:
// docs/research-contributor-insights.md (live DynamoDB probes).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DescribeContributorInsightsCommand, ListContributorInsightsCommand, UpdateContributorInsightsCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createTable, deleteTableQuietly, endpoint, expectError, makeClient, uniqueName } from '../support.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
let table;
before(async () => {
  table = uniqueName('insights');
  await createTable(client, table);
});
after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
});

test('UpdateContributorInsights, DescribeContributorInsights, ListContributorInsights', async () => {
  const up = await client.send(new UpdateContributorInsightsCommand({ TableName: table, ContributorInsightsAction: 'ENABLE' }));
  assert.equal(up.ContributorInsightsStatus, 'ENABLING');
  assert.equal(up.ContributorInsightsMode, 'ACCESSED_AND_THROTTLED_KEYS');
  let d;
  for (let i = 0; i < 100; i++) {
    d = await client.send(new DescribeContributorInsightsCommand({ TableName: table }));
    if (d.ContributorInsightsStatus === 'ENABLED') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(d.ContributorInsightsStatus, 'ENABLED');
  assert.ok(d.LastUpdateDateTime instanceof Date, 'LastUpdateDateTime is a Date');
  assert.deepEqual(d.ContributorInsightsRuleList.map((r) => r.split('-')[1]), ['PKC', 'PKT', 'SKC', 'SKT']);
  const list = await client.send(new ListContributorInsightsCommand({ TableName: table }));
  assert.deepEqual(list.ContributorInsightsSummaries, [
    { TableName: table, ContributorInsightsStatus: 'ENABLED', ContributorInsightsMode: 'ACCESSED_AND_THROTTLED_KEYS' },
  ]);
  await expectError(client.send(new DescribeContributorInsightsCommand({ TableName: table, IndexName: 'nope' })),
    'ResourceNotFoundException', `Requested resource not found: Index: nope not found for table: ${table}`);
});

test('the insights report names the hot partition key', async () => {
  await client.send(new UpdateContributorInsightsCommand({ TableName: table, ContributorInsightsAction: 'ENABLE' }));
  for (let i = 0; i < 6; i++) {
    await doc.send(new PutCommand({ TableName: table, Item: { PK: 'DATE#2026-11-30', SK: `POST#${i}` } }));
  }
  await doc.send(new PutCommand({ TableName: table, Item: { PK: 'DATE#2026-11-29', SK: 'POST#0' } }));
  await doc.send(new QueryCommand({
    TableName: table, KeyConditionExpression: 'PK = :d', ExpressionAttributeValues: { ':d': 'DATE#2026-11-30' },
  }));
  const res = await fetch(`${endpoint()}/insights?table=${encodeURIComponent(table)}&top=3`);
  assert.equal(res.status, 200);
  const rep = await res.json();
  const [t] = rep.keySpaces;
  assert.deepEqual(t.mostAccessedPartitionKeys.map((k) => k.key), [{ PK: { S: 'DATE#2026-11-30' } }, { PK: { S: 'DATE#2026-11-29' } }]);
  const hot = t.mostAccessedPartitionKeys[0];
  // Six 1-unit writes and an eventually consistent Query of 0.5.
  assert.ok(Math.abs(hot.writeUnitsPerSecond * rep.windowSeconds - 6) < 1e-6, JSON.stringify(hot));
  assert.ok(Math.abs(hot.readUnitsPerSecond * rep.windowSeconds - 0.5) < 1e-6, JSON.stringify(hot));
  assert.equal(t.mostAccessedKeys.length, 3);
  const missing = await fetch(`${endpoint()}/insights?table=nope-${table}`);
  assert.equal(missing.status, 404);
});
