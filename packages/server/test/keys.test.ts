// Keys that can be rotated and revoked (issue 40 item 5), through the real service: a rotation signed
// by the old key lets the new key retract the old key's results; a revocation, signed by the key or
// by its successor, retracts every result of the key and the key signs nothing more there.
import { signKeyRevocation, signKeyRotation, signRetraction } from '@redis-benchdb/db';
import { generateSigningKey, type SigningKey } from '@redis-benchdb/result';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../dist/index.js';
import { body, otherRun, post, request, tempDbPath, variant } from './fixtures.js';

let server: RunningServer;
let api: string;
beforeAll(async () => {
  server = await startServer({ dbPath: tempDbPath() });
  api = `${server.url}/api/v1`;
});
afterAll(() => server.close());

const submit = async (n: number, k: SigningKey) => {
  const reply = await post(`${api}/results`, body(otherRun(n), k));
  expect(reply.status, reply.text).toBe(201);
  return reply.json.id as string;
};
const retract = (id: string, k: SigningKey) =>
  post(
    `${api}/results/${id}/retract`,
    JSON.stringify(signRetraction(id, k.privateKeyPem, new Date(), { origin: server.url })),
  );
const status = async (id: string) => (await request(`${api}/results/${id}`)).status;
const rotate = (old: SigningKey, next: SigningKey) =>
  post(`${api}/keys/rotations`, JSON.stringify(signKeyRotation(old.privateKeyPem, next.publicKeyPem)));
/** An answer as its status and error code. */
const answer = (reply: { status: number; json: { error?: { code?: string } } }) => ({
  status: reply.status,
  code: reply.json.error?.code,
});

describe('key rotation and revocation, at the service', () => {
  it('after a rotation the new key retracts an old result; before it, 403', async () => {
    const [old, next] = [generateSigningKey(), generateSigningKey()];
    const id = await submit(501, old);
    const early = await retract(id, next);
    expect({ status: early.status, code: early.json.error?.code }).toEqual({
      status: 403,
      code: 'NOT_YOUR_RESULT',
    });

    const rotation = signKeyRotation(old.privateKeyPem, next.publicKeyPem);
    const recorded = await post(`${api}/keys/rotations`, JSON.stringify(rotation));
    expect(recorded.status, recorded.text).toBe(201);
    expect(recorded.json).toMatchObject({ alreadyRecorded: false });
    // Sent again (to this service, or by another holder of it): nothing changes.
    expect((await post(`${api}/keys/rotations`, JSON.stringify(rotation))).status).toBe(200);

    const byNew = await retract(id, next);
    expect(byNew.status, byNew.text).toBe(200);
    expect(await status(id)).toBe(410);

    // A key is rotated once: whoever else holds the old key cannot name a successor of their own.
    const thief = generateSigningKey();
    expect(answer(await rotate(old, thief))).toEqual({ status: 409, code: 'ALREADY_ROTATED' });
    // Nor can a third key speak for it.
    const other = await submit(502, old);
    expect((await retract(other, thief)).json.error?.code).toBe('NOT_YOUR_RESULT');
    expect(await status(other)).toBe(200);
  });

  it('a revocation by the key itself retracts every result it signed, and it signs nothing more', async () => {
    const leaked = generateSigningKey();
    const bystander = generateSigningKey();
    const ids = [await submit(511, leaked), await submit(512, leaked), await submit(513, leaked)];
    const kept = await submit(514, bystander);
    const reply = await post(
      `${api}/keys/revocations`,
      JSON.stringify(signKeyRevocation(leaked.privateKeyPem)),
    );
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json).toMatchObject({ alreadyRevoked: false, keptDisputed: [] });
    expect((reply.json.retracted as string[]).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(await status(id)).toBe(410);
    expect(await status(kept)).toBe(200);
    const listed = (await request(`${api}/results?limit=100`)).json.results as { id: string }[];
    expect(listed.map((r) => r.id)).not.toContain(ids[0]);

    // Whoever holds the leaked key gets nothing more in: no new result, no rotation, no retraction.
    const late = await post(`${api}/results`, body(otherRun(515), leaked));
    expect({ status: late.status, code: late.json.error?.code }).toEqual({
      status: 403,
      code: 'KEY_REVOKED',
    });
    const rotate = await post(
      `${api}/keys/rotations`,
      JSON.stringify(signKeyRotation(leaked.privateKeyPem, generateSigningKey().publicKeyPem)),
    );
    expect(rotate.json.error?.code).toBe('KEY_REVOKED');
    expect((await retract(ids[0]!, leaked)).json.error?.code).toBe('KEY_REVOKED');
    // Sent again: already revoked, nothing more retracted.
    const again = await post(
      `${api}/keys/revocations`,
      JSON.stringify(signKeyRevocation(leaked.privateKeyPem)),
    );
    expect(again.json).toMatchObject({ alreadyRevoked: true, retracted: [] });
  });

  it('the successor may revoke the old key; any other key is refused (403 NOT_YOUR_KEY)', async () => {
    const [old, next, stranger] = [generateSigningKey(), generateSigningKey(), generateSigningKey()];
    const id = await submit(521, old);
    const oldFingerprint = signKeyRevocation(old.privateKeyPem).revokedKeyFingerprint;
    const byStranger = await post(
      `${api}/keys/revocations`,
      JSON.stringify(signKeyRevocation(stranger.privateKeyPem, oldFingerprint)),
    );
    expect({ status: byStranger.status, code: byStranger.json.error?.code }).toEqual({
      status: 403,
      code: 'NOT_YOUR_KEY',
    });
    expect(await status(id)).toBe(200);
    await post(
      `${api}/keys/rotations`,
      JSON.stringify(signKeyRotation(old.privateKeyPem, next.publicKeyPem)),
    );
    const bySuccessor = await post(
      `${api}/keys/revocations`,
      JSON.stringify(signKeyRevocation(next.privateKeyPem, oldFingerprint)),
    );
    expect(bySuccessor.status, bySuccessor.text).toBe(200);
    expect(bySuccessor.json.retracted).toEqual([id]);
    expect(await status(id)).toBe(410);
    // The successor itself is not revoked.
    expect((await post(`${api}/results`, body(variant(522), next))).status).toBe(201);
  });

  it('refuses a forged or malformed statement: 422 BAD_SIGNATURE, 400 MALFORMED_REQUEST', async () => {
    const [a, b] = [generateSigningKey(), generateSigningKey()];
    const forged = {
      ...signKeyRotation(a.privateKeyPem, b.publicKeyPem),
      rotatedAt: new Date(0).toISOString(),
    };
    const bad = await post(`${api}/keys/rotations`, JSON.stringify(forged));
    expect({ status: bad.status, code: bad.json.error?.code }).toEqual({
      status: 422,
      code: 'BAD_SIGNATURE',
    });
    expect(answer(await rotate(a, a))).toEqual({ status: 400, code: 'MALFORMED_REQUEST' });
    expect(
      (await post(`${api}/keys/revocations`, '{"schema":"redis-benchdb/key-revocation.v1"}')).status,
    ).toBe(400);
    expect((await post(`${api}/keys/revocations`, '{nope')).json.error?.code).toBe('MALFORMED_REQUEST');
  });
});
