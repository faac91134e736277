// The OpenAPI document is generated from the routes' own schemas (@fastify/swagger): every status a
// route answers here, in a battery that provokes each kind of answer, is a response the document lists
// for that route (issue 40 item 8: it lacked 503 BUSY on the list and cohorts, 409 DISPUTED on submit).
import {
  type BenchDb,
  openDatabase,
  signKeyRevocation,
  signKeyRotation,
  signRetraction,
} from '@redis-benchdb/db';
import { generateSigningKey } from '@redis-benchdb/result';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppOptions, buildApp } from '../dist/index.js';
import { body, key, legacyBody, otherKey, otherRun, tempDbPath, variant } from './fixtures.js';

const PUBLIC_URL = 'https://bench.example.org';
/** Each answer seen: `METHOD route status`, the route as the app registered it. */
const observed = new Set<string>();
const open: { app: FastifyInstance; db: BenchDb }[] = [];
afterAll(async () => {
  for (const { app, db } of open.splice(0)) {
    await app.close();
    db.close();
  }
});

/** The app over a temp database, on a free port: the routes time sockets, which inject's lack. */
async function service(options: Omit<AppOptions, 'db'> = {}) {
  const db = openDatabase(tempDbPath());
  const app = buildApp({ db, publicUrl: PUBLIC_URL, ...options });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route !== undefined) observed.add(`${request.method} ${route} ${reply.statusCode}`);
  });
  open.push({ app, db });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const send = async (method: string, url: string, payload?: string, type = 'application/json') => {
    const res = await fetch(`${base}${url}`, {
      method,
      ...(payload !== undefined ? { body: payload, headers: { 'content-type': type } } : {}),
    });
    const json = (await res.json()) as { id?: string; error?: { code?: string } };
    return { status: res.status, code: json.error?.code, json };
  };
  return {
    post: (url: string, payload: string, type?: string) => send('POST', url, payload, type),
    get: (url: string) => send('GET', url),
  };
}

const R = '/api/v1/results';
const COHORT = `/api/v1/cohorts/sha256:${'0'.repeat(64)}`;

/** Each answer of POST /api/v1/results but the limits'; the id of a disputed result. */
async function submissions(s: Awaited<ReturnType<typeof service>>) {
  const sent = body(variant(701));
  const { status } = await s.post(R, sent);
  expect(status).toBe(201);
  expect((await s.post(R, sent)).status).toBe(200);
  expect((await s.post(R, '{nope')).status).toBe(400);
  expect((await s.post(R, sent, 'text/plain')).status).toBe(415);
  expect((await s.post(R, 'x'.repeat(300_000))).status).toBe(413);
  const forged = JSON.parse(sent) as { signature: string };
  // Its first character changed for another: swapping the first two, as this did, left the signature
  // as it was whenever they were the same (1 run in 64; CI got a 200).
  forged.signature = `${forged.signature[0] === 'A' ? 'B' : 'A'}${forged.signature.slice(1)}`;
  expect((await s.post(R, JSON.stringify(forged))).status).toBe(422);
  const doc = otherRun(702);
  const taken = await s.post(R, legacyBody(doc, otherKey));
  expect((await s.post(R, legacyBody(doc, key))).code).toBe('DISPUTED');
  return { id: taken.json.id! };
}

