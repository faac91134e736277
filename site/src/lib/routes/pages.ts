/**
 * Results per list page. A row is about 120 px tall at 1280 and 190 px at 390 (its result, server and
 * machine kind wrap), so 40 rows keep a page within issue 28's budgets (6,000 px at 1280, 9,000 px at
 * 390); 200 made the list 8,138 px and 11,170 px tall. Filters and sorts read the whole index, not a page.
 */
export const PAGE_SIZE = 40;

export function pageCount(total: number): number {
  return Math.max(1, Math.ceil(total / PAGE_SIZE));
}

export function pagePath(n: number): string {
  return n <= 1 ? '/results/' : `/results/page/${n}/`;
}
