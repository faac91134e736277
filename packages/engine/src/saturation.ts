import type { WorkerReport } from './load/plan.js';

export interface Saturation {
  /** Each worker's event-loop utilisation over the measured phase, 0..1. */
  clientEventLoopUtilization: number[];
  /** Server CPU seconds per wall second (all threads), from INFO cpu. */
  serverCpuShare: number | null;
  /** The same for the server's main thread, where the server reports it (Redis >= 6.2). */
  serverMainThreadCpuShare: number | null;
  /** Open loop: achieved ops/s over requested ops/s. */
  achievedRateRatio: number | null;
  /** What held the throughput: the server's main thread, the client, or neither (round trips). */
  limitedBy: 'server' | 'client' | 'neither' | 'unknown';
  clientBound: boolean;
}

/** A worker busier than this is saturated: its loop has no idle time left to send sooner. */
export const CLIENT_BUSY = 0.9;
/** A server main thread busier than this is saturated. */
export const SERVER_BUSY = 0.9;

export function summarizeSaturation(
  reports: WorkerReport[],
  cpu: { wallSec: number; totalSec: number | null; mainThreadSec: number | null },
  rateOpsPerSec: number | null,
  opsPerSec: number,
): Saturation {
  const elu = reports.map((r) => Math.round(r.eventLoopUtilization * 1000) / 1000);
  const share = (s: number | null) =>
    s === null || cpu.wallSec <= 0 ? null : Math.round((s / cpu.wallSec) * 1000) / 1000;
  const total = share(cpu.totalSec);
  const main = share(cpu.mainThreadSec) ?? total;
  const clientBusy = Math.max(...elu) >= CLIENT_BUSY;
  let limitedBy: Saturation['limitedBy'] = 'unknown';
  if (main !== null) limitedBy = main >= SERVER_BUSY ? 'server' : clientBusy ? 'client' : 'neither';
  else if (clientBusy) limitedBy = 'client';
  const achieved = rateOpsPerSec ? Math.round((opsPerSec / rateOpsPerSec) * 1000) / 1000 : null;
  // Open loop: falling short of the asked rate while the client was the busy side is client-bound.
  const clientBound = limitedBy === 'client' || (achieved !== null && achieved < 0.95 && clientBusy);
  return {
    clientEventLoopUtilization: elu,
    serverCpuShare: total,
    serverMainThreadCpuShare: share(cpu.mainThreadSec),
    achievedRateRatio: achieved,
    limitedBy,
    clientBound,
  };
}
