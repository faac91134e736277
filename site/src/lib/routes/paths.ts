import { EXPLORE_PATHS } from '../explore/explore.js';

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
  ogImage: (id: string) => `/results/${id}/og.png`,
  machines: () => '/machines/',
  machine: (slug: string) => `/machines/${slug}/`,
  versions: () => '/versions/',
  version: (slug: string) => `/versions/${slug}/`,
  group: (id: string) => `/groups/${id}/`,
  groupChartPage: (id: string, chart: string) => `/groups/${id}/charts/${chart}.html`,
  groupChartSvg: (id: string, chart: string) => `/groups/${id}/charts/${chart}.svg`,
  groupOgImage: (id: string) => `/groups/${id}/og.png`,
  compare: (ids?: readonly string[]) =>
    ids?.length ? `/compare/?r=${ids.map((id) => id.slice(0, SHORT_ID)).join(',')}` : '/compare/',
  liveChartPage: (chart: string) => `/live/${chart}.html`,
  liveChartSvg: (chart: string) => `/live/${chart}.svg`,
  openData: () => '/data/',
  methodology: () => '/methodology/',
  published: () => '/published/',
  // The open data's JSON Lines, in monthly parts named by an index with each part's SHA-256 (open-data.mjs).
  exportParts: () => '/data/results-parts.json',
  exportPart: (file: string) => `/data/${file}`,
  snapshot: () => '/data/benchdb.sqlite',
  index: () => '/data/index.json',
  // The workload explorer (explore.ts): its page, a standard cell's static view, its JSON.
  explore: (search = '') => EXPLORE_PATHS.page + search,
  exploreView: EXPLORE_PATHS.view,
  exploreCatalog: () => EXPLORE_PATHS.catalog,
  exploreData: EXPLORE_PATHS.data,
} as const;

/** Result ids are 64 hex digits; 12 of them (48 bits) name a result in a shared link unambiguously. */
export const SHORT_ID = 12;
