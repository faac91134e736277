import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { defaultDatabasePath } from '@redis-benchdb/db';
import {
  ADMISSION_REASON_TEXT,
  contentId,
  type ResultCellAdmission,
  type ResultV1,
  resultCellAdmission,
} from '@redis-benchdb/result';
import { writeAtomically } from './atomic-write.js';
import { cliName, shellQuote } from './invocation.js';

/**
 * Submitting talks to the ingest service over HTTP only. A submission the service could not take
 * (unreachable, or a 5xx) waits in a spool beside the local database until `submit --pending`;
 * one it refused (4xx) moves to spool/refused with the reason. Nothing is ever dropped.
 */

/** The spool of the database at `dbPath` (default: the default database): a folder beside it. */
export function spoolDir(dbPath?: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(dirname(dbPath ?? defaultDatabasePath(env)), 'spool');
}

/**
 * The command that sends the spool of `dbPath` later, as the user can paste it. With no service
 * known (`withServer`), it ends in `--server URL`: the one word the user must fill in.
 */
export function pendingHint(dbPath: string | undefined, withServer = false): string {
  // Absolute: the hint must work from whatever directory it is pasted in.
  const db = dbPath ? ` --db ${shellQuote(resolve(dbPath))}` : '';
  return `${cliName()} submit --pending${db}${withServer ? ' --server URL' : ''}`;
}

/** Where one cohort puts a result's cell, as the service's submit response says (server ranks.ts). */
export interface CohortStanding {
  size: number;
  /** 1 for the fastest. */
  place: number;
  /** Null when the cohort is too small for a percentile to mean anything: then only the place is said. */
  percentile: number | null;
}

/** A headline cell's standing in its cohort (results of the same workload), overall and on the same machine kind. */
export interface CellRank {
  label: string;
  opsPerSec: number;
  overall: CohortStanding;
  sameCpu: CohortStanding | null;
  cohortUrl?: string;
  /** PROVISIONAL or OUTLIER when the service's corroboration rule holds the result back (older services omit it). */
  held?: 'PROVISIONAL' | 'OUTLIER' | null;
}

export type SubmitOutcome =
  | { kind: 'stored'; id: string; pagePath: string; duplicate: boolean; ranks: CellRank[] }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unavailable'; reason: string };

/** Tries of a submission before it counts as undeliverable (and the command exits 1), and the first pause. */
export const SUBMIT_ATTEMPTS = 3;
export const SUBMIT_RETRY_MS = 1_000;

/**
 * POST one signed envelope, again after 1 s and 2 s while the service cannot be reached or answers
 * 5xx/429 (a restart, a brief outage); a refusal is final at once. The reason of an undeliverable
 * one says how often it was tried.
 */
export async function deliverEnvelope(url: string, body: string): Promise<SubmitOutcome> {
  let out = await postEnvelope(url, body);
  for (let i = 1; i < SUBMIT_ATTEMPTS && out.kind === 'unavailable'; i++) {
    await new Promise((r) => setTimeout(r, SUBMIT_RETRY_MS * 2 ** (i - 1)));
    out = await postEnvelope(url, body);
  }
  if (out.kind !== 'unavailable') return out;
  return { kind: 'unavailable', reason: `${out.reason}, tried ${SUBMIT_ATTEMPTS} times` };
}

/** POST one signed envelope. Never throws: the outcome says what happened. */
export async function postEnvelope(url: string, body: string, timeoutMs = 15_000): Promise<SubmitOutcome> {
  let res: Response;
  try {
    res = await fetch(`${url}/api/v1/results`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // fetch says only "fetch failed"; the reason (ECONNREFUSED, a timeout...) is in its cause.
    const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } })
      .cause;
    const why = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as Error).message;
    return { kind: 'unavailable', reason: `${url} did not answer (${why})` };
  }
  const text = await res.text();
  let json: {
    id?: string;
    pagePath?: string;
    duplicate?: boolean;
    ranks?: CellRank[];
    error?: { code?: string; message?: string };
  } = {};
  try {
    json = JSON.parse(text);
  } catch {
    // A proxy's HTML error page, say: the status still tells what happened.
  }
  if (res.status === 201 || res.status === 200) {
    return {
      kind: 'stored',
      id: json.id ?? '',
      pagePath: json.pagePath ?? '',
      duplicate: res.status === 200,
      // An older service answers without ranks: there is then nothing to print, not an error.
      ranks: Array.isArray(json.ranks) ? json.ranks : [],
    };
  }
  if (res.status >= 500 || res.status === 429)
    return {
      kind: 'unavailable',
      reason: `${url} answered ${res.status}${json.error?.message ? `: ${json.error.message}` : ''}`,
    };
  return {
    kind: 'refused',
    status: res.status,
    code: json.error?.code ?? 'HTTP_ERROR',
    message: json.error?.message ?? text.slice(0, 200),
  };
}

/**
 * One line per headline cell: `GET: faster than 83% of the 11 other results of this workload; 2nd of 3 on
 * this machine kind`. The service gives no percentile for a tiny cohort, and then the line says the place.
 * With the signed envelope, the lines follow the admission rule the service ranks by (packages/result
 * admission.ts): when no cell of the run is admitted and stable, they say so instead of a bare rank; a
 * ranked cell that is unstable says so; cells left out of rankings are counted with their reasons.
 */
