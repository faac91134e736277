import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import artefacts from './integration/index.mjs';

export default defineConfig({
  output: 'static',
  site: process.env.REDIS_BENCHDB_SITE_URL || 'http://localhost:4321',
  // /results/<id>/ and its files: a directory per page, so relative links work from file servers too.
  trailingSlash: 'always',
  // concurrency: result pages wait on worker threads (src/lib/prepare-pool.ts); several in flight keep them busy.
  build: { format: 'directory', inlineStylesheets: 'always', concurrency: 4 },
  outDir: process.env.REDIS_BENCHDB_SITE_OUT || './dist',
  integrations: [artefacts()],
  devToolbar: { enabled: false },
  vite: {
    // Pages read files of the repository (schemas/) at build time; bundling moves their modules, so say where it is.
    define: { __SCHEMAS_DIR__: JSON.stringify(fileURLToPath(new URL('../schemas/', import.meta.url))) },
    // Native and Node-only modules stay outside the bundle: better-sqlite3 cannot be bundled at all.
    ssr: {
      external: [
        'better-sqlite3',
        '@redis-benchdb/db',
        '@redis-benchdb/result',
        'linkedom',
        '@observablehq/plot',
        // Finds its worker entry beside its own file: bundled, it would look beside the page's chunk.
        'tinypool',
      ],
    },
  },
});
