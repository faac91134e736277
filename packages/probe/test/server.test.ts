import { execFileSync } from 'node:child_process';
import net from 'node:net';
// The engine is built (npx tsc -b packages/engine/tsconfig.json) and owns the ioredis dependency;
// probe itself imports neither, so the test borrows them.
import { type LaunchedServer, startServer } from '@redis-benchdb/engine';
import { parseInfo } from '@redis-benchdb/result';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from '../../engine/node_modules/ioredis/built/index.js';
import {
  CONFIG_UNAVAILABLE,
  collectServer,
  countMonitorClients,
  describeServer,
  readServerFacts,
  type ServerCommands,
  serverProcessId,
} from '../src/server.js';
import type { Machine, Server } from '../src/types.js';
import { environmentWarnings } from '../src/warnings.js';
import { serverCommands } from './helpers/own-server.js';

// Throwaway redis-servers on free ports; never the production server on 6379.
const servers: LaunchedServer[] = [];
const clients: Redis[] = [];
const sockets: net.Socket[] = [];

afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const c of clients) c.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
});

async function launch(config: string[] = []): Promise<{ server: LaunchedServer; redis: Redis }> {
  const server = await startServer({ config });
  servers.push(server);
  expect(server.port).not.toBe(6379);
  const redis = new Redis({
    host: '127.0.0.1',
    port: server.port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
  });
  await redis.connect();
  clients.push(redis);
  return { server, redis };
}

/** A client machine with nothing to warn about, so only server-side warnings show. */
const quietMachine = {
  virtualization: { kind: 'bare-metal', hypervisor: null, container: null },
  thp: { enabled: 'never', defrag: 'madvise' },
  cpuGovernor: 'performance',
  swapUsedBytes: 0,
} as unknown as Machine;
const codes = (server: Server) =>
  environmentWarnings({ client: quietMachine, server, link: { kind: 'tcp-network', sameHost: null } }).map(
    (w) => w.code,
  );

describe('describeServer on a real redis-server', () => {
  let plain: { server: LaunchedServer; redis: Redis };
  let persistent: { server: LaunchedServer; redis: Redis };
  beforeAll(async () => {
    [plain, persistent] = await Promise.all([
      launch(),
      launch(['appendonly yes', 'save "900 1"', 'loglevel verbose', 'hz 25']),
    ]);
  });

  it('reads product, build and settings from INFO, CONFIG and CLIENT LIST', async () => {
    const s = await collectServer(serverCommands(plain.redis), true);
    const v = execFileSync(plain.server.bin, ['--version'], { encoding: 'utf8' });
    const info = parseInfo(await plain.redis.info('everything'));
    expect(s.product).toBe('redis');
    expect(s.version).toBe(/v=(\S+)/.exec(v)?.[1]);
    expect(s.buildId).toBe(/build=(\S+)/.exec(v)?.[1]);
    if (/^0+$/.test(info.redis_git_sha1 ?? '')) {
      expect(s.gitSha).toBeNull();
      expect(s.unknown.gitSha).toMatch(/built outside a git checkout/);
    } else expect(s.gitSha).toBe(info.redis_git_sha1);
    expect(s.mode).toBe('standalone');
    expect(s.archBits).toBe(Number(/bits=(\d+)/.exec(v)?.[1]));
    expect(s.allocator).toBe(info.mem_allocator);
    expect(s.multiplexingApi).toBe(info.multiplexing_api);
    expect(s.os).toBe(info.os);
    // startServer's benchmark-safe defaults.
    expect(s.persistence).toEqual({ save: '', appendonly: false, appendfsync: 'everysec' });
    expect(s.loglevel).toBe('notice');
    expect(s.ioThreads).toBe(1);
    expect(s.ioThreadsDoReads).toBe(false);
    expect(s.hz).toBe(10);
    expect(s.maxmemoryBytes).toBe(0);
    expect(s.maxmemoryPolicy).toBe('noeviction');
    expect(s.connectedClients).toBeGreaterThanOrEqual(1);
    expect(s.monitorClients).toBe(0);
    expect(s.local).toBe(true);
    expect(serverProcessId(info)).toBe(plain.server.pid);
    for (const [k, val] of Object.entries(s)) expect(val, k).not.toBeUndefined();
    expect(Object.keys(s.unknown).filter((k) => k !== 'gitSha')).toEqual([]);
    expect(codes(s)).toEqual([]);
  });

  it('sees persistence and a verbose log level, and warns', async () => {
    const s = await collectServer(serverCommands(persistent.redis), true);
    expect(s.persistence).toEqual({ save: '900 1', appendonly: true, appendfsync: 'everysec' });
    expect(s.loglevel).toBe('verbose');
    expect(s.hz).toBe(25);
    expect(codes(s)).toEqual(['PERSISTENCE_ON', 'DEBUG_LOGLEVEL']);
  });

  it('counts a MONITOR client and warns', async () => {
    const sock = net.connect({ host: '127.0.0.1', port: plain.server.port });
    sockets.push(sock);
    await new Promise<void>((resolve, reject) => {
      sock.once('error', reject);
      sock.once('data', (d) => (String(d).startsWith('+OK') ? resolve() : reject(new Error(String(d)))));
      sock.write('MONITOR\r\n');
    });
    const s = await collectServer(serverCommands(plain.redis), true);
    expect(s.monitorClients).toBe(1);
    expect(codes(s)).toContain('MONITOR_CLIENTS');
    sock.destroy();
  });

  it('tolerates CONFIG and CLIENT being refused, and INFO without sections', async () => {
    const realInfo = await plain.redis.info();
    const calls: string[] = [];
    const locked: ServerCommands = {
      async info(section?: string) {
        calls.push(`info ${section ?? ''}`.trim());
        if (section) throw new Error('ERR syntax error');
        return realInfo;
      },
      async config() {
        throw new Error("ERR unknown command 'CONFIG', with args beginning with: 'GET' '*'");
      },
      async client() {
        throw new Error("NOPERM User bench has no permissions to run the 'client|list' command");
      },
    };
    const raw = await readServerFacts(locked);
    expect(calls).toEqual(['info everything', 'info']);
    expect(raw.config).toBeNull();
    const s = await collectServer(locked, null);
    expect(s.product).toBe('redis');
    expect(s.version).not.toBeNull();
    expect(s.persistence.save).toBeNull();
    expect(s.unknown['persistence.save']).toMatch(
      /^CONFIG GET is disabled on this server \(renamed or ACL\): ERR unknown command/,
    );
    expect(s.loglevel).toBeNull();
    expect(s.unknown.loglevel).toMatch(/^CONFIG GET is disabled/);
    expect(s.ioThreads).toBeNull();
    expect(s.unknown.ioThreads).toMatch(/io_threads_active does not give the configured count/);
    // INFO still answers these (configured_hz since Redis 5).
    expect(s.hz).toBe(10);
    expect(s.persistence.appendonly).toBe(false);
    expect(s.maxmemoryBytes).toBe(0);
    expect(s.maxmemoryPolicy).toBe('noeviction');
    expect(s.monitorClients).toBeNull();
    expect(s.unknown.monitorClients).toMatch(/CLIENT LIST is disabled.*NOPERM/);
    expect(s.local).toBeNull();
    expect(s.unknown.local).toMatch(/not known/);
  });
});

