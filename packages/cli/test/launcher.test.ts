// A run started through a package runner (here `pnpm -s redis-benchdb` in this repository) ends with
// it: SIGTERM to pnpm alone stops the load and removes the keys, and a Ctrl-C that reaches the whole
// process group, pnpm included, still lets the cleanup finish (pnpm's exit is not a second signal).
// Real redis-servers of the test's own; no wall-clock limits.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LAUNCHER_POLL_MS } from '../src/run/launcher-watch.js';
import {
  CLI_DIR,
  client,
  removeTempDirs,
  sleep,
  stopServers,
  tempDir,
  testServer,
  waitFor,
} from './helpers/cli.js';
import { alive, runnerPid } from './helpers/forms.js';

afterEach(async () => {
  await stopServers();
});
afterAll(async () => {
  await removeTempDirs();
});

/** `pnpm -s redis-benchdb run` in its own process group, writing SET keys until stopped. */
async function startThroughPnpm(port: number, redis: Redis) {
  const home = await tempDir('rbdb-launcher-');
  const child = spawn(
    'pnpm',
    [
      '-s',
      'redis-benchdb',
      'run',
      '-p',
      String(port),
      '-t',
      'set',
      '-r',
      '1000000',
      '-c',
      '10',
      '--duration',
      '600',
      // No reply deadline: the Ctrl-C test pauses the server's writes while the cleanup waits on them.
      '--timeout',
      '0',
    ],
    {
      cwd: path.resolve(CLI_DIR, '../..'),
      detached: true, // a process group of its own, as a shell gives a foreground job
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: home,
        REDIS_BENCHDB_CONFIG_DIR: path.join(home, 'config'),
        REDIS_BENCHDB_DB: path.join(home, 'benchdb.sqlite'),
        REDIS_BENCHDB_SERVER: '',
      },
    },
  );
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  child.stdout!.resume();
  const closed = new Promise<void>((r) => child.once('close', () => r()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`the run ended early:\n${err}`);
      return (await redis.dbsize()) > 10_000 && runnerPid(port) !== null;
    },
    () => `the run to write keys (stderr so far: ${err})`,
  );
  return { child, pid: runnerPid(port)!, stderr: () => err, closed };
}

describe('a run started through pnpm', () => {
  it('SIGTERM to pnpm alone: the run stops its load, removes its keys and exits', async () => {
    const server = await testServer();
    const redis = await client(server);
    const run = await startThroughPnpm(server.port, redis);
    run.child.kill('SIGTERM');
    await waitFor(
      () => !alive(run.pid),
      () => `the runner to exit; stderr: ${run.stderr()}`,
    );
    await run.closed;
    expect(run.stderr()).toContain('the process that started this run (npx, npm or pnpm) has ended');
    expect(await redis.dbsize()).toBe(0);
    redis.disconnect();
  });

  it('Ctrl-C to the whole group: the cleanup is not cut short by pnpm exiting first', async () => {
    const server = await testServer();
    const redis = await client(server);
    const run = await startThroughPnpm(server.port, redis);
    const pnpmExited = new Promise<void>((r) => run.child.once('exit', () => r()));
    // Writes wait while the server is paused, so the cleanup is still going when pnpm has exited and
    // the run has looked for its launcher several times; the old code took that for a second Ctrl-C.
    await redis.call('CLIENT', 'PAUSE', '60000', 'WRITE');
    process.kill(-run.child.pid!, 'SIGINT');
    await waitFor(() => run.stderr().includes('interrupted (SIGINT)'), 'the interrupt message');
    await pnpmExited;
    await sleep(LAUNCHER_POLL_MS * 4);
    await redis.call('CLIENT', 'UNPAUSE');
    await waitFor(
      () => !alive(run.pid),
      () => `the runner to exit; stderr: ${run.stderr()}`,
    );
    await run.closed;
    expect(run.stderr()).not.toContain('stopping the cleanup');
    expect(await redis.dbsize(), run.stderr()).toBe(0);
    redis.disconnect();
  });
});
