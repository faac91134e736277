// keygen keeps the key it replaces, and moves results to a new key through the real service
// (issue 40 item 5): keygen --force, keygen --rotate, then retract and revoke with the new key.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { publicKeyFromPrivate } from '@redis-benchdb/result';
import { body, otherRun } from '@redis-benchdb/testing';
import { describe, expect, it } from 'vitest';
import { describeResult, runCli, spawnCli, tempDir, waitFor } from './helpers/cli.js';
import { cliFileHooks } from './helpers/hooks.js';

cliFileHooks();

const INGEST_BIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/** The key in a config dir, as the envelopes fixture takes it. */
function keyIn(configDir: string) {
  const privateKeyPem = readFileSync(path.join(configDir, 'signing-key.pem'), 'utf8');
  return { privateKeyPem, publicKeyPem: publicKeyFromPrivate(privateKeyPem) };
}

const fingerprintIn = (stdout: string) => /fingerprint: (sha256:[0-9a-f]{64})/.exec(stdout)?.[1];

describe('keygen --force', () => {
  it('keeps the old key in a dated backup (mode 0600) and says where', async () => {
    const configDir = await tempDir();
    const first = await runCli(['keygen'], { configDir });
    expect(first.code, describeResult(first)).toBe(0);
    const oldPem = keyIn(configDir).privateKeyPem;
    const second = await runCli(['keygen', '--force'], { configDir });
    expect(second.code, describeResult(second)).toBe(0);
    const backup = /the previous key is kept in (\S+) \(mode 0600\)/.exec(second.stdout)?.[1];
    expect(backup, second.stdout).toMatch(/signing-key\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.pem$/);
    expect(readFileSync(backup!, 'utf8')).toBe(oldPem);
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect(keyIn(configDir).privateKeyPem).not.toBe(oldPem);
    expect(fingerprintIn(second.stdout)).not.toBe(fingerprintIn(first.stdout));
    // A second --force in the same second keeps both earlier keys.
    await runCli(['keygen', '--force'], { configDir });
    expect(readdirSync(configDir).filter((f) => /^signing-key\.\d.*\.pem$/.test(f))).toHaveLength(2);
  });
});

describe('keygen --rotate, then retract and revoke with the new key, through the service', () => {
  it('the new key retracts an old result, and revokes the old key, which retracts the rest', async () => {
    const dir = await tempDir();
    const service = spawnCli(['--db', path.join(dir, 'service.sqlite'), '--port', '0'], {
      command: [process.execPath, INGEST_BIN],
    });
    const listening = /^listening on (http:\/\/\S+)$/m;
    await waitFor(() => listening.test(service.stdout()), 'the service to listen');
    const url = listening.exec(service.stdout())![1]!;

    const configDir = await tempDir();
    const made = await runCli(['keygen'], { configDir });
    const oldFingerprint = fingerprintIn(made.stdout)!;
    const old = keyIn(configDir);
    const ids: string[] = [];
    for (const n of [601, 602, 603]) {
      const res = await fetch(`${url}/api/v1/results`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(otherRun(n), old),
      });
      ids.push(((await res.json()) as { id: string }).id);
    }

    const noServer = await runCli(['keygen', '--rotate'], { configDir });
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('--server');

    const rotated = await runCli(['keygen', '--rotate', '--server', url], { configDir });
    expect(rotated.code, describeResult(rotated)).toBe(0);
    expect(rotated.stdout).toContain(`recorded the new key as the successor`);
    expect(rotated.stdout).toContain(oldFingerprint);
    const backup = /old key: (\S+) /.exec(rotated.stdout)![1]!;
    expect(readFileSync(backup, 'utf8')).toBe(old.privateKeyPem);
    expect(keyIn(configDir).privateKeyPem).not.toBe(old.privateKeyPem);

    const retracted = await runCli(['retract', ids[0]!, '--server', url], { configDir });
    expect(retracted.code, describeResult(retracted)).toBe(0);
    expect(retracted.stdout).toContain(`${ids[0]}: retracted`);
    expect((await fetch(`${url}/api/v1/results/${ids[0]}`)).status).toBe(410);

    const unconfirmed = await runCli(['revoke', oldFingerprint, '--server', url], { configDir });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await fetch(`${url}/api/v1/results/${ids[1]}`)).status).toBe(200);

    const revoked = await runCli(['revoke', oldFingerprint, '--yes', '--server', url], { configDir });
    expect(revoked.code, describeResult(revoked)).toBe(0);
    expect(revoked.stdout).toContain(`${oldFingerprint}: revoked on ${url}; 2 results retracted`);
    for (const id of ids) expect((await fetch(`${url}/api/v1/results/${id}`)).status).toBe(410);
    service.child.kill('SIGTERM');
    await service.done;
  });
});
