import type { ResultV1 } from '../generated/result-v1.js';
import {
  describeIdentityTextProblems,
  type IdentityTextProblem,
  identityTextProblems,
} from '../identity-text.js';
import type { Problem } from '../problem.js';
import { wrongReplyCells } from '../wrong-replies.js';
import { checkPlausibility, type PlausibilityProblem } from './plausibility.js';

// The checks a signed result must pass after its signature and schema, before anyone stores it: the
// ingest service makes them, and so does `run` before it keeps a result in its local record, so that
// a result the service would refuse is refused there too. Pure: no clock unless given, no I/O.

/** Which rule a verified result broke; each is also the ingest service's refusal code. */
export type SubmissionCode =
  | 'FINISHED_IN_FUTURE'
  | 'IDENTITY_TEXT'
  | 'WRONG_REPLIES'
  | PlausibilityProblem['code'];

export interface SubmissionCheckOptions {
  /** Receipt time: "now" for the timestamp checks. @default new Date() */
  now?: Date;
}

/**
 * How far a run's end may lie after its receipt: the runner's clock and the service's disagree by
 * seconds on a machine that keeps time (NTP), by minutes on one that has drifted. Five minutes lets a
 * drifted clock through and keeps out a run dated ahead, which would head "Newest results".
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * The problems of the first rule the result breaks, in the order a reader would fix them: its clock,
 * its identity text, its figures (plausibility, histograms), its replies. Empty when it passes all.
 */
export function checkSubmittedResult(
  r: ResultV1,
  opts: SubmissionCheckOptions = {},
): Problem<SubmissionCode>[] {
  const now = opts.now ?? new Date();
  const future = finishedInFuture(r, now);
  if (future) return [future];
  const lookalikes = identityTextProblems(r);
  if (lookalikes.length > 0) return [identityTextRefusal(lookalikes)];
  const implausible = checkPlausibility(r, { now });
  if (implausible.length > 0) return implausible;
  const wrong = wrongReplies(r);
  return wrong ? [wrong] : [];
}

/**
 * The refusal of a result naming a machine kind or a version in text outside the normal form
 * (identity-text.ts), a signed one or an imported one. Refused rather than normalised: the signed
 * bytes cannot change, and the page shows them, so a key made from normalised text would put the
 * lookalike on the page.
 */
export function identityTextRefusal(lookalikes: readonly IdentityTextProblem[]): Problem<'IDENTITY_TEXT'> {
  return {
    code: 'IDENTITY_TEXT',
    path: lookalikes[0]?.path ?? '',
    message: `refused: lookalike or invisible characters in text that names a machine kind or a version: ${describeIdentityTextProblems(lookalikes)}. Such text would pose as another kind or version; submit the file as the runner wrote it, or run again with a current redis-benchdb`,
  };
}

/** A result cannot have ended after it was received (beyond CLOCK_SKEW_MS). */
function finishedInFuture(r: ResultV1, now: Date): Problem<'FINISHED_IN_FUTURE'> | null {
  const finished = Date.parse(r.finishedAt);
  if (Number.isNaN(finished) || finished <= now.getTime() + CLOCK_SKEW_MS) return null;
  const ms = finished - now.getTime();
  const minutes = Math.round(ms / 60_000);
  const ahead = minutes < 120 ? `${minutes} min` : `${(ms / 3_600_000).toFixed(1)} h`;
  return {
    code: 'FINISHED_IN_FUTURE',
    path: '/finishedAt',
    message: `refused: finishedAt ${r.finishedAt} is ${ahead} after the service received the result (${now.toISOString()}); a run cannot end after it was received, allowing ${CLOCK_SKEW_MS / 60_000} minutes of clock skew. Set the runner machine's clock right (e.g. with NTP) and run again`,
  };
}

/**
 * A cell whose answers were wrong (wrong-replies.ts): a WRONG_REPLIES warning, or a commandstats
 * shortfall beyond the tolerance, which results of runners older than the warning still show.
 * Refused rather than stored and marked, so that no aggregate, rank or page has to remember to
 * leave it out.
 */
function wrongReplies(r: Pick<ResultV1, 'cells' | 'warnings'>): Problem<'WRONG_REPLIES'> | null {
  const wrong = wrongReplyCells(r);
  if (wrong.length === 0) return null;
  const first = wrong.slice(0, 3).map((w) => `${w.cell}: ${w.reason}`);
  const more = wrong.length - first.length;
  const index = r.cells.findIndex((c) => c.label === wrong[0]!.cell);
  return {
    code: 'WRONG_REPLIES',
    path: index >= 0 ? `/cells/${index}` : '/cells',
    message: `the server's replies were not the commands' answers, so this is not a result of them: ${first.join('; ')}${more > 0 ? ` (and ${more} more cells)` : ''}. Measure a server that answers the commands (check what listens on that address: a proxy, another product), then submit that run`,
  };
}
