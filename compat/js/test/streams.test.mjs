// DynamoDB Streams through @aws-sdk/client-dynamodb-streams: the movies
// sample (../shared/data/moviedata.json) loaded into a table with a
// NEW_AND_OLD_IMAGES stream, some updated and deleted, and the whole stream
// read following shard lineage (scripts/test.sh serves with
// --stream-rollover 2s, so shards roll over while this runs). Sources:
// developer guide "Change data capture for DynamoDB Streams",
// API_streams_GetRecords; behaviour in docs/research-streams.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  BatchWriteItemCommand, DeleteItemCommand, DescribeTableCommand, PutItemCommand, ScanCommand, UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, ListStreamsCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { clientConfig, createTable, deleteTableQuietly, expectError, makeClient, uniqueName } from '../support.mjs';

const client = makeClient();
const streams = new DynamoDBStreamsClient(clientConfig());
const moviesPath = fileURLToPath(new URL('../../../../shared/data/moviedata.json', import.meta.url));
let table;
before(async () => {
  table = uniqueName('streams');
  await createTable(client, table, {
    hash: ['year', 'N'], range: ['title', 'S'],
    extra: { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } },
  });
});
after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
  streams.destroy();
});

// toAV converts the movie JSON (numbers kept as their literal text) to
// attribute values.
function toAV(v) {
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'number') return { N: String(v) };
  if (typeof v === 'boolean') return { BOOL: v };
  if (Array.isArray(v)) return { L: v.map(toAV) };
  return { M: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toAV(x)])) };
}

// canon prints an item with sorted names, for comparing images.
function canon(item) {
  const sortDeep = (v) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortDeep(v[k])]))
    : Array.isArray(v) ? v.map(sortDeep) : v);
  return JSON.stringify(sortDeep(item));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// readStream reads every shard from TRIM_HORIZON, a child only after its
// parent, until a closed shard has no NextShardIterator (an open shard:
// until it returns nothing).
async function readStream(arn) {
  const shards = [];
  let ExclusiveStartShardId;
  do {
    const { StreamDescription: d } = await streams.send(new DescribeStreamCommand({ StreamArn: arn, ExclusiveStartShardId, Limit: 5 }));
    shards.push(...d.Shards);
    ExclusiveStartShardId = d.LastEvaluatedShardId;
  } while (ExclusiveStartShardId);
  const listed = new Set(shards.map((s) => s.ShardId));
  const done = new Set();
  const records = [];
  while (done.size < shards.length) {
    let progress = false;
    for (const s of shards) {
      if (done.has(s.ShardId) || (s.ParentShardId && listed.has(s.ParentShardId) && !done.has(s.ParentShardId))) continue;
      let { ShardIterator: it } = await streams.send(new GetShardIteratorCommand({
        StreamArn: arn, ShardId: s.ShardId, ShardIteratorType: 'TRIM_HORIZON',
      }));
      while (it) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: it, Limit: 500 }));
        records.push(...out.Records);
        it = out.NextShardIterator;
        if (out.Records.length === 0 && !s.SequenceNumberRange.EndingSequenceNumber) break;
      }
      done.add(s.ShardId);
      progress = true;
    }
    assert.ok(progress, 'shard lineage has a cycle');
  }
  return { shards, records };
}

describe('DynamoDB Streams', () => {
  test('the movies: every change once, in per-item order, with the right images', { skip: !existsSync(moviesPath) && 'no ../shared/data/moviedata.json' }, async () => {
    const movies = JSON.parse(readFileSync(moviesPath, 'utf8'));
    const items = movies.map((m) => toAV(m).M);
    for (let i = 0; i < items.length; i += 25) {
      let req = { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
      while (req && Object.keys(req).length) {
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: req }));
        req = out.UnprocessedItems;
      }
    }
    let modifies = 0;
    let removes = 0;
    for (let i = 0; i < items.length; i += 7) {
      const Key = { year: items[i].year, title: items[i].title };
      if (i % 3 === 0) {
        await client.send(new DeleteItemCommand({ TableName: table, Key }));
        removes++;
      } else if (i % 3 === 1) {
        await client.send(new UpdateItemCommand({
          TableName: table, Key, UpdateExpression: 'SET seen = :t', ExpressionAttributeValues: { ':t': { BOOL: true } },
        }));
        modifies++;
      } else {
        await client.send(new PutItemCommand({ TableName: table, Item: items[i] })); // unchanged: no record
      }
    }
    await sleep(2500); // at least one rollover after the last write
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
    assert.deepEqual(Table.StreamSpecification, { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const listed = await streams.send(new ListStreamsCommand({ TableName: table }));
    assert.deepEqual(listed.Streams.map((s) => s.StreamArn), [Table.LatestStreamArn]);

    const { shards, records } = await readStream(Table.LatestStreamArn);
    assert.ok(shards.some((s) => s.ParentShardId), `no shard has a parent among ${shards.length}`);
    const state = new Map();
    const counts = { INSERT: 0, MODIFY: 0, REMOVE: 0 };
    for (const [i, r] of records.entries()) {
      const d = r.dynamodb;
      assert.equal(r.eventSource, 'aws:dynamodb');
      assert.equal(d.StreamViewType, 'NEW_AND_OLD_IMAGES');
      assert.ok(d.ApproximateCreationDateTime instanceof Date, 'ApproximateCreationDateTime is a Date');
      assert.match(d.SequenceNumber, /^\d{21,40}$/);
      const key = canon(d.Keys);
      counts[r.eventName]++;
      if (r.eventName === 'INSERT') {
        assert.ok(!state.has(key), `record ${i}: INSERT of existing ${key}`);
      } else {
        assert.equal(canon(d.OldImage), state.get(key), `record ${i}: ${r.eventName} OldImage`);
      }
      if (r.eventName === 'REMOVE') {
        assert.equal(d.NewImage, undefined);
        state.delete(key);
      } else {
        assert.notEqual(canon(d.NewImage), state.get(key), `record ${i}: a record that changes nothing`);
        state.set(key, canon(d.NewImage));
      }
    }
    assert.deepEqual(counts, { INSERT: items.length, MODIFY: modifies, REMOVE: removes });
    const table_ = new Map();
    let ExclusiveStartKey;
    do {
      const out = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey }));
      for (const it of out.Items) table_.set(canon({ year: it.year, title: it.title }), canon(it));
      ExclusiveStartKey = out.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    assert.equal(state.size, table_.size);
    for (const [k, v] of table_) assert.equal(state.get(k), v, `replay of ${k}`);
  });

  test('errors', async () => {
    await expectError(streams.send(new DescribeStreamCommand({
      StreamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/none/stream/2026-01-01T00:00:00.000',
    })), 'ResourceNotFoundException', 'Requested resource not found: Stream: ');
    await expectError(streams.send(new GetRecordsCommand({ ShardIterator: 'nonsense' })), 'ValidationException', 'Invalid ShardIterator');
  });
});
