/**
 * Finding a server binary and asking it its version: the first things a launch needs, and what the
 * CLI's launch plan reads to name each launch before any server starts.
 */

import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Finds an executable: a name containing a path separator is checked as given (resolved against
 * the cwd), a bare name is searched on PATH. Returns the path, or null if there is none.
 */
export function findServerBinary(name = 'redis-server'): string | null {
  if (name.includes('/') || name.includes(path.sep)) {
    const full = path.resolve(name);
    return isExecutableFile(full) ? full : null;
  }
  const exts = process.platform === 'win32' ? ['', ...(process.env.PATHEXT ?? '.EXE').split(';')] : [''];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What to say when `name` (as the user gave it) is not there: how to install it, or which flag to pass. */
export function installHint(name: string): string {
  const base = path.basename(name);
  const where = name === base ? ' on PATH' : ` at ${name}`;
  const [apt, brew] = base.startsWith('valkey') ? ['valkey-server', 'valkey'] : ['redis-server', 'redis'];
  return `${base} not found${where}: install it (Debian/Ubuntu: sudo apt-get install ${apt}; macOS: brew install ${brew}) or pass --server-bin PATH`;
}

export interface ServerVersion {
  /** The first word of the line, as the binary prints it: 'Redis', 'Valkey', 'KeyDB'... */
  product: string;
  /** The `v=` field: '7.0.15', '8.0.1', '7.9.224' (Redis 8.0-M01 reports itself as 7.9.224). */
  version: string;
}

/**
 * Reads `BIN --version` output. Redis, Valkey 7.2 and 8.x all print one line of the form
 * `<Product> server v=<version> sha=<sha>:<dirty> malloc=<lib> bits=<n> build=<id>`; only `v=` is
 * required, so a fork that prints less still yields its version. Null when there is no `v=`.
 */
export function parseServerVersion(output: string): ServerVersion | null {
  const line = /(\S+) server v=(\S+)/i.exec(output);
  if (line) return { product: line[1]!, version: line[2]! };
  const v = /(?:^|\s)v=(\S+)/.exec(output);
  return v ? { product: 'unknown', version: v[1]! } : null;
}

/** The version a server binary reports (`BIN --version`: `v=7.0.15`), or 'unknown'. */
export function readServerVersion(bin: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(bin, ['--version'], { timeout: 5_000 }, (_err, stdout, stderr) => {
      resolve(parseServerVersion(`${stdout ?? ''}\n${stderr ?? ''}`)?.version ?? 'unknown');
    });
  });
}
