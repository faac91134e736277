// pnpm build:server ARCHIVE [ARCHIVE ...] [--sha256 HEX] [--jobs N] [--json]
// Builds Redis or Valkey from an unmodified source archive (for example redis-7.4.1.tar.gz from
// download.redis.io, or valkey-8.0.1.tar.gz from github.com/valkey-io/valkey/releases), the same
// way for every version, into $XDG_CACHE_HOME/redis-benchdb/servers/ (~/.cache/... by default),
// and prints each server binary's path, one line per archive. The archive is checked first against
// a SHA256SUMS file beside it or --sha256; without a known checksum nothing is built. A build that
// is already in the cache is not repeated. --json prints a list of the build manifests instead.
// Pass the binary to the runner: redis-benchdb run --server-bin PATH.
import { parseArgs } from 'node:util';
import { BuildError, buildServer } from './lib/server-build.mjs';

const usage =
  'usage: pnpm build:server ARCHIVE [ARCHIVE ...] [--sha256 HEX] [--jobs N] [--json]\n' +
  '  e.g. pnpm build:server ../shared/servers/redis-7.4.1.tar.gz';

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      sha256: { type: 'string' },
      jobs: { type: 'string', default: '2' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (err) {
  console.error(`build-server: ${err.message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(usage);
  process.exit(0);
}
if (positionals.length === 0) {
  console.error(`build-server: no archive given\n${usage}`);
  process.exit(2);
}
if (values.sha256 && positionals.length > 1) {
  console.error(
    'build-server: --sha256 names the checksum of one archive; build one archive at a time with it',
  );
  process.exit(2);
}
const jobs = Number(values.jobs);
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`build-server: invalid --jobs: ${values.jobs} (a positive integer expected)`);
  process.exit(2);
}

const manifests = [];
let failed = 0;
for (const archive of positionals) {
  try {
    const manifest = await buildServer(archive, {
      sha256: values.sha256,
      jobs,
      progress: (line) => console.error(`build-server: ${line}`),
    });
    manifests.push(manifest);
    if (!values.json) console.log(manifest.binary);
  } catch (err) {
    if (!(err instanceof BuildError)) throw err;
    failed++;
    console.error(`build-server: ${err.message}`);
  }
}
if (values.json) console.log(JSON.stringify(manifests, null, 2));
process.exit(failed ? 1 : 0);
