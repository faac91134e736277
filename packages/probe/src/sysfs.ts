/**
 * Reading /proc and /sys under a root directory. The root is '/' in production; tests point it at a
 * temp tree of crafted files, which is how the parsers are checked against machines we do not have
 * (THP always, a powersave governor, a container, swap in use...).
 *
 * Nothing here throws: a failed read becomes a reason string, because every unknown field in a
 * result must say why it is unknown.
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type ReadResult = { ok: true; text: string } | { ok: false; reason: string };

/** Reads `file` (an absolute system path like '/proc/cpuinfo') under `root`. */
export function readSys(root: string, file: string): ReadResult {
  try {
    return { ok: true, text: readFileSync(path.join(root, file), 'utf8') };
  } catch (err) {
    return { ok: false, reason: describeFsError(file, err, 'file') };
  }
}

/** The trimmed content, or null when the file is absent, unreadable or empty. */
export function readTrimmed(root: string, file: string): string | null {
  const r = readSys(root, file);
  if (!r.ok) return null;
  const t = r.text.trim();
  return t === '' ? null : t;
}

export type DirResult = { ok: true; names: string[] } | { ok: false; reason: string };

export function listDir(root: string, dir: string): DirResult {
  try {
    return { ok: true, names: readdirSync(path.join(root, dir)).sort() };
  } catch (err) {
    return { ok: false, reason: describeFsError(dir, err, 'directory') };
  }
}

export function exists(root: string, file: string): boolean {
  return existsSync(path.join(root, file));
}

function describeFsError(p: string, err: unknown, what: 'file' | 'directory'): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `${what} ${p} absent`;
  if (code === 'EACCES' || code === 'EPERM') return `${what} ${p} not readable (permission denied)`;
  return `${what} ${p} could not be read (${code ?? (err as Error).message})`;
}

/** Reason used for every /proc or /sys field on other systems. */
export function notLinuxReason(platform: string): string {
  return `not Linux (${platform}): /proc and /sys not available`;
}

/** "always [madvise] never" → "madvise": the kernel marks the active choice with brackets. */
export function bracketed(text: string): string | null {
  const m = /\[([^\]]+)\]/.exec(text);
  return m?.[1]?.trim() || null;
}

/** Parses a kernel CPU list ("0-3,8,10-11") into sorted CPU numbers; null if malformed. */
export function parseCpuList(text: string): number[] | null {
  const t = text.trim();
  if (t === '') return [];
  const out = new Set<number>();
  for (const part of t.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) return null;
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b - a > 1 << 16) return null;
    for (let i = a; i <= b; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}

/** Formats CPU numbers back into the kernel's compact list form. */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** `Key:   value` lines (/proc/meminfo, /proc/PID/status, /proc/cpuinfo blocks) into a map. */
export function parseColonLines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const key = line.slice(0, i).trim();
    if (!out.has(key)) out.set(key, line.slice(i + 1).trim());
  }
  return out;
}

/** "12345 kB" (as in /proc/meminfo) → bytes. */
export function kbToBytes(v: string | undefined): number | null {
  const m = /^(\d+)\s*kB$/i.exec(v?.trim() ?? '');
  return m ? Number(m[1]) * 1024 : null;
}
