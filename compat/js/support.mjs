// Shared helpers for the JavaScript (AWS SDK v3) compatibility suite.
// Everything talks only to $DYNAGO_ENDPOINT (a loopback address) with dummy
// credentials; no real AWS account is ever involved.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  BatchWriteItemCommand,
} from '@aws-sdk/client-dynamodb';

// Never pick up a developer's real AWS profile / credentials / config.
for (const v of ['AWS_PROFILE', 'AWS_DEFAULT_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_SECURITY_TOKEN']) {
  delete process.env[v];
}
Object.assign(process.env, {
  AWS_ACCESS_KEY_ID: 'dummy',
  AWS_SECRET_ACCESS_KEY: 'dummy',
  AWS_REGION: 'us-east-1',
  AWS_DEFAULT_REGION: 'us-east-1',
  AWS_CONFIG_FILE: '/dev/null',
  AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
  AWS_EC2_METADATA_DISABLED: 'true',
  // Node 20 is still supported by the pinned SDK; silence its advance notice.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

export function endpoint() {
  const ep = process.env.DYNAGO_ENDPOINT;
  if (!ep) throw new Error('DYNAGO_ENDPOINT is not set (e.g. http://127.0.0.1:8000)');
  const host = new URL(ep).hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' ||
    (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback && process.env.DYNAGO_ALLOW_NON_LOOPBACK !== '1') {
    throw new Error(`DYNAGO_ENDPOINT=${ep} is not a loopback address; refusing to send traffic there ` +
      '(set DYNAGO_ALLOW_NON_LOOPBACK=1 to override)');
  }
  return ep;
}

/** DynamoDBClient configuration: the only thing that differs from talking to AWS. */
export function clientConfig() {
  return {
    endpoint: endpoint(),
    region: 'us-east-1',
    credentials: { accessKeyId: 'dummy', secretAccessKey: 'dummy' },
    // No retries: a 5xx or throttle from the server under test must surface.
    maxAttempts: 1,
  };
}

export function makeClient() {
  return new DynamoDBClient(clientConfig());
}

/** compat-js-<purpose>-<random>: unique per run so suites can run in parallel. */
export function uniqueName(purpose) {
  return `compat-js-${purpose}-${randomBytes(6).toString('hex')}`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function waitActive(client, name, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    if (Table.TableStatus === 'ACTIVE') return Table;
    if (Date.now() > deadline) throw new Error(`table ${name} not ACTIVE after ${timeoutMs}ms`);
    await sleep(100);
  }
}

export async function waitGone(client, name, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.send(new DescribeTableCommand({ TableName: name }));
    } catch (e) {
      if (e.name === 'ResourceNotFoundException') return;
      throw e;
    }
    if (Date.now() > deadline) throw new Error(`table ${name} still exists ${timeoutMs}ms after DeleteTable`);
    await sleep(100);
  }
}

/** Create an on-demand table (PK/SK strings by default) and wait until ACTIVE. */
export async function createTable(client, name, { hash = ['PK', 'S'], range = ['SK', 'S'], wait = true, extra = {} } = {}) {
  const AttributeDefinitions = [{ AttributeName: hash[0], AttributeType: hash[1] }];
  const KeySchema = [{ AttributeName: hash[0], KeyType: 'HASH' }];
  if (range) {
    AttributeDefinitions.push({ AttributeName: range[0], AttributeType: range[1] });
    KeySchema.push({ AttributeName: range[0], KeyType: 'RANGE' });
  }
  const input = { TableName: name, AttributeDefinitions, KeySchema, ...extra };
  if (!input.ProvisionedThroughput) input.BillingMode = 'PAY_PER_REQUEST';
  const out = await client.send(new CreateTableCommand(input));
  if (wait) await waitActive(client, name);
  return out;
}

/**
 * Delete a table if it exists. A table still CREATING cannot be deleted yet
 * (ResourceInUseException), so retry until it can.
 */
export async function deleteTableQuietly(client, name, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.send(new DeleteTableCommand({ TableName: name }));
      return;
    } catch (e) {
      if (e.name === 'ResourceNotFoundException') return;
      if (e.name !== 'ResourceInUseException' || Date.now() > deadline) throw e;
    }
    await sleep(200);
  }
}

/**
 * Await `promise` and assert it rejects with a DynamoDB error of the given name,
 * HTTP status 400 and (optionally) a message containing `message`.
 */
export async function expectError(promise, name, message) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected ${name} but the call succeeded`);
  assert.equal(err.name, name, `wrong error: ${err.name}: ${err.message}`);
  assert.equal(err.$metadata?.httpStatusCode, 400, `HTTP status for ${name}`);
  if (message !== undefined) {
    assert.ok(err.message.includes(message), `error message ${JSON.stringify(err.message)} should contain ${JSON.stringify(message)}`);
  }
  return err;
}

/** BatchWriteItem (low-level AttributeValues) in chunks of 25; nothing may be left unprocessed. */
export async function batchPutRaw(client, table, items) {
  for (let i = 0; i < items.length; i += 25) {
    const out = await client.send(new BatchWriteItemCommand({
      RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
    }));
    assert.deepEqual(out.UnprocessedItems ?? {}, {}, 'BatchWriteItem left unprocessed items');
  }
}
