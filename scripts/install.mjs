#!/usr/bin/env node
// The README's first step on a fresh clone: `pnpm install --frozen-lockfile` (pnpm 9 through npx, so
// nothing needs to be installed first), arranged so that it also works where only the npm registry
// can be reached.
//
// better-sqlite3 is the one native module. Its install script first downloads a prebuilt binary from
// GitHub; when that fails it compiles with node-gyp, which downloads Node's headers from nodejs.org
// unless npm_config_nodedir names a Node source or install tree. Node's own packages (Debian's
// `nodejs`, the official tarballs) install the headers of that very Node beside the binary, in
// <prefix>/include/node. When they are there and are the running Node's version, node-gyp is pointed
// at them. This is sound with full internet too: the prebuilt binary is still tried first, and a
// compile uses the headers node-gyp would have downloaded for this version anyway. Where the headers
// are missing or of another version, nothing is set and node-gyp downloads as usual. A value the
// user set is kept.
import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The install prefix of the running Node whose headers match it, or null. */
export function ownHeadersPrefix(execPath = process.execPath, version = process.versions.node) {
  const prefix = path.dirname(path.dirname(realpathSync(execPath)));
  let header;
  try {
    header = readFileSync(path.join(prefix, 'include', 'node', 'node_version.h'), 'utf8');
  } catch {
    return null;
  }
  const part = (name) => header.match(new RegExp(`^#define NODE_${name}_VERSION (\\d+)$`, 'm'))?.[1];
  return `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}` === version ? prefix : null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = { ...process.env };
  const prefix = ownHeadersPrefix();
  if (!env.npm_config_nodedir && prefix) {
    env.npm_config_nodedir = prefix;
    console.error(`install: node-gyp uses Node's own headers in ${path.join(prefix, 'include', 'node')}`);
  }
  const args = ['-y', 'pnpm@9', 'install', '--frozen-lockfile', ...process.argv.slice(2)];
  const r = spawnSync('npx', args, {
    stdio: 'inherit',
    env,
    cwd: path.dirname(path.dirname(fileURLToPath(import.meta.url))),
  });
  if (r.error) console.error(`install: could not start npx: ${r.error.message}`);
  process.exit(r.status ?? 1);
}
