import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { listRunGroup, openDatabase } from '@redis-benchdb/db';
import { findServerBinary } from '@redis-benchdb/engine';
import type { ResultV1 } from '@redis-benchdb/result';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assertBuilt,
  describeResult,
  parseDocs,
  readEnvelope,
  removeTempDirs,
  runCli,
  spawnCli,
  tempDir,
  waitFor,
} from './helpers/cli.js';

// `run --server-bin`: the CLI starts its own redis-servers on free ports (never 6379), runs, and
// stops them. Each test keeps its runs tiny (-t set, a few thousand requests) and its own config
// dir, so its database holds only its own group.

const haveTaskset = process.platform === 'linux' && findServerBinary('taskset') !== null;
const QUICK = ['-t', 'set', '-n', '2000', '-c', '2', '-r', '100'];

beforeAll(() => assertBuilt());
afterAll(() => removeTempDirs());

/** The pids of the servers a group run said it started ("... (pid 123) on ..."). */
function startedPids(stderr: string): number[] {
  const pids = [...stderr.matchAll(/\(pid (\d+)\) on/g)].map((m) => Number(m[1]));
  for (const pid of pids) seenPids.add(pid);
  return pids;
}
const alive = (pid: number) => existsSync(`/proc/${pid}`);
const seenPids = new Set<number>();

