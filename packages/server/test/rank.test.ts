import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFileName } from '@redis-benchdb/db';
import { keyFingerprint } from '@redis-benchdb/result';
import { remeasured } from '@redis-benchdb/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../dist/index.js';
import { body, key, otherKey, post, request, tempDbPath, variant, vouchedDbPath } from './fixtures.js';

let server: RunningServer | undefined;
afterAll(() => server?.close());

type Standing = {
  size: number;
  place: number;
  ties: number;
  distinctSigners: number;
  percentile: number | null;
};
type Rank = {
  label: string;
  opsPerSec: number;
  overall: Standing;
  sameCpu: Standing | null;
  cohortUrl: string;
};

/** One result of the example (SET and GET at P1), `factor` times its speed, on a CPU model. */
function run(n: number, factor: number, cpuModel: string) {
  return remeasured(
    variant(n, (r) => {
      r.environment.client.cpu.model = cpuModel;
    }),
    factor,
  );
}

describe('rank after submit', () => {
  it('says where each headline cell stands, overall and on the same CPU, with a percentile only from 5 results', async () => {
    server = await startServer({
      dbPath: vouchedDbPath(),
      rateLimit: { perIpPerMinute: 1e6, perKeyPerMinute: 1e6 },
    });
    const results = `${server.url}/api/v1/results`;
    const ranks: Rank[][] = [];
    // Speeds 1.1, 1.2, ... 1.6 times the example: each new one is the fastest so far.
    for (let i = 1; i <= 6; i++) {
      const reply = await post(
        results,
        body(run(i, 1 + i / 10, i % 2 ? 'CPU A' : 'CPU B'), i === 3 ? otherKey : undefined),
      );
      expect(reply.status, reply.text).toBe(201);
      ranks.push(reply.json.ranks as Rank[]);
    }
    expect(ranks[0]!.map((r) => r.label)).toEqual(['GET', 'SET']);
    expect(ranks[0]![0]!.overall).toEqual({
      size: 1,
      place: 1,
      ties: 0,
      distinctSigners: 1,
      percentile: null,
    });
    // Four results: a place, not a percentile.
    expect(ranks[3]![0]!.overall).toMatchObject({ size: 4, place: 1, percentile: null, distinctSigners: 2 });
    // The sixth is faster than the five others, and the fastest of the three on CPU B.
    expect(ranks[5]![0]!.overall).toEqual({
      size: 6,
      place: 1,
      ties: 0,
      distinctSigners: 2,
      percentile: 100,
    });
    expect(ranks[5]![0]!.sameCpu).toEqual({
      size: 3,
      place: 1,
      ties: 0,
      distinctSigners: 1,
      percentile: null,
    });

    // Read (and cached) before the seventh arrives: six.
    const before = await request(`${server.url}${ranks[5]![0]!.cohortUrl}`);
    expect(before.json).toMatchObject({ count: 6 });

    // A slow seventh: faster than one of six others.
    const slow = await post(results, body(run(7, 1.15, 'CPU A')));
    const get = (slow.json.ranks as Rank[])[0]!;
    expect(get.overall).toMatchObject({ size: 7, place: 6, percentile: 16.7 });
    expect(get.sameCpu).toMatchObject({ size: 4, place: 3, percentile: null });
    // The cohort it was ranked in is one link away, and counts it: the store dropped the cached six.
    const cohort = await request(`${server.url}${get.cohortUrl}`);
    expect(cohort.json).toMatchObject({ count: 7, opsPerSec: { min: expect.any(Number) } });
  });
});

describe('--project-keys', () => {
  const keysDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'rbdb-project-keys-'));
    for (const k of [key, otherKey])
      writeFileSync(join(d, keyFileName(keyFingerprint(k.publicKeyPem))), k.publicKeyPem);
    return d;
  };

  it("counts submissions signed by two of the project's keys as one signer in the submit's rank", async () => {
    const dir = keysDir();
    const project = await startServer({ dbPath: tempDbPath(), projectKeysDir: dir });
    try {
      const results = `${project.url}/api/v1/results`;
      expect((await post(results, body(run(1, 1.1, 'CPU A')))).status).toBe(201);
      const reply = await post(results, body(run(2, 1.2, 'CPU A'), otherKey));
      expect(reply.status, reply.text).toBe(201);
      const get = (reply.json.ranks as Rank[]).find((r) => r.label === 'GET')!;
      expect(get.overall).toMatchObject({ size: 2, place: 1, distinctSigners: 1 });
    } finally {
      await project.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not start on a key file named after another key, and says which file to rename', async () => {
    const dir = keysDir();
    const wrong = join(dir, keyFileName(keyFingerprint(key.publicKeyPem)));
    writeFileSync(wrong, otherKey.publicKeyPem);
    try {
      await expect(startServer({ dbPath: tempDbPath(), projectKeysDir: dir })).rejects.toThrow(
        `${wrong}: is the key ${keyFingerprint(otherKey.publicKeyPem)}: rename it`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
