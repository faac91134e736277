import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suiteCells } from '@redis-benchdb/engine';
import { describe, expect, it } from 'vitest';
import { halfWidth, halfWidthsByRounds, serverBoundShare, summarize } from '../lib/halfwidth.mjs';

// Issue 29: the comparison profile runs valkey#1026's rows, and its trial count is chosen by how the
// paired interval narrows with rounds (scripts/dataset-halfwidth.mjs).

const root = fileURLToPath(new URL('../../', import.meta.url));

const trial = (ops: number, limitedBy: string) => ({ opsPerSec: ops, saturation: { limitedBy } });
const doc = (
  index: number,
  version: string,
  cells: Record<string, { ops: number[]; limitedBy?: string }>,
) => ({
  runGroup: { id: 'g', index, label: null },
  environment: { server: { product: 'valkey', version } },
  cells: Object.entries(cells).map(([label, c]) => ({
    label,
    trials: c.ops.map((o) => trial(o, c.limitedBy ?? 'server')),
  })),
});

describe('paired half-width by rounds', () => {
  it('is the 95% half-width of the paired ratio, as a fraction, and null below two rounds', () => {
    // A constant 5% in every round: no spread, no width.
    expect(halfWidth([100, 90, 110], [105, 94.5, 115.5])).toBeCloseTo(0, 10);
    expect(halfWidth([100], [105])).toBeNull();
    // Ratios 1.0 and 1.1: mean log 0.0477, sd 0.0674, t(0.975, 1) = 12.706: exp(12.706 * 0.0674 / sqrt 2) - 1.
    expect(halfWidth([100, 100], [100, 110])).toBeCloseTo(
      Math.exp((12.7062 * Math.log(1.1)) / Math.sqrt(2) / Math.sqrt(2)) - 1,
      3,
    );
  });

  it('narrows with rounds, and counts only cells the server limited in at least 90% of trials', () => {
    const base = [100, 101, 99, 100, 102, 98, 100, 101, 99, 100];
    const noisy = base.map((x, i) => x * (1.05 + (i % 2 ? 0.02 : -0.02)));
    const docs = [
      doc(0, '7.2.6', { SET: { ops: base }, 'GET P1': { ops: base, limitedBy: 'client' } }),
      doc(1, '8.0.0-rc2', { SET: { ops: noisy }, 'GET P1': { ops: noisy, limitedBy: 'client' } }),
    ];
    expect(serverBoundShare(docs, 'SET')).toBe(1);
    expect(serverBoundShare(docs, 'GET P1')).toBe(0);
    const rows = summarize(halfWidthsByRounds(docs, [3, 10]));
    expect(rows.map((r: { serverBoundPairs: number }) => r.serverBoundPairs)).toEqual([1, 1]);
    expect(rows[1].medianHalfWidth).toBeLessThan(rows[0].medianHalfWidth);
    expect(rows[1].withinTarget).toBe(1);
    expect(rows[0].worst).toMatchObject({ label: 'SET', member: 'valkey 8.0.0-rc2' });
  });

  it("prints the table for a group of data/ (today's 3 rounds: far wider than 3%)", () => {
    const dir = 'data/results/amd-epyc-l1d48-2cpu-kvm';
    const out = spawnSync(
      process.execPath,
      ['scripts/dataset-halfwidth.mjs', dir, '5612a9b4fbdc1c4e', '--json'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(out.status, out.stderr).toBe(0);
    const [group] = JSON.parse(out.stdout);
    expect(group).toMatchObject({ group: '5612a9b4fbdc1c4e', members: 8, rounds: 3 });
    const three = group.rows.find((r: { rounds: number }) => r.rounds === 3);
    expect(three.serverBoundPairs).toBeGreaterThan(0);
    expect(three.medianHalfWidth).toBeGreaterThan(0.03);
  });

  it('says what to give when the directory holds no group', () => {
    const out = spawnSync(process.execPath, ['scripts/dataset-halfwidth.mjs', 'data/results/keys'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain('give a directory of data/results');
  });
});

describe('the compare profile', () => {
  // RPUSH and LPUSH at pipeline 10 with 128-byte values grow each server's list by about 3 GB over
  // 10 rounds: ten servers at once do not fit a 24 GiB VM (the first group run was stopped for it).
  const LEFT_OUT = ['RPUSH P10 128B', 'LPUSH P10 128B'];

  it("runs every row of valkey#1026 that data/imported holds, with the publication's workload, but the two that do not fit", () => {
    const cells = suiteCells('standard-v1', 'compare');
    const file = readdirSync(`${root}data/imported`).find(
      (f) => f.startsWith('valkey-1026-') && f.includes('7.2.6'),
    )!;
    const published = JSON.parse(readFileSync(`${root}data/imported/${file}`, 'utf8'));
    expect(published.cells).toHaveLength(20);
    const missing: string[] = [];
    for (const row of published.cells) {
      const match = cells.find(
        (c) =>
          c.options.test === row.test &&
          c.options.pipelineDepth === row.workload.pipelineDepth &&
          c.options.valueSizeBytes === row.workload.valueSizeBytes &&
          c.options.connections === row.workload.connections,
      );
      if (!match) missing.push(`${row.test} P${row.workload.pipelineDepth} ${row.workload.valueSizeBytes}B`);
    }
    expect(missing).toEqual(LEFT_OUT);
    expect(cells).toHaveLength(published.cells.length - LEFT_OUT.length);
  });
});
