import {
  configFactsOf,
  configIdentity,
  machineFactsOf,
  machineIdentity,
  type ResultV1,
} from '@redis-benchdb/result';
import { remeasured } from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../dist/index.js';
import { body, post, request, variant, vouchedDbPath } from './fixtures.js';

/**
 * Issue 27 at the read API: two machine kinds that share a CPU model name and differ only in L2, an
 * AOF member, and a CPU name that is one kind. Real service on a port, real SQLite file, results
 * stored through POST /api/v1/results. A cohort never pools the kinds or the configurations, and
 * `cpuModel` answers only where it is one kind.
 */
const SHARED = 'Shared EPYC';
const LONE = 'Lone Xeon';

function run(n: number, factor: number, cpu: string, l2: number, aof = false): ResultV1 {
  return remeasured(
    variant(n, (r) => {
      r.environment.client.cpu.model = cpu;
      r.environment.client.cpu.cacheL2KiB = l2;
      r.environment.server.persistence.appendonly = aof;
    }),
    factor,
  );
}

const docs = {
  a: [run(1, 1.1, SHARED, 512), run(2, 1.2, SHARED, 512), run(3, 1.3, SHARED, 512)],
  b: [run(4, 2.1, SHARED, 1024), run(5, 2.2, SHARED, 1024)],
  aof: [run(6, 0.5, SHARED, 512, true)],
  lone: [run(7, 1.5, LONE, 512)],
};
const kindA = machineIdentity(machineFactsOf(docs.a[0]!));
const kindB = machineIdentity(machineFactsOf(docs.b[0]!));
const lone = machineIdentity(machineFactsOf(docs.lone[0]!));
const aofConfig = configIdentity(configFactsOf(docs.aof[0]!));

let server: RunningServer;
let fp: string;
/** GET ops/s by result id: the cohort's figures. */
const getOps = new Map<string, number>();
const ids: Record<keyof typeof docs, string[]> = { a: [], b: [], aof: [], lone: [] };

beforeAll(async () => {
  server = await startServer({
    dbPath: vouchedDbPath(),
    rateLimit: { perIpPerMinute: 1e6, perKeyPerMinute: 1e6 },
  });
  for (const [group, list] of Object.entries(docs) as [keyof typeof docs, ResultV1[]][])
    for (const doc of list) {
      const reply = await post(`${server.url}/api/v1/results`, body(doc));
      expect(reply.status, reply.text).toBe(201);
      const get = (
        reply.json.ranks as { label: string; workloadFingerprint: string; opsPerSec: number }[]
      ).find((r) => r.label === 'GET')!;
      fp = get.workloadFingerprint;
      getOps.set(reply.json.id as string, get.opsPerSec);
      ids[group].push(reply.json.id as string);
    }
});

afterAll(() => server?.close());

const cohort = (query: string) => request(`${server.url}/api/v1/cohorts/${fp}${query}`);
const opsOf = (group: (keyof typeof docs)[]) =>
  group.flatMap((g) => ids[g].map((id) => getOps.get(id)!)).sort((x, y) => x - y);

