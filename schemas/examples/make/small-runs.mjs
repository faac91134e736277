// valid/minimal.json, the base of most invalid examples, and the two runs built on it: a run-group
// member over a unix socket and a cluster run.
import { environmentFingerprint } from '@redis-benchdb/result';
import { cell, trial } from './measure.mjs';
import { serverBound, suiteRun, suiteWorkload } from './suite-run.mjs';

// --- valid/minimal.json: the smallest real run (`-t set -n 2000 -c 1`), the base of most invalid/ --

export const minimal = {
  ...structuredClone(suiteRun),
  suite: null,
  startedAt: '2025-03-04T11:02:40.006Z',
  finishedAt: '2025-03-04T11:02:40.391Z',
  keyPrefix: 'rbdb:0b51e2:',
  cells: [
    cell(
      'SET',
      'SET',
      {
        ...suiteWorkload('SET'),
        connections: 1,
        valueSizeBytes: { min: 3, max: 3 },
        keyspaceSize: 1,
        requests: 2000,
        durationSec: null,
        warmupSec: 0,
        preload: false,
      },
      [
        trial({
          seed: 501,
          opsPerSec: 38461.5,
          durationSec: 0.052,
          warmupSec: 0,
          medianUs: 25,
          sigma: 0.08,
          tailEvery: 1000,
          requested: 2000,
          requestBytes: 48,
          replyBytes: 5,
          hitRatio: null,
          saturation: {
            clientEventLoopUtilization: [0.264],
            serverCpuShare: 0.31,
            serverMainThreadCpuShare: 0.298,
            achievedRateRatio: null,
            limitedBy: 'neither',
            clientBound: false,
          },
          commands: ['set'],
        }),
      ],
    ),
  ],
  cleanup: { removedKeys: 1, error: null },
};

// --- valid/run-group-member.json: one of the results of `run --server-bin redis-server --transport tcp,unix` --

export const runGroupMember = {
  ...structuredClone(minimal),
  target: { ...minimal.target, port: 0, socket: '/tmp/redis-benchdb-server-Xk3v9a/redis.sock' },
  environment: {
    ...structuredClone(minimal.environment),
    link: { ...minimal.environment.link, kind: 'unix' },
  },
  runGroup: {
    id: '9f2c41d07a3be865',
    index: 1,
    size: 2,
    label: 'redis-server 7.4.1 · unix',
    varies: ['transport'],
  },
};
runGroupMember.environment.fingerprint = environmentFingerprint(runGroupMember.environment);

// --- valid/cluster-run.json: `run --cluster -p 7000 -t set -n 100000 -r 100000` on 3 primaries + 3 replicas --

const clusterIds = ['0a3f', '5be1', '9c27', 'd410', 'e8a2', 'f6c9'].map((p) => p.padEnd(40, '7'));
const clusterRanges = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];
export const clusterRun = {
  ...structuredClone(minimal),
  startedAt: '2025-03-05T09:30:11.402Z',
  finishedAt: '2025-03-05T09:30:14.977Z',
  keyPrefix: 'rbdb:c1a57e:',
  target: {
    ...minimal.target,
    port: 7000,
    cluster: {
      discoveredBy: 'CLUSTER SHARDS',
      slotsCovered: 16384,
      nodes: clusterIds.map((id, i) => ({
        id,
        role: i < 3 ? 'primary' : 'replica',
        host: '127.0.0.1',
        port: 7000 + i,
        primaryId: i < 3 ? null : clusterIds[i - 3],
        slotRanges: 1,
        slots: clusterRanges[i % 3][1] - clusterRanges[i % 3][0] + 1,
        version: '7.4.1',
        health: 'online',
      })),
    },
  },
  environment: {
    ...structuredClone(minimal.environment),
    server: { ...minimal.environment.server, mode: 'cluster' },
  },
  cells: [
    cell(
      'SET',
      'SET',
      {
        ...suiteWorkload('SET'),
        valueSizeBytes: { min: 3, max: 3 },
        keyspaceSize: 100000,
        requests: 100000,
        durationSec: null,
        warmupSec: 0,
        preload: false,
      },
      [
        trial({
          seed: 601,
          opsPerSec: 141243.2,
          durationSec: 0.708,
          warmupSec: 0,
          medianUs: 318,
          sigma: 0.2,
          requested: 100000,
          requestBytes: 57,
          replyBytes: 5,
          hitRatio: null,
          saturation: serverBound(0.86, 0.93),
          commands: ['set'],
        }),
      ],
    ),
  ],
  cleanup: { removedKeys: 63212, error: null },
};
clusterRun.environment.fingerprint = environmentFingerprint(clusterRun.environment);
// A slot moved during the run: the redirected requests were counted by the server once more each.
for (const c of clusterRun.cells) {
  for (const t of c.trials) {
    t.redirects = { moved: 2, ask: 37 };
    t.crossCheck.expected += 39;
    t.crossCheck.observed += 39;
  }
  c.redirects = { moved: 2, ask: 37 };
  c.crossCheck.expected += 39;
  c.crossCheck.observed += 39;
}
