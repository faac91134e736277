/** Results per list page: a page stays well under the weight goal at 10,000 results. */
export const PAGE_SIZE = 200;

export function pageCount(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_SIZE));
}

export function pagePath(n: number): string {
  return n <= 1 ? '/results/' : `/results/page/${n}/`;
}
