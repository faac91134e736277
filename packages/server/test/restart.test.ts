// The publishing service across a restart and a kill (issue 40 item 7): a site already built is
// served from the first request a new service answers, and a site build ends with the service that
// started it, even one ended by SIGKILL. The build is fake-site-build.mjs, a real child process.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { post, publishingFlags, request, spawnService, submissions, tempDbPath } from './fixtures.js';

const FAKE_BUILD = fileURLToPath(new URL('fake-site-build.mjs', import.meta.url));
const dirs: string[] = [];
/** Builds a test saw start: one a failed test leaves running is ended here. */
const builds: number[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  for (const pid of builds)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
});

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A port free now, for a service that must come back on the same one. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

function publishing(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-restart-'));
  dirs.push(dir);
  const log = join(dir, 'builds.log');
  const dbPath = tempDbPath();
  const args = publishingFlags(join(dir, 'site'), `node ${FAKE_BUILD}`);
  const start = (extra: string[] = []) =>
    spawnService(dbPath, [...args, ...extra], { env: { FAKE_BUILD_LOG: log, ...env } });
  return { dir, log, start };
}

const siteReady = (url: string) =>
  until(
    async () =>
      (
        (await request(`${url}/api/v1/health`)).json as {
          site: { state: string; building: boolean; pending: boolean };
        }
      ).site,
    (s) => s.state === 'ready' && !s.building && !s.pending,
  );

/** GETs the paths back to back until stopped; each answer's status, or 'down' while nothing listens. */
function poll(base: string, paths: string[]) {
  const seen: (number | 'down')[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      try {
        const res = await fetch(`${base}${paths[i % paths.length]}`);
        await res.arrayBuffer();
        seen.push(res.status);
      } catch {
        seen.push('down');
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  })();
  return {
    seen,
    stop: async () => {
      stopped = true;
      await done;
      return seen;
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie has ended; only its parent has not read its status yet.
  let stat = '';
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  return !/^\d+ \(.*\) Z/.test(stat);
}

describe('the publishing service across a restart', () => {
  it('answers a built page 200 from its first request after a restart: never 503 "being built" nor 202 "received"', async () => {
    const p = publishing();
    const port = String(await freePort());
    const first = await p.start(['--port', port]);
    await siteReady(first.url);
    const [a] = submissions(1);
    const { pagePath } = (await post(`${first.url}/api/v1/results`, a!)).json as { pagePath: string };
    await until(
      () => request(`${first.url}${pagePath}`),
      (r) => r.status === 200,
    );
    // What a build cut short leaves for the next start to clear: the real one's is thousands of files.
    const partial = join(p.dir, 'site', 'builds', '1.partial');
    mkdirSync(partial, { recursive: true });
    for (let i = 0; i < 4000; i++) writeFileSync(join(partial, `f${i}.html`), 'x');

    const poller = poll(first.url, [pagePath, '/']);
    await until(
      () => poller.seen.length,
      (n) => n >= 10,
    );
    first.child.kill('SIGTERM');
    await first.exited;
    const second = await p.start(['--port', port]);
    expect(second.url).toBe(first.url);
    await siteReady(second.url);
    const after = poller.seen.length;
    await until(
      () => poller.seen.length,
      (n) => n >= after + 20,
    );
    const seen = await poller.stop();
    expect(seen.filter((s) => s === 503 || s === 202)).toEqual([]);
    expect(seen.filter((s) => s !== 200 && s !== 'down')).toEqual([]);
    expect(existsSync(partial)).toBe(false);
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('a site build ends with its service, even when the service is killed with SIGKILL', async () => {
    // The build waits for this file, which never comes: it runs until something ends it.
    const p = publishing({ FAKE_BUILD_GATE: join(tmpdir(), `rbdb-never-${process.pid}-${Date.now()}`) });
    const service = await p.start();
    const line = await until(
      () => (existsSync(p.log) ? readFileSync(p.log, 'utf8') : ''),
      (text) => /^start \d+ \d+$/m.test(text),
    );
    const pid = Number(/^start \d+ (\d+)$/m.exec(line)![1]);
    builds.push(pid);
    expect(alive(pid)).toBe(true);
    service.child.kill('SIGKILL');
    await service.exited;
    await until(
      () => alive(pid),
      (up) => !up,
    );
  });
});
