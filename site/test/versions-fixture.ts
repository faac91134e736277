// A database for the version, machine and list pages: several server versions on one machine (Redis
// and Valkey, one interleaved run group, one io-threads variant, an older quick run of one version),
// one version on a second machine, an ad hoc run with a custom command, and published results (one
// with a publication date). Filled through the same ingest() the service uses.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, ingestImported, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, type ResultV1, signResult } from '@redis-benchdb/result';
import { sweepResult } from './fixture.js';
import { vouchFor } from './vouch.js';

const root = new URL('../../', import.meta.url);
const key = generateSigningKey();

/** Each version on the main machine, with its speed (the fixture's GET is 131k ops/s at speed 1). */
export const VERSIONS = [
  { product: 'redis', version: '6.2.16', speed: 0.45 },
  { product: 'redis', version: '7.4.1', speed: 0.5 },
  // Redis 8.0-m01 reports 7.9.224: the site shows what the result records.
  { product: 'redis', version: '7.9.224', speed: 0.56 },
  { product: 'valkey', version: '8.0.1', speed: 0.62 },
] as const;

export const OTHER_MACHINE = 'AMD EPYC 7B13';

export interface VersionsFixture {
  dbPath: string;
  /** The interleaved group's members, in VERSIONS order. */
  group: string[];
  groupId: string;
  /** Redis 7.4.1 with io-threads 2, same machine: another configuration, never in the group's columns. */
  ioThreads2: string;
  /** An older quick run of Redis 7.4.1 on the main machine: the same series, not its shown result. */
  older: string;
  /** Redis 7.4.1 on the other machine (a VM): never pooled with the main machine. */
  otherMachine: string;
  adHoc: string;
  /** Published results: [with a publication date, without one]. */
  imported: [string, string];
}

export function buildVersionsFixture(dir = mkdtempSync(join(tmpdir(), 'rbdb-versions-'))): VersionsFixture {
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  vouchFor(db, key);
  let n = 100;
  const store = (r: ResultV1) => ingest(db, JSON.stringify(signResult(r, key.privateKeyPem))).id;
  const server = (product: string, version: string) => (r: ResultV1) => {
    r.environment.server!.product = product as 'redis';
    r.environment.server!.version = version;
  };
  try {
    const groupId = '0123456789abcdef';
    const older = store(
      sweepResult(n++, 0.4, (r) => {
        server('redis', '7.4.1')(r);
        r.startedAt = '2025-01-10T09:00:00.000Z';
        r.finishedAt = '2025-01-10T09:03:00.000Z';
      }),
    );
    const group = VERSIONS.map((v, index) =>
      store(
        sweepResult(n++, v.speed, (r) => {
          server(v.product, v.version)(r);
          (r as ResultV1 & { runGroup: unknown }).runGroup = {
            id: groupId,
            index,
            size: VERSIONS.length,
            label: `${v.product}-server ${v.version}`,
            varies: ['serverBin'],
          };
        }),
      ),
    );
    const ioThreads2 = store(
      sweepResult(n++, 0.7, (r) => {
        server('redis', '7.4.1')(r);
        r.environment.server!.ioThreads = 2;
      }),
    );
    const otherMachine = store(
      sweepResult(n++, 0.3, (r) => {
        server('redis', '7.4.1')(r);
        r.environment.client.cpu.model = OTHER_MACHINE;
        r.environment.client.virtualization = { kind: 'vm', hypervisor: 'KVM', container: null };
      }),
    );
    const adHocDoc = JSON.parse(
      readFileSync(new URL('schemas/examples/valid/adhoc-open-loop-macos.json', root), 'utf8'),
    ) as ResultV1;
    const adHoc = store(adHocDoc);
    const published = JSON.parse(
      readFileSync(new URL('data/imported/redis-io-benchmarks-xeon-e5520-p16.json', root), 'utf8'),
    );
    published.source.publishedAt = '2013-07';
    const imported: [string, string] = [
      ingestImported(db, JSON.stringify(published)).id,
      ingestImported(
        db,
        readFileSync(new URL('data/imported/redis-docs-old-benchmarks-xeon-x3320.json', root), 'utf8'),
      ).id,
    ];
    return { dbPath, group, groupId, ioThreads2, older, otherMachine, adHoc, imported };
  } finally {
    db.close();
  }
}
