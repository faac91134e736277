import { createPrivateKey, sign } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type LaunchedServer, suiteCells } from '@redis-benchdb/engine';
import {
  canonicalJson,
  type EnvelopeV1,
  keyFingerprint,
  rawPublicKey,
  validateResult,
} from '@redis-benchdb/result';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, describeResult, readEnvelope, runCli, tempDir, testServer } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

// keygen, run --out (a signed envelope, redis-benchdb/envelope.v1) and verify, with real files, a
// real redis-server and the spawned CLI. Each test names its own REDIS_BENCHDB_CONFIG_DIR (a temp
// dir), so the keys made here never touch ~/.config.

const FINGERPRINT = /sha256:[0-9a-f]{64}/;

cliFileHooks();

/** A message for a person: no stack frames, no "unexpected failure" of the CLI. */
function expectNoStackTrace(r: CliResult): void {
  const all = `${r.stdout}\n${r.stderr}`;
  expect(all).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(all).not.toContain('unexpected failure');
}

describe('keygen', () => {
  it('creates the key pair (private mode 0600), prints the fingerprint and never the private key', async () => {
    // A config dir that does not exist yet: keygen makes it, private to the user.
    const configDir = path.join(await tempDir(), 'nested', 'redis-benchdb');
    const privatePath = path.join(configDir, 'signing-key.pem');
    const publicPath = path.join(configDir, 'signing-key.pub.pem');

    const first = await runCli(['keygen'], { configDir });
    expect(first.code, describeResult(first)).toBe(0);
    expect((await readdir(configDir)).sort()).toEqual(['signing-key.pem', 'signing-key.pub.pem']);
    expect((await stat(privatePath)).mode & 0o777).toBe(0o600);
    expect((await stat(configDir)).mode & 0o077).toBe(0);
    const privatePem = await readFile(privatePath, 'utf8');
    const publicPem = await readFile(publicPath, 'utf8');
    expect(privatePem).toContain('BEGIN PRIVATE KEY');
    expect(publicPem).toContain('BEGIN PUBLIC KEY');
    const fingerprint = keyFingerprint(publicPem);
    expect(first.stdout).toContain(fingerprint);
    expect(first.stdout).toContain(privatePath);
    // Neither the PEM armour nor the key's base64 body is printed anywhere.
    const privateBody = privatePem.split('\n').filter((l) => l && !l.startsWith('-----'));
    for (const out of [first.stdout, first.stderr]) {
      expect(out).not.toContain('PRIVATE KEY');
      for (const line of privateBody) expect(out).not.toContain(line);
    }

    // A second keygen refuses to replace it, says how, and leaves it as it was.
    const second = await runCli(['keygen'], { configDir });
    expect(second.code, describeResult(second)).toBe(1);
    expect(second.stderr).toContain('--force');
    expect(second.stderr).toContain(fingerprint);
    expect(second.stderr).not.toContain('PRIVATE KEY');
    expectNoStackTrace(second);
    expect(await readFile(privatePath, 'utf8')).toBe(privatePem);
    expect(await readFile(publicPath, 'utf8')).toBe(publicPem);

    // --force replaces it: a new key, a new fingerprint, still mode 0600.
    const forced = await runCli(['keygen', '--force', '--json'], { configDir });
    expect(forced.code, describeResult(forced)).toBe(0);
    expect(forced.stdout).not.toContain('PRIVATE KEY');
    const info = JSON.parse(forced.stdout) as {
      privateKeyPath: string;
      keyFingerprint: string;
      publicKeyPem: string;
    };
    expect(info.privateKeyPath).toBe(privatePath);
    expect(info.keyFingerprint).toMatch(FINGERPRINT);
    expect(info.keyFingerprint).not.toBe(fingerprint);
    expect(await readFile(privatePath, 'utf8')).not.toBe(privatePem);
    expect(await readFile(publicPath, 'utf8')).toBe(info.publicKeyPem);
    expect(keyFingerprint(info.publicKeyPem)).toBe(info.keyFingerprint);
    expect((await stat(privatePath)).mode & 0o777).toBe(0o600);
  });
});

