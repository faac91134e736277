import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  ADMITTED_CELL_SQL,
  type BenchDb,
  explainCohort,
  explainSearch,
  ingestImported,
  openDatabase,
} from '@redis-benchdb/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type RunningServer, startServer } from '../dist/index.js';
import { LIST_PARAMETERS } from '../dist/read/query.js';
import { ROUTES } from '../dist/routes/method-not-allowed.js';
import { request, tempDbPath } from './fixtures.js';

/**
 * The read API on a real SQLite file of many results: scripts/gen-synthetic-db.mjs writes them through
 * the real ingest() (signed, varied machines, servers and profiles, every CPU model "SYNTHETIC ..."),
 * in a temp dir, plus one imported result from data/imported. The service is the real one on a port.
 */
const COUNT = 240;
const GENERATOR = fileURLToPath(new URL('../../../scripts/gen-synthetic-db.mjs', import.meta.url));
const IMPORTED = new URL('../../../data/imported/redis-io-benchmarks-linode-2048-p16.json', import.meta.url);

let server: RunningServer;
let reader: BenchDb;
let importedId: string;
let api: string;

// Generates and signs 240 synthetic results (about 20 s quiet, minutes on a loaded host): its own
// timeout over the serial tier's 120 s (vitest.config.ts).
beforeAll(async () => {
  const dbPath = tempDbPath();
  await promisify(execFile)(process.execPath, [
    GENERATOR,
    '--count',
    String(COUNT),
    '--out',
    dbPath,
    '--workers',
    '1',
    '--json',
  ]);
  const db = openDatabase(dbPath);
  importedId = ingestImported(db, readFileSync(IMPORTED, 'utf8')).id;
  db.close();
  server = await startServer({ dbPath });
  reader = openDatabase(dbPath, { readonly: true });
  api = `${server.url}/api/v1`;
}, 300_000);

afterAll(async () => {
  reader?.close();
  await server?.close();
});

type Summary = {
  id: string;
  receivedAt: string;
  cpuModel: string;
  cells: { test: string; pipelineDepth: number }[];
};

/** Every page of a query, following each page's `next` link as a client would. */
async function everyPage(query: string) {
  const results: Summary[] = [];
  let next: string | null = `/api/v1/results${query}`;
  let pages = 0;
  while (next) {
    const reply = await request(`${server.url}${next}`);
    expect(reply.status, reply.text).toBe(200);
    results.push(...(reply.json.results as Summary[]));
    next = reply.json.next as string | null;
    if (++pages > 100) throw new Error('more than 100 pages');
  }
  return { results, pages };
}

const column = (sql: string, ...params: unknown[]) =>
  (reader.sqlite.prepare(sql).all(...params) as { id: string }[]).map((r) => r.id);

