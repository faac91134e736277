/**
 * `redis-benchdb sysinfo`: the environment a run would record, as an aligned text table. The
 * dotted names are the result document's field paths, so what is shown here can be found there.
 * Unknown fields print as "unknown" and their reasons are listed in a section of their own.
 */

import type { Link, Machine, Server, Warning } from './types.js';

export interface EnvironmentView {
  client: Machine;
  server: Server | null;
  link: Link | null;
  /** Environment-level reasons (link.*), as in `environment.unknown`. */
  unknown?: Record<string, string>;
  warnings?: Warning[];
}

type Row = [string, string];

export function formatEnvironmentTable(env: EnvironmentView): string {
  const sections: Array<{ title: string; rows: Row[] }> = [];
  const { unknown: machineUnknown, ...machine } = env.client;
  sections.push({ title: 'Machine', rows: leafRows(machine) });
  if (env.server) {
    const { unknown: _su, ...server } = env.server;
    sections.push({ title: 'Server', rows: leafRows(server) });
  } else {
    sections.push({ title: 'Server', rows: [['(not connected)', '']] });
  }
  if (env.link) sections.push({ title: 'Link', rows: leafRows(env.link) });

  const unknownRows: Row[] = [
    ...prefixed('client', machineUnknown),
    ...prefixed('server', env.server?.unknown ?? {}),
    ...Object.entries(env.unknown ?? {}),
  ];
  sections.push({ title: 'Unknown', rows: unknownRows.length ? unknownRows : [['(nothing)', '']] });
  if (env.warnings?.length) {
    sections.push({
      title: 'Warnings',
      rows: env.warnings.map((w) => [w.cell ? `${w.code} [${w.cell}]` : w.code, w.message]),
    });
  }

  const width = Math.max(...sections.flatMap((s) => s.rows.map(([k]) => k.length)));
  const lines: string[] = [];
  for (const s of sections) {
    if (lines.length) lines.push('');
    lines.push(s.title);
    for (const [k, v] of s.rows) lines.push(v === '' ? `  ${k}` : `  ${k.padEnd(width)}  ${v}`);
  }
  return `${lines.join('\n')}\n`;
}

function prefixed(prefix: string, map: Record<string, string>): Row[] {
  return Object.entries(map).map(([k, v]) => [`${prefix}.${k}`, v]);
}

function leafRows(obj: object, prefix = ''): Row[] {
  const rows: Row[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (k === 'mitigations' && v && typeof v === 'object') rows.push([path, summariseMitigations(v)]);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) rows.push(...leafRows(v, path));
    else rows.push([path, formatValue(k, v)]);
  }
  return rows;
}

function formatValue(key: string, v: unknown): string {
  if (v === null || v === undefined) return 'unknown';
  if (typeof v === 'number') {
    if (key.endsWith('Bytes') && v >= 1024) return `${formatBytes(v)} (${v})`;
    if (key.endsWith('KiB')) return v >= 1024 && v % 1024 === 0 ? `${v / 1024} MiB` : `${v} KiB`;
    if (key.endsWith('Mhz')) return `${v} MHz`;
    if (key.endsWith('Us')) return `${v} µs`;
    if (key.endsWith('Ms')) return `${v} ms`;
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return v === '' ? '""' : v;
  return JSON.stringify(v);
}

function summariseMitigations(m: Record<string, string>): string {
  const names = Object.keys(m);
  const vulnerable = names.filter((n) => /vulnerable/i.test(m[n] ?? ''));
  return `${names.length} listed; vulnerable: ${vulnerable.length ? vulnerable.join(', ') : 'none'}`;
}

function formatBytes(n: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 'B';
  for (const unit of units) {
    if (v < 1024) break;
    v /= 1024;
    u = unit;
  }
  return `${v.toFixed(1)} ${u}`;
}
