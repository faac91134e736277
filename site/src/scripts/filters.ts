import { FILTER_KEYS, filtersToSearch, type IndexRow, isActive, matches, parseFilters } from '../lib/filters';
import { el, link, submitted } from './dom';

const LIMIT = 500;

/**
 * Progressive enhancement of the results page: with filters in the URL, fetch the compact index and
 * show the matching results (the static page lists the newest, unfiltered). Rows are built with DOM
 * text nodes, never innerHTML: the index holds submitters' strings.
 */
export async function initFilters(): Promise<void> {
  const form = document.querySelector<HTMLFormElement>('form.filters');
  if (!form) return;
  const f = parseFilters(location.search);
  for (const k of FILTER_KEYS) {
    const sel = form.elements.namedItem(k) as HTMLSelectElement | null;
    if (sel && f.values[k]) {
      if (![...sel.options].some((o) => o.value === f.values[k]))
        sel.add(new Option(f.values[k]!, f.values[k]!));
      sel.value = f.values[k]!;
    }
  }
  (form.elements.namedItem('clean') as HTMLInputElement).checked = f.clean;
  form.addEventListener('change', () => {
    const next = parseFilters(
      new URLSearchParams(new FormData(form) as unknown as Record<string, string>).toString(),
    );
    location.search = filtersToSearch(next);
  });
  if (!isActive(f)) return;
  const status = document.querySelector('.filter-status');
  const tbody = document.querySelector('table.results tbody');
  if (!tbody || !status) return;
  const rows = ((await (await fetch(form.dataset.index!)).json()) as IndexRow[]).filter((r) => matches(r, f));
  tbody.replaceChildren(...rows.slice(0, LIMIT).map(rowElement));
  status.textContent = `${rows.length} results match${rows.length > LIMIT ? `; the newest ${LIMIT} are shown` : ''}.`;
  for (const nav of document.querySelectorAll('nav.pages')) nav.remove();
}

function rowElement(r: IndexRow): HTMLTableRowElement {
  const box = el('input', {
    type: 'checkbox',
    name: 'r',
    value: r.id.slice(0, 12),
    'aria-label': `compare ${r.id.slice(0, 12)}`,
  });
  const badges: (Node | string)[] = [link(`/results/${r.id}/`, el('code', {}, r.id.slice(0, 12)))];
  if (r.kind === 'imported') badges.push(' ', el('span', { class: 'badge imported' }, 'imported'));
  else badges.push(' ', el('span', { class: 'badge verified' }, 'signed'));
  if (r.warnings)
    badges.push(
      ' ',
      el('span', { class: 'badge warn' }, `${r.warnings} warning${r.warnings === 1 ? '' : 's'}`),
    );
  const cells = [
    [box],
    badges,
    [submitted([r.product, r.version].filter(Boolean).join(' '))],
    ...[r.cpu, r.virt, r.allocator, r.link, r.profile].map((v) => [submitted(v)]),
    [r.receivedAt.slice(0, 10)],
  ];
  const tr = el('tr', { 'data-id': r.id }, ...cells.map((c) => el('td', {}, ...c))) as HTMLTableRowElement;
  return tr;
}
