// The run groups of data/ as their files state them, and the paired figures recomputed from the
// trials, for the tests that read the site built from data/ (first-screen-gv, summaries-data): what a page
// shows is checked against these, never against the site's own code.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  configFactsOf,
  configIdentity,
  machineFactsOf,
  machineIdentity,
  type ResultV1,
} from '@redis-benchdb/result';

const root = fileURLToPath(new URL('../../', import.meta.url));
const results = join(root, 'data/results');
/** data/results' directories, one per machine (empty in a checkout without the data). */
export const dirs = existsSync(results)
  ? readdirSync(results).filter((d) => d !== 'keys' && statSync(join(results, d)).isDirectory())
  : [];

export interface Member {
  group: string;
  index: number;
  product: string;
  version: string;
  /** The runner's label: "valkey-server 8.0.1 · io-threads 2". */
  label: string;
  /** Machine kind and configuration as pages name them (labels) and as the site keys them. */
  machine: string;
  config: string;
  machineKey: string;
  configKey: string;
  /** Run in interleaved rounds (a schedule): only then are trial i of two members paired. */
  interleaved: boolean;
  /** Trial ops/s per label, in round order. */
  trials: Map<string, number[]>;
}

export function members(): Member[] {
  return dirs.flatMap((d) =>
    readdirSync(join(results, d))
      .filter((f) => f.endsWith('.json') && f !== 'manifest.json')
      .map((f) => {
        const doc = JSON.parse(JSON.parse(readFileSync(join(results, d, f), 'utf8')).payload) as ResultV1;
        return {
          group: doc.runGroup!.id,
          index: doc.runGroup!.index,
          product: doc.environment.server.product,
          version: doc.environment.server.version!,
          label: doc.runGroup!.label ?? '',
          machine: machineIdentity(machineFactsOf(doc)).label,
          config: configIdentity(configFactsOf(doc)).label,
          machineKey: machineIdentity(machineFactsOf(doc)).key,
          configKey: configIdentity(configFactsOf(doc)).key,
          interleaved: (doc.runGroup?.schedule?.length ?? 0) > 0,
          trials: new Map(doc.cells.map((c) => [c.label, c.trials.map((t) => t.opsPerSec)])),
        };
      }),
  );
}

/**
 * The workloads a matrix leads with, in order, as each profile names them (issue 28: baseline GET and
 * SET, then pipelined GET and SET): the standard profiles' (quick, full) and the compare profile's,
 * 16-byte values at pipeline 1 and 10. A group shows those two members or more hold.
 */
const LEADING: readonly (readonly string[])[] = [
  ['GET', 'GET 16B'],
  ['SET', 'SET 16B'],
  ['GET P16', 'GET P10 16B'],
  ['SET P16', 'SET P10 16B'],
];

export function leading(mine: readonly Member[]): string[] {
  return LEADING.flat().filter((l) => mine.filter((m) => m.trials.has(l)).length >= 2);
}

/** Student's t, 97.5% quantile, by degrees of freedom (the groups have few rounds). */
const T975 = [
  Number.NaN,
  ...[12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228],
  ...[2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086],
];

/** The paired ratio b/a of trial i with trial i: geometric mean and its 95% t interval. */
export function paired(a: number[], b: number[]): { ratio: number; low: number; high: number } | null {
  const logs = a.flatMap((x, i) => (x > 0 && (b[i] ?? 0) > 0 ? [Math.log(b[i]! / x)] : []));
  const n = logs.length;
  if (n < 2 || n >= T975.length) return null;
  const m = logs.reduce((s, x) => s + x, 0) / n;
  const sd = Math.sqrt(logs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1));
  const half = (T975[n - 1]! * sd) / Math.sqrt(n);
  return { ratio: Math.exp(m), low: Math.exp(m - half), high: Math.exp(m + half) };
}

export const close = (a: number, b: number) => Math.abs(a / b - 1) < 1e-6;
/** The interval's ends: T975 rounds Student's t to three decimals. */
export const near = (a: number, b: number) => Math.abs(a / b - 1) < 1e-3;
