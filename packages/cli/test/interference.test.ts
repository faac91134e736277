import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { BenchSession, type CellOptions, DEFAULT_CELL_OPTIONS } from '@redis-benchdb/engine';
import {
  BUSY_HOST_OTHER_CPU_FRACTION,
  type InterferenceFigures,
  interferenceWarnings,
} from '@redis-benchdb/probe';
import { environmentFingerprintV2, validateResult } from '@redis-benchdb/result';
import { CellInterference, combineTrials, localServerPidOf } from '@redis-benchdb/runner';
import { skippedOnBusyHost } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { textLine } from '../src/run/format.js';
import { assertBuilt, describeResult, parseDoc, runCli, testServer } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

const linux = process.platform === 'linux';
const taskset = linux && spawnSync('taskset', ['--version']).status === 0;

/** A CPU hog pinned to `cpu`, spinning from the moment it is told to until it is killed (or 60 s). */
function startHog(cpu: number): { child: ChildProcess; go(): void; ready: Promise<void> } {
  const script =
    "process.stdout.write('ready\\n');process.stdin.once('data',()=>{const end=Date.now()+60000;while(Date.now()<end);})";
  const child = spawn('taskset', ['-c', String(cpu), process.execPath, '-e', script], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('error', reject);
  });
  return { child, go: () => child.stdin!.write('go\n'), ready };
}

cliFileHooks({ built: false });

describe('run: interference, drift and the env-v2 fingerprint in the result', () => {
  it('records interference per cell, the drift check of the first cell and an env-v2 fingerprint', async () => {
    assertBuilt();
    const server = await testServer();
    const r = await runCli([
      'run',
      '-p',
      String(server.port),
      '-t',
      'set,get',
      '-n',
      '5000',
      '-c',
      '5',
      '--no-store',
      '--json',
    ]);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    expect(validateResult(doc).ok).toBe(true);
    expect(doc.environment.fingerprintVersion).toBe('env-v2');
    expect(doc.environment.fingerprint).toBe(environmentFingerprintV2(doc.environment));
    expect(doc.environment.server.hz).toBe(10);
    for (const c of doc.cells) {
      expect(c.interference, c.label).toBeDefined();
      if (process.platform === 'linux') {
        expect(c.interference!.otherCpuFraction, c.label).not.toBeNull();
        // The launched server is local: its pid was found and its preemptions counted.
        expect(c.interference!.serverInvoluntaryCtxSwitches, c.label).not.toBeNull();
      }
    }
    // Two cells, so the run ended by measuring the first again.
    expect(doc.driftCheck?.cell).toBe('SET');
    expect(doc.driftCheck!.first.median).toBe(doc.cells[0]!.opsPerSec.median);
    expect(doc.driftCheck!.repeat.trialCount).toBe(1);
    expect(doc.warnings.some((w) => w.code === 'DRIFT')).toBe(doc.driftCheck!.drifted);
    for (const c of doc.cells) {
      const busy = doc.warnings.find((w) => w.code === 'BUSY_HOST' && w.cell === c.label);
      expect(Boolean(busy), c.label).toBe(c.interference!.otherCpuFraction! > BUSY_HOST_OTHER_CPU_FRACTION);
    }
  });

  it('a single ad hoc cell is not repeated (it would double the run)', async () => {
    const server = await testServer();
    const r = await runCli(
      ['run', '-p', String(server.port), '-t', 'ping_inline', '-n', '2000', '--no-store', '--json'],
      {},
    );
    expect(r.code, describeResult(r)).toBe(0);
    expect(parseDoc(r.stdout).driftCheck).toBeUndefined();
  });

  it('the terminal line says a cell ran on a busy host, with the figure', () => {
    const cell = { label: 'SET', interference: { ...QUIET, otherCpuFraction: 0.47 } };
    const summary = {
      label: 'SET',
      trialCount: 1,
      opsPerSec: { median: 1000, ci95Low: 1000, ci95High: 1000, cv: null },
      latencyUs: { meanUs: 1, minUs: 1, p50Us: 1, p95Us: 1, p99Us: 1, p999Us: 1, maxUs: 1 },
      incomplete: false,
      error: null,
      saturation: { clientBound: false },
      unstable: false,
      errors: {},
      errorReplies: null,
      stall: null,
      crossCheck: { status: 'match' },
      redirects: null,
      hitRatio: null,
      responseTimeUs: null,
    } as unknown as Parameters<typeof textLine>[0];
    expect(textLine({ ...summary, ...cell } as typeof summary, false)).toContain(
      'busy host: other processes used 47% of the CPUs',
    );
    expect(textLine({ ...summary, ...cell, interference: QUIET } as typeof summary, false)).not.toContain(
      'busy',
    );
  });
});

describe('a cell over its trials', () => {
  it('keeps the most disturbed figure; a trial whose other work is unknown leaves the cell unknown unless another is busy', () => {
    const unknown = { ...QUIET, otherCpuFraction: null, note: 'its CPU accounting cannot be reconciled' };
    expect(combineTrials([QUIET, { ...QUIET, otherCpuFraction: 0.2 }])!.otherCpuFraction).toBe(0.2);
    const c = combineTrials([QUIET, unknown])!;
    expect(c.otherCpuFraction).toBeNull();
    expect(c.note).toBe(unknown.note);
    expect(interferenceWarnings('SET', c).map((w) => w.code)).toEqual(['BUSY_HOST']);
    expect(combineTrials([{ ...QUIET, otherCpuFraction: 0.3 }, unknown])!.otherCpuFraction).toBe(0.3);
  });
});

