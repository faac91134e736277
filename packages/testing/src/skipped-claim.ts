// A test whose main claim is a timing (a rate held, a send within microseconds, a search that
// brackets) or a quiet-host comparison cannot hold it on a host that other work keeps busy. It then
// asserts what still holds (counts, ratios, figures that agree) and records here that its claim
// went unchecked: the test says so in its output, and scripts/test.mjs (the suite's runner) counts
// every such test at the end of the suite, so that a green suite says how much of it was not held.
import type { TestContext } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test's load-sensitive claim went unchecked; read by scripts/test.mjs from vitest's JSON report. */
    skippedClaim?: string;
  }
}

/**
 * Records that this test did not hold its load-sensitive claim (`why`: which claim, and the figure
 * that showed the host busy) and prints it. Call it only after the test's busy-host assertions.
 */
export function skippedOnBusyHost(ctx: Pick<TestContext, 'task'>, why: string): void {
  const before = ctx.task.meta.skippedClaim;
  ctx.task.meta.skippedClaim = before === undefined ? why : `${before}; ${why}`;
  console.log(`load-sensitive claim skipped on a busy host: ${why}`);
}

/**
 * Holds `check` (the timing claim, as assertions) on a quiet host. On a busy one (`busy`, with
 * `figure` saying how busy) the claim is still tried, and only if it fails is it recorded as
 * skipped, with its failure: so the count says what went unchecked, not how often the host was busy.
 */
export function holdUnlessBusy(
  ctx: Pick<TestContext, 'task'>,
  host: { busy: boolean; figure: string },
  claim: string,
  check: () => void,
): void {
  if (!host.busy) {
    check();
    return;
  }
  try {
    check();
  } catch (e) {
    skippedOnBusyHost(ctx, `${claim} (${host.figure}: ${(e as Error).message.split('\n')[0]})`);
  }
}
