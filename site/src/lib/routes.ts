import { createHash } from 'node:crypto';

/**
 * Every path the site links to. A chart's files sit side by side (pipeline.html, .svg, .png): one
 * folder per result rather than one per chart, which at 10,000 results saves 50,000 directories.
 *
 * Every path the site links to, in one place: pages and the build's artefact writer both use it,
 * so a link and the file it points to cannot drift apart.
 */
export const paths = {
  home: () => '/',
  results: () => '/results/',
  result: (id: string) => `/results/${id}/`,
  resultRaw: (id: string) => `/results/${id}/raw.json`,
  resultCompareJson: (id: string) => `/results/${id}/compare.json`,
  chartPage: (id: string, chart: string) => `/results/${id}/charts/${chart}.html`,
  chartSvg: (id: string, chart: string) => `/results/${id}/charts/${chart}.svg`,
  chartPng: (id: string, chart: string) => `/results/${id}/charts/${chart}.png`,
  ogImage: (id: string) => `/results/${id}/og.png`,
  machines: () => '/machines/',
  machine: (slug: string) => `/machines/${slug}/`,
  versions: () => '/versions/',
  version: (slug: string) => `/versions/${slug}/`,
  group: (id: string) => `/groups/${id}/`,
  groupChartPage: (id: string, chart: string) => `/groups/${id}/charts/${chart}.html`,
  groupChartSvg: (id: string, chart: string) => `/groups/${id}/charts/${chart}.svg`,
  groupChartPng: (id: string, chart: string) => `/groups/${id}/charts/${chart}.png`,
  groupOgImage: (id: string) => `/groups/${id}/og.png`,
  compare: (ids?: readonly string[]) =>
    ids?.length ? `/compare/?r=${ids.map((id) => id.slice(0, SHORT_ID)).join(',')}` : '/compare/',
  liveChartPage: (chart: string) => `/live/${chart}.html`,
  liveChartSvg: (chart: string) => `/live/${chart}.svg`,
  openData: () => '/data/',
  exportJsonl: () => '/data/results.jsonl',
  snapshot: () => '/data/benchdb.sqlite',
  index: () => '/data/index.json',
} as const;

/** Result ids are 64 hex digits; 12 of them (48 bits) name a result in a shared link unambiguously. */
export const SHORT_ID = 12;

/**
 * A URL-safe slug for a name that came from a submitter. Anything outside [a-z0-9.] becomes "-";
 * when that changed the name, a short hash of the exact name keeps two names apart that would
 * otherwise share a slug ("Xeon E5 (v2)" and "Xeon E5 v2").
 */
export function slug(...parts: (string | null | undefined)[]): string {
  const exact = parts.map((p) => p ?? 'unknown').join(' ');
  const clean = exact
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  if (clean === exact) return clean || 'unknown';
  return `${clean || 'x'}-${createHash('sha256').update(exact).digest('hex').slice(0, 6)}`;
}
