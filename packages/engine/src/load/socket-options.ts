import { readFileSync } from 'node:fs';
import type tls from 'node:tls';
import type { Target } from '../options.js';
import { encodeCommand } from '../resp/encode-command.js';

/** Where a measured socket connects: TCP host and port, a unix socket, and TLS on top of TCP. */
export interface SocketOptions {
  host: string;
  port: number;
  socket?: string;
  tls?: tls.ConnectionOptions;
}

/** The socket options of a target: its TLS files are read once here, not per connection. */
export function toSocketOptions(t: Target): SocketOptions {
  const base: SocketOptions = t.socket
    ? { host: t.host, port: t.port, socket: t.socket }
    : { host: t.host, port: t.port };
  if (!t.tls) return base;
  const o = t.tls === true ? {} : t.tls;
  const tlsOptions: tls.ConnectionOptions = {
    servername: o.servername ?? (isIp(t.host) ? undefined : t.host),
    rejectUnauthorized: !o.insecure,
  };
  if (o.caFile) tlsOptions.ca = readFileSync(o.caFile);
  if (o.certFile) tlsOptions.cert = readFileSync(o.certFile);
  if (o.keyFile) tlsOptions.key = readFileSync(o.keyFile);
  return { ...base, tls: tlsOptions };
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** HELLO 3 carries AUTH itself; otherwise AUTH, then SELECT. */
export function handshakeCommands(t: Target): Buffer[] {
  const out: Buffer[] = [];
  const auth = t.password !== undefined ? (t.user ? [t.user, t.password] : ['default', t.password]) : null;
  if (t.resp3) out.push(encodeCommand(auth ? ['HELLO', '3', 'AUTH', ...auth] : ['HELLO', '3']));
  else if (auth) out.push(encodeCommand(t.user ? ['AUTH', ...auth] : ['AUTH', t.password!]));
  if (t.db !== 0) out.push(encodeCommand(['SELECT', String(t.db)]));
  return out;
}
