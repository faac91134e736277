// A database for the verdict and headline tests (issue 13 items 4 and 5), filled through the real
// ingest() from the project's fixture result (schemas/examples/valid/suite-run.json: Redis 7.4.1 on
// a Xeon E-2388G, baseline SET and GET) and runs of it measured again (remeasure.ts: their own
// histograms, every check passed).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, openDatabase } from '@redis-benchdb/db';
import {
  environmentFingerprint,
  generateSigningKey,
  type ResultV1,
  type SigningKey,
  signResult,
} from '@redis-benchdb/result';
import { remeasured } from '@redis-benchdb/testing';

const example = readFileSync(new URL('../../schemas/examples/valid/suite-run.json', import.meta.url), 'utf8');

/** The fixture's CPU: the machine whose headline the fakes try to take. */
export const MACHINE = 'Intel(R) Xeon(R) E-2388G CPU @ 3.20GHz';
export const FAKE_CPU = 'Fake CPU 9000 (one key)';

export interface TrustFixture {
  dbPath: string;
  /** Two runs of one setup, 3% apart with intervals that do not overlap. */
  aa: [string, string];
  /** A run of another setup, and one twice as fast whose GET ran on a busy host. */
  busy: [string, string];
  /** The same key's copy of aa[0], stored and marked. */
  copy: string;
  /**
   * An exact copy of `victim`'s measurements under a new key, sent after it: stored, and disputed with
   * it (issue 30 item 1), `with` what ingest answered.
   */
  disputed: { victim: string; with: string[] };
  /** The fixture's baseline GET median: the honest headline figure. */
  getOps: number;
}

/** The fixture with its own key prefix (another result id), `edit` applied. */
function run(n: number, opsFactor: number, edit?: (r: ResultV1) => void): ResultV1 {
  const r = JSON.parse(example) as ResultV1;
  r.keyPrefix = `rbdb:${n.toString(16).padStart(6, '0')}:`;
  const out = opsFactor === 1 ? r : remeasured(r, opsFactor);
  edit?.(out);
  return out;
}

/** Another setup: io-threads 2, its environment fingerprint computed as the runner computes it. */
function ioThreads2(r: ResultV1): void {
  r.environment.server!.ioThreads = 2;
  r.environment.fingerprint = environmentFingerprint(r.environment);
}

/** The forger's kernel: their copies are an environment of their own, apart from the A/A pair's noise. */
function forgerKernel(r: ResultV1): void {
  r.environment.client.os.kernel = '6.1.0-forged';
  r.environment.fingerprint = environmentFingerprint(r.environment);
}

export function buildTrustFixture(dir = mkdtempSync(join(tmpdir(), 'rbdb-trust-'))): TrustFixture {
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  const [k1, k2, k3] = [generateSigningKey(), generateSigningKey(), generateSigningKey()] as SigningKey[];
  const store = (r: ResultV1, k: SigningKey) =>
    ingest(db, JSON.stringify(signResult(r, k!.privateKeyPem))).id;
  try {
    const aa: [string, string] = [store(run(1, 1), k1!), store(run(2, 1.03), k1!)];
    // A second key's run of the same machine: the headline needs two keys to name it.
    store(run(3, 0.97), k2!);
    const busy: [string, string] = [
      store(run(4, 0.8, ioThreads2), k1!),
      store(
        run(5, 1.6, (r) => {
          ioThreads2(r);
          r.warnings.push({
            code: 'BUSY_HOST',
            cell: 'GET',
            message:
              "Other processes used 47% of this host's CPU time while this cell was measured (threshold 15%), run queue mean 3.2 (max 6) on 2 CPUs",
          });
        }),
        k1!,
      ),
    ];
    const copy = store(run(6, 1), k1!);
    // The attack of issue 13: a real result re-signed by another key with ops/s x10 (latencies /10,
    // so still plausible), credited to the same machine, and once more to a machine of its own.
    store(run(7, 10, forgerKernel), k3!);
    store(
      run(8, 10.1, (r) => {
        r.environment.client.cpu.model = FAKE_CPU;
        forgerKernel(r);
      }),
      k3!,
    );
    // An ad-hoc run (no suite) as the victim, so that no headline below loses a result to the dispute.
    const adHoc = (r: ResultV1) => {
      r.suite = null;
    };
    const victim = store(run(9, 1.2, adHoc), k2!);
    const copied = ingest(db, JSON.stringify(signResult(run(10, 1.2, adHoc), k3!.privateKeyPem)));
    const disputed = { victim, with: copied.disputedWith ?? [] };
    const getOps = (JSON.parse(example) as ResultV1).cells.find((c) => c.label === 'GET')!.opsPerSec.median;
    return { dbPath, aa, busy, copy, disputed, getOps };
  } finally {
    db.close();
  }
}
