import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { BUSY_HOST_OTHER_CPU_FRACTION, type ResultV1 } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  BIN,
  describeResult,
  parseDoc,
  removeTempDirs,
  runCli,
  stopServers,
  testServer,
} from './helpers/cli.js';

// Issue 34's reproduction, five times in a row: a redis-server pinned to CPU 1, a shell busy loop on
// the same CPU, and `run -t set,get` pinned to CPU 0. Before the fix, 9 runs in 10 came out unflagged
// (otherCpuFraction 0) while the loop took a third of the host. Then the same cells without the loop.

const taskset = process.platform === 'linux' && spawnSync('taskset', ['--version']).status === 0;
const RUNS = 5;
// Small enough to keep ten runs bounded (three cells each: SET, GET, SET again for the drift check).
const ARGS = ['-t', 'set,get', '-n', '40000', '-r', '100000', '--no-store', '--json'];
/** Over this share of the run some task waited for a CPU (PSI): the host was not quiet. */
const BUSY_CPU_PRESSURE = 0.2;

afterAll(async () => {
  await stopServers();
  await removeTempDirs();
});

function someStallUs(): number | null {
  try {
    const m = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'latin1'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** The busy loop, under `timeout` so that it ends even if this file is killed first. */
function startBusyLoop(cpu: number): ChildProcess {
  return spawn('taskset', ['-c', String(cpu), 'timeout', '600', 'sh', '-c', 'while :; do :; done'], {
    stdio: 'ignore',
  });
}

interface Run {
  doc: ResultV1;
  /** Share of the run in which some task waited for a CPU; null without PSI. */
  pressure: number | null;
  load: string;
}

async function runPinned(port: number): Promise<Run> {
  const from = someStallUs();
  const started = performance.now();
  const r = await runCli(['run', '-p', String(port), ...ARGS], {
    command: ['taskset', '-c', '0', process.execPath, BIN],
  });
  const to = someStallUs();
  expect(r.code, describeResult(r)).toBe(0);
  const pressure =
    from === null || to === null ? null : (to - from) / 1000 / Math.max(1, performance.now() - started);
  return { doc: parseDoc(r.stdout), pressure, load: readFileSync('/proc/loadavg', 'latin1').split(' ')[0]! };
}

const busyWarning = (doc: ResultV1, cell: string) =>
  doc.warnings.find((w) => w.code === 'BUSY_HOST' && w.cell === cell);

function summary(kind: string, runs: Run[]): string {
  return runs
    .map(
      (r, i) =>
        `${kind} ${i + 1} (load ${r.load}, CPU pressure ${r.pressure?.toFixed(2) ?? '?'}): ` +
        r.doc.cells
          .map(
            (c) =>
              `${c.label} ${Math.round(c.opsPerSec.median)} ops/s other ${c.interference?.otherCpuFraction}` +
              `${busyWarning(r.doc, c.label) ? ' BUSY_HOST' : ''}`,
          )
          .join(', '),
    )
    .join('\n');
}

describe.skipIf(!taskset || availableParallelism() < 2)('BUSY_HOST against issue 34 (real busy loop)', () => {
  it('flags every cell of 5 runs in a row with a busy loop on the server CPU, with its figure; the same cells without it are not flagged on a quiet host', async () => {
    assertBuilt();
    const server = await testServer();
    expect(spawnSync('taskset', ['-a', '-p', '-c', '1', String(server.pid)]).status).toBe(0);

    const hogged: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      const loop = startBusyLoop(1);
      try {
        hogged.push(await runPinned(server.port));
      } finally {
        // The pid of taskset, which exec'd timeout: SIGTERM to timeout ends its shell too.
        if (loop.exitCode === null && loop.signalCode === null) {
          const exited = new Promise((resolve) => loop.once('exit', resolve));
          loop.kill('SIGTERM');
          await exited;
        }
      }
    }
    const quiet: Run[] = [];
    for (let i = 0; i < RUNS; i++) quiet.push(await runPinned(server.port));
    console.log(`${summary('hogged', hogged)}\n${summary('quiet', quiet)}`);

    for (const { doc } of hogged) {
      for (const c of doc.cells) {
        const f = c.interference!;
        // The loop had a third or more of the host on the VM; a twentieth is the threshold.
        expect(f.otherCpuFraction, c.label).toBeGreaterThan(BUSY_HOST_OTHER_CPU_FRACTION);
        const w = busyWarning(doc, c.label);
        expect(w, c.label).toBeDefined();
        // The figure as printed: one decimal below 10% ("6.5%"), none above.
        const shown = Number(/used ([\d.]+)% of this host/.exec(w!.message)?.[1]);
        const x = f.otherCpuFraction!;
        expect(shown, w!.message).toBe(Number((x * 100).toFixed(x < 0.1 ? 1 : 0)));
      }
      expect(doc.driftCheck).toBeDefined();
    }

    // Other engineers' builds and tests may share this machine: a quiet run is held to "not flagged"
    // only when no task waited for a CPU for more than a fifth of it (PSI), since then nothing else
    // ran on the client's or server's CPU for long. Where PSI is missing, the host is taken as quiet.
    const evaluable = quiet.filter((r) => r.pressure === null || r.pressure <= BUSY_CPU_PRESSURE);
    for (const { doc } of evaluable)
      for (const c of doc.cells)
        expect(
          busyWarning(doc, c.label),
          `${c.label}: ${summary('quiet', [{ doc, pressure: null, load: '' }])}`,
        ).toBeUndefined();
    if (evaluable.length < quiet.length)
      console.warn(
        `${quiet.length - evaluable.length} of ${quiet.length} quiet runs not evaluable: other work waited for a CPU (PSI ${quiet.map((r) => r.pressure?.toFixed(2)).join(', ')})`,
      );
    // Flagged or not, each quiet cell's figure is one the warning agrees with.
    for (const { doc } of quiet)
      for (const c of doc.cells)
        expect(Boolean(busyWarning(doc, c.label)), c.label).toBe(
          c.interference!.otherCpuFraction === null ||
            c.interference!.otherCpuFraction > BUSY_HOST_OTHER_CPU_FRACTION,
        );
  });
});