describe('the OpenAPI document', () => {
  it('lists every status the routes answer, for the route that answered it', async () => {
    const s = await service({
      bodyLimitBytes: 200_000,
      maxQueuedReads: 1,
      maxQueuedReadsPerNetwork: 1,
      readThreads: 1,
    });
    const { id: disputed } = await submissions(s);
    const mine = (await s.post(R, body(variant(703)))).json.id!;
    const retract = (rid: string, pem: string, origin = PUBLIC_URL) =>
      s.post(`${R}/${rid}/retract`, JSON.stringify(signRetraction(rid, pem, new Date(), { origin })));
    expect((await retract(mine, otherKey.privateKeyPem)).code).toBe('NOT_YOUR_RESULT');
    expect((await retract(mine, key.privateKeyPem, 'https://elsewhere.example.org')).code).toBe(
      'WRONG_SERVICE',
    );
    expect((await retract('0'.repeat(64), key.privateKeyPem)).status).toBe(404);
    expect((await retract(disputed, otherKey.privateKeyPem)).code).toBe('DISPUTED');
    expect((await s.post(`${R}/${mine}/retract`, '{nope')).status).toBe(400);
    expect((await retract(mine, key.privateKeyPem)).status).toBe(200);
    expect((await s.get(`${R}/${mine}`)).status).toBe(410);
    expect((await s.get(`${R}/${disputed}`)).status).toBe(200);
    expect((await s.get(`${R}/${'0'.repeat(64)}`)).status).toBe(404);

    const [a, b, c] = [generateSigningKey(), generateSigningKey(), generateSigningKey()];
    const rotation = JSON.stringify(signKeyRotation(a.privateKeyPem, b.publicKeyPem));
    expect((await s.post('/api/v1/keys/rotations', rotation)).status).toBe(201);
    expect((await s.post('/api/v1/keys/rotations', rotation)).status).toBe(200);
    expect(
      (
        await s.post(
          '/api/v1/keys/rotations',
          JSON.stringify(signKeyRotation(a.privateKeyPem, c.publicKeyPem)),
        )
      ).status,
    ).toBe(409);
    expect(
      (
        await s.post(
          '/api/v1/keys/rotations',
          rotation.replace(/"rotatedAt":"[^"]+"/, '"rotatedAt":"2020-01-01T00:00:00Z"'),
        )
      ).status,
    ).toBe(422);
    expect((await s.post('/api/v1/keys/rotations', '{}')).status).toBe(400);
    const revocation = signKeyRevocation(
      c.privateKeyPem,
      signKeyRevocation(a.privateKeyPem).revokedKeyFingerprint,
    );
    expect((await s.post('/api/v1/keys/revocations', JSON.stringify(revocation))).status).toBe(403);
    expect(
      (
        await s.post(
          '/api/v1/keys/revocations',
          JSON.stringify({ ...revocation, revokedAt: '2020-01-01T00:00:00Z' }),
        )
      ).status,
    ).toBe(422);
    expect((await s.post('/api/v1/keys/revocations', '[]')).status).toBe(400);
    expect(
      (await s.post('/api/v1/keys/revocations', JSON.stringify(signKeyRevocation(a.privateKeyPem)))).status,
    ).toBe(200);
    expect((await s.post(R, body(otherRun(704), a))).code).toBe('KEY_REVOKED');

    expect((await s.get(`${R}?machine=abc`)).status).toBe(400);
    expect((await s.get(`${COHORT}?machine=abc`)).status).toBe(400);
    // More reads at once than the queue holds: the rest are 503 BUSY at once.
    for (const url of [`${R}?limit=5`, COHORT]) {
      const answers = await Promise.all(Array.from({ length: 24 }, () => s.get(url)));
      expect(answers.map((x) => x.status)).toContain(200);
      expect(answers.filter((x) => x.status === 503).map((x) => x.code)).toContain('BUSY');
    }
    expect((await s.get('/api/v1/health')).status).toBe(200);
    expect((await s.get('/api/v1/openapi.json')).status).toBe(200);

    // A disk below the free space it keeps: submissions 507, health 503.
    const full = await service({ minFreeBytes: Number.MAX_SAFE_INTEGER });
    expect((await full.post(R, body(variant(705)))).status).toBe(507);
    expect((await full.get('/api/v1/health')).status).toBe(503);
    // Past the per-network limit: 429 on every route alike.
    const limited = await service({ rateLimit: { perIpPerMinute: 1 } });
    await limited.get('/api/v1/health');
    for (const url of ['/api/v1/health', R, COHORT, `${R}/${mine}`, '/api/v1/openapi.json'])
      expect((await limited.get(url)).status, url).toBe(429);
    for (const url of [R, `${R}/${mine}/retract`, '/api/v1/keys/rotations', '/api/v1/keys/revocations'])
      expect((await limited.post(url, '{}')).status, url).toBe(429);

    const doc = (await s.get('/api/v1/openapi.json')).json as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const undocumented = [...observed].filter((seen) => {
      const [method, route, status] = seen.split(' ') as [string, string, string];
      const path = route.replace(/:(\w+)/g, '{$1}');
      return doc.paths[path]?.[method.toLowerCase()]?.responses[status] === undefined;
    });
    expect(undocumented).toEqual([]);
    // The ones the hand-written document lacked were seen, and are listed.
    for (const seen of [
      'GET /api/v1/results 503',
      'GET /api/v1/cohorts/:fingerprint 503',
      'POST /api/v1/results 409',
    ])
      expect(observed).toContain(seen);
    expect(observed.size).toBeGreaterThan(40);
  });
});
