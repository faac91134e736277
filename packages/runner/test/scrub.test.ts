import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { type ResultV1, validateResult } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import {
  homeRelative,
  MITIGATIONS_LEFT_OUT,
  type Redactions,
  redactionNote,
  scrubConfigLine,
  scrubResult,
} from '../src/scrub.js';

describe('what a result publishes of what the user typed', () => {
  it('redacts the values of secret directives, and says which', () => {
    const said: Redactions = new Set();
    expect(scrubConfigLine('masterauth Hunter2-secret', said)).toBe('masterauth <redacted>');
    expect(scrubConfigLine('requirepass "two words"', said)).toBe('requirepass <redacted>');
    expect(scrubConfigLine('masteruser replicator', said)).toBe('masteruser <redacted>');
    expect(scrubConfigLine('tls-key-file-pass k3y', said)).toBe('tls-key-file-pass <redacted>');
    expect(scrubConfigLine('tls-client-key-file-pass k3y', said)).toBe('tls-client-key-file-pass <redacted>');
    expect(scrubConfigLine('primaryauth x', said)).toBe('primaryauth <redacted>');
    // A fork's setting named like a secret is taken for one.
    expect(scrubConfigLine('--cluster-announce-auth-token abc', said)).toBe(
      '--cluster-announce-auth-token <redacted>',
    );
    expect([...said]).toContain('the value of masterauth');
    expect(redactionNote(said)).toMatch(/^kept out of the published result: the value of masterauth; /);
  });

  it("keeps an ACL user's rules but none of its passwords or hashes", () => {
    const said: Redactions = new Set();
    expect(scrubConfigLine('user alice on >s3cret <old #abc123 ~* +@all', said)).toBe(
      'user alice on ><redacted> <<redacted> #<redacted> ~* +@all',
    );
    expect([...said]).toEqual(['the passwords of an ACL user line']);
    expect(scrubConfigLine('user bob on nopass ~* +@all')).toBe('user bob on nopass ~* +@all');
  });

  it('leaves other lines as they were, and says nothing', () => {
    const said: Redactions = new Set();
    expect(scrubConfigLine('io-threads 4', said)).toBe('io-threads 4');
    expect(scrubConfigLine('maxmemory-policy allkeys-lru', said)).toBe('maxmemory-policy allkeys-lru');
    expect(said.size).toBe(0);
    expect(redactionNote(said)).toBeNull();
  });

  it('shows paths under the home folder from ~, and no other path', () => {
    const said: Redactions = new Set();
    const home = '/home/alice';
    expect(homeRelative('/home/alice/redis-a/redis-server', said, home)).toBe('~/redis-a/redis-server');
    expect(homeRelative('redis (/home/alice/b/redis-server) · x', said, home)).toBe(
      'redis (~/b/redis-server) · x',
    );
    // Another user whose name starts the same is not the home folder.
    expect(homeRelative('/home/alicea/x /usr/bin/redis-server', said, home)).toBe(
      '/home/alicea/x /usr/bin/redis-server',
    );
    expect(homeRelative('/srv/x', new Set(), '/')).toBe('/srv/x');
    expect([...said]).toEqual(['your home folder (shown as ~)']);
  });
});

describe('a result as it is signed', () => {
  const example = JSON.parse(
    readFileSync(new URL('../../../schemas/examples/valid/suite-run.json', import.meta.url), 'utf8'),
  ) as ResultV1;

  it('has no CPU vulnerability list, says why, and still validates', () => {
    const doc = structuredClone(example);
    doc.environment.client.mitigations = { spec_store_bypass: 'Vulnerable', meltdown: 'Not affected' };
    const out = scrubResult(doc);
    expect(out.environment.client.mitigations).toBeNull();
    expect(out.environment.client.unknown.mitigations).toBe(MITIGATIONS_LEFT_OUT);
    expect(JSON.stringify(out)).not.toContain('spec_store_bypass');
    expect(validateResult(out).ok).toBe(true);
    // What is fingerprinted is untouched.
    expect(out.environment.fingerprint).toBe(doc.environment.fingerprint);
    expect(out.environment.client.os).toEqual(doc.environment.client.os);
  });

  it('shows a socket path and an error under the home folder from ~, and says so', () => {
    const doc = structuredClone(example);
    doc.target.socket = `${homedir()}/run/redis.sock`;
    doc.error = `cannot open ${homedir()}/x`;
    const said: Redactions = new Set();
    const out = scrubResult(doc, said);
    expect(out.target.socket).toBe('~/run/redis.sock');
    expect(out.error).toBe('cannot open ~/x');
    expect(redactionNote(said)).toMatch(/your home folder \(shown as ~\)/);
  });
});
