// A small database for the site's tests, filled through the same ingest() the service uses: signed
// results built from the schema's suite-run example (plus a pipeline sweep), a run group of two,
// results with hostile metadata, and two of the published results from data/imported.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, ingestImported, openDatabase, retract, signRetraction } from '@redis-benchdb/db';
import { generateSigningKey, type ResultV1, signResult, workloadFingerprint } from '@redis-benchdb/result';
import { vouchFor } from './vouch.js';

const root = new URL('../../', import.meta.url);
const example = readFileSync(new URL('schemas/examples/valid/suite-run.json', root), 'utf8');
const key = generateSigningKey();

/** What a browser test types into, or looks for. */
export const HOSTILE = {
  cpuModel: '<img src=x onerror=alert(1)>',
  version: '</script><script>alert(2)</script>',
  hypervisor: '"><svg onload=alert(3)>',
} as const;

export interface Fixture {
  dbPath: string;
  ids: {
    base: string;
    faster: string;
    hostile: string;
    groupA: string;
    groupB: string;
    imported: string[];
    retracted: string;
  };
  groupId: string;
}

/** The example with a GET pipeline sweep (P1, P4, P16), scaled by `speed`: a result with charts to draw. */
export function sweepResult(n: number, speed: number, edit?: (r: ResultV1) => void): ResultV1 {
  const r = JSON.parse(example) as ResultV1;
  r.keyPrefix = `rbdb:${n.toString(16).padStart(6, '0')}:`;
  const get = r.cells.find((c) => c.label === 'GET')!;
  for (const depth of [4, 16]) {
    const c = structuredClone(get);
    c.label = `GET P${depth}`;
    c.workload.pipelineDepth = depth;
    c.workloadFingerprint = workloadFingerprint(c.workload);
    r.cells.push(c);
  }
  for (const c of r.cells) {
    const f = speed * (c.workload.pipelineDepth === 1 ? 1 : Math.sqrt(c.workload.pipelineDepth));
    c.opsPerSec = {
      ...c.opsPerSec,
      median: c.opsPerSec.median * f,
      ci95Low: c.opsPerSec.ci95Low * f,
      ci95High: c.opsPerSec.ci95High * f,
    };
    for (const t of c.trials) t.opsPerSec *= f;
  }
  edit?.(r);
  return r;
}

export function buildFixture(dir = mkdtempSync(join(tmpdir(), 'rbdb-site-'))): Fixture {
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  vouchFor(db, key);
  const store = (r: ResultV1) => {
    const out = ingest(db, JSON.stringify(signResult(r, key.privateKeyPem)));
    return out.id;
  };
  try {
    const groupId = 'a1b2c3d4e5f60718';
    const member = (index: number, label: string) => (r: ResultV1) => {
      (r as ResultV1 & { runGroup: unknown }).runGroup = {
        id: groupId,
        index,
        size: 2,
        label,
        varies: ['serverConfig'],
      };
      if (r.environment.server) r.environment.server.ioThreads = index + 1;
    };
    const ids = {
      base: store(sweepResult(1, 0.5)),
      // Twice as fast and with another allocator: a compare shows ratios near 2 and the differing field.
      faster: store(
        sweepResult(2, 1, (r) => r.environment.server && (r.environment.server.allocator = 'libc')),
      ),
      hostile: store(
        sweepResult(3, 0.55, (r) => {
          r.environment.client.cpu.model = HOSTILE.cpuModel;
          r.environment.client.virtualization = {
            kind: 'vm',
            hypervisor: HOSTILE.hypervisor,
            container: null,
          };
          if (r.environment.server) r.environment.server.version = HOSTILE.version;
        }),
      ),
      groupA: store(sweepResult(4, 0.5, member(0, 'io-threads 1'))),
      groupB: store(sweepResult(5, 0.65, member(1, 'io-threads 2'))),
      imported: ['redis-io-benchmarks-xeon-e5520-p16.json', 'redis-docs-old-benchmarks-xeon-x3320.json'].map(
        (f) => ingestImported(db, readFileSync(new URL(`data/imported/${f}`, root), 'utf8')).id,
      ),
      // Stored, then retracted by its owner: the site must not show it anywhere.
      retracted: store(sweepResult(6, 0.6)),
    };
    retract(db, signRetraction(ids.retracted, key.privateKeyPem));
    return { dbPath, ids, groupId };
  } finally {
    db.close();
  }
}
