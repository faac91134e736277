import { FILTER_KEYS, filtersToSearch, type IndexRow, isActive, matches, parseFilters } from '../lib/filters';

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
  const tr = document.createElement('tr');
  tr.dataset.id = r.id;
  const cell = (...children: (Node | string)[]) => {
    const td = document.createElement('td');
    td.append(...children);
    tr.append(td);
  };
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.name = 'r';
  box.value = r.id.slice(0, 12);
  box.setAttribute('aria-label', `compare ${box.value}`);
  cell(box);
  const a = document.createElement('a');
  a.href = `/results/${r.id}/`;
  const code = document.createElement('code');
  code.textContent = r.id.slice(0, 12);
  a.append(code);
  const badges: (Node | string)[] = [a];
  if (r.kind === 'imported') badges.push(' ', badge('imported', 'badge imported'));
  else badges.push(' ', badge('signed', 'badge verified'));
  if (r.warnings)
    badges.push(' ', badge(`${r.warnings} warning${r.warnings === 1 ? '' : 's'}`, 'badge warn'));
  cell(...badges);
  cell([r.product, r.version].filter(Boolean).join(' ') || '—');
  for (const v of [r.cpu, r.virt, r.allocator, r.link, r.profile]) cell(v ?? '—');
  cell(r.receivedAt.slice(0, 10));
  return tr;
}

function badge(text: string, cls: string): HTMLSpanElement {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}
