// Build a Redis-compatible server from its unmodified source archive, the same way for every
// version, into a cache outside the repository. Used by scripts/build-server.mjs and
// scripts/dataset-run.mjs. The build manifest written beside the binary
// (BUILD_MANIFEST_NAME) is what the launcher reads to record the archive's tag in a result.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

/** Must match BUILD_MANIFEST_NAME in packages/probe/src/build-manifest.ts. */
export const BUILD_MANIFEST_NAME = 'redis-benchdb-build.json';

/**
 * Every version is built with these flags: the default allocator (the bundled jemalloc on Linux),
 * no TLS, no systemd (whose detection depends on what the build machine has installed). Nothing
 * else is set, so each version's own default optimisation flags apply.
 */
export const MAKE_FLAGS = ['BUILD_TLS=no', 'USE_SYSTEMD=no'];

export class BuildError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

export function serverCacheDir() {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'redis-benchdb', 'servers');
}

export function sha256File(path) {
  return new Promise((ok, fail) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('error', fail)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => ok(hash.digest('hex')));
  });
}

/** The name an archive is known by: `redis-7.4.1.tar.gz` → `redis-7.4.1`. */
export function archiveName(path) {
  return basename(path).replace(/\.(tar\.gz|tgz|tar\.xz|tar\.bz2|tar)$/, '');
}

/** Checksums listed in a SHA256SUMS file beside the archive, by file name (sha256sum's format). */
function checksumsBeside(archive) {
  const file = join(dirname(archive), 'SHA256SUMS');
  if (!existsSync(file)) return new Map();
  const sums = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64}) [ *]?(.+)$/i.exec(line.trim());
    if (m) sums.set(m[2].trim(), m[1].toLowerCase());
  }
  return sums;
}

/** The table row for this archive in a README.md beside it (| archive | project | tag | commit |). */
function provenanceBeside(archive) {
  const file = join(dirname(archive), 'README.md');
  if (!existsSync(file)) return {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 6 || cells[1] !== basename(archive)) continue;
    // "8.0-m01 (a milestone before 8.0 GA)": the tag is the first word, the rest a remark.
    const tag = cells[3].split(/\s+/)[0];
    const commit = /^[0-9a-f]{40}$/.test(cells[4]) ? cells[4] : undefined;
    return { project: cells[2] || undefined, tag: tag || undefined, commit };
  }
  return {};
}

/** The tag when nothing says otherwise: the archive's name without the product, `redis-7.4.1` → `7.4.1`. */
function tagFromName(name) {
  const m = /^[a-z][a-z0-9_]*?-(\d.*)$/i.exec(name);
  return m ? m[1] : name;
}

/**
 * Checks the archive against the expected checksum (given, or listed in SHA256SUMS beside it).
 * Refuses when none is known: an unchecked archive would put unknown code behind a result.
 */
export async function verifyArchive(archive, givenSha256) {
  if (!existsSync(archive)) {
    throw new BuildError(`archive not found: ${archive}`, 'ARCHIVE_NOT_FOUND');
  }
  const listed = checksumsBeside(archive).get(basename(archive));
  const expected = (givenSha256 ?? listed)?.toLowerCase();
  if (!expected) {
    throw new BuildError(
      `no checksum known for ${archive}: pass the checksum published with the release as --sha256 HEX, or put a SHA256SUMS file beside the archive with the line "HEX  ${basename(archive)}"`,
      'NO_CHECKSUM',
    );
  }
  if (!/^[0-9a-f]{64}$/.test(expected)) {
    throw new BuildError(`invalid --sha256: ${givenSha256} (64 hex digits expected)`, 'BAD_CHECKSUM');
  }
  const actual = await sha256File(archive);
  if (actual !== expected) {
    const source = givenSha256 ? '--sha256' : join(dirname(archive), 'SHA256SUMS');
    throw new BuildError(
      `checksum mismatch for ${archive}: it is ${actual}, ${source} says ${expected}. Download the archive again; do not build it`,
      'CHECKSUM_MISMATCH',
    );
  }
  return actual;
}

function run(cmd, args, opts, log) {
  return new Promise((ok, fail) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk) => {
      log?.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', fail);
    child.on('close', (code) =>
      code === 0
        ? ok()
        : fail(
            new BuildError(
              `${cmd} ${args.join(' ')} failed (exit ${code}); full log: ${log?.path}\n${tail}`,
              'BUILD_FAILED',
            ),
          ),
    );
  });
}

function firstLine(cmd, args) {
  return new Promise((ok) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', () => ok(undefined));
    child.on('close', () => ok(out.split('\n')[0]?.trim() || undefined));
  });
}

