import { homedir } from 'node:os';
import type { ResultV1 } from '@redis-benchdb/result';

/**
 * What a result publishes is scrubbed before it is signed: free text the user typed (a config
 * variant, a binary's path, a socket path) can hold a password or name the user. Secret config
 * values become <redacted>; paths under the home folder are shown from `~`.
 */
export const REDACTED = '<redacted>';

/**
 * Config directives whose value is a secret, by name: Redis's SENSITIVE_CONFIG ones (requirepass,
 * masterauth, the TLS key passwords), masteruser, and Valkey's primary* names for the same. A name
 * that says pass, auth, secret or token is redacted too: a fork's next secret setting is likely named
 * so, and a redacted value that was not secret costs only a less telling label.
 */
const SECRET_DIRECTIVES = new Set([
  'requirepass',
  'masterauth',
  'masteruser',
  'primaryauth',
  'primaryuser',
  'tls-key-file-pass',
  'tls-client-key-file-pass',
]);
const SECRET_NAME = /pass|auth|secret|token/;

/** What a scrub changed, in words for the user ("the value of masterauth"). */
export type Redactions = Set<string>;

/**
 * One config line as it may be published: `masterauth x` → `masterauth <redacted>`; an ACL
 * `user alice on >pw ~* +@all` keeps its rules but not its passwords or their hashes (`>`, `<`, `#`,
 * `!` rules); other lines with their home paths from `~`.
 */
export function scrubConfigLine(line: string, said: Redactions = new Set()): string {
  const [first = '', ...rest] = line.trim().split(/\s+/);
  const name = first.replace(/^--/, '').toLowerCase();
  if (rest.length > 0 && (SECRET_DIRECTIVES.has(name) || SECRET_NAME.test(name))) {
    said.add(`the value of ${name}`);
    return `${first} ${REDACTED}`;
  }
  if (name === 'user') {
    const words = rest.map((w) => (/^[><#!]/.test(w) ? `${w[0]}${REDACTED}` : w));
    if (words.some((w, i) => w !== rest[i])) said.add('the passwords of an ACL user line');
    return [first, ...words].join(' ');
  }
  return homeRelative(line, said);
}

/** Every path under the home folder in `text`, from `~` instead (`/home/alice/redis/x` → `~/redis/x`). */
export function homeRelative(text: string, said: Redactions = new Set(), home = homedir()): string {
  // A home of / (a service account, a container) would turn every path into ~: nothing to hide.
  const h = home.replace(/\/+$/, '');
  if (h.length < 2) return text;
  const re = new RegExp(`${h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=/|$|[\\s'",;:)])`, 'g');
  const out = text.replace(re, '~');
  if (out !== text) said.add('your home folder (shown as ~)');
  return out;
}

/** Why a published result has no per-flaw mitigation list (unknown.mitigations says it). */
export const MITIGATIONS_LEFT_OUT =
  'left out of published results: the list names the CPU flaws this host is open to (packages/cli/README.md)';

/**
 * The free text of a finished result, scrubbed: the socket path, the run group's label, warnings,
 * errors and cell labels, and a build command's paths. The environment's fingerprinted fields are
 * left alone: they are read from the machine and the server (no path or secret of the user's). The
 * CPU vulnerability list is left out (null, with the reason): it maps a host's weaknesses, and no
 * comparison reads it (the fingerprint does not hash it).
 */
export function scrubResult(doc: ResultV1, said: Redactions = new Set()): ResultV1 {
  const text = (s: string) => homeRelative(s, said);
  const maybe = (s: string | null) => (s === null ? null : text(s));
  const { client, server } = doc.environment;
  const build = server?.build;
  return {
    ...doc,
    environment: {
      ...doc.environment,
      client: {
        ...client,
        mitigations: null,
        unknown: { ...client.unknown, mitigations: MITIGATIONS_LEFT_OUT },
      },
      server: server && build?.make ? { ...server, build: { ...build, make: build.make.map(text) } } : server,
    },
    target: { ...doc.target, socket: maybe(doc.target.socket) },
    warnings: doc.warnings.map((w) => ({ ...w, message: text(w.message) })),
    error: maybe(doc.error),
    cleanup: { ...doc.cleanup, error: maybe(doc.cleanup.error) },
    cells: doc.cells.map((c) => ({
      ...c,
      trials: c.trials.map((t) => ({ ...t, error: maybe(t.error) })),
    })),
    ...(doc.runGroup ? { runGroup: { ...doc.runGroup, label: text(doc.runGroup.label) } } : {}),
  };
}

/** The line that tells the user what was kept out of the published result, or null. */
export function redactionNote(said: Redactions): string | null {
  if (said.size === 0) return null;
  return `kept out of the published result: ${[...said].join('; ')}. The server itself ran with what you gave`;
}

/** scrubResult, with what it took out told once through `say` (nothing said when it took nothing). */
export function scrubAndTell(doc: ResultV1, say: (note: string) => void): ResultV1 {
  const said: Redactions = new Set();
  const scrubbed = scrubResult(doc, said);
  const note = redactionNote(said);
  if (note) say(note);
  return scrubbed;
}
