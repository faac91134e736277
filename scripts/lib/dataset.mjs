// The layout of the project's own measurements: data/results/<machine-slug>/ holds one signed
// result file per launched server and a manifest.json that says how they were made (the machine as
// the results describe it, the date, and per run group the exact command, the runner's commit, the
// data key that signed it, and the checksum, tag and commit of each source archive). Written by
// scripts/dataset-run.mjs, checked by scripts/test/data-results.test.ts with checkDatasetDir.
//
// The data keys: each session measures on a fresh machine, and a private key does not outlive its
// machine, so every session may sign with a new key. data/results/keys/ keeps the public half of
// every data key ever used (never removed: the results it signed stay valid), and each group of a
// manifest names the key that signed it.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { verifyEnvelopeText, keyFingerprint: fingerprintOf } = await import('@redis-benchdb/result');

export const MANIFEST_NAME = 'manifest.json';
/** v2: the signing key is named per group (v1 named one key for the whole directory). */
export const MANIFEST_SCHEMA = 'redis-benchdb/dataset-manifest.v2';
const MANIFEST_SCHEMA_V1 = 'redis-benchdb/dataset-manifest.v1';
/** The directory, inside the data directory (data/results/), of every data key's public half. */
export const KEYS_DIR = 'keys';

/** The file name of a data key's public half: its fingerprint's hex digits, `<hex>.pub.pem`. */
export const keyFileName = (fingerprint) => `${fingerprint.replace(/^sha256:/, '')}.pub.pem`;

/** The machine directories of a data directory: every directory but keys/. */
export function machineDirs(dataDir) {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== KEYS_DIR)
    .map((d) => d.name)
    .sort();
}

/**
 * The data keys listed in `dataDir`/keys/: a map from fingerprint to public key (PEM), and the
 * problems found (a file that is not a public key, or whose name is not its fingerprint).
 */
export function readDataKeys(dataDir) {
  const keys = new Map();
  const problems = [];
  const dir = join(dataDir, KEYS_DIR);
  if (!existsSync(dir)) return { keys, problems };
  for (const file of readdirSync(dir).sort()) {
    const path = join(dir, file);
    let fingerprint;
    try {
      fingerprint = fingerprintOf(readFileSync(path, 'utf8'));
    } catch (err) {
      problems.push(`${path}: not a public key (${err.message}): keys/ holds only data keys' public halves`);
      continue;
    }
    if (file !== keyFileName(fingerprint))
      problems.push(`${path}: is the key ${fingerprint}: name it ${keyFileName(fingerprint)}`);
    else keys.set(fingerprint, readFileSync(path, 'utf8'));
  }
  return { keys, problems };
}

/**
 * A manifest as this version writes it: a v1 manifest's one key (`keyFingerprint` at the top)
 * becomes each of its groups' key. Unsigned, so rewriting it changes no result.
 */
export function upgradeManifest(manifest) {
  if (manifest.schema !== MANIFEST_SCHEMA_V1) return manifest;
  const { keyFingerprint, groups, ...rest } = manifest;
  return {
    ...rest,
    schema: MANIFEST_SCHEMA,
    groups: groups.map((g) => ({ runGroupId: g.runGroupId, keyFingerprint, ...g })),
  };
}

export const sha256Text = (text) => createHash('sha256').update(text).digest('hex');

/** The machine as a result describes it (environment.client), without what changes run to run. */
export function machineOf(client) {
  return {
    cpu: {
      model: client.cpu.model,
      vendor: client.cpu.vendor,
      sockets: client.cpu.sockets,
      cores: client.cpu.cores,
      threads: client.cpu.threads,
      smt: client.cpu.smt,
      // A hypervisor can show two CPU generations under one name ("AMD EPYC"): this project's VMs
      // did, with a 32 KiB L1d one day and a 48 KiB one (a newer core, 1.2-1.6x faster) the next.
      cacheL1dKiB: client.cpu.cacheL1dKiB,
      cacheL2KiB: client.cpu.cacheL2KiB,
      cacheL3KiB: client.cpu.cacheL3KiB,
      // What tells those two apart when the kernel hides the caches, as one VM's did. Recorded
      // since the probe read them; a manifest written before has none.
      ...(client.cpu.family === undefined
        ? {}
        : { family: client.cpu.family, modelNumber: client.cpu.modelNumber, stepping: client.cpu.stepping }),
    },
    memoryTotalBytes: client.memory.totalBytes,
    virtualization: client.virtualization,
    cloud: client.cloud,
    os: client.os,
  };
}

