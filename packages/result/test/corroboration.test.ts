import { describe, expect, it } from 'vitest';
import {
  type CorroborationInput,
  corroborate,
  MIN_MAD_SHARE,
  OUTLIER_MADS,
  PAIR_BAND,
  spreadTest,
  standingReason,
  standingText,
} from '../src/index.js';

// The corroboration rule (issue 39 item 2) on made-up figures: one machine kind unless said, two
// workloads, the project's figures as the AMD kind of data/ holds them (GET around 120,000 ops/s).
const KIND = 'amd\u0000default';
let n = 0;
function result(
  signer: string,
  figures: Record<string, number>,
  opts: Partial<Pick<CorroborationInput, 'kindKey' | 'copy'>> = {},
): CorroborationInput {
  return {
    resultId: `r${++n}`,
    signer,
    project: signer === 'project',
    kindKey: opts.kindKey ?? KIND,
    copy: opts.copy ?? false,
    figures: new Map(Object.entries(figures)),
  };
}
const PROJECT_GET = [126_112, 108_699, 121_516, 117_296, 109_726, 119_662, 116_657, 127_579];
const projectResults = () => PROJECT_GET.map((get) => result('project', { get, set: get * 0.95 }));
const statusOf = (all: CorroborationInput[], r: CorroborationInput) => corroborate(all).get(r.resultId)!;

describe('corroborate', () => {
  it('admits every project result, whatever its figure', () => {
    const all = [...projectResults(), result('project', { get: 1_000_000 })];
    for (const s of corroborate(all).values()) expect(s).toEqual({ status: 'admitted', basis: 'project' });
  });

  it('holds a fresh key’s x1.5 copy of a project result as an outlier, and four such keys as four outliers', () => {
    const project = projectResults();
    const forged = ['k1', 'k2', 'k3', 'k4'].map((k) =>
      result(k, { get: 117_296 * 1.5, set: 117_296 * 1.425 }),
    );
    const standings = corroborate([...project, ...forged]);
    for (const f of forged) {
      const s = standings.get(f.resultId)!;
      expect(s.status).toBe('outlier');
      expect(standingReason(s)).toBe('OUTLIER');
    }
    // One of them alone, too: the four never vouch for each other.
    expect(statusOf([...project, forged[0]!], forged[0]!).status).toBe('outlier');
  });

  it('admits another signer’s honest result within 3 MADs of the kind’s admitted ones', () => {
    const honest = result('alice', { get: 112_000, set: 108_000 });
    expect(statusOf([...projectResults(), honest], honest)).toEqual({
      status: 'admitted',
      basis: 'corroborated',
    });
  });

  it('states the outlier statistic: median, MAD, and how many results', () => {
    const project = projectResults();
    const forged = result('k1', { get: 180_000 });
    const s = statusOf([...project, forged], forged);
    if (s.status !== 'outlier') throw new Error(s.status);
    const sorted = [...PROJECT_GET].sort((a, b) => a - b);
    const m = (sorted[3]! + sorted[4]!) / 2;
    expect(s.outlier).toMatchObject({
      workloadFingerprint: 'get',
      opsPerSec: 180_000,
      median: m,
      results: 8,
    });
    expect(Math.abs(180_000 - m)).toBeGreaterThan(OUTLIER_MADS * s.outlier.mad);
    expect(standingText(s)).toMatch(
      /^outlier: 180,000 ops\/s is \d+\.\d median absolute deviations .* 8 admitted results/,
    );
  });

  it('holds a lone new signer provisional on a kind nobody else measured, and admits two that agree', () => {
    const lone = result('alice', { get: 50_000 }, { kindKey: 'new' });
    expect(statusOf([lone], lone)).toEqual({ status: 'provisional', why: 'no-shared-workload' });
    const second = result('bob', { get: 52_000 }, { kindKey: 'new' });
    expect(statusOf([lone, second], lone)).toEqual({ status: 'admitted', basis: 'corroborated' });
    // Two keys of one signer are one signer: they never vouch for each other.
    const sameSigner = result('alice', { get: 51_000 }, { kindKey: 'new' });
    expect(statusOf([lone, sameSigner], lone).status).toBe('provisional');
  });

  it('with fewer than 3 admitted results, needs one within the pair band (±29%)', () => {
    const anchor = result('project', { get: 100_000 }, { kindKey: 'small' });
    const within = result('alice', { get: 100_000 * Math.exp(PAIR_BAND) * 0.999 }, { kindKey: 'small' });
    const beyond = result('bob', { get: 100_000 * 1.7 }, { kindKey: 'small' });
    const standings = corroborate([anchor, within, beyond]);
    expect(standings.get(within.resultId)!.status).toBe('admitted');
    // alice's admitted figure is no help to bob either: 1.7 / 1.29 is beyond the band too.
    expect(standings.get(beyond.resultId)).toEqual({ status: 'provisional', why: 'no-agreeing-result' });
  });

  it('judges only against the same kind and configuration', () => {
    const other = result('alice', { get: 117_000 }, { kindKey: 'amd\u0000aof' });
    expect(statusOf([...projectResults(), other], other).status).toBe('provisional');
  });

  it('grows to a fixed point, whatever order the results came in', () => {
    const anchor = result('project', { get: 100_000 }, { kindKey: 'chain' });
    const b = result('bob', { get: 125_000 }, { kindKey: 'chain' });
    const c = result('carol', { get: 150_000 }, { kindKey: 'chain' });
    // carol is 50% from the anchor but within the band of bob, whom the anchor vouches for.
    for (const order of [
      [anchor, b, c],
      [c, b, anchor],
    ])
      expect(corroborate(order).get(c.resultId)!.status).toBe('admitted');
  });

  it('never lets a copy vouch', () => {
    const a = result('alice', { get: 50_000 }, { kindKey: 'new' });
    const copy = result('bob', { get: 50_000 }, { kindKey: 'new', copy: true });
    expect(statusOf([a, copy], a).status).toBe('provisional');
  });
});

describe('spreadTest', () => {
  it('floors the MAD at 1% of the median, so equal figures do not make every other one an outlier', () => {
    expect(spreadTest('w', 102_900, [100_000, 100_000, 100_000])).toBeNull();
    expect(spreadTest('w', 103_100, [100_000, 100_000, 100_000])).toMatchObject({
      mad: MIN_MAD_SHARE * 100_000,
    });
  });
});
