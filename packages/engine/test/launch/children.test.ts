import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type LaunchedServer,
  liveServerCount,
  startServer,
  stopAllServers,
  stopServers,
} from '../../src/launch/index.js';

// Process supervision: the registry of started servers, stopping many at once, and the kill on exit.

const started: LaunchedServer[] = [];
afterEach(async () => {
  await stopServers(started.splice(0));
});

async function launch(): Promise<LaunchedServer> {
  const server = await startServer();
  started.push(server);
  return server;
}

/** False once the process is gone or a zombie (killed, not yet reaped: PID 1 in a container may never reap it). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

describe('live servers', () => {
  it('keeps several alive at once and stopServers stops them all, one already stopped', async () => {
    const before = liveServerCount();
    const servers = [await launch(), await launch(), await launch()];
    expect(new Set(servers.map((s) => s.port)).size).toBe(3);
    expect(liveServerCount()).toBe(before + 3);
    await servers[1]!.stop();
    expect(liveServerCount()).toBe(before + 2);

    await stopServers(servers);
    expect(liveServerCount()).toBe(before);
    for (const s of servers) expect(isRunning(s.pid)).toBe(false);
  });

  it('forgets a server that exits by itself', async () => {
    const before = liveServerCount();
    const server = await launch();
    expect(liveServerCount()).toBe(before + 1);
    net
      .connect({ host: server.host, port: server.port })
      .end('SHUTDOWN NOSAVE\r\n')
      .on('error', () => {});
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(liveServerCount()).toBe(before);
  });

  it('stopAllServers stops every server this process started', async () => {
    const servers = [await launch(), await launch()];
    await stopAllServers();
    expect(liveServerCount()).toBe(0);
    for (const s of servers) expect(isRunning(s.pid)).toBe(false);
  });

  it('SIGKILLs the servers still running when Node exits, and removes their dirs', async () => {
    const entry = fileURLToPath(new URL('../../dist/launch/index.js', import.meta.url));
    // A Node process that starts two servers, prints their pids and dirs, and exits without stopping them.
    const script = `
      const { startServer } = await import(${JSON.stringify(entry)});
      const servers = [await startServer(), await startServer({ unixSocketInDir: true })];
      console.log(JSON.stringify(servers.map((s) => ({ pid: s.pid, port: s.port, unixSocket: s.unixSocket }))));
      process.exit(0);
    `;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], (err, out, errOut) =>
        err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out),
      );
    });
    const servers = JSON.parse(stdout) as { pid: number; unixSocket?: string }[];
    expect(servers).toHaveLength(2);
    // SIGKILL was sent before the Node process ended; the orphan is reaped by init shortly after.
    await until(() => servers.every((s) => !isRunning(s.pid)));
    const socket = servers[1]!.unixSocket!;
    await expect(stat(socket)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(socket.slice(0, socket.lastIndexOf('/')))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

/** Waits for a condition, checking on each turn of the timer queue; the test timeout is the only bound. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 20));
}
