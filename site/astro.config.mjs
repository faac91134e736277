import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import artefacts from './integration/index.mjs';

// Native and Node-only modules stay outside the bundle: better-sqlite3 cannot be bundled at all.
const EXTERNAL = [
  'better-sqlite3',
  '@redis-benchdb/db',
  // Vite 8 (Astro 7) matches an external by its exact specifier: the subpaths are named too.
  '@redis-benchdb/png',
  '@redis-benchdb/db/checks',
  '@resvg/resvg-js',
  '@redis-benchdb/result',
  'linkedom',
  '@observablehq/plot',
  // Finds its worker entry beside its own file: bundled, it would look beside the page's chunk.
  'tinypool',
];

export default defineConfig({
  output: 'static',
  site: process.env.REDIS_BENCHDB_SITE_URL || 'http://localhost:4321',
  // /results/<id>/ and its files: a directory per page, so relative links work from file servers too.
  trailingSlash: 'always',
  // concurrency: result pages wait on worker threads (src/lib/data/prepare-pool.ts); several in flight keep them busy.
  build: { format: 'directory', inlineStylesheets: 'always', concurrency: 4 },
  outDir: process.env.REDIS_BENCHDB_SITE_OUT || './dist',
  integrations: [artefacts()],
  devToolbar: { enabled: false },
  // Astro 7's default ('jsx') drops the whitespace between elements that the pages' text relies on
  // ("busy host, drift", a figure and its unit): the lossless compression Astro 5 applied.
  compressHTML: true,
  vite: {
    // Pages read files of the repository (schemas/) at build time; bundling moves their modules, so say where it is.
    define: { __SCHEMAS_DIR__: JSON.stringify(fileURLToPath(new URL('../schemas/', import.meta.url))) },
    ssr: {
      external: EXTERNAL,
    },
    // Astro 7 builds its pages with Vite 8's Rolldown, which takes the same list as build externals.
    build: { rolldownOptions: { external: EXTERNAL } },
  },
});