export function rankLines(ranks: readonly CellRank[], envelope?: string): string[] {
  const cells = admissionOf(envelope);
  const lines = ranks.map((r) => {
    const overall = standingText(r.overall, 'of this workload');
    const kind = r.sameCpu ? `; ${standingText(r.sameCpu, 'on this machine kind')}` : '';
    const unstable = cells?.find((c) => c.label === r.label)?.unstable
      ? ' (unstable: its trials disagree by more than 10%, so this place is loose)'
      : '';
    return `  ${r.label}: ${overall}${kind}${unstable}${heldText(r.held)}`;
  });
  if (!cells) return lines;
  const left = cells.filter((c) => c.reasons.length > 0);
  if (cells.every((c) => c.reasons.length > 0 || c.unstable))
    return [`  no rank: no cell of this run is fit to rank servers by (${reasonsText(cells)})`];
  if (left.length > 0)
    lines.push(`  ${left.length} of ${cells.length} cells left out of rankings: ${reasonsText(left)}`);
  return lines;
}

/** What a held result's rank line adds: where it stands, and why it moves no summary yet. */
function heldText(held: CellRank['held']): string {
  if (held === 'OUTLIER')
    return " (an outlier: beyond 3 MADs of its machine kind's admitted results, so it is ranked against them but moves no summary until corroborated; see its page)";
  if (held === 'PROVISIONAL')
    return " (provisional: no other signer's admitted result of this machine kind vouches for it yet, so it is ranked against them but moves no summary; see its page)";
  return '';
}

function admissionOf(envelope: string | undefined): ResultCellAdmission[] | null {
  if (!envelope) return null;
  try {
    return resultCellAdmission(JSON.parse(JSON.parse(envelope).payload) as ResultV1);
  } catch {
    // Not a signed result.v1 envelope: the service's ranks are printed as they came.
    return null;
  }
}

/** "4 busy host, 2 unstable": each cell counted once, under its first reason. */
function reasonsText(cells: readonly ResultCellAdmission[]): string {
  const n = new Map<string, number>();
  for (const c of cells) {
    const why = c.reasons[0] ? ADMISSION_REASON_TEXT[c.reasons[0]] : c.unstable ? 'unstable' : null;
    if (why) n.set(why, (n.get(why) ?? 0) + 1);
  }
  return [...n.entries()].map(([why, k]) => `${k} ${why}`).join(', ');
}

function standingText(s: CohortStanding, where: string): string {
  if (s.size <= 1) return `the only result ${where}`;
  if (s.percentile === null) return `${ordinal(s.place)} of ${s.size} results ${where}`;
  return `faster than ${Math.floor(s.percentile)}% of the ${s.size - 1} other results ${where} (${ordinal(s.place)} of ${s.size})`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** One spooled submission: the signed file, and the services it is still owed to. */
export interface SpoolEntry {
  file: string;
  servers: string[];
}

/**
 * Keep a signed envelope for `server`, named by its content id (the result's id), so that two
 * different files never collide and the same result twice is one entry. The services it is for are
 * kept beside it (`<id>.servers`), so `submit --pending` sends each where it was meant to go.
 */
export async function spool(body: string, server: string | null, dbPath?: string): Promise<string> {
  const dir = spoolDir(dbPath);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${entryId(body)}.json`);
  await writeAtomically(path, body, PRIVATE);
  const servers = await readServers(path);
  // No service named: the entry says nothing, and `submit --pending --server URL` sends it there.
  if (server !== null && !servers.includes(server)) await writeServers(path, [...servers, server]);
  return path;
}

/** The spooled entries of the database at `dbPath`, oldest name first. */
export async function pendingEntries(dbPath?: string): Promise<SpoolEntry[]> {
  const dir = spoolDir(dbPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const entries: SpoolEntry[] = [];
  for (const f of names.filter((n) => n.endsWith('.json')).sort()) {
    const file = join(dir, f);
    entries.push({ file, servers: await readServers(file) });
  }
  return entries;
}

/** `server` has the entry now: forget it there; the entry goes once no service is owed it. */
export async function unspool(entry: SpoolEntry, server: string | null): Promise<void> {
  const rest = server === null ? [] : entry.servers.filter((s) => s !== server);
  if (rest.length > 0) return writeServers(entry.file, rest);
  await rm(entry.file, { force: true });
  await rm(serversFile(entry.file), { force: true });
}

/** A refused submission leaves the queue but is kept, with the service's reason beside it. */
export async function setAside(path: string, reason: string): Promise<string> {
  const dir = join(dirname(path), 'refused');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const target = join(dir, basename(path));
  await rename(path, target);
  await rename(serversFile(path), serversFile(target)).catch(() => {});
  await writeFile(`${target}.reason.txt`, `${reason}\n`, { mode: PRIVATE });
  return target;
}

const SERVERS = '.servers';
/** Spooled files are the user's until sent: a result not yet published, and where it goes. */
const PRIVATE = 0o600;

function serversFile(entry: string): string {
  return `${entry.slice(0, -'.json'.length)}${SERVERS}`;
}

async function readServers(entry: string): Promise<string[]> {
  try {
    const j = JSON.parse(await readFile(serversFile(entry), 'utf8')) as { servers?: unknown };
    return Array.isArray(j.servers) ? j.servers.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

function writeServers(entry: string, servers: string[]): Promise<void> {
  return writeAtomically(serversFile(entry), `${JSON.stringify({ servers }, null, 2)}\n`, PRIVATE);
}

/** The result's id when `body` is a signed envelope; else the file's own hash (it is kept all the same). */
function entryId(body: string): string {
  try {
    const payload = (JSON.parse(body) as { payload?: unknown }).payload;
    if (typeof payload === 'string') return contentId(payload);
  } catch {
    // not JSON: the service will say what is wrong with it
  }
  return `file-${createHash('sha256').update(body).digest('hex')}`;
}
