import {
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  findTests,
  type KeyPattern,
  type PipelineMode,
  type Target,
} from '@redis-benchdb/engine';
import { CliError, EXIT_USAGE } from '../errors.js';

/** The run command's flags as commander hands them over (strings, booleans). */
export interface RunFlags {
  host?: string;
  port?: string;
  socket?: string;
  password?: string;
  user?: string;
  uri?: string;
  dbnum?: string;
  clients?: string;
  requests?: string;
  datasize?: string;
  pipeline?: string;
  keyspacelen?: string;
  tests?: string;
  quiet?: boolean;
  csv?: boolean;
  json?: boolean;
  out?: string;
  threads?: string;
  tls?: boolean;
  cacert?: string;
  cert?: string;
  key?: string;
  sni?: string;
  insecure?: boolean;
  resp3?: boolean;
  duration?: string;
  warmup?: string;
  /** Seconds without a reply, with requests outstanding, before a cell ends as incomplete. */
  timeout?: string;
  allowErrors?: boolean;
  pipelineMode?: string;
  keyPattern?: string;
  zipfExponent?: string;
  seed?: string;
  rate?: string;
  arrival?: string;
  ratio?: string;
  preload?: boolean;
  profile?: string;
  trials?: string;
  launch?: boolean;
  cloudMetadata?: boolean;
  store?: boolean;
  db?: string;
  submit?: boolean;
  server?: string;
  /** Launch these servers (repeatable); see run/launch-plan.ts. */
  serverBin?: string[];
  cluster?: boolean;
  serverConfig?: string[];
  serverConfigVariant?: string[];
  persistence?: string;
  transport?: string;
  serverCpus?: string;
  clientCpus?: string;
}

export interface RunPlan {
  target: Target;
  /** True when the user named no server: the CLI may start a throwaway one if nothing answers. */
  targetIsDefault: boolean;
  /** Ad hoc cells from -t or a custom command; null means: run the suite's profile. */
  cells: CellOptions[] | null;
  /** Overrides applied to every suite cell (threads, seed...). */
  common: Partial<CellOptions>;
  profile: string;
  /** Trials per cell when given; otherwise the suite profile's, or 1 for ad hoc cells. */
  trials: number | null;
}

const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);

function int(
  name: string,
  v: string | undefined,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw usage(`invalid ${name}: "${v}" (expected a whole number ${range})`);
  }
  return n;
}

function num(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw usage(`invalid ${name}: "${v}" (expected a number >= 0)`);
  return n;
}

/** `256`, `1k`, `64KiB`, or a range `16-1024`. */
export function parseSize(v: string): number | [number, number] {
  const one = (s: string): number => {
    const m = /^(\d+)\s*(b|k|kb|kib|m|mb|mib)?$/i.exec(s.trim());
    if (!m)
      throw usage(`invalid value size: "${v}" (expected bytes like 256, 4k, 64KiB, or a range like 16-1024)`);
    const unit = (m[2] ?? 'b').toLowerCase();
    return Number(m[1]) * (unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1);
  };
  const dash = v.indexOf('-');
  return dash > 0 ? [one(v.slice(0, dash)), one(v.slice(dash + 1))] : one(v);
}

