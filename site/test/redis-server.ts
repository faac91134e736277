import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nobody listens on now: the kernel's pick for port 0. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return p;
}

/**
 * A throwaway redis-server on a free port of 127.0.0.1 (never 6379), no persistence, its files in
 * `dir`; resolved once it answers PING. The caller stops it (child.kill) with what it started.
 */
export async function startRedis(dir: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  // Ready when it answers: the CLI itself would say so plainly if it did not.
  for (let i = 0; i < 100; i++) {
    const ok =
      spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG';
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, port };
}
