// The invalid examples: each a valid document (or the signed envelope) with exactly one defect, and
// the JSON path its validation error must name.
import { adhoc } from './adhoc.mjs';
import { clusterRun, minimal, runGroupMember } from './small-runs.mjs';

// --- invalid/: one defect each --------------------------------------------------------------------

/** Each: file, the valid document it starts from, the path its error must name, the change. */
export const DEFECTS = [
  ['missing-runner-version.json', minimal, '/runner/version', (d) => delete d.runner.version],
  ['unknown-schema-version.json', minimal, '/schema', (d) => (d.schema = 'redis-benchdb/result.v2')],
  ['wrong-schema-const.json', minimal, '/schema', (d) => (d.schema = 'redis-benchmark/result.v1')],
  [
    'negative-ops-median.json',
    minimal,
    '/cells/0/opsPerSec/median',
    (d) => (d.cells[0].opsPerSec.median *= -1),
  ],
  ['string-for-integer.json', minimal, '/cells/0/completed', (d) => (d.cells[0].completed = '2000')],
  ['fractional-integer.json', minimal, '/cells/0/trials/0/nils', (d) => (d.cells[0].trials[0].nils = 0.5)],
  [
    'null-trial-ops.json',
    minimal,
    '/cells/0/trials/0/opsPerSec',
    (d) => (d.cells[0].trials[0].opsPerSec = null),
  ],
  ['extra-top-level-field.json', minimal, '/hostname', (d) => (d.hostname = 'bench-01.example.net')],
  ['bad-key-prefix.json', minimal, '/keyPrefix', (d) => (d.keyPrefix = 'bench:')],
  ['bad-started-at.json', minimal, '/startedAt', (d) => (d.startedAt = '2025-03-04 11:02:40')],
  [
    'bad-workload-fingerprint.json',
    minimal,
    '/cells/0/workloadFingerprint',
    (d) => (d.cells[0].workloadFingerprint = d.cells[0].workloadFingerprint.toUpperCase()),
  ],
  [
    'bad-environment-fingerprint.json',
    minimal,
    '/environment/fingerprint',
    (d) => (d.environment.fingerprint = d.environment.fingerprint.replace('sha256:', 'md5:')),
  ],
  [
    'bad-pipeline-mode.json',
    minimal,
    '/cells/0/workload/pipelineMode',
    (d) => (d.cells[0].workload.pipelineMode = 'pipelined'),
  ],
  [
    'value-size-missing-max.json',
    minimal,
    '/cells/0/workload/valueSizeBytes/max',
    (d) => delete d.cells[0].workload.valueSizeBytes.max,
  ],
  [
    'value-size-as-number.json',
    minimal,
    '/cells/0/workload/valueSizeBytes',
    (d) => (d.cells[0].workload.valueSizeBytes = 3),
  ],
  [
    'set-get-ratio-three-items.json',
    minimal,
    '/cells/0/workload/setGetRatio',
    (d) => (d.cells[0].workload.setGetRatio = [1, 10, 2]),
  ],
  ['unknown-warning-code.json', minimal, '/warnings/0/code', (d) => (d.warnings[0].code = 'NOISY_NEIGHBOUR')],
  ['hit-ratio-above-one.json', minimal, '/cells/0/hitRatio', (d) => (d.cells[0].hitRatio = 1.2)],
  [
    'histogram-not-base64.json',
    minimal,
    '/cells/0/trials/0/histogram',
    (d) => (d.cells[0].trials[0].histogram = 'HISTFAAAA?not base64'),
  ],
  [
    'thp-bad-enum.json',
    minimal,
    '/environment/client/thp/enabled',
    (d) => (d.environment.client.thp.enabled = '[madvise]'),
  ],
  ['zero-trials.json', minimal, '/cells/0/trials', (d) => (d.cells[0].trials = [])],
  ['cell-missing-crosscheck.json', minimal, '/cells/0/crossCheck', (d) => delete d.cells[0].crossCheck],
  [
    'extra-field-in-response-time.json',
    adhoc,
    '/cells/0/responseTimeUs/p99_9Us',
    (d) => (d.cells[0].responseTimeUs.p99_9Us = d.cells[0].responseTimeUs.p999Us),
  ],
  ['run-group-bad-id.json', runGroupMember, '/runGroup/id', (d) => (d.runGroup.id = 'group-1')],
  ['run-group-missing-label.json', runGroupMember, '/runGroup/label', (d) => delete d.runGroup.label],
  [
    'cluster-node-role-master.json',
    clusterRun,
    '/target/cluster/nodes/0/role',
    (d) => (d.target.cluster.nodes[0].role = 'master'),
  ],
  [
    'redirects-missing-ask.json',
    clusterRun,
    '/cells/0/redirects/ask',
    (d) => delete d.cells[0].redirects.ask,
  ],
  [
    'unknown-reason-not-string.json',
    adhoc,
    '/environment/client/unknown/cpu.maxMhz',
    (d) => (d.environment.client.unknown['cpu.maxMhz'] = 0),
  ],
  // Free text refuses control characters, bidi controls and lengths past the field's maxLength.
  [
    'cpu-model-control-char.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = 'Intel(R) Xeon(R)\u0007 CPU E5-2680 v4 @ 2.40GHz'),
  ],
  [
    'cpu-model-rtl-override.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = 'AMD EPYC \u202e7763 64-Core Processor'),
  ],
  [
    'cpu-model-too-long.json',
    minimal,
    '/environment/client/cpu/model',
    (d) => (d.environment.client.cpu.model = `AMD EPYC 7763 ${'64-Core Processor '.repeat(12)}`),
  ],
];

/** The same for envelopes; they start from the freshly signed one. */
export const ENVELOPE_DEFECTS = [
  ['envelope-missing-signature.json', '/signature', (e) => delete e.signature],
  [
    'envelope-bad-key-fingerprint.json',
    '/keyFingerprint',
    (e) => (e.keyFingerprint = e.keyFingerprint.slice(0, -1)),
  ],
  ['envelope-short-public-key.json', '/publicKey', (e) => (e.publicKey = e.publicKey.slice(4))],
  ['envelope-payload-as-object.json', '/payload', (e) => (e.payload = JSON.parse(e.payload))],
  ['envelope-extra-field.json', '/privateKey', (e) => (e.privateKey = 'MC4CAQAwBQYDK2VwBCIEI...')],
];
