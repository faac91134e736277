import {
  createLatencyHistogram,
  encodeHistogram,
  type SloObjective,
  summarizeHistogram,
} from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { type CellResult, DEFAULT_CELL_OPTIONS, judgeStep } from '../dist/index.js';

// A step's response time counts from the intended send, so the client's own lateness (its timer,
// the host's wake-ups) is in it. When that lateness, not the server, decides a failed objective,
// the step must say so rather than report the objective as missed by the server.

const P99_1MS: SloObjective[] = [{ percentile: 99, maxUs: 1000 }];

/** 1,000 requests with these per-request figures (µs), as one open-loop step recorded them. */
function step(service: number, late: number, answered = 1000, response = service + late): CellResult {
  const h = (v: number) => {
    const x = createLatencyHistogram();
    for (let i = 0; i < answered; i++) x.recordValue(v);
    return x;
  };
  const serviceH = h(service);
  const responseH = h(response);
  const lateH = h(late);
  return {
    test: 'GET',
    workload: { ...DEFAULT_CELL_OPTIONS, test: 'GET', rateOpsPerSec: 1000 },
    requested: null,
    completed: answered,
    durationSec: 1,
    opsPerSec: answered,
    bytesIn: 0,
    bytesOut: 0,
    errors: {},
    nils: 0,
    hitRatio: null,
    latencyUs: summarizeHistogram(serviceH),
    histogram: encodeHistogram(serviceH),
    responseTimeUs: summarizeHistogram(responseH),
    responseHistogram: encodeHistogram(responseH),
    sendLatenessUs: summarizeHistogram(lateH),
    saturation: {
      clientEventLoopUtilization: [0.1],
      serverCpuShare: 0.1,
      serverMainThreadCpuShare: 0.1,
      achievedRateRatio: 1,
      limitedBy: 'neither',
      clientBound: false,
    },
    crossCheck: { status: 'match', expected: answered, observed: answered, commands: ['get'] },
    redirects: null,
    errorReplies: null,
    wrongReplies: null,
    stall: null,
    incomplete: false,
    incompleteReason: null,
    error: null,
  } as CellResult;
}

describe('judgeStep: the client’s own send lateness', () => {
  it('a failure the server did not cause (served in 0.4 ms, sent 0.8 ms late) is the client’s', () => {
    const j = judgeStep(step(400, 800), 1000, 1, 0.5, P99_1MS);
    expect(j.step.pass).toBe(false);
    expect(j.clientLate).toMatch(
      /from the actual send p99 was 0\.4\d* ms; the client's own send lateness alone was 0\.8\d* ms at p99/,
    );
    expect(j.step.failures[0]).toContain('(from the actual send p99 was');
    expect(j.step.sendLatenessUs?.p99Us).toBeGreaterThanOrEqual(799);
  });

  it('a failure the server caused stays the server’s, however late the client was, and says both', () => {
    // Served in 1.5 ms: over the objective even had the client been punctual.
    const j = judgeStep(step(1500, 800), 1000, 1, 0.5, P99_1MS);
    expect(j.step.pass).toBe(false);
    expect(j.clientLate).toBeNull();
    expect(j.step.failures[0]).toMatch(
      /^p99 2\.\d+ ms > 1 ms \(from the actual send p99 was 1\.5\d* ms; the client's own send lateness alone was 0\.8\d* ms at p99\)$/,
    );
    // Punctual enough (0.1 ms late, a tenth of the objective): nothing about the client is said.
    expect(judgeStep(step(1500, 100), 1000, 1, 0.5, P99_1MS).step.failures[0]).toMatch(
      /^p99 1\.6\d* ms > 1 ms$/,
    );
  });

  it('a late client is not blamed for requests that waited for room in a full window', () => {
    // Served in 0.4 ms and sent 0.8 ms late, but 5 ms from the intended send: the other 3.8 ms were
    // spent queued behind requests the server had not answered, which is the server falling behind.
    const j = judgeStep(step(400, 800, 1000, 5000), 1000, 1, 0.5, P99_1MS);
    expect(j.step.pass).toBe(false);
    expect(j.clientLate).toBeNull();
    expect(j.step.failures[0]).toMatch(/^p99 5(\.\d+)? ms > 1 ms \(from the actual send p99 was 0\.4/);
  });

  it('a punctual client is not blamed, and a pass is a pass', () => {
    // Sent 0.1 ms late (a tenth of the objective): the failure is the server's to own.
    expect(judgeStep(step(950, 100), 1000, 1, 0.5, P99_1MS).clientLate).toBeNull();
    const ok = judgeStep(step(300, 100), 1000, 1, 0.5, P99_1MS);
    expect(ok.step.pass).toBe(true);
    expect(ok.clientLate).toBeNull();
  });
});
