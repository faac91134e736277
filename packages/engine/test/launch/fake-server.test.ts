import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveServerCount, ServerLaunchError, startServer } from '../../src/launch/index.js';

// Cases a real redis-server cannot be made to produce: a server that never says it is ready, one that
// says so but listens nowhere, and one that ignores SIGTERM. Each is a small script posing as the
// binary (it answers --version like one).

const VERSION_LINE = 'Redis server v=7.4.1 sha=00000000:0 malloc=libc bits=64 build=1';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rbdb-fake-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A /bin/sh fake: it starts in milliseconds even on a busy machine, and `exec` leaves one process to stop. */
async function shellServer(name: string, body: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/sh\n[ "$1" = --version ] && { echo '${VERSION_LINE}'; exit 0; }\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

describe('a server that does not become ready', () => {
  it('times out with the command it ran, and leaves nothing running', async () => {
    const bin = await shellServer('silent-server', 'exec sleep 600');
    const before = liveServerCount();
    const err = await startServer({ bin, startTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerLaunchError);
    expect((err as Error).message).toMatch(
      /^silent-server was not ready within 200 ms\ncommand: \S+\/silent-server --bind 127\.0\.0\.1 --save '' .* --port \d+\n\(no log output\)$/,
    );
    // The attempt stopped the process before it failed: the registry is back where it was.
    expect(liveServerCount()).toBe(before);
  });

  it('says so when it logs that it is ready but accepts no connection', async () => {
    const bin = await shellServer('deaf-server', 'echo "* Ready to accept connections tcp"\nexec sleep 600');
    const before = liveServerCount();
    // The ready line comes within milliseconds; the connect checks then run to the deadline.
    const err = await startServer({ bin, startTimeoutMs: 2_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerLaunchError);
    const { message, log } = err as ServerLaunchError;
    expect(message).toMatch(
      /^deaf-server logged that it is ready but 127\.0\.0\.1:\d+ does not accept connections\ncommand: /,
    );
    expect(log).toEqual(['* Ready to accept connections tcp']);
    expect(liveServerCount()).toBe(before);
  });
});

describe('stop()', () => {
  it('SIGKILLs a server that ignores SIGTERM', async () => {
    // A Node fake that listens on the port it is given and says it is ready, like redis-server.
    const file = path.join(dir, 'stubborn-server');
    await writeFile(
      file,
      `#!${process.execPath}
      if (process.argv.includes('--version')) { console.log('${VERSION_LINE}'); process.exit(0); }
      const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
      process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
      require('node:net').createServer((s) => s.end()).listen(port, '127.0.0.1', () =>
        console.log('Ready to accept connections tcp'));`,
    );
    await chmod(file, 0o755);
    const server = await startServer({ bin: file });
    expect(server.version).toBe('7.4.1');
    await server.stop();
    expect(await server.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