// Should a CLI be SIGKILLed by a test's timeout, its servers outlive it: end those it started.
afterEach(() => {
  for (const pid of seenPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  seenPids.clear();
});

async function groupFromDb(configDir: string, groupId: string) {
  const db = openDatabase(path.join(configDir, 'data', 'benchdb.sqlite'), { readonly: true });
  try {
    return listRunGroup(db, groupId);
  } finally {
    db.close();
  }
}

describe('run --server-bin', () => {
  it('io-threads 1 against 2: two signed results in one group, stored with the group columns; no server left', async () => {
    const dir = await tempDir();
    const r = await runCli(
      [
        'run',
        '--server-bin',
        'redis-server',
        '--server-config-variant',
        'io-threads 1',
        '--server-config-variant',
        'io-threads 2',
        ...QUICK,
        '--out',
        path.join(dir, 'r.json'),
      ],
      { configDir: dir },
    );
    expect(r.code, describeResult(r)).toBe(0);
    const docs: ResultV1[] = [];
    for (const i of [0, 1]) docs.push((await readEnvelope(path.join(dir, `r.${i}.json`))).payload);
    const [a, b] = docs as [ResultV1, ResultV1];
    expect(a.runGroup!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(b.runGroup!.id).toBe(a.runGroup!.id);
    expect([a.runGroup!.index, b.runGroup!.index]).toEqual([0, 1]);
    expect(a.runGroup).toMatchObject({ size: 2, varies: ['serverConfig'] });
    expect(a.runGroup!.label).toMatch(/^redis-server \S+ · io-threads 1$/);
    // What each server ran with, as the probe read it back (INFO/CONFIG GET), not as we asked.
    expect([a.environment.server.ioThreads, b.environment.server.ioThreads]).toEqual([1, 2]);
    expect(a.environment.fingerprint).not.toBe(b.environment.fingerprint);
    // The group is not part of what was measured: same workload, same fingerprint.
    expect(a.cells[0]!.workloadFingerprint).toBe(b.cells[0]!.workloadFingerprint);
    expect(a.target.port).not.toBe(6379);

    const stored = await groupFromDb(dir, a.runGroup!.id);
    expect(stored.map((s) => [s.runGroupIndex, s.runGroupLabel])).toEqual([
      [0, a.runGroup!.label],
      [1, b.runGroup!.label],
    ]);
    expect(r.stdout).toMatch(/run group [0-9a-f]{16}: ops\/s/);
    const pids = startedPids(r.stderr);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `redis-server pid ${pid} still running`).toBe(false);
  });

  it('--transport tcp,unix × --persistence: each result on its link, with appendfsync as the server reports it', async () => {
    const dir = await tempDir();
    const r = await runCli(
      [
        'run',
        '--server-bin',
        'redis-server',
        '--transport',
        'tcp,unix',
        '--persistence',
        'aof-always,aof-no',
        ...QUICK,
        '--json',
      ],
      { configDir: dir },
    );
    expect(r.code, describeResult(r)).toBe(0);
    const docs = parseDocs(r.stdout);
    expect(
      docs.map((d) => [
        d.runGroup!.label.replace(/^redis-server \S+ · /, ''),
        d.environment.link.kind,
        d.environment.server.persistence.appendonly,
        d.environment.server.persistence.appendfsync,
      ]),
    ).toEqual([
      ['aof-always · tcp', 'tcp-loopback', true, 'always'],
      ['aof-always · unix', 'unix', true, 'always'],
      ['aof-no · tcp', 'tcp-loopback', true, 'no'],
      ['aof-no · unix', 'unix', true, 'no'],
    ]);
    expect(docs[0]!.runGroup!.varies).toEqual(['persistence', 'transport']);
    expect(docs[1]!.target.socket).toMatch(/redis-benchdb-server-[^/]+\/redis\.sock$/);
    // The socket lived in the server's temp dir, which went with the server.
    expect(existsSync(path.dirname(docs[1]!.target.socket!))).toBe(false);
    for (const pid of startedPids(r.stderr)) expect(alive(pid)).toBe(false);
    expect((await groupFromDb(dir, docs[0]!.runGroup!.id)).length).toBe(4);
  });

  it.skipIf(!haveTaskset)(
    '--server-cpus/--client-cpus: the pinning is measured into the environment',
    async () => {
      const dir = await tempDir();
      const r = await runCli(
        [
          'run',
          '--server-bin',
          'redis-server',
          '--server-cpus',
          '0',
          '--client-cpus',
          '0',
          ...QUICK,
          '--json',
        ],
        { configDir: dir },
      );
      expect(r.code, describeResult(r)).toBe(0);
      const doc = JSON.parse(r.stdout) as ResultV1;
      expect(doc.environment.client.numa).toMatchObject({ clientCpus: '0', serverCpus: '0' });
      expect(doc.warnings.map((w) => w.code)).not.toContain('NOT_PINNED');
      expect(r.stderr).toMatch(/pinned to CPU 0/);
    },
  );

  it.skipIf(!haveTaskset)(
    'io-threads 2 on a server pinned to one CPU: the result and the terminal say the threads crowd it; io-threads 1 gets no such warning',
    async () => {
      const dir = await tempDir();
      const r = await runCli(
        [
          'run',
          '--server-bin',
          'redis-server',
          '--server-config-variant',
          'io-threads 1',
          '--server-config-variant',
          'io-threads 2',
          '--server-cpus',
          '0',
          '--client-cpus',
          '0',
          ...QUICK,
          '--json',
        ],
        { configDir: dir },
      );
      expect(r.code, describeResult(r)).toBe(0);
      const docs = parseDocs(r.stdout);
      expect(docs.map((d) => d.environment.server.ioThreads)).toEqual([1, 2]);
      const crowded = docs.map((d) =>
        d.warnings.filter((w) => w.code === 'IO_THREADS_OVER_CPUS').map((w) => w.message),
      );
      expect(crowded[0]).toEqual([]);
      expect(crowded[1]).toHaveLength(1);
      expect(crowded[1]![0]).toMatch(/^io-threads 2 on a server that could run on one CPU \(0\): /);
      expect(r.stderr).toMatch(/warning: \[2\/2\] io-threads 2 on a server that could run on one CPU \(0\)/);
    },
  );

  it('without taskset on PATH the run goes on unpinned, says so, and the result carries NOT_PINNED', async () => {
    const dir = await tempDir();
    // A PATH with only redis-server on it (the probe's shell helpers report their own absence as unknowns).
    const bin = path.join(dir, 'bin');
    await mkdir(bin);
    await symlink(findServerBinary('redis-server')!, path.join(bin, 'redis-server'));
    const r = await runCli(
      ['run', '--server-bin', 'redis-server', '--server-cpus', '0', '--client-cpus', '0', ...QUICK, '--json'],
      { configDir: dir, env: { PATH: bin } },
    );
    expect(r.code, describeResult(r)).toBe(0);
    const doc = JSON.parse(r.stdout) as ResultV1;
    const notPinned = doc.warnings.filter((w) => w.code === 'NOT_PINNED').map((w) => w.message);
    expect(notPinned).toHaveLength(2);
    expect(notPinned.join('\n')).toMatch(
      /--server-cpus 0 was asked for but not applied \(taskset is not on PATH/,
    );
    expect(r.stderr).toMatch(/NOT pinned \(taskset is not on PATH/);
    expect(r.stderr).toMatch(/--client-cpus 0 NOT applied/);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s during the first cell stops the group: exit %i, every server gone, what ran kept as interrupted',
    async (signal, code) => {
      const dir = await tempDir();
      const cli = spawnCli(
        [
          'run',
          '--server-bin',
          'redis-server',
          '--transport',
          'tcp,unix',
          '-t',
          'set',
          '--duration',
          '20',
          '-c',
          '2',
          '--json',
        ],
        { configDir: dir },
      );
      // Every member is started before the first cell: both servers are up.
      await waitFor(() => startedPids(cli.stderr()).length === 2, 'both servers to start');
      const pids = startedPids(cli.stderr()); // remembered for afterEach, should this test fail before its end
      // Wait until the load runs (keys written on either server): an interrupt during the workers'
      // handshake is another case.
      const port = Number(/on 127\.0\.0\.1:(\d+)/.exec(cli.stderr())![1]);
      expect(port).not.toBe(6379);
      const socket = /on unix:(\S+?);/.exec(cli.stderr())![1]!;
      const servers = [
        new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0 }),
        new Redis({ path: socket, lazyConnect: true, maxRetriesPerRequest: 0 }),
      ];
      for (const redis of servers) {
        redis.on('error', () => {});
        await redis.connect();
      }
      // More than each run's marker and alive key, written before the load.
      await waitFor(
        async () => (await Promise.all(servers.map((r) => r.dbsize()))).some((n) => n > 2),
        'the run to write keys',
      );
      for (const redis of servers) redis.disconnect();
      cli.child.kill(signal);
      const r = await cli.done;
      expect(r.code, describeResult(r)).toBe(code);
      for (const pid of pids) expect(alive(pid), `redis-server pid ${pid} still running`).toBe(false);
      expect(r.stderr).toMatch(
        /interrupted: 2 of 2 results kept, marked interrupted; every launched server is stopped/,
      );
      const docs = parseDocs(r.stdout);
      expect(docs.map((d) => [d.runGroup!.index, d.interrupted, d.incomplete])).toEqual([
        [0, true, true],
        [1, true, true],
      ]);
    },
  );

  it('a member whose replies were mostly errors (OOM) fails the group unless --allow-errors; its cell shows errors', async () => {
    const dir = await tempDir();
    const args = [
      'run',
      '--server-bin',
      'redis-server',
      '--server-config-variant',
      'maxmemory 2mb',
      '--server-config-variant',
      'maxmemory 0',
      '-t',
      'set',
      '-n',
      '20000',
      '-d',
      '1k',
      '-r',
      '1000000',
    ];
    const r = await runCli(args, { configDir: dir });
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(/\[1\/2\] error: most replies were errors in SET .*--allow-errors/);
    expect(r.stderr).not.toMatch(/\[2\/2\] error:/);
    expect(r.stdout).toMatch(/^redis-server \S+ · maxmemory 2mb +errors$/m);
    for (const pid of startedPids(r.stderr))
      expect(alive(pid), `redis-server pid ${pid} still running`).toBe(false);

    const allowed = await runCli([...args, '--allow-errors'], { configDir: dir });
    expect(allowed.code, describeResult(allowed)).toBe(0);
    for (const pid of startedPids(allowed.stderr))
      expect(alive(pid), `redis-server pid ${pid} still running`).toBe(false);
  });

  it('a variant the server refuses is skipped with its log, the others run, and the exit code is 1', async () => {
    const dir = await tempDir();
    const r = await runCli(
      [
        'run',
        '--server-bin',
        'redis-server',
        '--server-config-variant',
        'no-such-directive 1',
        '--server-config-variant',
        'io-threads 1',
        ...QUICK,
        '--json',
      ],
      { configDir: dir },
    );
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stderr).toMatch(
      /error: \[1\/2\] .*no-such-directive 1: redis-server exited .* before it was ready/,
    );
    expect(r.stderr).toMatch(/no-such-directive/); // the server's own complaint, from its log
    const doc = JSON.parse(r.stdout) as ResultV1;
    expect(doc.runGroup).toMatchObject({ index: 1, size: 2 });
    expect((await groupFromDb(dir, doc.runGroup!.id)).map((m) => m.runGroupIndex)).toEqual([1]);
  });

  it('usage errors exit 2 before any server starts', async () => {
    for (const [args, message] of [
      [['--transport', 'unix', '-p', '7001'], /add --server-bin PATH/],
      [['--server-bin', 'redis-server', '-p', '7001'], /drop -p/],
      [
        ['--server-bin', 'redis-server', '--server-cpus', '4095'],
        /invalid --server-cpus: "4095": this machine has CPUs/,
      ],
      [['--server-bin', 'redis-server', '-t', 'nosuch'], /unknown test/],
    ] as const) {
      const r = await runCli(['run', ...args]);
      expect(r.code, describeResult(r)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/started redis-server/);
    }
  });
});
