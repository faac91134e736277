// Synthetic (never in data/): two machine kinds that share a CPU model name and differ only in L2,
// each with Redis 6.0.20 and 7.0.15; kind A also an interleaved group of the two, io-threads 2 and
// AOF members, and a busy-host result. Filled through the same ingest() the service uses.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingest, openDatabase } from '@redis-benchdb/db';
import { generateSigningKey, type ResultV1, signResult } from '@redis-benchdb/result';
import { withOwnHistograms } from '@redis-benchdb/testing';
import { sweepResult } from './fixture.js';
import { vouchFor } from './vouch.js';

const key = generateSigningKey();

export interface KindsFixture {
  dbPath: string;
  groupId: string;
  /** Kind A (L2 512 KiB), default configuration: the interleaved group's members. */
  a60: string;
  a70: string;
  /** Kind A, other configurations and a busy host. */
  aIoThreads2: string;
  aAof60: string;
  aAof70: string;
  aBusy70: string;
  /** Kind B (L2 1 MiB), default configuration, not grouped: three 6.0.20 results and one 7.0.15. */
  b60: string[];
  b70: string;
}

type Edit = (r: ResultV1) => void;
const version =
  (v: string): Edit =>
  (r) => {
    r.environment.server!.product = 'redis';
    r.environment.server!.version = v;
  };
const l2 =
  (kib: number): Edit =>
  (r) => {
    r.environment.client.cpu.cacheL2KiB = kib;
  };

export function buildKindsFixture(dir = mkdtempSync(join(tmpdir(), 'rbdb-kinds-'))): KindsFixture {
  const dbPath = join(dir, 'benchdb.sqlite');
  const db = openDatabase(dbPath);
  vouchFor(db, key);
  let n = 500;
  // Each result with histograms of its own (latencies scaled by under 5%): one key's identical
  // measurements would be stored as copies and counted once.
  const store = (speed: number, ...edits: Edit[]) => {
    const r = withOwnHistograms(
      sweepResult(n, speed, (x) => {
        for (const e of edits) e(x);
      }),
      (n - 499) * 0.2,
    );
    n++;
    return ingest(db, JSON.stringify(signResult(r, key.privateKeyPem))).id;
  };
  try {
    const groupId = '27a0b1c2d3e4f506';
    // Interleaved: the rounds are recorded (runGroup.schedule), so trial i of one pairs with trial i of the other.
    const member =
      (index: number): Edit =>
      (r) => {
        (r as ResultV1 & { runGroup: unknown }).runGroup = {
          id: groupId,
          index,
          size: 2,
          label: `redis-server ${index === 0 ? '6.0.20' : '7.0.15'}`,
          varies: ['serverBin'],
          schedule: r.cells.flatMap((_, cell) =>
            [1, 2, 3].map((round) => ({ cell, round, order: round % 2 ? [0, 1] : [1, 0] })),
          ),
        };
      };
    // 7.0.15 is about 2% faster than 6.0.20 in each round, and each round moves both: the paired ratio is ~1.025.
    const rounds =
      (factors: number[]): Edit =>
      (r) => {
        for (const c of r.cells)
          c.trials.forEach((t, i) => {
            t.opsPerSec *= factors[i] ?? 1;
          });
      };
    const a60 = store(0.5, l2(512), version('6.0.20'), member(0), rounds([1, 0.8, 1.1]));
    const a70 = store(0.51, l2(512), version('7.0.15'), member(1), rounds([1.01, 0.79, 1.12]));
    const aIoThreads2 = store(0.7, l2(512), version('7.0.15'), (r) => {
      r.environment.server!.ioThreads = 2;
    });
    const aof: Edit = (r) => {
      r.environment.server!.persistence = { save: '', appendonly: true, appendfsync: 'everysec' };
    };
    const aAof60 = store(0.3, l2(512), version('6.0.20'), aof);
    const aAof70 = store(0.31, l2(512), version('7.0.15'), aof);
    const aBusy70 = store(0.2, l2(512), version('7.0.15'), (r) => {
      r.warnings.push({
        code: 'BUSY_HOST',
        cell: 'GET',
        message: 'other processes used 30% of the CPUs during GET',
      });
    });
    // Kind B: 1.5 times kind A, nothing else differs but the L2.
    const b60 = [0.75, 0.76, 0.74].map((s) => store(s, l2(1024), version('6.0.20')));
    const b70 = store(0.9, l2(1024), version('7.0.15'));
    return { dbPath, groupId, a60, a70, aIoThreads2, aAof60, aAof70, aBusy70, b60, b70 };
  } finally {
    db.close();
  }
}
