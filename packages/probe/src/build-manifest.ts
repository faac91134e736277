/**
 * The build manifest that scripts/build-server.mjs writes beside each server binary it builds from
 * a source archive: which archive (name, checksum, release tag, commit) and how it was built. A
 * server reports only its own version (Redis 8.0-m01 says 7.9.224) and, built from an archive
 * without .git, a git sha of 00000000; the manifest names the release it came from.
 *
 * The manifest is read for whatever binary runs the server, whether redis-benchdb launched it or
 * not, and believed only if the binary still has the checksum the manifest recorded: a binary
 * replaced or rebuilt by hand keeps no tag it may not have.
 */

import { createHash } from 'node:crypto';
import { readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { cleanText } from '@redis-benchdb/result';
import type { Server } from './types.js';

export type ServerBuild = NonNullable<Server['build']>;

/** Must match BUILD_MANIFEST_NAME in scripts/lib/server-build.mjs. */
export const BUILD_MANIFEST_NAME = 'redis-benchdb-build.json';
export const BUILD_MANIFEST_SCHEMA = 'redis-benchdb/server-build.v1';

const HEX64 = /^[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;
const text = (v: unknown, max: number) => (typeof v === 'string' ? cleanText(v, max) : '');

/**
 * The build block for the binary at `binary`, from the manifest beside it; null when there is no
 * manifest, it is not one of ours, or the binary's checksum differs from the one it recorded.
 */
export async function readServerBuild(binary: string): Promise<ServerBuild | null> {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(await readFile(path.join(path.dirname(binary), BUILD_MANIFEST_NAME), 'utf8'));
  } catch {
    return null;
  }
  if (manifest?.schema !== BUILD_MANIFEST_SCHEMA) return null;
  const archive = text(manifest.archive, 200);
  const tag = text(manifest.tag, 64);
  const sha256 = manifest.sha256;
  const binarySha256 = manifest.binarySha256;
  if (!archive || !tag || typeof sha256 !== 'string' || !HEX64.test(sha256)) return null;
  if (typeof binarySha256 !== 'string' || !HEX64.test(binarySha256)) return null;
  let actual: string;
  try {
    actual = createHash('sha256')
      .update(await readFile(binary))
      .digest('hex');
  } catch {
    return null;
  }
  if (actual !== binarySha256) return null;
  const build: ServerBuild = { archive, archiveSha256: `sha256:${sha256}`, tag };
  const project = text(manifest.project, 100);
  build.project = project || null;
  build.commit = typeof manifest.commit === 'string' && COMMIT.test(manifest.commit) ? manifest.commit : null;
  if (Array.isArray(manifest.make))
    build.make = manifest.make
      .slice(0, 32)
      .map((arg) => text(arg, 200))
      .filter(Boolean);
  return build;
}

/**
 * The binary a local server runs: /proc/PID/exe where Linux has it (exact, whatever the server
 * was started as), then INFO executable (argv[0] made absolute against the server's working
 * directory when it started, so `redis-server` started from / reads /redis-server). Candidates
 * in that order; readServerBuild's checksum decides which, if any, has a manifest.
 */
export async function serverBinaryCandidates(info: Record<string, string>): Promise<string[]> {
  const out: string[] = [];
  const pid = info.process_id?.trim();
  if (pid && /^\d+$/.test(pid)) {
    try {
      out.push(await readlink(`/proc/${pid}/exe`));
    } catch {
      // Not Linux, or the process is another user's or in another PID namespace (a container).
    }
  }
  const exe = info.executable?.trim();
  if (exe && path.isAbsolute(exe) && !out.includes(exe)) out.push(exe);
  return out;
}

/** The build block of a local server's binary, or null when none of its candidates has one. */
export async function findServerBuild(info: Record<string, string>): Promise<ServerBuild | null> {
  for (const binary of await serverBinaryCandidates(info)) {
    const build = await readServerBuild(binary);
    if (build) return build;
  }
  return null;
}
