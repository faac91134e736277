import type { ResultView } from '../model/model.js';

/**
 * True when every member ran interleaved (runGroup.schedule): their trials pair up by round, and
 * compare.ts compares any two of them by their paired ratio (packages/result comparePair).
 */
export function isInterleaved(members: readonly ResultView[]): boolean {
  return members.length >= 2 && members.every((m) => m.runGroup?.interleaved === true);
}