describe('describeServer product detection', () => {
  const none = null;

  it('Valkey 8 reports its own version; redis_version is the compatibility level', () => {
    const s = describeServer(
      parseInfo(
        '# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\nvalkey_release_stage:ga\r\nserver_mode:standalone\r\n',
      ),
      none,
    );
    expect([s.product, s.version, s.mode]).toEqual(['valkey', '8.0.1', 'standalone']);
    expect(s.unknown.loglevel).toBe(CONFIG_UNAVAILABLE);
    expect(s.hz).toBeNull();
    expect(s.unknown.hz).toBe(`${CONFIG_UNAVAILABLE}; INFO has no configured_hz`);
  });

  it('Valkey 7.2 has only server_name', () => {
    const s = describeServer(
      parseInfo('redis_version:7.2.5\nserver_name:valkey\nredis_mode:cluster\n'),
      none,
    );
    expect([s.product, s.version, s.mode]).toEqual(['valkey', '7.2.5', 'cluster']);
  });

  it('Dragonfly', () => {
    const s = describeServer(
      parseInfo('redis_version:6.2.11\ndragonfly_version:df-v1.21.2\nredis_mode:standalone\n'),
      none,
    );
    expect([s.product, s.version]).toEqual(['dragonfly', '1.21.2']);
  });

  it('KeyDB by its own INFO section or its executable', () => {
    const bySection = describeServer(
      parseInfo('# Server\nredis_version:6.3.4\n# CPU\nserver_threads:2\n# KeyDB\nmvcc_depth:0\n'),
      none,
    );
    expect([bySection.product, bySection.version]).toEqual(['keydb', '6.3.4']);
    const byExe = describeServer(parseInfo('redis_version:6.3.4\nexecutable:/usr/bin/keydb-server\n'), none);
    expect(byExe.product).toBe('keydb');
  });

  it('Redis, and unknown without any version field', () => {
    expect(describeServer(parseInfo('redis_version:7.4.1\n'), none).product).toBe('redis');
    const u = describeServer({}, {});
    expect(u.product).toBe('unknown');
    expect(u.version).toBeNull();
    expect(u.unknown.version).toBe('INFO has no redis_version');
    expect(u.unknown['persistence.save']).toBe("CONFIG GET * did not include 'save' on this server");
  });

  it('counts MONITOR clients by the O flag', () => {
    const list = [
      'id=3 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=8 name= age=1 idle=0 flags=N db=0 cmd=client|list',
      'id=4 addr=127.0.0.1:5001 laddr=127.0.0.1:6379 fd=9 name= age=1 idle=0 flags=O db=0 cmd=monitor',
      'id=5 addr=127.0.0.1:5002 laddr=127.0.0.1:6379 fd=10 name=flags=O age=1 idle=0 flags=N db=0 cmd=ping',
      '',
    ].join('\n');
    expect(countMonitorClients(list)).toBe(1);
  });
});
