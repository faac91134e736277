import net from 'node:net';
import {
  DEFAULT_CELL_OPTIONS,
  DEFAULT_TARGET,
  findServerBinary,
  type LaunchedServer,
  startServer,
} from '@redis-benchdb/engine';
import { validateResult } from '@redis-benchdb/result';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runGroup, runSingle } from '../src/index.js';
import type { RunPlan } from '../src/request.js';
import type { RunCellsReport } from '../src/run-cells.js';

const VERSION = '0.0.0-test';

/** A plan of two small ad hoc cells against `port`. */
const plan = (port: number): RunPlan => ({
  target: { ...DEFAULT_TARGET, port },
  targetIsDefault: false,
  cells: (['SET', 'GET'] as const).map((test) => ({
    ...DEFAULT_CELL_OPTIONS,
    test,
    connections: 4,
    requests: 5_000,
  })),
  common: {},
  profile: 'quick',
  trials: 1,
});

/** A report that records what it is told. */
function recorder() {
  const lines: string[] = [];
  const measured: string[] = [];
  const cells: RunCellsReport = {
    progress: () => {},
    cellEnded: () => {},
    measured: (s) => measured.push(s.label),
    sloStep: () => {},
    sloAnswer: () => {},
    measuringDrift: () => {},
  };
  return { lines, measured, cells, log: (s: string) => lines.push(s) };
}

/** Every write to the terminal during `fn`: the runner writes none. */
async function silently<T>(fn: () => Promise<T>): Promise<{ value: T; written: string[] }> {
  const written: string[] = [];
  const grab = (chunk: unknown) => {
    // systeminformation's execSync passes on a child's stderr, an empty write: nothing to see.
    if (String(chunk) !== '') written.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(grab);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(grab);
  try {
    return { value: await fn(), written };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

/** The server's DBSIZE, asked over a plain socket. */
function dbsize(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write('DBSIZE\r\n'));
    socket.once('data', (reply) => {
      socket.destroy();
      resolve(Number(/^:(\d+)/.exec(reply.toString())?.[1] ?? Number.NaN));
    });
    socket.once('error', reject);
  });
}

describe('runSingle, called as a library', () => {
  let server: LaunchedServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(() => vi.restoreAllMocks());

  it('returns the unsigned result document, and leaves no key and no line behind', async () => {
    const r = recorder();
    const { value, written } = await silently(() =>
      runSingle(
        plan(server.port),
        { request: {}, runnerVersion: VERSION },
        { ...r, leftoverHint: () => () => '' },
      ),
    );
    expect(written).toEqual([]);
    const { doc, cleanup, failure } = value;
    expect(failure).toBeNull();
    expect(validateResult(doc)).toEqual({ ok: true });
    expect(doc.keyFingerprint).toBeUndefined();
    expect(doc.runner.version).toBe(VERSION);
    expect(doc.incomplete).toBe(false);
    expect(doc.cells.map((c) => c.test)).toEqual(['SET', 'GET']);
    expect(doc.cells.map((c) => c.completed)).toEqual([5_000, 5_000]);
    expect(r.measured).toEqual(['SET', 'GET']);
    expect(cleanup.error).toBeNull();
    expect(cleanup.removedKeys).toBeGreaterThan(0);
    expect(await dbsize(server.port)).toBe(0);
  });

  it('stops at an aborted signal and returns what it has, marked interrupted', async () => {
    const r = recorder();
    const stop = new AbortController();
    stop.abort();
    const { doc } = await runSingle(
      plan(server.port),
      { request: {}, runnerVersion: VERSION, signal: stop.signal },
      { ...r, leftoverHint: () => () => '' },
    );
    expect(doc.interrupted).toBe(true);
    expect(doc.cells).toEqual([]);
  });
});

describe.skipIf(!findServerBinary('redis-server'))('runGroup, called as a library', () => {
  it('launches the servers, runs the cells on each and returns one document per server', async () => {
    const r = recorder();
    const finished: number[] = [];
    const { value, written } = await silently(() =>
      runGroup(
        { ...plan(0), cells: plan(0).cells?.slice(0, 1) ?? null },
        {
          request: { serverBin: ['redis-server'], persistence: 'none,aof-everysec' },
          runnerVersion: VERSION,
        },
        {
          log: r.log,
          cells: {
            starting: () => {},
            progress: () => {},
            cellEnded: () => {},
            measured: () => {},
            measuringDrift: () => {},
          },
          finished: ({ member }) => {
            finished.push(member.plan.index);
          },
        },
      ),
    );
    expect(written).toEqual([]);
    expect(value.notStarted).toBe(0);
    expect(value.docs).toHaveLength(2);
    expect(finished).toEqual([0, 1]);
    for (const { doc } of value.docs) {
      expect(validateResult(doc)).toEqual({ ok: true });
      expect(doc.runGroup?.size).toBe(2);
      expect(doc.cells.map((c) => c.test)).toEqual(['SET']);
    }
    expect(r.lines.some((l) => l.startsWith(`run group ${value.groupId}: 2 launches`))).toBe(true);
  });
});
