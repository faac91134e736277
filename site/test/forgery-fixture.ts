// The forgeries of issue 39, made as an attacker would make them: from a file of data/ and the public
// format alone, each signed by a key made a minute earlier. Figures are scaled and histograms
// re-encoded (remeasure.ts), so every plausibility check at ingest passes.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { environmentFingerprint, generateSigningKey, type ResultV1 } from '@redis-benchdb/result';
import { handSignedBody, remeasured, withOwnHistograms } from '@redis-benchdb/testing';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The project's Redis 7.4.1 on the AMD kind, in its interleaved group 4ac7212694714aa5 (issue 39's victim). */
export const VICTIM_FILE = `${root}data/results/amd-epyc-2cpu-kvm/2026-11-24-4ac7212694714aa5-4-redis-server-7.4.1.json`;
export const VICTIM_GROUP = '4ac7212694714aa5';
export const PROJECT_KEYS = `${root}data/results/keys`;

export function victim(): ResultV1 {
  return JSON.parse(JSON.parse(readFileSync(VICTIM_FILE, 'utf8')).payload) as ResultV1;
}

/** One submission: a name for the failure message, and the envelope's text. */
export interface Forgery {
  name: string;
  envelope: string;
}

let seed = 0;
/**
 * The victim with every ops/s times `factor`, measurements of its own (no histogram equals another
 * forgery's, so none is a disputed copy of another: each must stand or fall by the corroboration
 * rule), `edit` applied, signed by a fresh key.
 */
export function forge(name: string, factor: number, edit: (r: ResultV1) => void = () => {}): Forgery {
  const r = withOwnHistograms(remeasured(victim(), factor), ++seed);
  r.keyPrefix = `rbdb:${(0xf00000 + seed).toString(16)}:`;
  edit(r);
  // Signed by hand, as an attacker's own signer would: the runner's signResult refuses lookalike names
  // itself, and what is tested here is the service's door.
  return { name, envelope: handSignedBody(r, generateSigningKey()) };
}

/** (b) of issue 39's Done when: the x1.5 copy without its run group. */
export const withoutGroup = (r: ResultV1) => {
  delete (r as { runGroup?: unknown }).runGroup;
};

function cpuModel(model: (m: string) => string) {
  return (r: ResultV1) => {
    withoutGroup(r);
    r.environment.client.cpu.model = model(r.environment.client.cpu.model ?? '');
    r.environment.fingerprint = environmentFingerprint(r.environment);
  };
}

function serverVersion(version: (v: string) => string) {
  return (r: ResultV1) => {
    withoutGroup(r);
    r.environment.server!.version = version(r.environment.server!.version ?? '');
    r.environment.fingerprint = environmentFingerprint(r.environment);
  };
}

/** (c): CPU models and versions that read exactly like the genuine ones (issue 39 item 3). */
export const LOOKALIKE_CPUS: [string, (m: string) => string][] = [
  ['Cyrillic Е and Р', (m) => m.replace('EP', '\u0415\u0420')],
  ['zero-width space', (m) => `${m}\u200b`],
  ['soft hyphen', (m) => m.replace('EPYC', 'EP\u00adYC')],
  ['byte order mark', (m) => `\ufeff${m}`],
  ['no-break space', (m) => m.replace(' ', '\u00a0')],
  ['fullwidth letters', (m) => m.replace('AMD', '\uff21\uff2d\uff24')],
  ['zero-width joiner', (m) => m.replace('AMD', 'A\u200dMD')],
  ['word joiner', (m) => `${m}\u2060`],
];
export const LOOKALIKE_VERSIONS: [string, (v: string) => string][] = [
  ['zero-width space', (v) => `${v}\u200b`],
  ['fullwidth digit', (v) => v.replace('7', '\uff17')],
  ['byte order mark', (v) => `${v}\ufeff`],
];

export const lookalikeCpu = (how: (m: string) => string) => cpuModel(how);
export const lookalikeVersion = (how: (v: string) => string) => serverVersion(how);

/** (d): the victim's run, moved so that it ends `hours` after now. */
export function endingIn(hours: number) {
  return (r: ResultV1) => {
    withoutGroup(r);
    const shift = Date.now() + hours * 3_600_000 - Date.parse(r.finishedAt);
    r.startedAt = new Date(Date.parse(r.startedAt) + shift).toISOString();
    r.finishedAt = new Date(Date.parse(r.finishedAt) + shift).toISOString();
  };
}
