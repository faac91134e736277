import type { Saturation } from '@redis-benchdb/result';
import type { WorkerReport } from './load/plan.js';

/** The saturation signals of a cell; the shape is the result schema's (schemas/result.v1). */
export type { Saturation };

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
