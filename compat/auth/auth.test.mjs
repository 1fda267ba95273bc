// The AWS SDK for JavaScript v3 against "dynago serve --credentials FILE
// --tls-cert C --tls-key K". compat/auth/run.sh starts the server and runs
// this (through compat/run.sh auth-js) with DYNAGO_ENDPOINT (https on
// loopback), DYNAGO_AUTH_CREDENTIALS (the shared-credentials file the server
// reads: profiles default and ci) and NODE_EXTRA_CA_CERTS=DYNAGO_AUTH_CA (the
// self-signed certificate; Node reads it at start).
//
// Messages, from internal/auth/SOURCES.md (table "Messages"):
//   row 11: UnrecognizedClientException "The security token included in the
//     request is invalid." for an unknown access key (dynalite index.js;
//     DynamoDB Scan quoted in yegor256/s3auth#237 and edasque/DynamoDBtoCSV#36)
//   row 12: InvalidSignatureException "The request signature we calculated
//     does not match the signature you provided. ..." for a wrong secret
//     (DynamoDB quoted in boto/boto#1552, awslabs/dynamodb-cross-region-library#34,
//     vibe-aws/vibe-aws#1; dynalite index.js)
//   rows 5 and 6: InvalidSignatureException "Signature expired: ... (... - 15
//     min.)" and "Signature not yet current: ... (... + 15 min.)" (DynamoDB
//     quoted in sebdah/dynamic-dynamodb#118 and aws/aws-sdk-js#2565)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

// compat/js holds the SDK (npm ci there); load it from there.
const jsPackage = fileURLToPath(new URL('../js/package.json', import.meta.url));
const require = createRequire(jsPackage);
const {
  CreateTableCommand, DeleteTableCommand, DynamoDBClient, GetItemCommand, ListTablesCommand,
} = require('@aws-sdk/client-dynamodb');
const { DynamoDBDocumentClient, GetCommand, PutCommand } = require('@aws-sdk/lib-dynamodb');
const { DynamoDBStreamsClient, ListStreamsCommand } = require('@aws-sdk/client-dynamodb-streams');

const UNKNOWN_KEY = 'The security token included in the request is invalid.'; // row 11
const MISMATCH = 'The request signature we calculated does not match the signature you provided. ' +
  'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.'; // row 12