/** `redis[s]://[user[:password]@]host[:port][/db]`, as redis-benchmark's -u takes it. */
export function parseUri(uri: string): Partial<Target> {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw usage(`invalid URI: "${uri}" (expected redis://[user[:password]@]host[:port][/db])`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw usage(`invalid URI scheme: "${u.protocol}" (expected redis: or rediss:)`);
  const out: Partial<Target> = {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
  };
  if (u.protocol === 'rediss:') out.tls = true;
  if (u.password) {
    out.password = decodeURIComponent(u.password);
    if (u.username) out.user = decodeURIComponent(u.username);
  } else if (u.username) out.password = decodeURIComponent(u.username);
  const db = u.pathname.replace('/', '');
  if (db) out.db = int('database in URI', db, 0)!;
  return out;
}

/** The server to talk to, from redis-benchmark's flags (shared by run and sysinfo). */
export function parseTarget(f: RunFlags): Target {
  const target: Target = { ...DEFAULT_TARGET, ...(f.uri ? parseUri(f.uri) : {}) };
  if (f.host !== undefined) target.host = f.host;
  if (f.port !== undefined) target.port = int('port (-p)', f.port, 1, 65535)!;
  if (f.socket !== undefined) target.socket = f.socket;
  if (f.password !== undefined) target.password = f.password;
  if (f.user !== undefined) target.user = f.user;
  if (f.user !== undefined && target.password === undefined)
    throw usage('--user needs a password: add -a PASSWORD');
  if (f.dbnum !== undefined) target.db = int('database (--dbnum)', f.dbnum, 0)!;
  if (f.resp3) target.resp3 = true;
  if (f.cluster) target.cluster = true;
  if (f.tls || f.cacert || f.cert || f.key || f.insecure || f.sni) {
    target.tls = {
      ...(typeof target.tls === 'object' ? target.tls : {}),
      ...(f.cacert ? { caFile: f.cacert } : {}),
      ...(f.cert ? { certFile: f.cert } : {}),
      ...(f.key ? { keyFile: f.key } : {}),
      ...(f.sni ? { servername: f.sni } : {}),
      ...(f.insecure ? { insecure: true } : {}),
    };
  }
  return target;
}

export function parseRunFlags(f: RunFlags, command: string[]): RunPlan {
  const target = parseTarget(f);
  const timeout = num('reply timeout (--timeout)', f.timeout);
  if (timeout !== undefined) target.replyTimeoutSec = timeout;
  // A throwaway server is standalone: with --cluster, 127.0.0.1:6379 is the node to ask, or an error.
  const targetIsDefault =
    f.host === undefined &&
    f.port === undefined &&
    f.socket === undefined &&
    f.uri === undefined &&
    !f.cluster;

  const duration = num('duration (--duration)', f.duration);
  const requests = int('request count (-n)', f.requests);
  const common: Partial<CellOptions> = {};
  const set = <K extends keyof CellOptions>(k: K, v: CellOptions[K] | undefined) => {
    if (v !== undefined) common[k] = v;
  };
  set('connections', int('clients (-c)', f.clients));
  set('pipelineDepth', int('pipeline depth (-P)', f.pipeline));
  set('pipelineMode', f.pipelineMode as PipelineMode | undefined);
  set('valueSizeBytes', f.datasize === undefined ? undefined : parseSize(f.datasize));
  set('keyspaceSize', int('key space (-r)', f.keyspacelen));
  set('keyPattern', f.keyPattern as KeyPattern | undefined);
  set('zipfExponent', num('zipf exponent', f.zipfExponent));
  set('seed', int('seed', f.seed, 0));
  set('threads', int('threads', f.threads));
  set('rateOpsPerSec', num('rate (--rate)', f.rate));
  set('arrival', f.arrival as CellOptions['arrival'] | undefined);
  set('warmupSec', num('warm-up (--warmup)', f.warmup));
  set('preload', f.preload);
  if (duration !== undefined && requests !== undefined)
    throw usage('give either -n (requests) or --duration (seconds), not both');
  if (duration !== undefined) set('durationSec', duration);
  if (requests !== undefined) set('requests', requests);

  const adHoc = f.tests !== undefined || command.length > 0 || f.ratio !== undefined;
  const trials = int('trials (--trials)', f.trials, 1, 1000) ?? null;
  if (!adHoc) return { target, targetIsDefault, cells: null, common, profile: f.profile ?? 'quick', trials };

  // Ad hoc cells take redis-benchmark's defaults, then the flags given.
  const base: CellOptions = { ...DEFAULT_CELL_OPTIONS, ...common };
  if (duration !== undefined) delete base.requests;
  let cells: CellOptions[];
  if (f.ratio !== undefined) {
    const m = /^(\d+):(\d+)$/.exec(f.ratio);
    if (!m) throw usage(`invalid --ratio: "${f.ratio}" (expected SET:GET like 1:10)`);
    cells = [{ ...base, test: 'SET:GET', setGetRatio: [Number(m[1]), Number(m[2])] }];
  } else if (command.length > 0) {
    cells = [{ ...base, test: 'CUSTOM', command }];
  } else {
    try {
      cells = findTests(f.tests!.split(',')).map((t) => ({ ...base, test: t.name }));
    } catch (err) {
      throw usage((err as Error).message);
    }
  }
  return { target, targetIsDefault, cells, common, profile: f.profile ?? 'quick', trials };
}
