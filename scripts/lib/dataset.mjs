// The layout of the project's own measurements: data/results/<machine-slug>/ holds one signed
// result file per launched server and a manifest.json that says how they were made (the machine as
// the results describe it, the date, the exact command, the runner's commit, the data key, and the
// checksum, tag and commit of each source archive). Written by scripts/dataset-run.mjs, checked by
// scripts/test/data-results.test.ts with checkDatasetDir.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { verifyEnvelopeText } = await import(new URL('../../packages/result/dist/index.js', import.meta.url));

export const MANIFEST_NAME = 'manifest.json';
export const MANIFEST_SCHEMA = 'redis-benchdb/dataset-manifest.v1';
/** The public half of the data key, in the data directory (data/results/): every result is signed by it. */
export const DATA_KEY_NAME = 'data-key.pub.pem';

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

/** Whether two descriptions name one machine: what the hardware is, not its kernel or distro. */
export function sameMachine(a, b) {
  const key = (m) =>
    JSON.stringify([
      m.cpu.model,
      m.cpu.cores,
      m.cpu.threads,
      m.memoryTotalBytes,
      m.virtualization.kind,
      m.virtualization.hypervisor,
    ]);
  return key(a) === key(b);
}

/** The payload of a result file, or an error naming what is wrong with it. */
function readMember(path) {
  const text = readFileSync(path, 'utf8');
  const verified = verifyEnvelopeText(text);
  if (!verified.ok) return { error: `signature or schema: ${verified.reason}` };
  return { text, result: verified.result, keyFingerprint: verified.keyFingerprint };
}

/**
 * Every way the files in `dir` and its manifest disagree, as messages naming the file; empty when
 * they agree. `keyFingerprint` is the project's data key: every file must be signed with it.
 */
export function checkDatasetDir(dir, { keyFingerprint }) {
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
  if (manifest.schema !== MANIFEST_SCHEMA) say(MANIFEST_NAME, `schema is not ${MANIFEST_SCHEMA}`);
  if (manifest.keyFingerprint !== keyFingerprint)
    say(MANIFEST_NAME, `keyFingerprint ${manifest.keyFingerprint} is not the data key ${keyFingerprint}`);
  const groups = Array.isArray(manifest.groups) ? manifest.groups : [];
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
  if (keyFingerprint !== manifest.keyFingerprint)
    out.push(`signed by ${keyFingerprint}, not the data key ${manifest.keyFingerprint}`);
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
