// pnpm dataset:run [options] SERVER SERVER ... [-- RUN-FLAGS]
// One interleaved, pinned run group of servers built from source archives, signed with a data key,
// added to <data-dir>/<machine-slug>/ as one file per server and a group in that directory's
// manifest.json (scripts/lib/dataset.mjs). USAGE below is what --help prints. See data/README.md.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, homedir, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  KEYS_DIR,
  keyFileName,
  MANIFEST_NAME,
  MANIFEST_SCHEMA,
  machineOf,
  machineSlug,
  sameMachine,
  sha256Text,
  upgradeManifest,
} from './lib/dataset.mjs';
import { BuildError, buildServer, readBuildManifest } from './lib/server-build.mjs';

const { verifyEnvelopeText, keyFingerprint, publicKeyFromPrivate } = await import('@redis-benchdb/result');
const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(root, 'packages/cli/dist/bin.js');
const log = (s) => process.stderr.write(`dataset-run: ${s}\n`);
const fail = (s) => {
  log(s);
  process.exit(2);
};
const USAGE = `usage: pnpm dataset:run [options] SERVER SERVER ... [-- RUN-FLAGS]

SERVER is a source archive (../shared/servers/redis-7.4.1.tar.gz), an archive's name looked up in
--archives (redis-7.4.1), or a binary that pnpm build:server made. Archives not built yet are built
first (about two minutes each). All servers run in one interleaved, pinned run group; its results
are added to DATA-DIR/MACHINE/ with a new group in its manifest.json (a second run on the same
machine adds a group beside the first).

  --profile quick|full              the standard-v1 profile (default quick; RUN-FLAGS may give -t instead)
  --server-config-variant LINES     repeat: one launch per variant and server ('io-threads 2')
  --persistence LIST                none,aof-everysec,aof-always,aof-no
  --server-cpus LIST --client-cpus LIST   pinning (default: the last CPU for the servers, the rest for the client)
  --data-dir DIR                    default data/results
  --machine SLUG                    the directory name (default: from the CPU model, CPU count, hypervisor)
  --key-dir DIR                     the data key (default ~/.config/redis-benchdb/data-key); made there
                                    if there is none, and its public half added to DATA-DIR/keys/
  --archives DIR                    where archive names are looked up (default ../shared/servers)
  --dry-run                         print the redis-benchdb run command and stop
  -h, --help                        print this

RUN-FLAGS after -- go to redis-benchdb run as they are.

The dataset's full group (about two hours on a 2-vCPU VM):
  pnpm dataset:run --profile full redis-6.0.20 redis-6.2.16 redis-7.0.15 redis-7.2.6 redis-7.4.1 redis-8.0-m01 valkey-7.2.7 valkey-8.0.1
A tiny trial of the whole flow, into a temporary directory (seconds, once the servers are built):
  pnpm dataset:run --data-dir /tmp/dataset-trial --key-dir /tmp/dataset-trial-key redis-7.4.1 valkey-8.0.1 -- -t ping_inline,get -n 2000
`;
// Flags that would break what the manifest records if given after --: the axes and the pinning
// are dataset-run's own options; the output and the servers it sets itself.
const OWN_OPTIONS = [
  '--profile',
  '--server-config-variant',
  '--persistence',
  '--server-cpus',
  '--client-cpus',
];
const SET_HERE = [
  '--server-bin',
  '--out',
  '--transport',
  '--json',
  '--csv',
  '--submit',
  '--store',
  '--no-store',
];

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const runFlags = dash < 0 ? [] : argv.slice(dash + 1);
let values;
let positionals;
try {
  ({ values, positionals } = parseArgs({
    args: dash < 0 ? argv : argv.slice(0, dash),
    allowPositionals: true,
    options: {
      profile: { type: 'string' },
      'server-config-variant': { type: 'string', multiple: true },
      persistence: { type: 'string' },
      'server-cpus': { type: 'string' },
      'client-cpus': { type: 'string' },
      'data-dir': { type: 'string', default: join(root, 'data/results') },
      machine: { type: 'string' },
      'key-dir': { type: 'string', default: join(homedir(), '.config/redis-benchdb/data-key') },
      archives: { type: 'string', default: join(root, '../shared/servers') },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (err) {
  fail(
    `${err.message} (options go before --, redis-benchdb run's flags after it; pnpm dataset:run --help lists them)`,
  );
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (positionals.length === 0)
  fail('no server given: name archives or built binaries, e.g. redis-7.4.1 valkey-8.0.1');
for (const flag of runFlags) {
  const name = flag.split('=')[0];
  if (OWN_OPTIONS.includes(name)) fail(`${name} after --: it is an option of dataset-run; give it before --`);
  if (SET_HERE.includes(name)) fail(`${name} after --: dataset-run sets it itself; leave it out`);
}
if (values.profile && !['quick', 'full', 'compare'].includes(values.profile))
  fail(`invalid --profile: ${values.profile} (quick, full or compare)`);
if (values.machine && !/^[a-z0-9][a-z0-9.-]*$/.test(values.machine))
  fail(`invalid --machine: ${values.machine} (lower-case letters, digits, '.' and '-')`);

/** Each SERVER as a built binary and its build manifest, building archives that are not built yet. */
async function resolveServer(given) {
  const archive = /\.(tar\.gz|tgz|tar\.xz|tar)$/.test(given)
    ? given
    : !given.includes('/') && !existsSync(given)
      ? join(values.archives, `${given}.tar.gz`)
      : null;
  const progress = (line) => log(line);
  const manifest = archive ? await buildServer(archive, { progress }) : await readBuildManifest(given);
  const found = archive ?? join(values.archives, manifest.archive);
  const archivePath = existsSync(found) ? relative(root, resolve(found)) : manifest.archive;
  return { bin: manifest.binary, manifest, archivePath };
}

let servers;
try {
  servers = [];
  for (const s of positionals) servers.push(await resolveServer(s));
} catch (err) {
  if (!(err instanceof BuildError)) throw err;
  fail(err.message);
}

// Server and client each on CPUs of their own: the last CPU for the servers, the rest for the client.
const cpus = availableParallelism();
const serverCpus = values['server-cpus'] ?? (cpus > 1 ? String(cpus - 1) : undefined);
const clientCpus = values['client-cpus'] ?? (cpus > 2 ? `0-${cpus - 2}` : cpus > 1 ? '0' : undefined);
if (!serverCpus || !clientCpus) log(`only ${cpus} CPU: the run is not pinned (the results carry NOT_PINNED)`);

const variants = values['server-config-variant'] ?? [];
const persistences = values.persistence?.split(',').map((p) => p.trim()) ?? [null];
const common = [
  ...(values.profile ? ['--profile', values.profile] : []),
  ...(serverCpus && clientCpus ? ['--server-cpus', serverCpus, '--client-cpus', clientCpus] : []),
  ...runFlags,
];
const work = mkdtempSync(join(tmpdir(), 'rbdb-dataset-'));
const args = [
  'run',
  ...servers.flatMap((s) => ['--server-bin', s.bin]),
  ...variants.flatMap((v) => ['--server-config-variant', v]),
  ...(values.persistence ? ['--persistence', values.persistence] : []),
  ...common,
  '--no-store',
  '--out',
  join(work, 'r.json'),
];
const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`);
const command = ['redis-benchdb', ...args].map(quote).join(' ');
if (values['dry-run']) {
  console.log(command);
  rmSync(work, { recursive: true });
  process.exit(0);
}

// Each session measures on a fresh machine, where no data key survives: make one there. Results
// signed by earlier keys stay valid; DATA-DIR/keys/ lists the public half of every key used.
const keyFile = join(values['key-dir'], 'signing-key.pem');
if (!existsSync(keyFile)) {
  const made = spawnSync(process.execPath, [CLI, 'keygen'], {
    encoding: 'utf8',
    env: { ...process.env, REDIS_BENCHDB_CONFIG_DIR: values['key-dir'] },
  });
  if (made.status !== 0) fail(`could not make a data key in ${values['key-dir']}: ${made.stderr.trim()}`);
  log(`no data key in ${values['key-dir']}: made a new one (keep ${keyFile} for later runs on this machine)`);
}
const dataPublicKey = publicKeyFromPrivate(readFileSync(keyFile, 'utf8'));
const dataKey = keyFingerprint(dataPublicKey);
const publicKeyPath = join(values['data-dir'], KEYS_DIR, keyFileName(dataKey));
const newKey = !existsSync(publicKeyPath);
log(
  `signing with the data key ${dataKey}${newKey ? ` (new: its public half goes to ${publicKeyPath})` : ''}`,
);

/**
 * The machine's directory and its manifest, to which the group is added (a new one when there is
 * none); exits when the directory holds another machine's results.
 */
function machineDir(machine, kept) {
  // Without --machine: the directory that already holds this machine's results, whatever its
  // name (one named by hand earlier, say), else the name machineSlug gives it.
  const slug = values.machine ?? knownSlug(machine) ?? machineSlug(machine);
  const dir = join(values['data-dir'], slug);
  const manifestPath = join(dir, MANIFEST_NAME);
  const manifest = readManifest(dir) ?? { schema: MANIFEST_SCHEMA, slug, machine, groups: [] };
  if (!sameMachine(manifest.machine, machine)) {
    const free = [slug, ...[2, 3, 4, 5].map((n) => `${slug}-${n}`)].find(
      (s) => !existsSync(join(values['data-dir'], s)),
    );
    fail(
      `${dir} holds results of another machine (${JSON.stringify(manifest.machine.cpu)}, ${manifest.machine.memoryTotalBytes} bytes of memory); this one is ${JSON.stringify(machine.cpu)}, ${machine.memoryTotalBytes} bytes: pass --machine with a new name${free ? `, e.g. --machine ${free}` : ''}. ${kept}`,
    );
  }
  return { slug, dir, manifestPath, manifest };
}

function readManifest(dir) {
  const path = join(dir, MANIFEST_NAME);
  return existsSync(path) ? upgradeManifest(JSON.parse(readFileSync(path, 'utf8'))) : null;
}

/** The name of the directory under --data-dir whose manifest describes this machine, if one does. */
function knownSlug(machine) {
  const root = values['data-dir'];
  if (!existsSync(root)) return null;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const manifest = readManifest(join(root, entry.name));
    if (manifest && sameMachine(manifest.machine, machine)) return entry.name;
  }
  return null;
}

// The same check before the run as after it, from the machine as `sysinfo` describes it, so that a
// run of two hours is not refused only at its end.
const sysinfo = spawnSync(process.execPath, [CLI, 'sysinfo', '--no-server', '--json'], { encoding: 'utf8' });
if (sysinfo.status === 0) {
  const { slug, manifest } = machineDir(machineOf(JSON.parse(sysinfo.stdout).client), 'Nothing was run.');
  log(`the results go to ${join(values['data-dir'], slug)} (group ${manifest.groups.length + 1})`);
} else log(`sysinfo failed, so the machine is checked only after the run: ${sysinfo.stderr.trim()}`);

const git = (...a) => spawnSync('git', ['-C', root, ...a], { encoding: 'utf8' }).stdout.trim();
const runnerCommit = git('rev-parse', 'HEAD');
const runnerDirty = git('status', '--porcelain', '--untracked-files=no') !== '';
if (runnerDirty) log('the checkout has uncommitted changes: the manifest says so (runnerDirty)');
const date = new Date().toISOString();
log(`running: ${command}`);
const ran = spawnSync(process.execPath, [CLI, ...args], {
  stdio: 'inherit',
  env: { ...process.env, REDIS_BENCHDB_CONFIG_DIR: values['key-dir'] },
});

// The members in plan order: server, then variant, then persistence (packages/runner/src/launch-plan.ts).
const plan = servers.flatMap((server) =>
  (variants.length ? variants : [null]).flatMap((variant) =>
    persistences.map((persistence) => ({ server, variant, persistence })),
  ),
);
const docs = plan.map((_, i) => join(work, `r.${i}.json`));
const missing = docs.filter((f) => !existsSync(f));
if (ran.status !== 0 || missing.length > 0)
  fail(
    `the run ${ran.status !== 0 ? `exited with ${ran.status ?? ran.signal}` : 'ended'}${missing.length ? ` without ${missing.length} of ${docs.length} results` : ''}: nothing was added to the dataset. What it wrote is in ${work}`,
  );
const members = docs.map((file, i) => {
  const text = readFileSync(file, 'utf8');
  const verified = verifyEnvelopeText(text);
  if (!verified.ok) fail(`${file}: ${verified.message}`);
  if (!verified.result.environment.server.build)
    fail(
      `${file}: the result names no build (server.build): was ${plan[i].server.bin} replaced since it was built?`,
    );
  return { text, result: verified.result, ...plan[i] };
});

const machine = machineOf(members[0].result.environment.client);
const { dir, manifestPath, manifest } = machineDir(machine, `Results are kept in ${work}`);

const groupId = members[0].result.runGroup.id;
const profileFlags = values.profile ? ['--profile', values.profile] : [];
const reproduce = (m) =>
  [
    'pnpm -s redis-benchdb run --server-bin',
    `"$(pnpm -s build:server ${quote(m.server.archivePath)} --sha256 ${m.server.manifest.sha256})"`,
    ...[...profileFlags, ...(m.variant ? ['--server-config-variant', m.variant] : [])].map(quote),
    ...(m.persistence ? ['--persistence', m.persistence] : []),
    ...common.slice(profileFlags.length).map(quote),
    '--out r.json',
  ].join(' ');
mkdirSync(dir, { recursive: true });
mkdirSync(join(values['data-dir'], KEYS_DIR), { recursive: true });
if (newKey) writeFileSync(publicKeyPath, dataPublicKey);
const group = {
  runGroupId: groupId,
  keyFingerprint: dataKey,
  date,
  command,
  datasetCommand: ['pnpm dataset:run', ...argv].map((a, i) => (i ? quote(a) : a)).join(' '),
  runnerCommit,
  runnerDirty,
  runnerVersion: members[0].result.runner.version,
  servers: servers.map(({ manifest: b, archivePath }) => ({
    archive: b.archive,
    archivePath,
    sha256: b.sha256,
    project: b.project,
    tag: b.tag,
    commit: b.commit,
    make: b.make,
    binarySha256: b.binarySha256,
  })),
  members: members.map((m, i) => {
    const label = m.result.runGroup.label;
    const file = `${date.slice(0, 10)}-${groupId}-${i}-${label.replace(/[^A-Za-z0-9.]+/g, '-').replace(/^-|-$/g, '')}.json`;
    writeFileSync(join(dir, file), m.text);
    return {
      file,
      sha256: sha256Text(m.text),
      index: i,
      label,
      archive: m.server.manifest.archive,
      reproduce: reproduce(m),
    };
  }),
};
manifest.groups.push(group);
writeFileSync(`${manifestPath}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
renameSync(`${manifestPath}.tmp`, manifestPath);
rmSync(work, { recursive: true, force: true });
log(
  `wrote ${members.length} results and group ${manifest.groups.length} of ${manifestPath} (run group ${groupId}, signed by ${dataKey})`,
);
if (newKey)
  log(
    `${dataKey} is a new data key: commit ${relative(root, publicKeyPath)} with the results, and name the fingerprint in data/README.md beside the earlier ones (CI refuses a key the README does not name)`,
  );
if (resolve(values['data-dir']) === join(root, 'data/results'))
  log(
    'check them as CI will: pnpm -s build && pnpm exec vitest run scripts/test/data-results.test.ts packages/db/test/db-build.test.ts',
  );
