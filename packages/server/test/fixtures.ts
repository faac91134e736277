// Real signed envelopes, real SQLite files in temp dirs and the real service, shared by the tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { assignSigner, openDatabase } from '@redis-benchdb/db';
// The server does not depend on packages/result (server → db only); its tests sign like a client.
import {
  canonicalJson,
  keyFingerprint,
  publicKeyFromPrivate,
  type ResultV1,
  rawPublicKey,
  type SigningKey,
} from '@redis-benchdb/result';
import { fingerprintOf, key, otherKey } from '@redis-benchdb/testing';
import { afterAll, afterEach } from 'vitest';

const examples = new URL('../../../schemas/examples/valid/', import.meta.url);
const minimalText = readFileSync(new URL('minimal.json', examples), 'utf8');

// Every signed-envelope maker of result's test support: one set for the package tests that sign.
export * from '@redis-benchdb/testing';

/**
 * schemas/examples/valid/minimal.json (one SET cell, ~5 KiB signed), made plausible: its trial says
 * maxUs 3724 under p9999Us 3725, which the database's percentile check refuses (see the report).
 */
function smallResult(): ResultV1 {
  const r = JSON.parse(minimalText) as ResultV1;
  const trial = r.cells[0]!.trials[0]!.latencyUs;
  trial.maxUs = Math.max(trial.maxUs, trial.p9999Us);
  return r;
}

/**
 * `n` distinct signed submissions of one small result, one key: run i started i seconds after the
 * example. Built from one canonical payload by replacing the two timestamps in its text (a string
 * value changed in place keeps the text canonical) and signing with node:crypto: ~0.05 ms each,
 * against ~1 ms for signResult's validate-and-canonicalise.
 */
export function submissions(n: number, k: SigningKey = key): string[] {
  const r = smallResult();
  const payload = canonicalJson(r);
  const fields = (['startedAt', 'finishedAt'] as const).map((name) => {
    const text = `"${name}":"${r[name]}"`;
    if (payload.split(text).length !== 2) throw new Error(`expected one ${text} in the payload`);
    return { name, text, at: Date.parse(r[name]) };
  });
  const privateKey = createPrivateKey(k.privateKeyPem);
  const raw = rawPublicKey(publicKeyFromPrivate(k.privateKeyPem));
  const publicKey = raw.toString('base64');
  const fingerprint = keyFingerprint(raw);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let p = payload;
    for (const f of fields) p = p.replace(f.text, `"${f.name}":"${new Date(f.at + i * 1000).toISOString()}"`);
    const signature = sign(null, Buffer.from(p, 'utf8'), privateKey).toString('base64');
    out.push(
      JSON.stringify({
        schema: 'redis-benchdb/envelope.v1',
        payload: p,
        signature,
        publicKey,
        keyFingerprint: fingerprint,
      }),
    );
  }
  return out;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A path for a new database file in a temp dir removed after the file's tests. */
export function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-server-'));
  dirs.push(dir);
  return join(dir, 'benchdb.sqlite');
}

/**
 * tempDbPath() with the test keys' signers named, as an operator names submitters it knows (`key`
 * signs for "signer A", `otherKey` for "signer B"): the corroboration rule (packages/result
 * corroboration.ts) then takes their results as anchors, so tests of ranks, cohorts and ownership see
 * them counted, as before the rule. Two names: they stay two signers.
 */
export function vouchedDbPath(): string {
  const path = tempDbPath();
  const db = openDatabase(path);
  assignSigner(db, 'signer A', [fingerprintOf(key)]);
  assignSigner(db, 'signer B', [fingerprintOf(otherKey)]);
  db.close();
  return path;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed, when it is JSON. */
  json: Record<string, unknown> & { error?: { code: string; message: string } };
}

export async function request(url: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json = {};
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, json };
}

export function post(
  url: string,
  bodyText: string | Buffer,
  contentType = 'application/json',
): Promise<Reply> {
  // With db's types in this file (vouchedDbPath), TS reads Buffer as Uint8Array<ArrayBufferLike>, which
  // fetch's BodyInit does not take; fetch sends a Buffer as it is.
  return request(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: bodyText as RequestInit['body'],
  });
}

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code or signal. */
  exited: Promise<number | NodeJS.Signals | null>;
  /** What it has written to stderr so far: the operator's log. */
  stderr: () => string;
}

/**
 * The built service (`pnpm build` first) as a separate process on a free port, with rate limits
 * out of the way. Resolves once it prints its `listening on` line.
 */
/** Services spawned and not yet exited: a failed assertion must not leave one running after the tests. */
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** Services a test file shares between its tests (spawnService's `shared`): killed after the file. */
const shared = new Set<ChildProcess>();
afterAll(() => {
  for (const child of shared) child.kill('SIGKILL');
  shared.clear();
});

export function spawnService(
  dbPath: string,
  extraArgs: string[] = [],
  {
    sharedByTests = false,
    env = {},
    asUser,
  }: {
    sharedByTests?: boolean;
    env?: Record<string, string>;
    /** Run it as this user (root only), e.g. to meet files it may not write. */
    asUser?: { uid: number; gid: number };
  } = {},
): Promise<ServiceProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm build\` first`);
  const child = spawn(
    process.execPath,
    [
      MAIN,
      '--db',
      dbPath,
      '--port',
      '0',
      '--per-ip-per-minute',
      '1000000',
      '--per-key-per-minute',
      '1000000',
      '--new-keys-per-hour',
      '1000000',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env }, ...(asUser ?? {}) },
  );
  (sharedByTests ? shared : running).add(child);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      shared.delete(child);
      resolve(code ?? signal);
    }),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve({ url: m[1]!, child, exited, stderr: () => stderr });
    });
    exited.then((how) => reject(new Error(`the service exited (${how}) before listening: ${stderr}`)));
  });
}

/** The service's flags that publish a site into `siteDir`, built by `buildCommand`, `debounceMs` after a change. */
export function publishingFlags(siteDir: string, buildCommand: string, debounceMs = 0): string[] {
  return ['--site-dir', siteDir, '--site-build', buildCommand, '--site-debounce', String(debounceMs)];
}
