import { describe, expect, it } from 'vitest';
import {
  clusterNodeConfig,
  configArgs,
  serverArgs,
  shellCommand,
  splitConfigLine,
} from '../../src/launch/args.js';

// The argv a launched server gets, checked word for word without starting anything.

const DEFAULTS = [
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--daemonize',
  'no',
  '--loglevel',
  'notice',
  '--logfile',
  '',
  '--dir',
  '/tmp/rbdb-1',
  '--protected-mode',
  'no',
];

describe('serverArgs', () => {
  it('plain TCP: benchmark-safe defaults, then the port', () => {
    expect(serverArgs({ dir: '/tmp/rbdb-1', port: 40123 })).toEqual([...DEFAULTS, '--port', '40123']);
  });

  it('unix socket only: port 0 and the socket with mode 700', () => {
    expect(serverArgs({ dir: '/tmp/rbdb-1', port: 0, unixSocket: '/tmp/rbdb-1/redis.sock' })).toEqual([
      ...DEFAULTS,
      '--port',
      '0',
      '--unixsocket',
      '/tmp/rbdb-1/redis.sock',
      '--unixsocketperm',
      '700',
    ]);
  });

  it('TLS: plain TCP off, TLS on the port, client certificates asked for only with a CA', () => {
    const tls = { certFile: '/c/server.crt', keyFile: '/c/server.key' };
    expect(serverArgs({ dir: '/tmp/rbdb-1', port: 40124, tls })).toEqual([
      ...DEFAULTS,
      '--port',
      '0',
      '--tls-port',
      '40124',
      '--tls-cert-file',
      '/c/server.crt',
      '--tls-key-file',
      '/c/server.key',
      '--tls-auth-clients',
      'no',
    ]);
    const mutual = { ...tls, caFile: '/c/ca.crt', requireClientCert: true };
    expect(serverArgs({ dir: '/tmp/rbdb-1', port: 40124, tls: mutual }).slice(DEFAULTS.length)).toEqual([
      '--port',
      '0',
      '--tls-port',
      '40124',
      '--tls-cert-file',
      '/c/server.crt',
      '--tls-key-file',
      '/c/server.key',
      '--tls-ca-cert-file',
      '/c/ca.crt',
      '--tls-auth-clients',
      'yes',
    ]);
    // A CA alone is for verifying peers (cluster bus), not a demand on clients.
    expect(serverArgs({ dir: '/d', port: 1, tls: { ...tls, caFile: '/c/ca.crt' } }).slice(-2)).toEqual([
      '--tls-auth-clients',
      'no',
    ]);
  });

  it('config lines come last, so they override the defaults (persistence, io-threads)', () => {
    const args = serverArgs({
      dir: '/tmp/rbdb-1',
      port: 40125,
      config: ['appendonly yes', 'save "900 1"', 'io-threads 4', 'io-threads-do-reads yes'],
    });
    expect(args.slice(DEFAULTS.length)).toEqual([
      '--port',
      '40125',
      '--appendonly',
      'yes',
      '--save',
      '900 1',
      '--io-threads',
      '4',
      '--io-threads-do-reads',
      'yes',
    ]);
  });

  it('a cluster node: bus port, config file, TLS on the bus and replication when asked', () => {
    expect(configArgs(clusterNodeConfig(50001, false))).toEqual([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-port',
      '50001',
      '--cluster-node-timeout',
      '5000',
      '--repl-diskless-sync-delay',
      '0',
    ]);
    expect(clusterNodeConfig(50001, true).slice(0, 2)).toEqual(['tls-cluster yes', 'tls-replication yes']);
  });
});

describe('config lines', () => {
  it('skips blank and comment lines, and accepts a leading --', () => {
    expect(
      configArgs(['', '   ', '# a comment', '--maxmemory 1gb', '  maxmemory-policy allkeys-lru  ']),
    ).toEqual(['--maxmemory', '1gb', '--maxmemory-policy', 'allkeys-lru']);
  });

  it('keeps quoted words whole, like redis.conf', () => {
    expect(splitConfigLine('save "3600 1 300 100"')).toEqual(['save', '3600 1 300 100']);
    expect(splitConfigLine(`dir '/data/my redis'`)).toEqual(['dir', '/data/my redis']);
    expect(splitConfigLine('requirepass "say \\"hi\\" \\\\ ok"')).toEqual(['requirepass', 'say "hi" \\ ok']);
    expect(splitConfigLine(`requirepass "it's"`)).toEqual(['requirepass', "it's"]);
    expect(splitConfigLine('save ""')).toEqual(['save', '']);
  });
});

describe('shellCommand', () => {
  it('quotes what a shell would split or expand, and nothing else', () => {
    expect(shellCommand('/usr/bin/redis-server', ['--port', '6380', '--save', ''])).toBe(
      "/usr/bin/redis-server --port 6380 --save ''",
    );
    expect(
      shellCommand('/opt/my redis/redis-server', ['--dir', '/tmp/a b', '--requirepass', "it's $x"]),
    ).toBe(`'/opt/my redis/redis-server' --dir '/tmp/a b' --requirepass 'it'\\''s $x'`);
  });
});
