// Bundles the CLI for `npm pack`: our workspace packages are private, so their code goes into the
// tarball; registry dependencies (ioredis, hdr-histogram-js, commander, systeminformation, ajv, canonicalize) stay real dependencies.
// The engine starts its worker with new URL('./worker.js', import.meta.url), so the worker is
// bundled as bundle/worker.js beside bundle/bin.js.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: [
    'ioredis',
    'hdr-histogram-js',
    'commander',
    'systeminformation',
    'ajv',
    'ajv-formats',
    'canonicalize',
  ],
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: ['src/bin.ts'],
  outfile: 'bundle/bin.js',
  banner: { js: '#!/usr/bin/env node' },
});
await build({ ...common, entryPoints: ['../engine/src/worker.ts'], outfile: 'bundle/worker.js' });
