/**
 * The command line a launched server gets, built without touching the system: benchmark-safe
 * defaults, its listeners, then the caller's config lines (later arguments win in redis-server).
 */

import type { TlsFiles } from './options.js';

/** What one start of a server listens on and where it keeps its files. */
export interface ServerArgsInput {
  /** The server's own temp dir (its `dir`: dump files, nodes.conf). */
  dir: string;
  /** TCP port (TLS port with tls); 0 = no TCP listener. */
  port: number;
  unixSocket?: string | undefined;
  tls?: TlsFiles | undefined;
  /** Config lines as in redis.conf: 'io-threads 2', 'save "900 1"'. */
  config?: readonly string[] | undefined;
}

// Loopback only, nothing written to disk, logs to stdout (which the launcher reads for readiness).
const BENCHMARK_DEFAULTS = [
  ['bind', '127.0.0.1'],
  ['save', ''],
  ['appendonly', 'no'],
  ['daemonize', 'no'],
  ['loglevel', 'notice'],
  ['logfile', ''],
] as const;

export function serverArgs(input: ServerArgsInput): string[] {
  const args: string[] = [];
  for (const [name, value] of BENCHMARK_DEFAULTS) args.push(`--${name}`, value);
  args.push('--dir', input.dir, '--protected-mode', 'no');
  args.push(...listenerArgs(input));
  args.push(...configArgs(input.config ?? []));
  return args;
}

function listenerArgs({ port, unixSocket, tls }: ServerArgsInput): string[] {
  const args: string[] = [];
  if (tls) {
    args.push('--port', '0', '--tls-port', String(port));
    args.push('--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile);
    if (tls.caFile) args.push('--tls-ca-cert-file', tls.caFile);
    args.push('--tls-auth-clients', tls.caFile && tls.requireClientCert ? 'yes' : 'no');
  } else {
    args.push('--port', String(port));
  }
  if (unixSocket) args.push('--unixsocket', unixSocket, '--unixsocketperm', '700');
  return args;
}

/** Config lines to arguments: 'save "900 1"' → ['--save', '900 1']; blank and # lines are skipped. */
export function configArgs(lines: readonly string[]): string[] {
  const args: string[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) continue;
    const [name, ...values] = splitConfigLine(trimmed);
    if (!name) continue;
    args.push(`--${name.replace(/^--/, '')}`, ...values);
  }
  return args;
}

/** Splits a config line into words, honouring "double" (with \ escapes) and 'single' quotes, like redis.conf. */
export function splitConfigLine(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    if (m[1] !== undefined) words.push(m[1].replace(/\\(.)/g, '$1'));
    else if (m[2] !== undefined) words.push(m[2]);
    else if (m[3] !== undefined) words.push(m[3]);
  }
  return words;
}

/**
 * The command as a POSIX shell line, for error messages: pasted into a shell it starts the same
 * server (so a user can see for themselves why it would not start).
 */
export function shellCommand(bin: string, args: readonly string[]): string {
  return [bin, ...args].map(shellQuote).join(' ');
}

function shellQuote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/**
 * Config lines that make a server a cluster node with its bus on `busPort` (port + 10000 would be
 * past 65535 for a high free port), quick to fail over and to sync replicas in tests.
 */
export function clusterNodeConfig(busPort: number, tls: boolean): string[] {
  return [
    ...(tls ? ['tls-cluster yes', 'tls-replication yes'] : []),
    'cluster-enabled yes',
    'cluster-config-file nodes.conf',
    `cluster-port ${busPort}`,
    'cluster-node-timeout 5000',
    'repl-diskless-sync-delay 0',
  ];
}
