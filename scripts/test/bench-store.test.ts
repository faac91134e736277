// pnpm bench:store (issue 42): bytes per stored result by suite profile, and where they go.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('bench-store', () => {
  it('measures each profile of the real results, the envelope store the largest part', () => {
    const out = execFileSync(
      process.execPath,
      ['scripts/bench-store.mjs', '--data', 'data/results/amd-epyc-2cpu-kvm', '--json'],
      { cwd: root, encoding: 'utf8' },
    );
    const rows = JSON.parse(out) as Record<
      string,
      { results: number; bytes: number; bytesPerResult: number; breakdown: { name: string; bytes: number }[] }
    >;
    const quick = rows['data/results quick']!;
    expect(quick.results).toBeGreaterThan(0);
    expect(quick.bytesPerResult).toBe(Math.round(quick.bytes / quick.results));
    // Issue 42's bound: a third of the 881 KiB a quick result took before migration 14.
    expect(quick.bytesPerResult).toBeLessThan((881 * 1024) / 3);
    expect(quick.breakdown[0]!.name).toBe('result_envelopes');
    expect(rows['data/results all']!.results).toBeGreaterThanOrEqual(quick.results);
  });

  it('refuses a bad --synthetic, saying what it takes', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/bench-store.mjs', '--synthetic', 'x'], {
        cwd: root,
        stdio: 'pipe',
      }),
    ).toThrow(/invalid --synthetic: x \(an integer >= 0\)/);
  });
});