for (const v of ['DYNAGO_ENDPOINT', 'DYNAGO_AUTH_CREDENTIALS', 'NODE_EXTRA_CA_CERTS']) {
  if (!process.env[v]) throw new Error(`${v} is not set: run compat/auth/run.sh`);
}
const ENDPOINT = process.env.DYNAGO_ENDPOINT;
{
  const host = new URL(ENDPOINT).hostname;
  const loopback = host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback && process.env.DYNAGO_ALLOW_NON_LOOPBACK !== '1') {
    throw new Error(`DYNAGO_ENDPOINT=${ENDPOINT} is not a loopback address; refusing (DYNAGO_ALLOW_NON_LOOPBACK=1 overrides)`);
  }
}
// Never a developer's AWS configuration: only the server's credentials file.
for (const v of ['AWS_PROFILE', 'AWS_DEFAULT_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_SECURITY_TOKEN',
  'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
  delete process.env[v];
}
Object.assign(process.env, {
  AWS_CONFIG_FILE: '/dev/null',
  AWS_SHARED_CREDENTIALS_FILE: process.env.DYNAGO_AUTH_CREDENTIALS,
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

// A client of the ci profile (read by the SDK from the shared file), or with
// static keys. No retries: the server's answer must surface.
const config = (auth) => ({ endpoint: ENDPOINT, region: 'eu-west-1', maxAttempts: 1, ...auth });
const ci = { profile: 'ci' };
const keys = (accessKeyId, secretAccessKey) => ({ credentials: { accessKeyId, secretAccessKey } });

async function refused(promise, name, message, exact = true) {
  let err;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected ${name}, but the call succeeded`);
  assert.equal(err.name, name, `${err.name}: ${err.message}`);
  assert.equal(err.$metadata?.httpStatusCode, 400);
  if (exact) assert.equal(err.message, message);
  else assert.ok(err.message.startsWith(message), JSON.stringify(err.message));
  return err;
}

const TABLE = `compat-js-auth-${randomBytes(6).toString('hex')}`;
let ciKeyId;

before(async () => {
  const db = new DynamoDBClient(config(ci));
  ciKeyId = (await db.config.credentials()).accessKeyId;
  await db.send(new CreateTableCommand({
    TableName: TABLE, BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
    KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
  }));
});

after(async () => {
  try {
    await new DynamoDBClient(config(ci)).send(new DeleteTableCommand({ TableName: TABLE }));
  } catch (e) {
    if (e.name !== 'ResourceNotFoundException') throw e;
  }
});

test('right key (profile ci of the server\'s file): DocumentClient put and get over HTTPS', async () => {
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config(ci)));
  const item = { PK: 'USER#1', name: 'Ann', n: 42, tags: new Set(['a', 'b']), big: 'x'.repeat(50_000) };
  await doc.send(new PutCommand({ TableName: TABLE, Item: item }));
  const { Item } = await doc.send(new GetCommand({ TableName: TABLE, Key: { PK: 'USER#1' }, ConsistentRead: true }));
  assert.deepEqual(Item, item);
  const { TableNames } = await doc.send(new ListTablesCommand({}));
  assert.ok(TableNames.includes(TABLE));
});

test('right key (profile default): DynamoDB Streams ListStreams, signed as dynamodb', async () => {
  const { Streams } = await new DynamoDBStreamsClient(config({ profile: 'default' }))
    .send(new ListStreamsCommand({ TableName: TABLE }));
  assert.equal(Streams.length, 1);
  assert.equal(Streams[0].TableName, TABLE);
});

test('unknown access key: UnrecognizedClientException (SOURCES.md row 11)', async () => {
  const k = keys('AKIDDYNAGOUNKNOWN', 'secret-two');
  await refused(new DynamoDBClient(config(k)).send(new GetItemCommand({ TableName: TABLE, Key: { PK: { S: 'USER#1' } } })),
    'UnrecognizedClientException', UNKNOWN_KEY);
  await refused(new DynamoDBStreamsClient(config(k)).send(new ListStreamsCommand({})),
    'UnrecognizedClientException', UNKNOWN_KEY);
});

test('wrong secret: InvalidSignatureException (SOURCES.md row 12)', async () => {
  const k = keys(ciKeyId, 'not-the-secret');
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(config(k)));
  const err = await refused(doc.send(new PutCommand({ TableName: TABLE, Item: { PK: 'never' } })),
    'InvalidSignatureException', MISMATCH, false);
  assert.ok(err.message.includes("\n\nThe Canonical String for this request should have been\n'POST\n/\n"), err.message);
  assert.ok(err.message.includes('\nx-amz-target:DynamoDB_20120810.PutItem\n'), err.message);
  await refused(new DynamoDBStreamsClient(config(k)).send(new ListStreamsCommand({})),
    'InvalidSignatureException', MISMATCH, false);
  const { Item } = await DynamoDBDocumentClient.from(new DynamoDBClient(config(ci)))
    .send(new GetCommand({ TableName: TABLE, Key: { PK: 'never' } }));
  assert.equal(Item, undefined, 'a refused PutItem wrote its item');
});

test('a signature 20 minutes off the server\'s clock: Signature expired / not yet current (SOURCES.md rows 5, 6)', async () => {
  // systemClockOffset moves the SDK's signing clock. One attempt: the SDK's
  // own skew correction is not what is tested here.
  const stamp = '(\\d{8}T\\d{6}Z)';
  const time = (s) => Date.parse(s.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
  for (const [offset, re, sign] of [
    [-20 * 60_000, new RegExp(`^Signature expired: ${stamp} is now earlier than ${stamp} \\(${stamp} - 15 min\\.\\)$`), -1],
    [20 * 60_000, new RegExp(`^Signature not yet current: ${stamp} is still later than ${stamp} \\(${stamp} \\+ 15 min\\.\\)$`), 1],
  ]) {
    const db = new DynamoDBClient({ ...config(ci), systemClockOffset: offset });
    const before = Date.now();
    const err = await refused(db.send(new ListTablesCommand({})), 'InvalidSignatureException', '', false);
    const m = err.message.match(re);
    assert.ok(m, err.message);
    const [signed, limit, server] = m.slice(1).map(time);
    // The signing time the SDK sent, the server's clock (this machine's),
    // and the limit 15 minutes from it.
    assert.ok(Math.abs(signed - (before + offset)) < 5_000, err.message);
    assert.ok(Math.abs(server - before) < 5_000, err.message);
    assert.equal(limit, server + sign * 15 * 60_000, err.message);
  }
});

test('without NODE_EXTRA_CA_CERTS the self-signed certificate is refused', async () => {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const code = `
    import { createRequire } from 'node:module';
    const { DynamoDBClient, ListTablesCommand } = createRequire(${JSON.stringify(jsPackage)})('@aws-sdk/client-dynamodb');
    const c = new DynamoDBClient({ endpoint: ${JSON.stringify(ENDPOINT)}, region: 'eu-west-1', maxAttempts: 1, profile: 'ci' });
    c.send(new ListTablesCommand({})).then(() => console.log('succeeded'), (e) => console.log(e.code ?? e.name));`;
  const out = await new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { env, timeout: 30_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim())));
  });
  // Node's name for a self-signed server certificate (OpenSSL's
  // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT).
  assert.equal(out, 'DEPTH_ZERO_SELF_SIGNED_CERT');
});
