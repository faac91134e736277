// The `redis-benchdb-server` bin: its flags, its help, and that they reach the running service.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_APP_OPTIONS, DEFAULT_PORT, parseServerArgs, UsageError } from '../src/index.js';
import { request, spawnService, tempDbPath } from './fixtures.js';
import { trickle } from './raw-http.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Not a terminal and no colour: commander wraps --help at its fixed 80 columns. */
function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  return env;
}

describe('parseServerArgs', () => {
  it('fills in the defaults, the database from $REDIS_BENCHDB_DB', () => {
    const parsed = parseServerArgs([], { REDIS_BENCHDB_DB: '/tmp/x.sqlite' });
    expect(parsed).toEqual({
      help: false,
      options: {
        dbPath: '/tmp/x.sqlite',
        host: '127.0.0.1',
        port: DEFAULT_PORT,
        requestTimeoutMs: DEFAULT_APP_OPTIONS.requestTimeoutMs,
        bodyLimitBytes: DEFAULT_APP_OPTIONS.bodyLimitBytes,
        logger: false,
        checkThreads: DEFAULT_APP_OPTIONS.checkThreads,
        maxQueuedSubmissions: DEFAULT_APP_OPTIONS.maxQueuedSubmissions,
        minFreeBytes: DEFAULT_APP_OPTIONS.minFreeBytes,
        rateLimit: DEFAULT_APP_OPTIONS.rateLimit,
        ipv6PrefixLength: DEFAULT_APP_OPTIONS.ipv6PrefixLength,
      },
    });
  });

  it('takes every flag', () => {
    const parsed = parseServerArgs(
      '--db d.sqlite --host :: --port 0 --request-timeout 1500 --body-limit 2048 --per-ip-per-minute 5 --per-key-per-minute 6 --new-keys-per-hour 4 --ipv6-prefix 56 --check-threads 3 --max-queued 7 --min-free-mb 9 --log'.split(
        ' ',
      ),
      {},
    );
    expect(parsed).toEqual({
      help: false,
      options: {
        dbPath: 'd.sqlite',
        host: '::',
        port: 0,
        requestTimeoutMs: 1500,
        bodyLimitBytes: 2048,
        logger: true,
        checkThreads: 3,
        maxQueuedSubmissions: 7,
        minFreeBytes: 9 * 1024 * 1024,
        rateLimit: { perIpPerMinute: 5, perKeyPerMinute: 6, newKeysPerNetworkPerHour: 4 },
        ipv6PrefixLength: 56,
      },
    });
  });

  it.each([
    [['--port', '70000'], /--port: 70000 \(a whole number from 0 to 65535; 0 picks a free one\)/],
    [['--port', 'x'], /--port: x/],
    [['--request-timeout', '0'], /--request-timeout: 0 \(a whole number, at least 1\)/],
    [['--body-limit', '1.5'], /--body-limit: 1\.5/],
    [['--check-threads', '0'], /--check-threads: 0 \(a whole number, at least 1\)/],
    [['--max-queued', 'many'], /--max-queued: many/],
    [['--bogus'], /unknown option '--bogus'/],
    [['stray'], /unknown command 'stray' \(the service takes flags; its one command is restore\)/],
    [['--port'], /option '--port <n>' argument missing/],
  ])('refuses %j, naming the flag', (argv, says) => {
    expect(() => parseServerArgs(argv, {})).toThrow(UsageError);
    expect(() => parseServerArgs(argv, {})).toThrow(says);
  });
});

describe('the bin', () => {
  it('--help prints every flag with its meaning and default, and examples, and exits 0', async () => {
    const r = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8', env: plainEnv() });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    for (const flag of [
      '--db',
      '--host',
      '--port',
      '--request-timeout',
      '--body-limit',
      '--check-threads',
      '--max-queued',
      '--log',
      '--trust-proxy',
      '--min-free-mb',
      '--ipv6-prefix',
      '--new-keys-per-hour',
      '--site-dir',
      '--backup-dir',
      'redis-benchdb-server restore BACKUP --db PATH',
    ])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(
      new RegExp(`port to listen on, 0 for a free one \\(default:\\s+${DEFAULT_PORT}\\)`),
    );
    expect(r.stdout).toMatch(/^Examples:$/m);
    // The service's manual, stored as the CLI's is; the thread count is this machine's.
    await expect(r.stdout.replace(/here \d+\)/, 'here N)')).toMatchFileSnapshot(
      'snapshots/help/redis-benchdb-server.txt',
    );
    const restore = spawnSync(process.execPath, [MAIN, 'restore', '--help'], {
      encoding: 'utf8',
      env: plainEnv(),
    });
    expect(restore.status).toBe(0);
    await expect(restore.stdout).toMatchFileSnapshot('snapshots/help/restore.txt');
  });

  it('a bad flag exits 2 with what was wrong and where to look', () => {
    const r = spawnSync(process.execPath, [MAIN, '--port', 'eighty'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'error: invalid --port: eighty (a whole number from 0 to 65535; 0 picks a free one)\n(run with --help for usage)\n',
    );
    expect(r.stdout).toBe('');
  });

  it('serves with the deadline it was given, and exits 0 on SIGTERM', async () => {
    const service = await spawnService(tempDbPath(), ['--request-timeout', '2000']);
    expect((await request(`${service.url}/api/v1/health`)).json).toMatchObject({ ok: true, results: 0 });
    const port = Number(new URL(service.url).port);
    const head =
      'POST /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 120\r\n\r\n';
    // As in edge.test.ts: 120 bytes at 2/s would take 60 s; the 2 s deadline cuts it.
    const { sent, reply } = await trickle(port, head, ' '.repeat(120), 500);
    expect(sent).toBeLessThan(40);
    expect(reply.json?.error?.message).toContain('2000 ms');
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });
});