/** The server binary a build produced: valkey-server for Valkey, redis-server otherwise. */
function builtBinary(srcDir) {
  for (const name of ['valkey-server', 'redis-server']) {
    const path = join(srcDir, 'src', name);
    if (existsSync(path)) return path;
  }
  throw new BuildError(
    `the build in ${srcDir} produced no src/redis-server or src/valkey-server`,
    'NO_BINARY',
  );
}

/**
 * Verifies, extracts and builds one archive unless its build is already in the cache. Returns the
 * build manifest (with `binary`, the absolute path of the server). `progress` receives lines for stderr.
 */
export async function buildServer(archive, options = {}) {
  const { sha256: givenSha256, jobs = 2, cacheDir = serverCacheDir(), progress = () => {} } = options;
  archive = resolve(archive);
  const name = archiveName(archive);
  const sha256 = await verifyArchive(archive, givenSha256);
  const dir = join(cacheDir, `${name}-${sha256.slice(0, 16)}`);
  const manifestPath = join(dir, 'bin', BUILD_MANIFEST_NAME);
  if (existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (existsSync(manifest.binary)) {
      progress(`${name}: already built (${manifest.binary})`);
      return manifest;
    }
  }
  // Build in a directory of its own and rename it into place, so a build that fails or is
  // interrupted never leaves something that looks finished, and two builds never share a tree.
  const work = `${dir}.tmp-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'src'), { recursive: true });
  const logPath = join(work, 'build.log');
  writeFileSync(logPath, '');
  const { createWriteStream } = await import('node:fs');
  const log = createWriteStream(logPath);
  try {
    progress(`${name}: sha256 ${sha256} ok; extracting into ${work}`);
    await run('tar', ['-xf', archive, '-C', join(work, 'src')], {}, log);
    const top = readdirSync(join(work, 'src'));
    if (top.length !== 1) {
      throw new BuildError(
        `${archive} does not hold one top-level directory (found ${top.length}): expected a source release`,
        'BAD_ARCHIVE',
      );
    }
    const srcDir = join(work, 'src', top[0]);
    const makeArgs = [`-j${jobs}`, ...MAKE_FLAGS];
    progress(`${name}: make ${makeArgs.join(' ')} (log: ${join(dir, 'build.log')})`);
    await run('make', ['-C', srcDir, ...makeArgs], {}, log);
    const built = builtBinary(srcDir);
    mkdirSync(join(work, 'bin'));
    const binary = join(dir, 'bin', basename(built));
    copyFileSync(built, join(work, 'bin', basename(built)));
    chmodSync(join(work, 'bin', basename(built)), 0o755);
    const known = provenanceBeside(archive);
    const manifest = {
      schema: 'redis-benchdb/server-build.v1',
      name,
      archive: basename(archive),
      // The archive's checksum: what a reader compares with the release page.
      sha256,
      project: known.project ?? null,
      tag: known.tag ?? tagFromName(name),
      commit: known.commit ?? null,
      binary,
      // The probe attaches this manifest to a result only if the binary still has this checksum.
      binarySha256: await sha256File(built),
      make: ['make', ...makeArgs],
      compiler: (await firstLine('cc', ['--version'])) ?? null,
      builtAt: new Date().toISOString(),
    };
    writeFileSync(join(work, 'bin', BUILD_MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
    await new Promise((ok) => log.end(ok));
    // The source tree is large and not needed to run the server; the archive can rebuild it.
    rmSync(join(work, 'src'), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
    progress(`${name}: built ${binary}`);
    return manifest;
  } catch (err) {
    log.end();
    throw err;
  }
}

/**
 * The manifest beside a binary build-server made, checked against the binary's checksum (as the
 * probe does before it records the tag in a result); a BuildError when there is none or it differs.
 */
export async function readBuildManifest(binary) {
  const file = join(dirname(resolve(binary)), BUILD_MANIFEST_NAME);
  if (!existsSync(file)) {
    throw new BuildError(
      `${binary} has no ${BUILD_MANIFEST_NAME} beside it: it was not built by build:server, so no archive checksum or tag can be recorded. Build it from its source archive: pnpm build:server ARCHIVE`,
      'NO_MANIFEST',
    );
  }
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  if ((await sha256File(binary)) !== manifest.binarySha256) {
    throw new BuildError(
      `${binary} is not the binary ${file} describes (its checksum differs): build it again with pnpm build:server ${manifest.archive}`,
      'MANIFEST_MISMATCH',
    );
  }
  return manifest;
}
