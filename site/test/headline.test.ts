import type { SiteCellRow } from '@redis-benchdb/db';
import { describe, expect, it } from 'vitest';
import {
  backing,
  countsForHeadline,
  headlineEntries,
  lowerMedian,
  rankNames,
} from '../src/lib/home/headline.js';

/** A headline cell of one result: only what the rule reads is filled in. */
const cell = (machine: string, key: string, ops: number, more: Partial<SiteCellRow> = {}): SiteCellRow =>
  ({
    resultId: `${machine}-${key}-${ops}`,
    cpuModel: machine,
    label: 'GET',
    opsMedian: ops,
    keyFingerprint: key,
    signer: key,
    copyOf: null,
    noVerdict: null,
    configDefault: 1,
    warningCodes: null,
    incomplete: 0,
    crossCheck: 'match',
    ...more,
  }) as SiteCellRow;

const entries = (cells: SiteCellRow[]) => headlineEntries(cells, (c) => c.cpuModel!);

describe('the headline rule', () => {
  it('counts no result the corroboration rule holds back, however high its figure, and keeps its 1-signer mark', () => {
    const honest = [cell('m', 'project', 100)];
    const held = [1, 2, 3, 4].map((k) =>
      cell('m', `fresh${k}`, 150, { held: k % 2 ? 'OUTLIER' : 'PROVISIONAL' }),
    );
    expect(held.some(countsForHeadline)).toBe(false);
    expect(entries([...honest, ...held])).toEqual(entries(honest));
    expect(entries([...honest, ...held])[0]).toMatchObject({ opsPerSec: 100, signers: 1 });
  });

  it('is the median of per-key medians, the lower middle one for an even count', () => {
    expect(lowerMedian([3, 1, 2])).toBe(2);
    expect(lowerMedian([10, 1])).toBe(1);
    const [e] = entries([
      cell('m', 'k1', 100),
      cell('m', 'k1', 110),
      cell('m', 'k1', 90),
      cell('m', 'k2', 95),
    ]);
    // k1: 100 (median of 90, 100, 110); k2: 95; the lower of the two.
    expect(e).toEqual({ name: 'm', label: 'GET', opsPerSec: 95, results: 4, signers: 2, keys: 2 });
  });

  it('one key cannot lift a figure above what another key measured, however many results it sends', () => {
    const honest = [cell('m', 'k1', 100), cell('m', 'k2', 104)];
    const forged = Array.from({ length: 50 }, (_, i) => cell('m', 'k3', 1000 + i));
    const [e] = entries([...honest, ...forged]);
    expect(e!.opsPerSec).toBe(104);
    expect(e).toMatchObject({ results: 52, signers: 3, keys: 3 });
  });

  it('ranks entries with two keys or more first: a one-key entry comes last whatever its figure', () => {
    const e = entries([
      cell('a', 'k1', 100),
      cell('a', 'k2', 100),
      cell('b', 'k3', 1000),
      cell('c', 'k1', 50),
      cell('c', 'k4', 60),
    ]);
    expect(rankNames(e, 'GET')).toEqual(['a', 'c', 'b']);
    expect(backing(e.find((x) => x.name === 'b')!)).toBe('1 result, 1 signer');
  });

  it('admits only what the admission rule admits, of the default configuration; unstable alone is admitted', () => {
    expect(countsForHeadline(cell('m', 'k', 1, { copyOf: 'x' }))).toBe(false);
    for (const flags of [
      'BUSY_HOST',
      'CPU_STEAL',
      'DRIFT',
      'DRIFT,UNSTABLE',
      'CLIENT_BOUND,UNSTABLE',
      'ERRORS',
    ])
      expect(countsForHeadline(cell('m', 'k', 1, { noVerdict: flags })), flags).toBe(false);
    expect(countsForHeadline(cell('m', 'k', 1, { noVerdict: 'UNSTABLE' }))).toBe(true);
    expect(countsForHeadline(cell('m', 'k', 1, { warningCodes: 'IO_THREADS_OVER_CPUS,VM' }))).toBe(false);
    expect(countsForHeadline(cell('m', 'k', 1, { incomplete: 1 }))).toBe(false);
    expect(countsForHeadline(cell('m', 'k', 1, { crossCheck: 'mismatch' }))).toBe(false);
    expect(countsForHeadline(cell('m', 'k', 1, { configDefault: 0 }))).toBe(false);
    expect(countsForHeadline(cell('m', 'k', 1, { opsMedian: null }))).toBe(false);
  });

  it('counts signers, not keys: two keys of one signer are one submitter, ranked after two signers', () => {
    const project = (key: string, ops: number) => cell('solo', key, ops, { signer: 'redis-benchdb project' });
    const e = entries([
      project('d1', 500),
      project('d2', 400),
      cell('pair', 'k1', 100),
      cell('pair', 'k2', 110),
    ]);
    const solo = e.find((x) => x.name === 'solo')!;
    // The project's two data keys: one signer, so its figure is its own median and it cannot head the ranking.
    expect(solo).toMatchObject({ results: 2, signers: 1, keys: 2, opsPerSec: 400 });
    expect(rankNames(e, 'GET')).toEqual(['pair', 'solo']);
    expect(backing(solo)).toBe('2 results, 1 signer (2 keys)');
  });
});
