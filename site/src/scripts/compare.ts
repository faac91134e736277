import { type CompareInput, compareResults, formatRatio } from '../lib/compare';
import type { IndexRow } from '../lib/filters';
import { el, link, submitted } from './dom';

/**
 * The compare page: ids from the URL (?r=a,b or ?r=a&r=b, full or 12-character prefixes), each
 * result's compare.json fetched, and the same compareResults() the build uses. Everything is
 * written with textContent: the JSON holds submitters' strings.
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
  const c = compareResults(inputs);
  const parts: Node[] = [el('h2', {}, 'Results compared')];
  const ol = el('ol', { class: 'compared' });
  c.results.forEach((r, i) => {
    const li = el(
      'li',
      {},
      link(`/results/${r.id}/`, submitted(r.name)),
      ' ',
      el('code', {}, r.id.slice(0, 12)),
    );
    if (r.kind === 'imported') li.append(' ', el('span', { class: 'badge imported' }, 'imported'));
    if (i === 0) li.append(el('span', { class: 'muted' }, ' (baseline)'));
    ol.append(li);
  });
  parts.push(ol, el('h2', {}, 'What differs'));
  if (c.differing.length === 0) parts.push(el('p', {}, 'Nothing in the recorded environment differs.'));
  else {
    const t = el('table', { class: 'differing' });
    t.append(
      el(
        'thead',
        {},
        el('tr', {}, el('th', {}, 'Field'), ...c.results.map((r) => el('th', {}, r.id.slice(0, 12)))),
      ),
    );
    t.append(
      el(
        'tbody',
        {},
        ...c.differing.map((d) =>
          el('tr', {}, el('th', {}, d.label), ...d.values.map((v) => el('td', {}, submitted(v)))),
        ),
      ),
    );
    parts.push(t);
  }
  parts.push(el('h2', {}, 'Cell by cell'));
  if (c.cells.length === 0)
    parts.push(
      el(
        'p',
        { class: 'no-match' },
        'No cells match: these results ran no workload in common (equal workload fingerprints), so nothing is compared.',
      ),
    );
  else {
    const t = el('table', { class: 'compare-cells' });
    t.append(
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', {}, 'Cell'),
          ...c.results.map((r, i) => el('th', { class: 'num' }, r.id.slice(0, 12) + (i ? ' (ratio)' : ''))),
        ),
      ),
    );
    const body = el('tbody');
    for (const cell of c.cells) {
      const tr = el('tr', {}, el('td', {}, submitted(cell.label)));
      cell.values.forEach((v, i) => {
        const td = el('td', { class: 'num' }, v ? Math.round(v.median).toLocaleString('en-US') : '—');
        const verdict = cell.verdicts[i]!;
        if (i > 0 && v)
          td.append(
            ' ',
            el('strong', {}, formatRatio(cell.ratios[i] ?? null)),
            ' ',
            el(
              'span',
              { class: verdict === 'faster' ? 'faster' : verdict === 'slower' ? 'slower' : 'noise' },
              verdict,
            ),
          );
        tr.append(td);
      });
      body.append(tr);
    }
    t.append(body);
    parts.push(el('div', { class: 'scroll' }, t));
  }
  parts.push(
    el(
      'p',
      { class: 'muted' },
      'Ratios are medians over the baseline median. “Faster” and “slower” mean the two 95% intervals of the median do not overlap; otherwise the difference is within the trials’ noise. The intervals measure the noise within each run, not between runs: two runs on the same machine can differ by more when something else was using it, so read a single comparison with its warnings.',
    ),
  );
  out.replaceChildren(...parts);
}
