// Bundles the CLI for `npm pack`: our workspace packages are private, so their code goes into the
// tarball; registry dependencies (package.json "dependencies") stay real dependencies, installed by npm.
// The engine starts its worker with new URL('./worker.js', import.meta.url), so the worker is
// bundled as bundle/worker.js beside bundle/bin.js.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Every registry dependency stays external (native ones like better-sqlite3 must), and only those.
  external: Object.keys(pkg.dependencies),
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  outfile: 'bundle/bin.js',
  banner: { js: '#!/usr/bin/env node' },
});
await build({ ...common, entryPoints: ['../engine/src/worker.ts'], outfile: 'bundle/worker.js' });
