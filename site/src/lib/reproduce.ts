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
  const target = targetFlags(doc);
  if (doc.suite) return [[`${RUNNER_COMMAND} run`, `--profile ${doc.suite.profile}`, ...target].join(' ')];
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
  return [...groups.values()].map(({ tests, cell }) => {
    const w = cell.workload;
    const what = w.command
      ? []
      : w.setGetRatio
        ? [`--ratio ${w.setGetRatio[0]}:${w.setGetRatio[1]}`]
        : [`-t ${tests.join(',')}`];
    const words = [`${RUNNER_COMMAND} run`, ...what, ...workloadFlags(w, cell.trials.length), ...target];
    if (w.command) words.push(...w.command.map(shellWord));
    return words.join(' ');
  });
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

/**
 * Where the server was. A launched server (a run group) listened on a random port: the command
 * launches one again instead (by its usual binary name, looked up on PATH).
 */
function targetFlags(doc: ResultV1): string[] {
  const t = doc.target;
  const f: string[] = [];
  if (doc.runGroup)
    f.push(`--server-bin ${doc.environment.server?.product === 'valkey' ? 'valkey' : 'redis'}-server`);
  else if (t.socket) f.push(`-s ${shellWord(t.socket)}`);
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