/** A directory name for a machine: `amd-epyc-7b13-2cpu-kvm`. */
export function machineSlug(machine) {
  const model = (machine.cpu.model ?? 'unknown-cpu')
    .toLowerCase()
    .replace(/\((r|tm)\)|\bprocessor\b|\bcpu\b|@.*$|\d+-core/g, ' ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const v = machine.virtualization;
  const virt = v.kind === 'bare-metal' ? 'bare-metal' : (v.hypervisor ?? v.kind ?? 'unknown');
  const slug = `${model}-${machine.cpu.threads ?? '?'}cpu-${virt}`;
  return slug.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
}

/**
 * How far two memory totals of one machine may differ: a VM of the same size reports a MemTotal a
 * few hundred KiB apart under another kernel build (the kernel keeps what it needs), as this
 * project's VM did between two sessions (25,276,502,016 and 25,276,026,880 bytes).
 */
export const MEMORY_TOLERANCE = 0.02;

/** Whether two descriptions name one machine: what the hardware is, not its kernel or distro. */
export function sameMachine(a, b) {
  const key = (m) =>
    JSON.stringify([
      m.cpu.model,
      m.cpu.cores,
      m.cpu.threads,
      // Absent from a manifest written before they were recorded: then it does not match, and
      // the manifest needs them added from its (signed) members first.
      m.cpu.cacheL1dKiB ?? 'unknown',
      m.cpu.cacheL2KiB ?? 'unknown',
      m.cpu.cacheL3KiB ?? 'unknown',
      m.virtualization.kind,
      m.virtualization.hypervisor,
    ]);
  // Family, model and stepping are compared only where both sides know them: a manifest written
  // before the probe read them cannot have them (its members do not), and the caches still decide.
  const signature = (m) => [m.cpu.family, m.cpu.modelNumber, m.cpu.stepping];
  const [sa, sb] = [signature(a), signature(b)];
  const bothKnow = sa.every((v) => v != null) && sb.every((v) => v != null);
  if (bothKnow && JSON.stringify(sa) !== JSON.stringify(sb)) return false;
  const x = a.memoryTotalBytes;
  const y = b.memoryTotalBytes;
  const memory = x === y || (x > 0 && y > 0 && Math.abs(x - y) <= MEMORY_TOLERANCE * Math.max(x, y));
  return key(a) === key(b) && memory;
}

/** The payload of a result file, or an error naming what is wrong with it. */
function readMember(path) {
  const text = readFileSync(path, 'utf8');
  const verified = verifyEnvelopeText(text);
  if (!verified.ok) return { error: `signature or schema: ${verified.message}` };
  return { text, result: verified.result, keyFingerprint: verified.keyFingerprint };
}

/**
 * Every way the files in `dir` and its manifest disagree, as messages naming the file; empty when
 * they agree. `keyFingerprints` are the data keys (data/results/keys/): each group must name one of
 * them, and each file must be signed by the key its group names.
 */
export function checkDatasetDir(dir, { keyFingerprints }) {
  const problems = [];
  const say = (file, msg) => problems.push(`${join(dir, file)}: ${msg}`);
  const manifestPath = join(dir, MANIFEST_NAME);
  if (!existsSync(manifestPath)) {
    say(MANIFEST_NAME, 'missing: every results directory has a manifest (scripts/dataset-run.mjs writes it)');
    return problems;
  }
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (err) {
    say(MANIFEST_NAME, `not JSON: ${err.message}`);
    return problems;
  }
  if (manifest.schema !== MANIFEST_SCHEMA)
    say(
      MANIFEST_NAME,
      `schema is ${JSON.stringify(manifest.schema)}, not ${MANIFEST_SCHEMA}: the next pnpm dataset:run into this directory upgrades it`,
    );
  const groups = Array.isArray(manifest.groups) ? manifest.groups : [];
  const known = [...keyFingerprints];
  for (const group of groups)
    if (!keyFingerprints.has(group.keyFingerprint))
      say(
        MANIFEST_NAME,
        `group ${group.runGroupId} is signed by ${group.keyFingerprint}, which is not a data key (${known.join(', ') || 'none listed'}): add its public half as keys/${keyFileName(String(group.keyFingerprint))}`,
      );
  const listed = new Map();
  for (const group of groups)
    for (const member of group.members ?? []) {
      if (listed.has(member.file)) say(member.file, 'listed twice in the manifest');
      listed.set(member.file, { group, member });
    }
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== MANIFEST_NAME);
  for (const file of files) if (!listed.has(file)) say(file, 'not listed in the manifest');
  for (const [file, { group, member }] of listed) {
    if (!files.includes(file)) {
      say(file, 'listed in the manifest but missing');
      continue;
    }
    const read = readMember(join(dir, file));
    if (read.error) {
      say(file, read.error);
      continue;
    }
    for (const msg of memberProblems(read, { manifest, group, member })) say(file, msg);
  }
  return problems;
}

function memberProblems({ text, result, keyFingerprint }, { manifest, group, member }) {
  const out = [];
  if (sha256Text(text) !== member.sha256) out.push(`sha256 differs from the manifest's ${member.sha256}`);
  if (keyFingerprint !== group.keyFingerprint)
    out.push(`signed by ${keyFingerprint}, not by the key its group names (${group.keyFingerprint})`);
  const rg = result.runGroup;
  if (!rg || rg.id !== group.runGroupId || rg.index !== member.index || rg.label !== member.label)
    out.push(
      `runGroup ${JSON.stringify(rg && { id: rg.id, index: rg.index, label: rg.label })} differs from the manifest's group ${group.runGroupId} member ${member.index} "${member.label}"`,
    );
  if (!sameMachine(machineOf(result.environment.client), manifest.machine))
    out.push('ran on a machine other than the manifest names');
  const server = (group.servers ?? []).find((s) => s.archive === member.archive);
  const build = result.environment.server.build;
  if (!server) out.push(`its archive ${member.archive} is not among the group's servers`);
  else if (!build) out.push('its server has no build block: it was not built by build:server');
  else if (build.archiveSha256 !== `sha256:${server.sha256}` || build.tag !== server.tag)
    out.push(
      `its server was built from ${build.archiveSha256} (tag ${build.tag}), the manifest says sha256:${server.sha256} (tag ${server.tag})`,
    );
  return out;
}
