import { describe, expect, it } from 'vitest';
import { LeftOut } from '../src/lib/data/admit.js';
import { seriesParts } from '../src/lib/groups/group.js';
import type { ResultView } from '../src/lib/model/model.js';
import { runsStated } from '../src/lib/model/model.js';
import { commonPinning, pinningWords } from '../src/lib/model/pinning.js';
import { type PublishedRow, publishedSummary, summaryText } from '../src/lib/published/published.js';

// Issue 44's pure parts: how pinning is said, the series a chart may draw, a "left out" line per
// workload, the runs a source states, and the published summary's counts.

describe('pinning (issue 44, item 6)', () => {
  it('says the server ran on 1 of 2 vCPUs and the client on the other', () => {
    expect(pinningWords({ serverCpus: '1', clientCpus: '0', threads: 2 })).toBe(
      'server pinned to 1 of 2 vCPUs and the client to the other, on one host',
    );
    expect(pinningWords({ serverCpus: '3', clientCpus: '0-1', threads: 4 })).toBe(
      'server pinned to 1 of 4 vCPUs and the client to 2 vCPUs, on one host',
    );
    expect(pinningWords({ serverCpus: null, clientCpus: null, threads: 2 })).toBeNull();
    expect(
      commonPinning([
        { serverCpus: '1', clientCpus: '0', threads: 2 },
        { serverCpus: null, clientCpus: null, threads: 2 },
      ]),
    ).toBe('pinning differs between these results');
  });
});

describe('charts of a group (issue 44, item 3)', () => {
  const m = (product: string) => ({ server: { product } }) as unknown as ResultView;
  it('draws at most 8 series a chart: a group of ten in one part per product, each with the first member', () => {
    const ten = [...'rrrrrrvvvv'].map((p) => m(p === 'r' ? 'redis' : 'valkey'));
    const parts = seriesParts(ten);
    expect(parts.map((p) => p.name)).toEqual(['redis', 'valkey']);
    expect(parts[0]!.members).toEqual([0, 1, 2, 3, 4, 5]);
    expect(parts[1]!.members).toEqual([0, 6, 7, 8, 9]);
    for (const p of parts) expect(p.members.length).toBeLessThanOrEqual(8);
    expect(seriesParts(ten.slice(0, 8))).toEqual([{ name: null, members: [0, 1, 2, 3, 4, 5, 6, 7] }]);
    const many = seriesParts(Array.from({ length: 20 }, () => m('redis')));
    for (const p of many) expect(p.members.length).toBeLessThanOrEqual(8);
    expect(new Set(many.flatMap((p) => p.members)).size).toBe(20);
  });
});

describe('left out, per workload (issue 44, item 5)', () => {
  it('counts GET and SET apart where a figure is given per workload', () => {
    const l = new LeftOut();
    l.add('a', ['BUSY_HOST'], 'GET');
    l.add('b', ['CLIENT_BOUND'], 'SET');
    l.add('c', ['CLIENT_BOUND'], 'SET');
    expect(l.text).toBe('1 result left out of GET: 1 busy host; 2 results left out of SET: 2 client-bound');
    const one = new LeftOut();
    one.add('a', ['BUSY_HOST']);
    expect(one.text).toBe('1 result left out: 1 busy host');
  });
});

describe("an imported result's runs (issue 44, item 2)", () => {
  it('reads the runs only where the notes quote the source', () => {
    expect(runsStated('The setup comes from the words ("AWS r6g.metal, 50 clients, three runs"): ...')).toBe(
      3,
    );
    expect(runsStated('three runs, the importer thinks')).toBeNull();
    expect(runsStated(null)).toBeNull();
  });
});

describe('the published summary (issue 44, item 2)', () => {
  const row = (
    label: string,
    ratio: number,
    low: number,
    high: number,
    flags: string[] = [],
  ): PublishedRow => ({
    label,
    test: label,
    pipeline: 10,
    valueBytes: 16,
    connections: 50,
    baseOps: 100,
    otherOps: 100 * ratio,
    ratio,
    match: {
      kind: 'paired',
      groupId: 'g',
      machine: 'm',
      rounds: 10,
      ratio: (low + high) / 2,
      ci95Low: low,
      ci95High: high,
      inside: ratio >= low && ratio <= high,
      flags,
    },
  });
  it('counts only rows without flags, and names the reversals', () => {
    const s = publishedSummary({
      rows: [
        row('GET', 0.957, 1.026, 1.054),
        row('SET', 1.0, 0.98, 1.02),
        row('LPUSH', 1.01, 0.9, 1.1, ['CLIENT_BOUND']),
        { ...row('RPUSH 128', 1.0, 1, 1), match: { kind: 'none', reason: 'not run' } },
      ],
    });
    expect(s).toMatchObject({ rows: 4, matched: 3, judged: 2, inside: 1, outside: 1 });
    expect(s.refused).toEqual({ count: 1, flags: ['CLIENT_BOUND'] });
    expect(s.reversals.map((r) => r.label)).toEqual(['GET']);
    expect(summaryText(s)).toContain(
      'the published change lies inside our 95% interval on 1 and outside on 1',
    );
    expect(summaryText(s)).toContain('GET (theirs −4.3%, ours +4.0%)');
  });
});
