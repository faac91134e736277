import type { CellOptions, CellResult, Target } from '@redis-benchdb/engine';
import { VERSION } from '../version.js';

export interface RunCellEntry extends CellResult {
  label: string;
}

/** The machine-readable record of a run, printed by --json and written by --out. */
export interface RunDocument {
  runner: { name: 'redis-benchdb'; version: string; node: string; engine: 'lean-resp'; threads: number };
  suite: { id: string; profile: string } | null;
  target: { host: string; port: number; socket: string | null; tls: boolean; db: number; resp3: boolean };
  /** A few INFO server fields; the full environment is the probe's job. */
  server: Record<string, string>;
  /** The server was started by this run because nothing answered on the default address. */
  launchedServer: { bin: string; version: string } | null;
  keyPrefix: string;
  startedAt: string;
  finishedAt: string;
  interrupted: boolean;
  incomplete: boolean;
  cleanup: { removedKeys: number | null; error: string | null };
  /** Why the run stopped before its last cell, when a cell failed outright. */
  error: string | null;
  cells: RunCellEntry[];
}

export function targetSummary(t: Target): RunDocument['target'] {
  return {
    host: t.host,
    port: t.port,
    socket: t.socket ?? null,
    tls: Boolean(t.tls),
    db: t.db,
    resp3: t.resp3,
  };
}

export function runnerSummary(cells: CellOptions[]): RunDocument['runner'] {
  return {
    name: 'redis-benchdb',
    version: VERSION,
    node: process.version,
    engine: 'lean-resp',
    threads: Math.max(1, ...cells.map((c) => c.threads)),
  };
}

export const SERVER_INFO_FIELDS = [
  'redis_version',
  'valkey_version',
  'dragonfly_version',
  'server_name',
  'redis_mode',
  'os',
  'arch_bits',
  'multiplexing_api',
  'gcc_version',
  'redis_git_sha1',
  'redis_build_id',
];