describe('run --out and verify', () => {
  let server: LaunchedServer;
  let configDir: string;
  let dir: string;
  let file: string;
  let fingerprint: string;
  let text: string;

  beforeAll(async () => {
    server = await testServer();
    configDir = await tempDir('rbdb-config-');
    dir = await tempDir();
    file = path.join(dir, 'r.json');
    const keygen = await runCli(['keygen', '--json'], { configDir });
    expect(keygen.code, describeResult(keygen)).toBe(0);
    fingerprint = (JSON.parse(keygen.stdout) as { keyFingerprint: string }).keyFingerprint;
    const r = await runCli(
      [
        'run',
        '-p',
        String(server.port),
        '-t',
        'set,get',
        '-n',
        '2000',
        '-r',
        '100',
        '-c',
        '10',
        '--out',
        file,
      ],
      { configDir },
    );
    expect(r.code, describeResult(r)).toBe(0);
    // The text lines name the cells the envelope holds.
    const labels = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.slice(0, l.indexOf(':')));
    expect(labels).toEqual(['SET', 'GET']);
    expect(r.stderr).toContain(`wrote ${file}, signed by ${fingerprint}`);
    text = await readFile(file, 'utf8');
  });

  it('writes an envelope signed with the stored key, whose payload is a valid result', async () => {
    const { envelope, payload } = await readEnvelope(file);
    expect(Object.keys(envelope).sort()).toEqual([
      'keyFingerprint',
      'payload',
      'publicKey',
      'schema',
      'signature',
    ]);
    expect(envelope.schema).toBe('redis-benchdb/envelope.v1');
    expect(envelope.keyFingerprint).toBe(fingerprint);
    expect(envelope.publicKey).toBe(
      rawPublicKey(await readFile(path.join(configDir, 'signing-key.pub.pem'), 'utf8')).toString('base64'),
    );
    // The payload is canonical JSON (RFC 8785) of a valid result.v1 with the run's cells.
    expect(envelope.payload).toBe(canonicalJson(payload));
    const valid = validateResult(payload);
    expect(valid.ok, JSON.stringify(valid)).toBe(true);
    expect(payload.cells.map((c) => c.label)).toEqual(['SET', 'GET']);
    expect(payload.cells.map((c) => c.completed)).toEqual([2000, 2000]);
    expect(payload.target.port).toBe(server.port);
    // The envelope never carries the private key.
    expect(text).not.toContain('PRIVATE KEY');
    expect(await readdir(dir)).toEqual(['r.json']);
  });

  it('verify: exit 0, names the key fingerprint', async () => {
    const v = await runCli(['verify', file], { configDir });
    expect(v.code, describeResult(v)).toBe(0);
    expect(v.stdout).toBe(`${file}: ok, signed by ${fingerprint}, 2 cells\n`);
    const j = await runCli(['verify', '--json', file], { configDir });
    expect(j.code, describeResult(j)).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual([
      { file, ok: true, keyFingerprint: fingerprint, cells: 2, suite: null },
    ]);
    // Verifying needs no key of one's own: the envelope carries the public key.
    const elsewhere = await runCli(['verify', file], { configDir: await tempDir('rbdb-config-') });
    expect(elsewhere.code, describeResult(elsewhere)).toBe(0);
  });

  it('one changed byte anywhere fails verify with a clear reason', async () => {
    const bytes = Buffer.from(text, 'utf8');
    const positions = new Set<number>();
    // 32 positions spread evenly over the whole file...
    for (let i = 0; i < 32; i++) positions.add(Math.floor(((i + 0.5) * bytes.length) / 32));
    // ...and the places that matter most.
    const at = (needle: string, from = 0) => {
      const i = text.indexOf(needle, from);
      expect(i, needle).toBeGreaterThanOrEqual(0);
      return Buffer.byteLength(text.slice(0, i), 'utf8');
    };
    const payloadDigit = at('\\"median\\":') + '\\"median\\":'.length; // a throughput digit
    const completedDigit = at('\\"completed\\":2000') + '\\"completed\\":'.length;
    const sigStart = at('"signature": "') + '"signature": "'.length;
    const keyStart = at('"publicKey": "') + '"publicKey": "'.length;
    const fpStart = at('"keyFingerprint": "') + '"keyFingerprint": "'.length;
    const targeted = {
      payloadDigit,
      completedDigit,
      schemaValue: at('envelope.v1'),
      payloadFirst: at('"payload": "') + '"payload": "'.length + 1,
      signatureFirst: sigStart,
      signatureMiddle: sigStart + 40,
      keyFirst: keyStart,
      keyMiddle: keyStart + 20,
      fingerprintLast: fpStart + 'sha256:'.length + 63,
      firstByte: 0,
      lastBrace: bytes.lastIndexOf('}'),
    };
    for (const p of Object.values(targeted)) positions.add(p);
    expect(positions.size).toBeGreaterThanOrEqual(40);

    /** Another byte: a digit stays a digit and a letter a letter (still JSON, still base64). */
    const other = (b: number): number => {
      const c = String.fromCharCode(b);
      if (/[0-9]/.test(c)) return 0x30 + ((b - 0x30 + 1) % 10);
      if (/[a-z]/.test(c)) return b - 0x20;
      if (/[A-Z]/.test(c)) return b + 0x20;
      return b === 0x78 ? 0x79 : 0x78; // 'x', or 'y' for an 'x'
    };
    const files: { file: string; pos: number }[] = [];
    for (const pos of [...positions].sort((a, b) => a - b)) {
      const changed = Buffer.from(bytes);
      changed[pos] = other(bytes[pos]!);
      expect(changed[pos]).not.toBe(bytes[pos]);
      const f = path.join(dir, `changed-at-${pos}.json`);
      await writeFile(f, changed);
      files.push({ file: f, pos });
    }

    // Every file fails, each with a reason, in one run...
    const j = await runCli(['verify', '--json', ...files.map((f) => f.file)], { configDir });
    expect(j.code, describeResult(j)).toBe(1);
    const outcomes = JSON.parse(j.stdout) as { file: string; ok: boolean; code?: string; reason?: string }[];
    expect(outcomes.map((o) => o.file)).toEqual(files.map((f) => f.file));
    for (const o of outcomes) {
      expect(o.ok, `${o.file} verified after a change`).toBe(false);
      expect(o.reason, o.file).toMatch(/\w{3,}/);
      expect(o.reason).not.toMatch(/\n\s+at /);
    }
    const outcomeAt = (pos: number) => outcomes[files.findIndex((f) => f.pos === pos)]!;
    const reasonAt = (pos: number) => outcomeAt(pos).reason!;
    expect(outcomeAt(targeted.payloadDigit).code).toBe('BAD_SIGNATURE');
    expect(outcomeAt(targeted.lastBrace).code).toBe('MALFORMED_JSON');
    expect(reasonAt(targeted.payloadDigit)).toMatch(/signature does not match the payload/);
    expect(reasonAt(targeted.completedDigit)).toMatch(/signature does not match the payload/);
    expect(reasonAt(targeted.signatureMiddle)).toMatch(/signature/);
    expect(reasonAt(targeted.keyMiddle)).toMatch(/fingerprint does not match|publicKey/);
    expect(reasonAt(targeted.fingerprintLast)).toMatch(/fingerprint/i);
    expect(reasonAt(targeted.lastBrace)).toMatch(/not JSON/);

    // ...and in text mode each file gets its FAILED line.
    const t = await runCli(['verify', ...files.map((f) => f.file)], { configDir });
    expect(t.code, describeResult(t)).toBe(1);
    expect(t.stderr).toBe('');
    for (const f of files) expect(t.stdout).toContain(`${f.file}: FAILED: `);
    expect(t.stdout).not.toContain(': ok, signed by');
    expectNoStackTrace(t);

    // One file at a time, as a user would run it: exit 1 each time.
    const alone = [targeted.payloadDigit, targeted.signatureFirst, targeted.keyFirst, targeted.firstByte];
    const results = await Promise.all(
      alone.map((pos) => runCli(['verify', files.find((f) => f.pos === pos)!.file], { configDir })),
    );
    for (const r of results) {
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stdout).toMatch(/: FAILED: \S/);
      expectNoStackTrace(r);
    }
  });

  it('a file that is not JSON, a cut-short file, a missing file: exit 1, each said plainly', async () => {
    const notJson = path.join(dir, 'not-json.json');
    const cut = path.join(dir, 'cut.json');
    const missing = path.join(dir, 'missing.json');
    await writeFile(notJson, 'this is not a result\n');
    await writeFile(cut, text.slice(0, Math.floor(text.length / 2)));
    for (const f of [notJson, cut]) {
      const r = await runCli(['verify', f], { configDir });
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stdout).toMatch(new RegExp(`^${f.replace(/[.]/g, '\\.')}: FAILED: not JSON`));
      expectNoStackTrace(r);
    }
    const m = await runCli(['verify', missing], { configDir });
    expect(m.code, describeResult(m)).toBe(1);
    expect(m.stdout).toContain(`${missing}: FAILED: `);
    expect(m.stdout).toMatch(/no such file/);
    expectNoStackTrace(m);
    // No file at all is a usage error.
    const none = await runCli(['verify'], { configDir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/missing required argument/);
  });

  it('two files, one good and one bad: exit 1, both reported', async () => {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, text.replace('\\"completed\\":2000', '\\"completed\\":2001'));
    const r = await runCli(['verify', file, bad], { configDir });
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stdout).toContain(`${file}: ok, signed by ${fingerprint}`);
    expect(r.stdout).toContain(`${bad}: FAILED: signature does not match the payload`);
    expectNoStackTrace(r);
  });

  it('a correct signature does not save a payload that is not canonical or not a valid result', async () => {
    const { envelope, payload } = await readEnvelope(file);
    const key = createPrivateKey(await readFile(path.join(configDir, 'signing-key.pem'), 'utf8'));
    const resign = (p: string): EnvelopeV1 => ({
      ...envelope,
      payload: p,
      signature: sign(null, Buffer.from(p, 'utf8'), key).toString('base64'),
    });
    const notCanonical = path.join(dir, 'not-canonical.json');
    const invalid = path.join(dir, 'invalid.json');
    await writeFile(notCanonical, JSON.stringify(resign(JSON.stringify(payload, null, 1))));
    const { environment: _dropped, ...withoutEnvironment } = payload;
    await writeFile(invalid, JSON.stringify(resign(canonicalJson(withoutEnvironment))));
    const r = await runCli(['verify', '--json', notCanonical, invalid], { configDir });
    expect(r.code, describeResult(r)).toBe(1);
    const [a, b] = JSON.parse(r.stdout) as { ok: boolean; reason: string }[];
    expect(a).toMatchObject({ ok: false, reason: expect.stringMatching(/not canonical/) });
    expect(b).toMatchObject({ ok: false, reason: expect.stringMatching(/result schema.*environment/) });
  });

  // Issue 11 rows 4 and 5: JSON.parse keeps the last of two keys, and the first could be what a
  // reader shows; a payload nested 100,000 deep overflowed the stack of a recursive check.
  it('a file with a key twice (in any spelling) or nested too deep: exit 1, said plainly', async () => {
    const { envelope } = await readEnvelope(file);
    const key = createPrivateKey(await readFile(path.join(configDir, 'signing-key.pem'), 'utf8'));
    const twoPayloads = path.join(dir, 'two-payloads.json');
    const forged = envelope.payload.replace('"completed":2000', '"completed":9999');
    await writeFile(
      twoPayloads,
      `{"p\\u0061yload":${JSON.stringify(forged)},${JSON.stringify(envelope).slice(1)}`,
    );
    const deep = path.join(dir, 'deep.json');
    const p = `{"cells":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const signature = sign(null, Buffer.from(p, 'utf8'), key).toString('base64');
    await writeFile(deep, JSON.stringify({ ...envelope, payload: p, signature }));
    const r = await runCli(['verify', twoPayloads, deep], { configDir });
    expect(r.code, describeResult(r)).toBe(1);
    expect(r.stdout).toContain(
      `${twoPayloads}: FAILED: the envelope has the key "payload" twice at /payload (spelt "p\\u0061yload" and "payload")`,
    );
    expect(r.stdout).toContain(`${deep}: FAILED: the payload nests objects and arrays more than 32 deep`);
    expectNoStackTrace(r);
  });

  it('a private key readable by others is refused before the run starts', async () => {
    const keyFile = path.join(configDir, 'signing-key.pem');
    const out = path.join(dir, 'never.json');
    await chmod(keyFile, 0o644);
    try {
      const r = await runCli(['run', '-p', String(server.port), '-t', 'get', '-n', '1000', '--out', out], {
        configDir,
      });
      expect(r.code, describeResult(r)).toBe(1);
      expect(r.stderr).toMatch(/readable by other users.*chmod 600/);
      expect(r.stdout).toBe('');
      expect(existsSync(out)).toBe(false);
      expectNoStackTrace(r);
    } finally {
      await chmod(keyFile, 0o600);
    }
  });
});

// The headline check, `run --profile quick --out r.json` then `verify r.json`, made fast:
// one trial of 0.2 s per cell and no warm-up instead of the profile's 3 x (0.3 + 1) s.
describe('the quick profile, signed and verified', () => {
  it('every cell of standard-v1/quick, cross-checked, GETs all hits, verified', async () => {
    const server = await testServer();
    const configDir = await tempDir('rbdb-config-');
    const out = path.join(await tempDir(), 'quick.json');
    const overrides = ['--trials', '1', '--duration', '0.2', '--warmup', '0'];
    const r = await runCli(
      ['run', '-p', String(server.port), '--profile', 'quick', ...overrides, '-q', '--out', out],
      { configDir },
    );
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stderr).toContain('created a signing key');

    const expected = suiteCells('standard-v1', 'quick', { durationSec: 0.2, warmupSec: 0 });
    const v = await runCli(['verify', out], { configDir });
    expect(v.code, describeResult(v)).toBe(0);
    expect(v.stdout).toMatch(
      new RegExp(`ok, signed by sha256:[0-9a-f]{64}, ${expected.length} cells, suite standard-v1/quick`),
    );

    const { payload } = await readEnvelope(out);
    expect(validateResult(payload).ok).toBe(true);
    expect(payload.suite).toEqual({ id: 'standard-v1', version: 2, profile: 'quick' });
    expect(payload.incomplete).toBe(false);
    expect(expected).toHaveLength(30);
    expect(payload.cells.map((c) => c.label)).toEqual(expected.map((c) => c.label));
    for (const c of payload.cells) {
      expect(c.trialCount, c.label).toBe(1);
      expect(c.workload).toMatchObject({ durationSec: 0.2, warmupSec: 0 });
      expect(c.completed, c.label).toBeGreaterThan(0);
      expect(c.errors, c.label).toEqual({});
      expect(c.crossCheck.status, `${c.label}: ${JSON.stringify(c.crossCheck)}`).toBe('match');
      // The suite preloads its key spaces: every read hits.
      if (c.test === 'GET') expect(c.hitRatio, c.label).toBe(1);
    }
    expect(payload.cells.filter((c) => c.test === 'GET').length).toBeGreaterThanOrEqual(8);
    expect(payload.cleanup.error).toBeNull();
  });
});