describe('GET /api/v1/results', () => {
  it('pages through every result, newest first, each once', async () => {
    const { results, pages } = await everyPage('?limit=50');
    expect(pages).toBe(Math.ceil((COUNT + 1) / 50));
    expect(results.map((r) => r.id)).toEqual(
      column('SELECT id FROM results WHERE retracted_at IS NULL ORDER BY received_at DESC, id DESC'),
    );
    expect(results[0]!.id).toBe(importedId);
  });

  it('filters on the cells and on the machine and server, as SQL over the whole table would', async () => {
    const { results } = await everyPage('?test=GET&pipelineDepth=16&connections=50&valueSize=256&limit=30');
    expect(results.length).toBeGreaterThan(10);
    expect(results.map((r) => r.id)).toEqual(
      column(`SELECT id FROM results r WHERE EXISTS (SELECT 1 FROM cells c WHERE c.result_id = r.id AND c.test = 'GET'
                AND c.pipeline_depth = 16 AND c.connections = 50 AND c.value_size_min = 256 AND c.value_size_max = 256)
              ORDER BY received_at DESC, id DESC`),
    );
    for (const r of results) for (const c of r.cells) expect([c.test, c.pipelineDepth]).toEqual(['GET', 16]);

    const one = reader.sqlite
      .prepare(
        "SELECT cpu_model AS cpu, server_product AS product, server_version AS version, virtualization_kind AS virt FROM results WHERE kind = 'signed' LIMIT 1",
      )
      .get() as { cpu: string; product: string; version: string; virt: string };
    const q = new URLSearchParams({
      cpuModel: one.cpu,
      serverProduct: one.product,
      serverVersion: one.version,
      virtualizationKind: one.virt,
    });
    const narrowed = await everyPage(`?${q}`);
    expect(narrowed.results.map((r) => r.id)).toEqual(
      column(
        `SELECT id FROM results WHERE cpu_model = ? AND server_product = ? AND server_version = ? AND virtualization_kind = ?
          ORDER BY received_at DESC, id DESC`,
        one.cpu,
        one.product,
        one.version,
        one.virt,
      ),
    );
    expect(narrowed.results.length).toBeGreaterThan(0);
  });

  it('answers a bad filter 400 in the error shape, saying what to send', async () => {
    const cases: [string, RegExp][] = [
      ['?limit=201', /limit must be an integer from 1 to 200/],
      ['?limit=0', /limit must be an integer from 1 to 200/],
      ['?pipeline=16', /unknown parameter pipeline; the parameters are test, .*pipelineDepth/],
      ['?pipelineDepth=sixteen', /pipelineDepth must be an integer/],
      ['?virtualizationKind=cloud', /not one of bare-metal, vm, container, vm\+container/],
      ['?cursor=abc', /not one this service gave: pass the nextCursor/],
      ['?test=GET&test=SET', /test is given more than once/],
      ['?cpuModel=', /cpuModel must be 1 to 200 characters/],
      // The schema refuses them (read/query-schema.ts), in the same words the hand-written checks used.
      ['?a=1&test=GET&b=2', /^unknown parameter a, b; the parameters are test, /],
      ['?connections=9007199254740992', /connections must be an integer from 1 to 9007199254740991/],
      ['?limit=', /limit must be an integer from 1 to 200, got ""/],
      ['?machine=', /^machine must be 1 to 600 characters; leave it out to match any$/],
    ];
    for (const [query, says] of cases) {
      const reply = await request(`${api}/results${query}`);
      expect({ status: reply.status, code: reply.json.error?.code }, query).toEqual({
        status: 400,
        code: expect.stringMatching(/^BAD_/),
      });
      expect(reply.json.error!.message, query).toMatch(says);
    }
  });

  it('reads indexes only: the plans name an index for every table and never sort', () => {
    const plan = explainSearch(reader);
    expect(plan.search).toMatch(/SEARCH results USING COVERING INDEX results_site_list/);
    expect(plan.search).toMatch(/SEARCH c USING INDEX sqlite_autoindex_cells_1 \(result_id=\?\)/);
    for (const p of Object.values(plan)) {
      expect(p).not.toMatch(/TEMP B-TREE/);
      // "SCAN w" in the search is its window (a co-routine of at most SEARCH_SCAN_LIMIT rows).
      expect(p).not.toMatch(/SCAN (results|r|c|cells|warnings)\b/);
    }
    // A cohort reads its own range of cells_cohort (its GROUP BY sorts that range, never more).
    const cohortPlan = explainCohort(reader);
    expect(cohortPlan).toMatch(/SEARCH c USING COVERING INDEX cells_cohort \(workload_fingerprint=\?/);
    expect(cohortPlan).not.toMatch(/SCAN (c|r|w)\b/);
  });
});

describe('GET /api/v1/results/:id', () => {
  it('answers for an imported result with its document, and for a signed one with its envelope', async () => {
    const imported = await request(`${api}/results/${importedId}`);
    expect(imported.status).toBe(200);
    expect(imported.json).toMatchObject({
      schema: 'redis-benchdb/imported.v1',
      source: { url: expect.any(String) },
    });
    const [signed] = column("SELECT id FROM results WHERE kind = 'signed' LIMIT 1");
    expect((await request(`${api}/results/${signed}`)).json.schema).toBe('redis-benchdb/envelope.v1');
  });
});

describe('GET /api/v1/cohorts/:fingerprint', () => {
  it("gives a workload's count and percentiles of ops/s: default configuration, every kind or one", async () => {
    const row = reader.sqlite
      .prepare(
        // A cohort holds the cells admission admits (packages/result admission.ts): no client-bound, busy-host... cell.
        `SELECT c.workload_fingerprint AS fp, count(*) AS n, sum(r.config_default = 1) AS d
           FROM cells c JOIN results r ON r.id = c.result_id
          WHERE c.label = 'GET' AND ${ADMITTED_CELL_SQL} GROUP BY 1 ORDER BY 3 DESC LIMIT 1`,
      )
      .get() as { fp: string; n: number; d: number };
    // Unless asked, the default configuration alone: io-threads 2 or AOF members are a view of their own.
    const reply = await request(`${api}/cohorts/${row.fp}`);
    expect(reply.status, reply.text).toBe(200);
    const body = reply.json as {
      count: number;
      configuration: string;
      machines: { key: string; count: number }[];
      opsPerSec: { min: number; max: number; percentiles: Record<string, number> };
    };
    expect(body).toMatchObject({ count: row.d, configuration: 'default', machine: null });
    expect(body.machines.reduce((n, m) => n + m.count, 0)).toBe(row.d);
    expect((await request(`${api}/cohorts/${row.fp}?config=any`)).json.count).toBe(row.n);
    const p = body.opsPerSec.percentiles;
    expect([body.opsPerSec.min, p.p10, p.p25, p.p50, p.p75, p.p90, body.opsPerSec.max]).toEqual(
      [body.opsPerSec.min, p.p10, p.p25, p.p50, p.p75, p.p90, body.opsPerSec.max].sort((a, b) => a! - b!),
    );
    const ops = (
      reader.sqlite
        .prepare(
          `SELECT c.ops_median AS v FROM cells c JOIN results r ON r.id = c.result_id
            WHERE c.workload_fingerprint = ? AND r.config_default = 1 AND ${ADMITTED_CELL_SQL} ORDER BY 1`,
        )
        .all(row.fp) as { v: number }[]
    ).map((r) => r.v);
    expect(p.p50).toBe(ops[Math.ceil(ops.length / 2) - 1]);

    // One machine kind: its members alone.
    const kind = body.machines[0]!;
    const narrowed = await request(`${api}/cohorts/${row.fp}?machine=${encodeURIComponent(kind.key)}`);
    expect(narrowed.json).toMatchObject({ machine: { key: kind.key }, count: kind.count });
    if (body.machines.length > 1) expect(kind.count).toBeLessThan(body.count);
  });

  it('refuses what is not a fingerprint, and says what one is', async () => {
    const reply = await request(`${api}/cohorts/GET`);
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatchObject({
      code: 'BAD_FINGERPRINT',
      message: expect.stringMatching(/sha256: and 64 lowercase hex/),
    });
    const none = await request(`${api}/cohorts/sha256:${'0'.repeat(64)}`);
    expect(none.json).toMatchObject({ count: 0, opsPerSec: { values: [] } });
    expect((await request(`${api}/cohorts/sha256:${'0'.repeat(64)}?cpu=x`)).json.error?.code).toBe(
      'BAD_QUERY',
    );
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of exactly the routes the app serves', async () => {
    const reply = await request(`${api}/openapi.json`);
    expect(reply.status).toBe(200);
    const doc = reply.json as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      )
      .sort();

    // What the app registers: its GET and POST routes (HEAD is fastify's copy of each GET; the 405
    // answers take arrays of methods).
    const db = openDatabase(':memory:');
    const app = buildApp({ db, logger: false });
    const served: string[] = [];
    app.addHook('onRoute', (r) => {
      if (typeof r.method === 'string' && r.method !== 'HEAD') served.push(`${r.method} ${r.url}`);
    });
    await app.ready();
    await app.close();
    db.close();
    expect(documented).toEqual(served.sort());
    const listed = Object.entries(ROUTES).flatMap(([url, ms]) =>
      ms.filter((m) => m !== 'HEAD').map((m) => `${m} ${url}`),
    );
    expect(documented).toEqual(listed.sort());
    // Every $ref points at a component that exists.
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"#\/components\/(\w+\/\w+)"/g)) {
      const [kind, name] = ref!.split('/');
      expect(
        (doc as unknown as { components: Record<string, Record<string, unknown>> }).components[kind!]![name!],
        ref,
      ).toBeDefined();
    }
  });

  it('documents the parameters each read takes, cpuModel of a cohort as deprecated, and the cohort answers as documented', async () => {
    const doc = (await request(`${api}/openapi.json`)).json as unknown as {
      paths: Record<string, { get: { parameters: { name: string; in: string; deprecated?: boolean }[] } }>;
      components: { schemas: Record<string, { required: string[] }> };
    };
    const query = (path: string) => doc.paths[path]!.get.parameters.filter((p) => p.in === 'query');
    expect(
      query('/api/v1/results')
        .map((p) => p.name)
        .sort(),
    ).toEqual([...LIST_PARAMETERS].sort());
    const cohort = query('/api/v1/cohorts/{fingerprint}');
    expect(cohort.map((p) => [p.name, p.deprecated === true])).toEqual([
      ['machine', false],
      ['config', false],
      ['cpuModel', true],
    ]);
    // Each documented query parameter is taken (an undocumented one is refused as unknown).
    const none = `${api}/cohorts/sha256:${'0'.repeat(64)}`;
    const taken = await request(`${none}?machine=${encodeURIComponent('m1|x')}&config=any`);
    expect(taken.status, taken.text).toBe(200);
    for (const field of doc.components.schemas.Cohort!.required) expect(taken.json).toHaveProperty(field);
    expect(doc.components.schemas.ResultSummary!).toBeDefined();
    const listed = (await request(`${api}/results?limit=1`)).json.results as Record<string, unknown>[];
    expect(listed[0]).toHaveProperty('machine');
    expect(listed[0]).toHaveProperty('configuration');
  });
});
