// Bundles the CLI for `npm pack`: our workspace packages are private, so their code goes into the
// tarball; registry dependencies (package.json "dependencies") stay real dependencies, installed by npm.
// The engine starts its worker with new URL('./worker.js', import.meta.url), so the worker is
// bundled as bundle/worker.js beside bundle/bin.js.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

// better-sqlite3 is native, so it is not a dependency of the runner (an npx install must compile
// nothing): it is an optional peer. A static import of it would be loaded at start-up and fail
// where it is not installed, so the bundle gets a stand-in that requires it only when a database is
// opened (db's database/open.ts is the one place that calls it, with `new Database(...)`). Where it is
// missing, that throws MODULE_NOT_FOUND, which src/local-database.ts turns into "kept as a file only".
const lazySqlite = {
  name: 'lazy-better-sqlite3',
  setup(b) {
    b.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: 'better-sqlite3', namespace: 'lazy' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: `import { createRequire } from 'node:module';
export default function Database(...args) {
  const Real = createRequire(import.meta.url)('better-sqlite3');
  return new Real(...args);
}`,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Every registry dependency stays external, and only those.
  external: Object.keys(pkg.dependencies),
  plugins: [lazySqlite],
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  outfile: 'bundle/bin.js',
  banner: { js: '#!/usr/bin/env node' },
});
await build({ ...common, entryPoints: ['../engine/src/worker.ts'], outfile: 'bundle/worker.js' });
