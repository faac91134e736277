import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findServerBinary } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import { pairedCellRatio } from '@redis-benchdb/result';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  describeResult,
  readEnvelope,
  removeTempDirs,
  spawnCli,
  tempDir,
  waitFor,
} from './helpers/cli.js';

// An A/A group (the same redis-server twice) with a CPU hog during part of the run: interleaved,
// the hog weighs on both members alike, so each cell's paired ratio holds 1.0 in its (99.9%) interval.
// Run one after the other, the hog would land on the first member only.

const haveTaskset = process.platform === 'linux' && findServerBinary('taskset') !== null;
const ROUNDS = 4;
let hog: ChildProcess | null = null;
const serverPids = new Set<number>();
const alive = (pid: number) => existsSync(`/proc/${pid}`);

beforeAll(() => assertBuilt());
afterEach(() => {
  stopHog();
  for (const pid of serverPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  serverPids.clear();
});
afterAll(() => removeTempDirs());

/** A busy loop on the servers' CPU (where taskset exists), ended by its pid. */
function startHog(cpu: string | null): ChildProcess {
  const loop = ['-e', 'for (;;) {}'];
  const child = cpu
    ? spawn('taskset', ['-c', cpu, process.execPath, ...loop], { stdio: 'ignore' })
    : spawn(process.execPath, loop, { stdio: 'ignore' });
  // Last resort only: should the test die before it stops the hog, the hog must not spin on.
  const cap = setTimeout(() => child.kill('SIGKILL'), 240_000);
  cap.unref();
  child.once('exit', () => clearTimeout(cap));
  return child;
}

function stopHog(): void {
  if (hog && hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
  hog = null;
}

describe('run --server-bin A --server-bin A, interleaved', () => {
  it('a CPU hog during the first cell weighs on both members: every paired interval holds 1.0, and the order is recorded per round', async () => {
    const dir = await tempDir();
    const pin = haveTaskset ? ['--server-cpus', '1', '--client-cpus', '0'] : [];
    const cli = spawnCli(
      [
        'run',
        '--server-bin',
        'redis-server',
        '--server-bin',
        'redis-server',
        ...pin,
        '-t',
        'set,get',
        '-n',
        '8000',
        '-c',
        '4',
        '-r',
        '1000',
        '--trials',
        String(ROUNDS),
        '--out',
        path.join(dir, 'r.json'),
      ],
      { configDir: dir },
    );
    // The hog starts as the first cell does and stops once both members printed it.
    await waitFor(() => /interleaved over 2 servers/.test(cli.stderr()), 'the cells to begin');
    for (const m of cli.stderr().matchAll(/\(pid (\d+)\) on/g)) serverPids.add(Number(m[1]));
    hog = startHog(haveTaskset ? '1' : null);
    await waitFor(
      () => /^\[1\/2\] SET: /m.test(cli.stdout()) && /^\[2\/2\] SET: /m.test(cli.stdout()),
      () => `the SET cell to end\n${cli.stdout()}\n${cli.stderr()}`,
    );
    stopHog();
    const r = await cli.done;
    expect(r.code, describeResult(r)).toBe(0);

    const docs: ResultV1[] = [];
    for (const i of [0, 1]) docs.push((await readEnvelope(path.join(dir, `r.${i}.json`))).payload);
    const [a, b] = docs as [ResultV1, ResultV1];
    // The order is recorded per round, the same in both results: every member once per round.
    const schedule = a.runGroup!.schedule!;
    expect(b.runGroup!.schedule).toEqual(schedule);
    expect(schedule.map((s) => [s.cell, s.round])).toEqual(
      [0, 1].flatMap((cell) => Array.from({ length: ROUNDS }, (_, r) => [cell, r + 1])),
    );
    for (const s of schedule) expect([...s.order].sort()).toEqual([0, 1]);
    for (const doc of docs)
      for (const cell of doc.cells) {
        expect(cell.trials).toHaveLength(ROUNDS);
        expect(cell.trialCount).toBe(ROUNDS);
      }
    // Paired round by round, the hog cancels out: each cell's ratio interval holds 1.0. Asked at
    // 99.9%, not the table's 95%: the members are the same server, so a 95% interval would miss 1.0
    // by chance in 5% of cells (about 1 run in 10 with two cells). At 99.9% that is about 1 in 500,
    // while the hog landing on one member only (a sequential run) still moves the ratio far outside.
    for (const [i, cell] of a.cells.entries()) {
      const p = pairedCellRatio(cell, b.cells[i]!, 0.999)!;
      expect(p.n).toBe(ROUNDS);
      expect(
        p.ci95Low! <= 1 && 1 <= p.ci95High!,
        `${cell.label}: ${p.ratio.toFixed(3)}x [${p.ci95Low!.toFixed(3)}, ${p.ci95High!.toFixed(3)}] (99.9%)`,
      ).toBe(true);
    }
    // As a single run's: each member cell sampled its own server's interference, and the first cell
    // was measured again at the end on every member, a full set of rounds each.
    for (const doc of docs) {
      for (const cell of doc.cells) expect(cell.interference?.sampleCount, cell.label).toBeGreaterThan(0);
      expect(doc.driftCheck?.cell).toBe('SET');
      expect(doc.driftCheck?.repeat.trialCount).toBe(ROUNDS);
    }
    expect(r.stdout).toMatch(/95% interval \(paired, 4 rounds\)/);
    for (const pid of serverPids) expect(alive(pid), `redis-server pid ${pid} still running`).toBe(false);
  });
});
