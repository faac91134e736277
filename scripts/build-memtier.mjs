// Build memtier_benchmark 2.3.0 from its source archive, for the scripts that run it as a peer
// (bench:peers --memtier, bench:slo-memtier). Debian does not package it.
//   node scripts/build-memtier.mjs ARCHIVE [--into DIR]
// ARCHIVE is memtier_benchmark-2.3.0.tar.gz, `git archive --prefix=memtier_benchmark-2.3.0/ 2.3.0`
// of github.com/RedisLabs/memtier_benchmark (tag 2.3.0, commit 1655c39a2be50914d87cf450bb54aa8475293e77).
// Its SHA-256 is checked before anything is unpacked. The build is upstream's own, unchanged:
// autoreconf -ivf && ./configure && make. It needs (Debian) build-essential autoconf automake libtool
// pkg-config libevent-dev libssl-dev zlib1g-dev libpcre3-dev. Prints the binary's path on stdout.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const VERSION = '2.3.0';
const SHA256 = 'c093d85573e9d143e92a2d107f516caf2f09cf716eeb178047a03165fdde05b8';
const DEPS =
  'build-essential autoconf automake libtool pkg-config libevent-dev libssl-dev zlib1g-dev libpcre3-dev';

const { values: args, positionals } = parseArgs({
  options: { into: { type: 'string', default: join(os.tmpdir(), `rbdb-memtier-${VERSION}`) } },
  allowPositionals: true,
});
const fail = (/** @type {string} */ msg) => {
  console.error(`build-memtier: ${msg}`);
  process.exit(2);
};
if (positionals.length !== 1)
  fail(
    `give the source archive: node scripts/build-memtier.mjs memtier_benchmark-${VERSION}.tar.gz [--into DIR]`,
  );
const archive = resolve(positionals[0]);
if (!existsSync(archive)) fail(`no such file: ${archive}`);
const sum = createHash('sha256').update(readFileSync(archive)).digest('hex');
if (sum !== SHA256)
  fail(
    `${archive} has SHA-256 ${sum}, not ${SHA256} (memtier_benchmark ${VERSION}): use the archive of tag ${VERSION}`,
  );
for (const tool of ['autoreconf', 'make', 'cc', 'pkg-config'])
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
  } catch {
    fail(`${tool} is not on PATH; install the build dependencies: sudo apt-get install ${DEPS}`);
  }

const into = resolve(args.into);
const src = join(into, `memtier_benchmark-${VERSION}`);
const bin = join(src, 'memtier_benchmark');
if (!existsSync(bin)) {
  mkdirSync(into, { recursive: true });
  const step = (/** @type {string} */ cmd, /** @type {string[]} */ argv, cwd = src) => {
    process.stderr.write(`[build-memtier] ${cmd} ${argv.join(' ')}\n`);
    try {
      execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
    } catch {
      fail(`${cmd} ${argv.join(' ')} failed in ${cwd} (missing dependencies? sudo apt-get install ${DEPS})`);
    }
  };
  step('tar', ['-xzf', archive, '-C', into], into);
  step('autoreconf', ['-ivf']);
  step('./configure', []);
  step('make', [`-j${os.availableParallelism()}`]);
}
const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).split('\n')[0];
if (!version.includes(VERSION))
  fail(`${bin} says "${version}", not ${VERSION}: remove ${src} and build again`);
process.stderr.write(`[build-memtier] ${version}\n`);
console.log(bin);
