import { type RepeatedCell, repeatedMedians } from '@redis-benchdb/db';
import { type BetweenRunNoise, betweenRunNoise } from '@redis-benchdb/result';
import type { ResultView } from '../model/model.js';
import { database } from './data.js';

/** Each environment's repeated medians, read once per build (per worker): results of one machine share them. */
const byEnvironment = new Map<string, Map<string, RepeatedCell>>();

/**
 * A result's between-run noise, workload by workload, as the database holds it at build time: the
 * spread of the repeated results of its environment fingerprint (db queries/noise.ts), or the stated
 * default where there are fewer than MIN_REPEATED_RESULTS of them. An imported result has no
 * environment fingerprint: the default.
 */
export function noiseOf(r: ResultView): (workloadFingerprint: string) => BetweenRunNoise {
  const env = r.environmentFingerprint;
  if (!env) return () => betweenRunNoise([]);
  let medians = byEnvironment.get(env);
  if (!medians) {
    medians = repeatedMedians(database(), env);
    // Bounded: at 10,000 results most environments are seen once.
    if (byEnvironment.size > 1000) byEnvironment.clear();
    byEnvironment.set(env, medians);
  }
  const m = medians;
  return (fp) => betweenRunNoise(m.get(fp)?.medians ?? []);
}
