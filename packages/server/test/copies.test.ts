// Issue 13 item 5 through the real service (its own bin on a port, over a temp SQLite file): a result
// whose measurements are another key's is stored disputed, with the result it repeats named (issue 30
// item 1, ownership.test.ts); the same key's copy is stored and the answer names what it copies.
import { type BenchDb, count, openDatabase } from '@redis-benchdb/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  body,
  otherKey,
  otherRun,
  post,
  request,
  type ServiceProcess,
  spawnService,
  tempDbPath,
  variant,
} from './fixtures.js';

let service: ServiceProcess;
let reader: BenchDb;
let results: string;
let original: string;

beforeAll(async () => {
  const dbPath = tempDbPath();
  service = await spawnService(dbPath, [], { sharedByTests: true });
  reader = openDatabase(dbPath, { readonly: true });
  results = `${service.url}/api/v1/results`;
  const first = await post(results, body(variant(1)));
  expect(first.status).toBe(201);
  original = first.json.id as string;
});

afterAll(() => reader?.close());

describe('duplicate measurements, at the service', () => {
  it('an exact copy signed by another key is stored disputed: 201, disputedWith the result it copies', async () => {
    const before = count(reader).results;
    const reply = await post(results, body(variant(2), otherKey));
    expect(reply.status, reply.text).toBe(201);
    expect(reply.json.disputedWith).toEqual([original]);
    expect(count(reader).results).toBe(before + 1);
    expect((await request(`${service.url}/api/v1/health`)).status).toBe(200);
  });

  it("stores another key's own run of the same setup (201, no copyOf)", async () => {
    const reply = await post(results, body(otherRun(3), otherKey));
    expect(reply.status).toBe(201);
    expect(reply.json.copyOf).toBeUndefined();
  });

  it("stores the same key's copy (201) and says which result it copies", async () => {
    const reply = await post(results, body(variant(4)));
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({
      id: reply.json.id,
      pagePath: `/results/${reply.json.id}/`,
      copyOf: original,
      ranks: expect.any(Array),
    });
  });
});
