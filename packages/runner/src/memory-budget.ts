import {
  type BenchSession,
  bytesText,
  estimateClientMemory,
  estimateServerMemory,
} from '@redis-benchdb/engine';
import type { PlannedCells } from './cells.js';
import { RunnerError } from './errors.js';
import type { RunRequest } from './request.js';

/** The runner's memory budget when --memory-budget is not given. */
export const DEFAULT_MEMORY_BUDGET_BYTES = 1024 ** 3;

/** A plan that needs more memory than it may have; `code` says whose (the runner's or the server's). */
export class MemoryBudgetError extends RunnerError {
  constructor(message: string, code: 'ERR_MEMORY_BUDGET' | 'ERR_SERVER_MEMORY') {
    super(message, code);
  }
}

/**
 * Refuse, before any connection, a plan whose largest cell would need more memory in the runner
 * than its budget: every connection holds P requests of up to -d bytes (memory-estimate.ts in the
 * engine, checked against measured peaks), so -d 512MiB with 50 connections would need 25 GiB.
 */
export function checkMemoryBudget(planned: PlannedCells, flags: Pick<RunRequest, 'memoryBudget'>): void {
  const budget = flags.memoryBudget ?? DEFAULT_MEMORY_BUDGET_BYTES;
  for (const c of planned.cells) {
    const need = estimateClientMemory(c.options);
    if (need.bytes <= budget) continue;
    throw new MemoryBudgetError(
      `${c.label} would need about ${bytesText(need.bytes)} of memory in redis-benchdb (${need.what}), over its budget of ${bytesText(budget)}. ` +
        `Lower -d, -c or -P, or allow it with --memory-budget ${Math.ceil(need.bytes / 1024 ** 3)}GiB if this machine has that much free. Nothing was run`,
      'ERR_MEMORY_BUDGET',
    );
  }
}

/**
 * Say how much memory the server will need for the keys the plan writes (-r, --preload), and refuse
 * before any load when its maxmemory, or its host's memory, cannot hold that beside what it holds
 * now, unless --server-memory-ok. A run group's servers all run at once on this host, each writing
 * the same keys: each is held to its own maxmemory, and together to the host's memory. A server that
 * does not say (no INFO memory) is not refused.
 */
export async function checkServerMemory(
  sessions: BenchSession | BenchSession[],
  planned: PlannedCells,
  flags: Pick<RunRequest, 'serverMemoryOk'>,
  log: (s: string) => void,
): Promise<void> {
  const largest = planned.cells
    .map((c) => ({ label: c.label, need: estimateServerMemory(c.options) }))
    .filter((c) => c.need !== null)
    .reduce<{ label: string; need: { bytes: number; keys: number } } | null>(
      (a, b) => (a === null || b.need!.bytes > a.need.bytes ? (b as typeof a) : a),
      null,
    );
  if (!largest || largest.need.bytes < 64 * 1024 * 1024) return;
  const all = Array.isArray(sessions) ? sessions : [sessions];
  if (all.length === 0) return;
  const infos = await Promise.all(
    all.map((s) => s.control.info('memory').catch(() => ({}) as Record<string, string>)),
  );
  const { bytes, keys } = largest.need;
  const servers = infos.map((info) => ({
    used: Number(info.used_memory ?? 0),
    maxmemory: Number(info.maxmemory ?? 0),
    host: Number(info.total_system_memory ?? 0),
  }));
  const used = servers.reduce((sum, s) => sum + s.used, 0);
  const each = all.length > 1 ? ` on each of the ${all.length} servers` : '';
  log(
    `server memory: ${largest.label} writes up to ${keys.toLocaleString('en-US')} keys${each}, about ${bytesText(bytes)} more than the ${bytesText(used)} ${all.length > 1 ? 'they use' : 'the server uses'} now`,
  );
  const own = servers.find((s) => s.maxmemory > 0 && s.used + bytes > s.maxmemory);
  const host = Math.max(0, ...servers.map((s) => s.host));
  const together = used + bytes * servers.length;
  const over = own
    ? { need: own.used + bytes, what: `its maxmemory (${bytesText(own.maxmemory)})` }
    : host > 0 && together > host
      ? { need: together, what: `${all.length > 1 ? 'their' : 'its'} host's memory (${bytesText(host)})` }
      : null;
  if (!over || flags.serverMemoryOk) return;
  const whose = all.length > 1 && !own ? `the ${all.length} servers of this group` : 'the server';
  throw new MemoryBudgetError(
    `${whose} would need about ${bytesText(over.need)} for the keys ${largest.label} writes, more than ${over.what}: it would evict keys, refuse writes (OOM) or swap. ` +
      'Lower -r or -d, or run anyway with --server-memory-ok. Nothing was run',
    'ERR_SERVER_MEMORY',
  );
}
