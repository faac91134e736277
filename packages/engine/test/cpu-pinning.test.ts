import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedCpus, CpuListError, parseCpuList, pinProcess } from '../src/cpu-pinning.js';
import { findServerBinary, type LaunchedServer, startServer } from '../src/launch/index.js';

const started: LaunchedServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

async function launch(opts: Parameters<typeof startServer>[0]): Promise<LaunchedServer> {
  const server = await startServer(opts);
  started.push(server);
  expect(server.port).not.toBe(6379);
  return server;
}

const haveTaskset = process.platform === 'linux' && findServerBinary('taskset') !== null;

describe('parseCpuList', () => {
  it('reads single CPUs, ranges and lists, sorted and de-duplicated', () => {
    expect(parseCpuList('1', 'x', 8)).toEqual([1]);
    expect(parseCpuList('4-6,0,5', 'x', 8)).toEqual([0, 4, 5, 6]);
  });

  it('refuses a malformed list and CPUs this machine does not have, naming the flag', () => {
    expect(() => parseCpuList('1;2', '--server-cpus', 8)).toThrow(CpuListError);
    expect(() => parseCpuList('3-1', '--server-cpus', 8)).toThrow('3-1 is a range backwards');
    expect(() => parseCpuList('0,9', '--client-cpus', 2)).toThrow(
      'invalid --client-cpus: "0,9": this machine has CPUs 0-1, not 9',
    );
  });
});

describe('unixSocketInDir', () => {
  it('listens on redis.sock inside the server temp dir, which goes with the server', async () => {
    const server = await launch({ unixSocketInDir: true });
    expect(path.basename(server.unixSocket!)).toBe('redis.sock');
    const viaSocket = new Redis({ path: server.unixSocket!, lazyConnect: true, maxRetriesPerRequest: 0 });
    await viaSocket.connect();
    expect(await viaSocket.ping()).toBe('PONG');
    // The socket lives in the server's own dir (CONFIG GET dir), not in a path the caller must clean.
    const [, dir] = (await viaSocket.config('GET', 'dir')) as [string, string];
    expect(path.dirname(server.unixSocket!)).toBe(dir);
    viaSocket.disconnect();
    await server.stop();
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe.skipIf(!haveTaskset)('pinProcess', () => {
  it('pins every thread of a running redis-server and reads the CPUs back', async () => {
    const server = await launch({ config: ['io-threads 2'] });
    const pinning = await pinProcess(server.pid, '0');
    expect(pinning).toEqual({ requested: '0', applied: '0', error: null });
    expect(allowedCpus(server.pid)).toBe('0');
    // -a: the io thread and the background threads too, not just the main thread.
    const tids = await readdir(`/proc/${server.pid}/task`);
    expect(tids.length).toBeGreaterThan(1);
    for (const tid of tids) {
      const status = await readFile(`/proc/${server.pid}/task/${tid}/status`, 'utf8');
      expect(status).toMatch(/^Cpus_allowed_list:\s*0$/m);
    }
  });

  it('returns the reason, never throws, when taskset refuses', async () => {
    const server = await launch({});
    // A CPU no machine here has: taskset itself refuses (parseCpuList would have caught it first).
    const pinning = await pinProcess(server.pid, '4095');
    expect(pinning.applied).toBeNull();
    expect(pinning.error).toMatch(/^taskset failed: /);
  });
});
