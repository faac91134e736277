import type { LaunchedServer } from '@redis-benchdb/engine';
import { checkPlausibility, validateResult } from '@redis-benchdb/result';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  describeResult,
  parseDoc,
  readEnvelope,
  runCli,
  tempDir,
  testServer,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// `run --slo`: the built CLI against a throwaway redis-server (never 127.0.0.1:6379). A search's
// steps go to stderr one line each, its answer to stdout (stderr with --json), and the result keeps
// every step; bad objectives are refused before anything connects.

cliFileHooks();

const STEP =
  /^SET p99<=5ms: step (\d+): [\d,]+ ops\/s offered, [\d,]+ achieved in [\d.]+ s, p99=[\d.]+ ms \(from intended send\): (pass|fail: .+)$/gm;
const ANSWER =
  /^SET p99<=5ms: (max ([\d,]+) ops\/s at p99<=5ms \(bracket ([\d,]+)–([\d,]+); \d+ steps in [\d.]+ s\)|no answer at p99<=5ms: ([a-z-]+): .+)$/m;
const n = (s: string) => Number(s.replace(/,/g, ''));

describe('run --slo refuses what it cannot search', () => {
  let port: string;
  beforeAll(async () => {
    port = String(await closedPort());
  });

  it.each([
    ['p99<1ms', 'invalid --slo "p99<1ms": cannot read "p99<1ms"'],
    ['p99<=1', 'invalid --slo "p99<=1": cannot read "p99<=1"'],
    ['p100<=1ms', 'invalid --slo "p100<=1ms": p100 is not a percentile between 0 and 100'],
  ])('--slo %s exits 2, naming the syntax', async (slo, why) => {
    const r = await runCli(['run', '-t', 'get', '-p', port, '--slo', slo]);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${why}`);
    expect(r.stderr).toContain('expected objectives like p99<=1ms or p99<=1ms,p99.9<=5ms');
  });

  it.each([
    [
      ['--rate', '1000'],
      "--slo chooses each step's rate, length and warm-up itself, on one server: drop --rate",
    ],
    [['-n', '1000'], 'drop -n'],
    [['--slo-budget', '1'], 'invalid SLO budget (--slo-budget): "1" (expected at least 5 seconds)'],
  ])('--slo with %j exits 2', async (extra, why) => {
    const r = await runCli(['run', '-t', 'get', '-p', port, '--slo', 'p99<=1ms', ...extra]);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stderr).toContain(why);
  });

  it('--slo without -t, and --slo-budget without --slo, exit 2 with the fix', async () => {
    const a = await runCli(['run', '-p', port, '--slo', 'p99<=1ms']);
    expect(a.code, describeResult(a)).toBe(2);
    expect(a.stderr).toContain("--slo searches the tests you name: add -t (e.g. -t get --slo 'p99<=1ms')");
    const b = await runCli(['run', '-t', 'get', '-p', port, '--slo-budget', '30']);
    expect(b.code, describeResult(b)).toBe(2);
    expect(b.stderr).toContain("--slo-budget needs --slo (e.g. --slo 'p99<=1ms')");
  });
});

describe('run --slo against a redis-server', () => {
  let server: LaunchedServer;
  beforeAll(async () => {
    server = await testServer();
  });

  it('prints a line per step and the answer, and records every step in the signed result', async () => {
    const dir = await tempDir();
    const out = `${dir}/slo.json`;
    const args = ['run', '-t', 'set', '-r', '1000', '-c', '10', '-p', String(server.port)];
    const r = await runCli([...args, '--slo', 'p99<=5ms', '--slo-budget', '10', '--no-store', '--out', out]);
    expect(r.code, describeResult(r)).toBe(0);
    const steps = [...r.stderr.matchAll(STEP)];
    const answer = ANSWER.exec(r.stdout);
    expect(answer, describeResult(r)).not.toBeNull();

    const { payload: doc } = await readEnvelope(out);
    expect(validateResult(doc).ok).toBe(true);
    expect(checkPlausibility(doc)).toEqual([]);
    const cell = doc.cells[0]!;
    expect(cell.label).toBe('SET p99<=5ms');
    expect(cell.workload.slo).toBe('p99<=5000us');
    const search = cell.trials[0]!.sloSearch!;
    expect(search.objectives).toEqual([{ percentile: 99, maxUs: 5000 }]);
    expect(steps.map((m) => Number(m[1]))).toEqual(search.steps.map((_, i) => i + 1));
    expect(steps.map((m) => m[2] === 'pass')).toEqual(search.steps.map((s) => s.pass));
    expect(search.elapsedSec).toBeLessThanOrEqual(10);
    if (answer![2] !== undefined) {
      expect(search.outcome).toBe('bracketed');
      expect(n(answer![2])).toBe(search.answerOpsPerSec);
      expect([n(answer![3]!), n(answer![4]!)]).toEqual([
        search.bracket.passOpsPerSec,
        search.bracket.failOpsPerSec,
      ]);
    } else {
      // No answer: the outcome printed is the one recorded, and the result warns of it.
      expect(answer![5]).toBe(search.outcome);
      expect(doc.warnings.some((w) => w.code === 'SLO_UNBRACKETED' && w.cell === cell.label)).toBe(true);
    }
  });

  it('--json carries the search; the answer goes to stderr', async () => {
    const args = ['run', '-t', 'set', '-r', '1000', '-c', '10', '-p', String(server.port)];
    const r = await runCli([...args, '--slo', 'p99<=5ms', '--slo-budget', '8', '--no-store', '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    const search = doc.cells[0]!.trials[0]!.sloSearch!;
    expect(search.steps.length).toBe([...r.stderr.matchAll(STEP)].length);
    expect(ANSWER.exec(r.stderr)).not.toBeNull();
    for (const s of search.steps) expect(s.responseHistogram.length).toBeGreaterThan(0);
  });
});
