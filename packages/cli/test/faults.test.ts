import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  client,
  describeResult,
  parseDoc,
  readEnvelope,
  runCli,
  spawnCli,
  tempDir,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// `run` against a server that stops answering (SIGSTOP, by pid, once its commandstats show the
// load) and one that refuses writes (maxmemory 2mb, noeviction): the exit code, what is printed,
// and the result that is kept. Each test starts its own redis-server on a free port.

cliFileHooks();

describe('run --timeout', () => {
  it('ends by itself when the server stops answering: exit 1, the partial result kept and marked', async () => {
    const server = await testServer();
    const redis = await client(server);
    const dir = await tempDir();
    const file = path.join(dir, 'stopped.json');
    let paused = false;
    try {
      const cli = spawnCli([
        'run',
        '-p',
        String(server.port),
        '-t',
        'get',
        '-n',
        '5000000',
        '--timeout',
        '2',
        '--json',
        '--out',
        file,
      ]);
      await waitFor(
        async () => /cmdstat_get:calls=[1-9]/.test(await redis.info('commandstats')),
        () => `GET load on the server\n${cli.stderr()}`,
      );
      process.kill(server.pid, 'SIGSTOP');
      paused = true;
      const r = await cli.done;
      expect(r.code, describeResult(r)).toBe(1);
      const doc = parseDoc(r.stdout);
      const c = doc.cells[0]!;
      expect(doc.incomplete).toBe(true);
      expect(c.incomplete).toBe(true);
      expect(c.incompleteReason).toBe('reply-timeout');
      expect(c.error).toMatch(
        new RegExp(`the server at 127\\.0\\.0\\.1:${server.port} stopped answering: no reply for [\\d.]+ s`),
      );
      expect(c.completed).toBeGreaterThan(0);
      expect(c.completed).toBeLessThan(5_000_000);
      expect(c.stall!.maxGapMs).toBeGreaterThanOrEqual(2000);
      // The signed file holds the same partial result.
      expect(existsSync(file)).toBe(true);
      expect((await readEnvelope(file)).payload.cells[0]!.incompleteReason).toBe('reply-timeout');
      expect(r.stderr).toMatch(/error: GET: the server at .* stopped answering.*The result is partial/);
    } finally {
      if (paused) process.kill(server.pid, 'SIGCONT');
    }
  });

  it('a pause shorter than the deadline completes the cell, with a STALL warning and exit 0', async () => {
    const server = await testServer();
    const redis = await client(server);
    let paused = false;
    try {
      const cli = spawnCli(['run', '-p', String(server.port), '-t', 'get', '--duration', '4', '--json']);
      await waitFor(
        async () => /cmdstat_get:calls=[1-9]/.test(await redis.info('commandstats')),
        () => `GET load on the server\n${cli.stderr()}`,
      );
      process.kill(server.pid, 'SIGSTOP');
      paused = true;
      // The pause's length is the fault injected (under the 10 s default deadline), not a wait for a result.
      await new Promise((ok) => setTimeout(ok, 1500));
      process.kill(server.pid, 'SIGCONT');
      paused = false;
      const r = await cli.done;
      expect(r.code, describeResult(r)).toBe(0);
      const doc = parseDoc(r.stdout);
      const c = doc.cells[0]!;
      expect(c.incomplete).toBe(false);
      expect(c.stall!.maxGapMs).toBeGreaterThanOrEqual(1000);
      expect(c.latencyUs.maxUs).toBeGreaterThanOrEqual(c.stall!.maxGapMs * 1000 * 0.99);
      const w = doc.warnings.find((x) => x.code === 'STALL');
      expect(w?.cell).toBe('GET');
      expect(w?.message).toMatch(/longest wait [\d.]+ s, beginning [\d.]+ s into the measured phase/);
    } finally {
      if (paused) process.kill(server.pid, 'SIGCONT');
    }
  });

  it('refuses a timeout that is not a number', async () => {
    const r = await runCli(['run', '-p', '1', '-t', 'get', '--timeout', 'soon']);
    expect(r.code, describeResult(r)).toBe(2);
    expect(r.stderr).toMatch(/invalid reply timeout \(--timeout\): "soon"/);
  });
});

describe('run against a server that answers with errors', () => {
  const args = (port: number) => [
    'run',
    '-p',
    String(port),
    '-t',
    'set',
    '-n',
    '20000',
    '-d',
    '1k',
    '-r',
    '1000000',
  ];

  it('says a SET run was mostly OOM errors instead of printing requests per second, and exits 1', async () => {
    const server = await testServer({ config: ['maxmemory 2mb', 'maxmemory-policy noeviction'] });
    const r = await runCli(args(server.port));
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stdout).toMatch(
      /^SET: ERRORS: \d+ of \d+ replies \([\d.]+%\) were errors, e\.g\. "OOM command not allowed/m,
    );
    expect(r.stdout).not.toMatch(/SET: [\d.]+ requests per second/);
    expect(r.stderr).toMatch(/warning ERRORS \(SET\): Most replies in this cell were errors/);
    expect(r.stderr).toMatch(/error: most replies were errors in SET .*--allow-errors/);
  });

  it('with --allow-errors exits 0, and the result keeps the counts and the warning', async () => {
    const server = await testServer({ config: ['maxmemory 2mb', 'maxmemory-policy noeviction'] });
    const r = await runCli([...args(server.port), '--allow-errors', '--json']);
    expect(r.code, describeResult(r)).toBe(0);
    const doc = parseDoc(r.stdout);
    const c = doc.cells[0]!;
    expect(c.errorReplies!.ratio).toBeGreaterThan(0.5);
    expect(c.errorReplies!.count).toBe(c.errors.OOM);
    expect(c.errorReplies!.example).toMatch(/^OOM command not allowed/);
    expect(c.trials[0]!.errorReplies!.count).toBe(c.errorReplies!.count);
    expect(doc.warnings.filter((w) => w.code === 'ERRORS').map((w) => w.cell)).toEqual(['SET']);
    expect(doc.incomplete).toBe(false);
  });
});
