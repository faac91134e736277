// The site fixture (fixture.ts) and three more results for the explorer, rank and compare tests,
// signed by a second key: another server version on the same CPU, another CPU in a VM, and an ad hoc
// run whose workloads no other result ran (a key space of 1,000).
import { ingest, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, type ResultV1, signResult, workloadFingerprint } from '@redis-benchdb/result';
import { withOwnHistograms } from '@redis-benchdb/testing';
import { buildFixture, type Fixture, sweepResult } from './fixture.js';
import { vouchFor } from './vouch.js';

export interface ExploreFixture extends Fixture {
  more: { otherVersion: string; otherCpu: string; adhoc: string };
}

export const OTHER_CPU = 'AMD EPYC 7763 64-Core Processor';

export function buildExploreFixture(dir: string): ExploreFixture {
  const fx = buildFixture(dir);
  const key = generateSigningKey();
  const db = openDatabase(fx.dbPath);
  vouchFor(db, key, 'explore fixture signer');
  // Histograms of their own: the same measurements under another key would be refused as copies.
  let seed = 0;
  const store = (r: ResultV1) =>
    ingest(db, JSON.stringify(signResult(withOwnHistograms(r, ++seed), key.privateKeyPem))).id;
  try {
    const more = {
      otherVersion: store(
        sweepResult(21, 0.8, (r) => {
          if (r.environment.server) r.environment.server.version = '7.2.5';
        }),
      ),
      otherCpu: store(
        sweepResult(22, 0.7, (r) => {
          r.environment.client.cpu.model = OTHER_CPU;
          r.environment.client.virtualization = { kind: 'vm', hypervisor: 'KVM', container: null };
        }),
      ),
      adhoc: store(
        sweepResult(23, 0.6, (r) => {
          (r as { suite: unknown }).suite = null;
          r.cells = r.cells.filter((c) => c.workload.pipelineDepth === 1);
          for (const c of r.cells) {
            c.workload.keyspaceSize = 1000;
            c.label = `${c.test} k1000`;
            c.workloadFingerprint = workloadFingerprint(c.workload);
          }
        }),
      ),
    };
    return { ...fx, more };
  } finally {
    db.close();
  }
}