const QUIET = {
  cpuCount: 2,
  stealFraction: 0,
  otherCpuFraction: 0.05,
  runQueueMean: 0.5,
  runQueueMax: 2,
  clientInvoluntaryCtxSwitches: 3,
  serverInvoluntaryCtxSwitches: 1,
  sampleCount: 5,
  note: null,
};

describe.skipIf(!taskset)(
  'interference in every cell (real redis-server pinned to one CPU, a real hog)',
  () => {
    it('sees the hog in the cell it shared the server CPU with, flags by the threshold with the figure, and not the others', async ({
      task,
    }) => {
      const server = await testServer();
      const serverCpu = 1 % Math.max(1, (await import('node:os')).availableParallelism());
      // Every thread of the server on one CPU, so the hog competes with it for certain.
      expect(spawnSync('taskset', ['-a', '-p', '-c', String(serverCpu), String(server.pid)]).status).toBe(0);
      const session = await BenchSession.open({ ...DEFAULT_TARGET, port: server.port });
      const figures: InterferenceFigures[] = [];
      try {
        const serverPid = await localServerPidOf(session, true);
        expect(serverPid).toBe(server.pid);
        const cell: CellOptions = {
          ...DEFAULT_CELL_OPTIONS,
          test: 'SET',
          connections: 10,
          requests: undefined,
          durationSec: 2,
        };
        const HOGGED = 1;
        for (let i = 0; i < 3; i++) {
          const interference = new CellInterference(serverPid);
          const hog = i === HOGGED ? startHog(serverCpu) : null;
          await hog?.ready;
          try {
            await session.runCell(cell, {
              onMeasureStart: () => {
                interference.hooks.onMeasureStart();
                hog?.go();
              },
              onMeasureEnd: () => {
                interference.hooks.onMeasureEnd();
                hog?.child.kill('SIGKILL');
              },
            });
          } finally {
            if (hog?.child.pid) hog.child.kill('SIGKILL');
          }
          figures.push(interference.summary()!);
        }
        await session.cleanup();
      } finally {
        await session.close();
      }
      const busy = figures.map((f, i) =>
        interferenceWarnings(`cell ${i}`, f).some((w) => w.code === 'BUSY_HOST'),
      );
      console.log(
        'interference figures (quiet, hogged, quiet):',
        JSON.stringify(figures.map(({ note: _n, ...f }) => f)),
      );
      for (const f of figures) {
        expect(f.sampleCount).toBeGreaterThanOrEqual(2);
        expect(f.serverInvoluntaryCtxSwitches).not.toBeNull();
        expect(f.otherCpuFraction).not.toBeNull();
      }
      const hogged = figures[1]!;
      // How much CPU the hog wins from the server is the scheduler's call: about half of the server's
      // CPU on a loaded machine, but as little as a fifth of it on a quiet one (0.10 of all CPU time
      // was seen in CI against a 0.15 threshold). So the flag is held to the figure and the threshold,
      // with the figure in its text, and the figure to the hog (below), not to a fixed share.
      expect(busy[1]).toBe(hogged.otherCpuFraction! > BUSY_HOST_OTHER_CPU_FRACTION);
      if (busy[1]) {
        const warning = interferenceWarnings('cell 1', hogged).find((w) => w.code === 'BUSY_HOST')!;
        // The figure as printed: one decimal below 10% ("6.5%"), none above.
        const shown = Number(/used ([\d.]+)% of this host/.exec(warning.message)?.[1]);
        expect(shown).toBeCloseTo(hogged.otherCpuFraction! * 100, 0);
        expect(warning.cell).toBe('cell 1');
      }
      const quiet = [figures[0]!, figures[2]!];
      if (quiet.some((f) => f.otherCpuFraction! > BUSY_HOST_OTHER_CPU_FRACTION)) {
        // Other work on this machine already crossed the threshold without the hog: the cells cannot
        // be told apart by it, so only the flag's agreement with its figure (above) was checked.
        return skippedOnBusyHost(
          { task },
          `the un-hogged cells not flagged, the hogged one above both: they were busy already (other CPU ${quiet.map((f) => f.otherCpuFraction).join(', ')})`,
        );
      }
      expect(busy[0]).toBe(false);
      expect(busy[2]).toBe(false);
      // The hog shows in the hogged cell's figure more than in either other. No fixed margin: the hog
      // won as little as 0.074 of all CPU time in CI while a quiet cell read up to 0.041, so a margin
      // of 0.05 failed there with the hog plainly seen.
      for (const f of quiet) expect(hogged.otherCpuFraction!).toBeGreaterThan(f.otherCpuFraction!);
    });
  },
);

const DEFAULT_TARGET = {
  host: '127.0.0.1',
  port: 0,
  db: 0,
  resp3: false,
};
