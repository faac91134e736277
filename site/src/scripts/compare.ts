import { type CompareInput, compareResults } from '../lib/compare/compare';
import { comparisonSummary } from '../lib/compare/compare-summary';
import { comparisonView } from '../lib/compare/compare-view';
import { nearestWorkloads } from '../lib/compare/nearest';
import type { IndexRow } from '../lib/lists/filters';
import { el, toDom } from './dom';

/**
 * The compare page: ids from the URL (?r=a,b or ?r=a&r=b, full or 12-character prefixes), each
 * result's compare.json fetched, and the same compareResults() and comparisonView() the build uses
 * for a run group's page. Everything is written as text nodes (toDom): the JSON holds submitters'
 * strings.
 */
export async function initCompare(): Promise<void> {
  const out = document.getElementById('compare-out');
  if (!out) return;
  const q = new URLSearchParams(location.search);
  const wanted = q
    .getAll('r')
    .flatMap((v) => v.split(','))
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const input = document.querySelector<HTMLInputElement>('form.compare-form input[name=r]');
  if (input) input.value = wanted.join(',');
  if (wanted.length === 0) return;
  try {
    const index = (await (await fetch('/data/index.json')).json()) as IndexRow[];
    const ids = wanted.map((w) => resolve(index, w));
    if (ids.length < 2) throw new Error('pick two results or more to compare (one given)');
    const inputs = await Promise.all(
      ids.map(async (id) => {
        const res = await fetch(`/results/${id}/compare.json`);
        if (!res.ok) throw new Error(`result ${id.slice(0, 12)} could not be loaded (${res.status})`);
        return (await res.json()) as CompareInput;
      }),
    );
    render(out, inputs);
  } catch (e) {
    out.replaceChildren(el('p', { class: 'error' }, (e as Error).message));
  }
}

function resolve(index: IndexRow[], prefix: string): string {
  if (!/^[0-9a-f]{6,64}$/.test(prefix))
    throw new Error(`"${prefix}" is not a result id: ids are hex, at least 6 characters`);
  const hits = index.filter((r) => r.id.startsWith(prefix));
  if (hits.length === 0) throw new Error(`no listed result has an id starting with ${prefix}`);
  if (hits.length > 1)
    throw new Error(`${prefix} names ${hits.length} results: give more characters of the id`);
  return hits[0]!.id;
}

function render(out: HTMLElement, inputs: CompareInput[]): void {
  // The site's own paths (lib/routes.ts cannot come to the browser: it hashes with node:crypto).
  const links = { result: (id: string) => `/results/${id}/`, methodology: '/methodology/' };
  const c = compareResults(inputs);
  // The answer first (issue 28): the tally of verdicts, then the tables it is counted from.
  out.replaceChildren(
    ...[...comparisonSummary(c, links.result), ...comparisonView(c, links, nearestWorkloads(inputs))].map(
      toDom,
    ),
  );
}
