import { type FlagsOf, flag, text } from '@redis-benchdb/command';
import { DEFAULT_TARGET, type Target } from '@redis-benchdb/engine/options';
import { CliError, EXIT_USAGE } from '../errors.js';
import { int, wholeNumber } from './numbers.js';

/** The server a command talks to, with redis-benchmark's flags (run, sysinfo, cleanup). */
export const TARGET_OPTIONS = {
  host: text('-h, --host <host>', 'server hostname', { default: DEFAULT_TARGET.host }),
  port: int('-p, --port <port>', 'server port', 'port (-p)', { default: DEFAULT_TARGET.port, max: 65535 }),
  socket: text('-s, --socket <path>', 'server unix socket (overrides host and port)'),
  password: text('-a, --password <password>', 'password for AUTH'),
  user: text('--user <username>', 'ACL user (with -a)'),
  uri: text('-u, --uri <uri>', 'server URI: redis[s]://[user[:password]@]host[:port][/db]'),
  dbnum: int('--dbnum <db>', 'SELECT this database', 'database (--dbnum)', {
    default: DEFAULT_TARGET.db,
    min: 0,
  }),
  tls: flag('--tls', 'connect with TLS'),
  cacert: text('--cacert <file>', 'CA certificate file for TLS'),
  cert: text('--cert <file>', 'client certificate for TLS'),
  key: text('--key <file>', 'client private key for TLS'),
  sni: text('--sni <name>', 'server name for TLS'),
  insecure: flag('--insecure', 'do not verify the TLS certificate'),
  resp3: flag('-3, --resp3', 'speak RESP3 (HELLO 3)'),
};

export type TargetFlags = FlagsOf<typeof TARGET_OPTIONS> & { cluster?: boolean };

const usage = (msg: string) => new CliError(msg, 'ERR_USAGE', EXIT_USAGE);

/** `redis[s]://[user[:password]@]host[:port][/db]`, as redis-benchmark's -u takes it. */
export function parseUri(uri: string): Partial<Target> {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    throw usage(`invalid URI: "${uri}" (expected redis://[user[:password]@]host[:port][/db])`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw usage(`invalid URI scheme: "${u.protocol}" (expected redis: or rediss:)`);
  const out: Partial<Target> = {
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: u.port ? Number(u.port) : 6379,
  };
  if (u.protocol === 'rediss:') out.tls = true;
  if (u.password) {
    out.password = decodeURIComponent(u.password);
    if (u.username) out.user = decodeURIComponent(u.username);
  } else if (u.username) out.password = decodeURIComponent(u.username);
  const db = u.pathname.replace('/', '');
  if (db) out.db = wholeNumber('database in URI', db, 0);
  return out;
}

/** The server to talk to: the URI's parts first, then each flag given. */
export function parseTarget(f: TargetFlags): Target {
  const target: Target = { ...DEFAULT_TARGET, ...(f.uri ? parseUri(f.uri) : {}) };
  if (f.host !== undefined) target.host = f.host;
  if (f.port !== undefined) target.port = f.port;
  if (f.socket !== undefined) target.socket = f.socket;
  if (f.password !== undefined) target.password = f.password;
  if (f.user !== undefined) target.user = f.user;
  if (f.user !== undefined && target.password === undefined)
    throw usage('--user needs a password: add -a PASSWORD');
  if (f.dbnum !== undefined) target.db = f.dbnum;
  if (f.resp3) target.resp3 = true;
  if (f.cluster) target.cluster = true;
  if (f.tls || f.cacert || f.cert || f.key || f.insecure || f.sni) {
    target.tls = {
      ...(typeof target.tls === 'object' ? target.tls : {}),
      ...(f.cacert ? { caFile: f.cacert } : {}),
      ...(f.cert ? { certFile: f.cert } : {}),
      ...(f.key ? { keyFile: f.key } : {}),
      ...(f.sni ? { servername: f.sni } : {}),
      ...(f.insecure ? { insecure: true } : {}),
    };
  }
  return target;
}
