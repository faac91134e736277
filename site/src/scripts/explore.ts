import {
  type Bar,
  barGeometry,
  barScale,
  CLIENT_BOUND_NOTE,
  comparisonsNote,
  describeWorkload,
  EXPLORE_PATHS,
  type ExploreState,
  findWorkload,
  nearestWith,
  PICKED,
  PICKED_KEYS,
  type Picked,
  parseState,
  pickedOptions,
  pickedText,
  pickedValue,
  ratio,
  ratioCell,
  reference,
  stateOf,
  stateToSearch,
  verdictFor,
  type WorkloadData,
  type WorkloadEntry,
} from '../lib/explore/explore';
import { ops, us } from '../lib/model/format';
import { el, link, submitted } from './dom';

/**
 * The workload explorer in the browser. The URL is the state (?test=GET&pipeline=16&…&vs=KEY): the
 * picker changes it, the back button restores it. On the explorer's page any workload is drawn here;
 * on a standard cell's static page the table is already in the HTML, and this adds the picker and
 * the choice of baseline. Submitted text goes in as text nodes only (dom.ts).
 */
export async function initExplore(): Promise<void> {
  const root = document.getElementById('explore');
  if (!root) return;
  const out = root.querySelector<HTMLElement>('.explore-out')!;
  const form = root.querySelector<HTMLFormElement>('form.explore-picker')!;
  const fixed = root.dataset.workload ?? null;
  try {
    const catalog = (await (await fetch(EXPLORE_PATHS.catalog)).json()) as WorkloadEntry[];
    const cache = new Map<string, WorkloadData>();
    const load = async (id: string) => {
      let d = cache.get(id);
      if (!d) {
        const res = await fetch(EXPLORE_PATHS.data(id));
        if (!res.ok) throw new Error(`the data of workload ${id} could not be loaded (${res.status})`);
        d = (await res.json()) as WorkloadData;
        cache.set(id, d);
      }
      return d;
    };
    // aria-busy while a workload loads: screen readers wait for the new table, and so can a test.
    const show = async () => {
      out.setAttribute('aria-busy', 'true');
      try {
        await draw();
      } finally {
        out.setAttribute('aria-busy', 'false');
      }
    };
    const draw = async () => {
      const state = parseState(location.search);
      const w = fixed ? catalog.find((x) => x.id === fixed) : findWorkload(catalog, state);
      if (!w) {
        out.replaceChildren(
          el(
            'p',
            { class: 'error' },
            `No workload with results matches ${stateToSearch(state) || 'this address'}: pick one below.`,
          ),
        );
        picker(form, catalog, catalog[0] ?? null, go);
        return;
      }
      picker(form, catalog, w, go);
      const data = await load(w.id);
      render(out, data, state.vs, fixed === null, (vs) => {
        // The static page keeps its path and holds only the baseline; the explorer's page holds it all.
        const next: ExploreState = fixed ? {} : stateOf(catalog, w);
        if (vs) next.vs = vs;
        history.replaceState(null, '', stateToSearch(next) || location.pathname);
        void show();
      });
    };
    const go = (from: WorkloadEntry, p: Picked, value: string) => {
      const next = nearestWith(catalog, from, p, value);
      if (!next) return;
      const search = stateToSearch(stateOf(catalog, next, parseState(location.search).vs));
      // A static page shows one workload: another one is drawn on the explorer's page.
      if (fixed) location.assign(EXPLORE_PATHS.page + search);
      else {
        history.pushState(null, '', search);
        void show();
      }
    };
    window.addEventListener('popstate', () => void show());
    form.hidden = false;
    await show();
  } catch (e) {
    out.prepend(el('p', { class: 'error' }, (e as Error).message));
  }
}

type Go = (from: WorkloadEntry, p: Picked, value: string) => void;

/** The five selects, set to the workload shown; each lists the values that workloads of its test have. */
function picker(form: HTMLFormElement, catalog: WorkloadEntry[], w: WorkloadEntry | null, go: Go): void {
  const labels = PICKED_KEYS.map((p) => {
    const sel = el('select', { name: p }) as HTMLSelectElement;
    for (const v of pickedOptions(catalog, p, w?.test ?? '')) sel.add(new Option(pickedText(p, v), v));
    if (w) sel.value = pickedValue(w, p);
    sel.addEventListener('change', () => w && go(w, p, sel.value));
    return el('label', {}, PICKED[p], sel);
  });
  form.replaceChildren(...labels);
}