describe('a cohort by machine kind and configuration', () => {
  it('the fixture: two kinds share one CPU model name, the AOF member is not the default configuration', () => {
    expect(kindA.key).not.toBe(kindB.key);
    expect(configIdentity(configFactsOf(docs.a[0]!)).isDefault).toBe(true);
    expect(aofConfig.isDefault).toBe(false);
  });

  it('without parameters: every kind, default configuration only, and it lists the kinds it holds', async () => {
    const reply = await cohort('');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ machine: null, configuration: 'default', count: 6 });
    expect(reply.json.opsPerSec).toMatchObject({ values: null });
    const kinds = reply.json.machines as { key: string; label: string; count: number }[];
    expect(kinds).toEqual([
      { key: kindA.key, label: kindA.label, count: 3 },
      { key: kindB.key, label: kindB.label, count: 2 },
      { key: lone.key, label: lone.label, count: 1 },
    ]);
    // The labels tell the two kinds of one CPU name apart.
    expect(kindA.label).toMatch(/L2 512 KiB/);
    expect(kindB.label).toMatch(/L2 1 MiB/);
  });

  it('machine=<key>: that kind alone, default configuration; config=any adds its AOF member', async () => {
    const a = await cohort(`?machine=${encodeURIComponent(kindA.key)}`);
    expect(a.status, a.text).toBe(200);
    expect(a.json).toMatchObject({
      machine: { key: kindA.key, label: kindA.label },
      configuration: 'default',
      count: 3,
      opsPerSec: { values: opsOf(['a']) },
    });
    const any = await cohort(`?machine=${encodeURIComponent(kindA.key)}&config=any`);
    expect(any.json).toMatchObject({
      configuration: 'any',
      count: 4,
      opsPerSec: { values: opsOf(['aof', 'a']) },
    });
    const aof = await cohort(`?config=${encodeURIComponent(aofConfig.key)}`);
    expect(aof.json).toMatchObject({
      configuration: { key: aofConfig.key, label: aofConfig.label },
      count: 1,
      opsPerSec: { values: opsOf(['aof']) },
    });
  });

  it('cpuModel naming two kinds: 400 AMBIGUOUS_CPU_MODEL, listing the machine keys to pass instead', async () => {
    const reply = await cohort(`?cpuModel=${encodeURIComponent(SHARED)}`);
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({ code: 'AMBIGUOUS_CPU_MODEL' });
    const message = (reply.json.error as { message: string }).message;
    expect(message).toMatch(/names 2 machine kinds/);
    expect(message).toMatch(/pass machine=<key> instead/);
    expect(message).toContain(kindA.key);
    expect(message).toContain(kindB.key);
  });

  it('cpuModel naming one kind: answered as that kind, with a Deprecation header and what to pass', async () => {
    const reply = await request(`${server.url}/api/v1/cohorts/${fp}?cpuModel=${encodeURIComponent(LONE)}`);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.get('deprecation')).toBe('true');
    expect(reply.json).toMatchObject({
      cpuModel: LONE,
      machine: { key: lone.key },
      count: 1,
      deprecation: expect.stringContaining(`machine=${encodeURIComponent(lone.key)}`),
    });
    const plain = await cohort(`?machine=${encodeURIComponent(lone.key)}`);
    expect(plain.headers.get('deprecation')).toBeNull();
  });

  it('refuses a bad query, saying what to send', async () => {
    const cases: [string, RegExp][] = [
      ['?machine=AMD', /is not a machine kind's key: pass machine.key of a result/],
      ['?config=aof', /is not default, any or a configuration's key/],
      [`?machine=${encodeURIComponent(kindA.key)}&cpuModel=x`, /give machine or cpuModel, not both/],
      ['?cpu=x', /unknown parameter cpu; the parameters are machine/],
      ['?machine=', /machine must be given once/],
    ];
    for (const [q, message] of cases) {
      const reply = await cohort(q);
      expect(reply.status, q).toBe(400);
      expect(reply.json.error, q).toMatchObject({
        code: 'BAD_QUERY',
        message: expect.stringMatching(message),
      });
    }
  });
});

describe('the results list by machine kind', () => {
  it('each result carries its machine kind and configuration; machine=<key> lists that kind alone', async () => {
    const all = await request(`${server.url}/api/v1/results`);
    const results = all.json.results as {
      id: string;
      machine: { key: string; label: string };
      configuration: { key: string; isDefault: boolean };
    }[];
    const aof = results.find((r) => r.id === ids.aof[0])!;
    expect(aof.machine).toEqual({ key: kindA.key, label: kindA.label });
    expect(aof.configuration).toMatchObject({ key: aofConfig.key, isDefault: false });
    const b = await request(`${server.url}/api/v1/results?machine=${encodeURIComponent(kindB.key)}`);
    expect(b.status, b.text).toBe(200);
    expect((b.json.results as { id: string }[]).map((r) => r.id).sort()).toEqual([...ids.b].sort());
    // The CPU model name alone matches both kinds: the list is a search, and says which kind each is.
    const shared = await request(`${server.url}/api/v1/results?cpuModel=${encodeURIComponent(SHARED)}`);
    expect(new Set((shared.json.results as typeof results).map((r) => r.machine.key))).toEqual(
      new Set([kindA.key, kindB.key]),
    );
  });
});
