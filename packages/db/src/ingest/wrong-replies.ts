import { type ResultV1, wrongReplyCells } from '@redis-benchdb/result';
import { IngestError } from './ingest-error.js';

/**
 * Refuse a result with a cell whose answers were wrong (result/wrong-replies.ts): a WRONG_REPLIES
 * warning, or a commandstats shortfall beyond the tolerance, which results of runners older than
 * the warning still show. Refused rather than stored and marked, so that no aggregate, rank or
 * page has to remember to leave it out.
 */
export function refuseWrongReplies(result: Pick<ResultV1, 'cells' | 'warnings'>): void {
  const wrong = wrongReplyCells(result);
  if (wrong.length === 0) return;
  const first = wrong.slice(0, 3).map((w) => `${w.cell}: ${w.reason}`);
  const more = wrong.length - first.length;
  throw new IngestError(
    'WRONG_REPLIES',
    422,
    `the server's replies were not the commands' answers, so this is not a result of them: ${first.join('; ')}${more > 0 ? ` (and ${more} more cells)` : ''}. Measure a server that answers the commands (check what listens on that address: a proxy, another product), then submit that run`,
  );
}