/** The workload's bars as a table (the same as ExploreBars.astro), relative to `vs` or the fastest. */
function render(
  out: HTMLElement,
  d: WorkloadData,
  vs: string | undefined,
  interactive: boolean,
  choose: (vs?: string) => void,
) {
  const ref = reference(d.bars, vs);
  const parts: Node[] = [];
  if (interactive) parts.push(el('h2', {}, submitted(d.workload.label)));
  parts.push(
    el(
      'p',
      { class: 'workload' },
      describeWorkload(d.workload),
      `: ${d.workload.results} results, ${d.bars.length} server versions on each machine kind and configuration.`,
      ...(d.workload.page && interactive ? [' ', link(d.workload.page, 'Static page of this view')] : []),
    ),
  );
  if (!ref) {
    out.replaceChildren(...parts, el('p', {}, 'No results.'));
    return;
  }
  if (d.clientBound)
    parts.push(
      el(
        'p',
        { class: 'client-bound-note' },
        `${CLIENT_BOUND_NOTE} `,
        link('/methodology/#warning-CLIENT_BOUND', 'What client-bound means'),
        '.',
      ),
    );
  const baseline = el('select', { name: 'vs', 'aria-label': 'relative to' }) as HTMLSelectElement;
  baseline.add(new Option('the first bar', ''));
  for (const b of d.bars) baseline.add(new Option(`${b.server} · ${b.machine} · ${b.config}`, b.key));
  baseline.value = ref.chosen ? ref.bar.key : '';
  baseline.addEventListener('change', () => choose(baseline.value || undefined));
  parts.push(el('p', { class: 'relative' }, el('label', {}, 'Ratios relative to ', baseline)));
  const scale = barScale(d.bars);
  const body = el('tbody', {}, ...d.bars.map((b) => row(b, ref.bar, ref.chosen, scale, choose)));
  const head = [
    'Server · machine',
    'ops/s: median and its spread',
    ref.chosen
      ? 'vs baseline (same machine kind and configuration)'
      : 'vs first bar (same machine kind and configuration)',
    'p50',
    'p99',
    'results',
    'signers',
    'notes',
  ];
  const table = el(
    'table',
    { class: 'explore-bars' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...head.map((h, i) =>
          el('th', { class: [2, 3, 4, 5, 6].includes(i) ? 'num' : i === 1 ? 'bar-col' : '' }, h),
        ),
      ),
    ),
    body,
  );
  parts.push(el('div', { class: 'scroll' }, table));
  const multiplicity = comparisonsNote(d.bars, ref.bar);
  if (multiplicity) parts.push(el('p', { class: 'muted multiplicity' }, multiplicity));
  if (d.leftOut)
    parts.push(
      el(
        'details',
        { class: 'left-out' },
        el('summary', {}, d.leftOut.text),
        el(
          'ul',
          {},
          ...d.leftOut.results.map((r) =>
            el('li', {}, link(`/results/${r.id}/`, r.id.slice(0, 12)), `: ${r.reasons.join(', ')}`),
          ),
        ),
      ),
    );
  // A static page shows the chart and its embed snippets in its HTML already.
  if (interactive) parts.push(embed(d));
  out.replaceChildren(...parts);
}

function row(b: Bar, ref: Bar, chosen: boolean, scale: number, choose: (vs?: string) => void): HTMLElement {
  const g = barGeometry(b, scale);
  const bar = el(
    'div',
    { class: 'bar', 'aria-hidden': 'true' },
    el('span', { class: 'fill', style: `width:${g.width.toFixed(1)}%` }),
  );
  if (g.lo !== null && g.hi !== null)
    bar.append(
      el('span', { class: 'ci', style: `left:${g.lo.toFixed(1)}%;width:${(g.hi - g.lo).toFixed(1)}%` }),
    );
  const isRef = chosen && b.key === ref.key;
  const button = el('button', { type: 'button', class: 'vs' }, isRef ? 'baseline' : 'set as baseline');
  button.addEventListener('click', () => choose(isRef ? undefined : b.key));
  const verdict = verdictFor(b, ref);
  const notes = [b.unstable && `${b.unstable} unstable`, b.clientBound && `${b.clientBound} client-bound`]
    .filter(Boolean)
    .join(', ');
  return el(
    'tr',
    { 'data-key': b.key, class: isRef ? 'baseline' : '' },
    el(
      'td',
      {},
      link(b.serverPath, submitted(b.server)),
      el('br'),
      link(b.machinePath, submitted(b.machine)),
      el('br'),
      el('span', { class: 'muted' }, submitted(b.config)),
    ),
    el(
      'td',
      { class: 'bar-col' },
      bar,
      el('span', { class: 'figure' }, ops(b.ops)),
      ' ',
      el(
        'span',
        { class: 'muted' },
        b.lo !== null && b.hi !== null ? `${b.spread}: ${ops(b.lo)}–${ops(b.hi)}` : b.spread,
      ),
    ),
    el(
      'td',
      { class: 'num', 'data-label': 'ratio' },
      ratio(b, ref) === null && b.key !== ref.key ? 'machine or configuration differs' : ratioCell(b, ref),
    ),
    el('td', { class: 'num', 'data-label': 'p50' }, us(b.p50)),
    el('td', { class: 'num', 'data-label': 'p99' }, us(b.p99)),
    el('td', { class: 'num', 'data-label': 'results' }, link(b.resultsPath, String(b.results))),
    el('td', { class: 'num', 'data-label': 'signers' }, String(b.signers)),
    el(
      'td',
      {},
      notes,
      ...(verdict ? [el('span', { class: 'verdict' }, verdict)] : []),
      ' ',
      link(`/results/${b.sample}/`, 'a result'),
      ' ',
      button,
    ),
  );
}

/** How to embed the view: the workload's chart (fastest bars, absolute ops/s) as iframe, image or link. */
function embed(d: WorkloadData): HTMLElement {
  return el(
    'details',
    { class: 'embed' },
    el('summary', {}, 'Embed this view'),
    el(
      'p',
      {},
      link(d.embed.pagePath, 'Chart page'),
      ' · ',
      link(d.embed.svgPath, 'SVG'),
      ...(d.embed.pngPath === null ? [] : [' · ', link(d.embed.pngPath, 'PNG')]),
      ` · ${d.asOf}`,
    ),
    el('p', {}, 'HTML (iframe):'),
    el('pre', {}, el('code', { class: 'snippet' }, d.embed.iframe)),
    el('p', {}, 'Markdown (image with its source):'),
    el('pre', {}, el('code', { class: 'snippet' }, d.embed.markdown)),
  );
}
