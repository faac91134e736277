import type { ResultV1 } from '@redis-benchdb/result';

type Cell = ResultV1['cells'][number];
type Workload = Cell['workload'];

/** How a reproduce line starts the runner: its published name on npm. */
export const RUNNER_COMMAND = 'npx redis-benchdb';

/**
 * What replaces RUNNER_COMMAND until the runner is published on npm (the result page says so under
 * its reproduce line): the repository's script in a clone, or the tarball `npm pack` writes.
 */
export const BEFORE_PUBLISHED = {
  clone: 'pnpm -s redis-benchdb',
  tarball: 'npx -y -p ./redis-benchdb-VERSION.tgz redis-benchdb',
} as const;

/**
 * The command lines that reproduce a measured result, from what it recorded: a suite run is its
 * profile; an ad hoc run is its flags in full (every workload parameter, the seed, the trials), with
 * a custom command's words as typed. Cells that differ in more than their test need a command each.
 */
export function reproduceCommands(doc: ResultV1): string[] {
  const target = [...targetFlags(doc), ...configFlags(doc)];
  const note = configNote(doc);
  if (doc.suite)
    return [...note, [`${RUNNER_COMMAND} run`, `--profile ${doc.suite.profile}`, ...target].join(' ')];
  const groups = new Map<string, { tests: string[]; cell: Cell }>();
  for (const [i, c] of doc.cells.entries()) {
    const flags = workloadFlags(c.workload, c.trials.length).join(' ');
    // Plain tests with equal flags run from one -t list; a custom command or a ratio runs alone.
    const alone = c.workload.command !== null || c.workload.setGetRatio !== null;
    const key = alone ? `${flags} #${i}` : flags;
    const g = groups.get(key);
    if (g && !alone) g.tests.push(c.workload.test.toLowerCase());
    else groups.set(key, { tests: [c.workload.test.toLowerCase()], cell: c });
  }
  return [
    ...note,
    ...[...groups.values()].map(({ tests, cell }) => {
      const w = cell.workload;
      const what = w.command
        ? []
        : w.setGetRatio
          ? [`--ratio ${w.setGetRatio[0]}:${w.setGetRatio[1]}`]
          : [`-t ${tests.join(',')}`];
      const words = [`${RUNNER_COMMAND} run`, ...what, ...workloadFlags(w, cell.trials.length), ...target];
      if (w.command) words.push(...w.command.map(shellWord));
      return words.join(' ');
    }),
  ];
}

/**
 * The server settings of the configuration identity (packages/result identity.ts) that differ from
 * a launched server's defaults, and the pinning: a launched server (a run group) gets them as
 * --server-config lines and --server-cpus/--client-cpus, so the command measures the same
 * configuration, not the default one.
 */
function configLines(doc: ResultV1): string[] {
  const s = doc.environment.server;
  if (!s) return [];
  const lines: string[] = [];
  if (s.ioThreads !== null && s.ioThreads !== 1) lines.push(`io-threads ${s.ioThreads}`);
  // Valkey 8 always reads in its I/O threads and has no such setting to give.
  if (s.ioThreads !== null && s.ioThreads > 1 && s.ioThreadsDoReads && s.product !== 'valkey')
    lines.push('io-threads-do-reads yes');
  const p = s.persistence;
  if (p.appendonly) lines.push('appendonly yes', `appendfsync ${p.appendfsync ?? 'everysec'}`);
  if (p.save !== null && p.save.trim() !== '') lines.push(`save ${p.save.trim()}`);
  if (s.maxmemoryBytes)
    lines.push(`maxmemory ${s.maxmemoryBytes}`, `maxmemory-policy ${s.maxmemoryPolicy ?? 'noeviction'}`);
  return lines;
}

function configFlags(doc: ResultV1): string[] {
  if (!doc.runGroup) return [];
  const f = configLines(doc).map((l) => `--server-config ${shellWord(l)}`);
  const { serverCpus, clientCpus } = doc.environment.client.numa;
  if (serverCpus) f.push(`--server-cpus ${shellWord(serverCpus)}`);
  if (clientCpus) f.push(`--client-cpus ${shellWord(clientCpus)}`);
  return f;
}

/** A server the runner did not launch was configured by its owner: the command says how it ran. */
function configNote(doc: ResultV1): string[] {
  if (doc.runGroup) return [];
  const lines = configLines(doc);
  return lines.length ? [`# the server ran with: ${lines.join('; ')}`] : [];
}

function workloadFlags(w: Workload, trials: number): string[] {
  const f: string[] = [`-c ${w.connections}`];
  f.push(w.durationSec !== null ? `--duration ${w.durationSec}` : `-n ${w.requests}`);
  if (w.warmupSec > 0) f.push(`--warmup ${w.warmupSec}`);
  f.push(`-P ${w.pipelineDepth}`);
  if (w.pipelineMode !== 'batch') f.push(`--pipeline-mode ${w.pipelineMode}`);
  const { min, max } = w.valueSizeBytes;
  f.push(`-d ${min === max ? min : `${min}-${max}`}`);
  f.push(`-r ${w.keyspaceSize}`);
  if (w.keyPattern !== 'uniform') f.push(`--key-pattern ${w.keyPattern}`);
  if (w.keyPattern === 'zipf' && w.zipfExponent !== 0.99) f.push(`--zipf-exponent ${w.zipfExponent}`);
  if (w.preload) f.push('--preload');
  if (w.rateOpsPerSec !== null) f.push(`--rate ${w.rateOpsPerSec}`);
  if (w.rateOpsPerSec !== null && w.arrival !== 'constant') f.push(`--arrival ${w.arrival}`);
  if (w.threads > 1) f.push(`--threads ${w.threads}`);
  f.push(`--seed ${w.seed}`);
  if (trials !== 1) f.push(`--trials ${trials}`);
  return f;
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i;

/**
 * Where the server was. A launched server (a run group) listened on a random port: the command
 * launches one again instead (by its usual binary name, looked up on PATH).
 */
function targetFlags(doc: ResultV1): string[] {
  const t = doc.target;
  const f: string[] = [];
  if (doc.runGroup)
    f.push(`--server-bin ${doc.environment.server?.product === 'valkey' ? 'valkey' : 'redis'}-server`);
  // A socket path or a host name says where the submitter's server lives, not where the reader's
  // will: placeholders the reader fills in. Only a loopback address means the same on every machine.
  else if (t.socket) f.push('-s SOCKET');
  else if (!LOOPBACK.test(t.host)) f.push(`-h HOST -p ${t.port}`);
  else if (t.host !== '127.0.0.1' || t.port !== 6379) f.push(`-h ${shellWord(t.host)} -p ${t.port}`);
  if (t.cluster) f.push('--cluster');
  if (t.tls) f.push('--tls');
  if (t.db !== 0) f.push(`--dbnum ${t.db}`);
  if (t.resp3) f.push('--resp3');
  return f;
}

/** A word as a POSIX shell reads it back unchanged: bare when safe, else in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
