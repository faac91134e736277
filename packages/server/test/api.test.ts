import { once } from 'node:events';
import { connect } from 'node:net';
import { type BenchDb, count, openDatabase, SCHEMA_VERSION, signRetraction } from '@redis-benchdb/db';
import { canonicalJson } from '@redis-benchdb/result';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type ServeOptions, startServer } from '../dist/index.js';
import {
  body,
  envelope,
  key,
  otherKey,
  otherRun,
  post,
  request,
  signPayload,
  suiteRun,
  tempDbPath,
  variant,
} from './fixtures.js';

/** The real service on a free port over a temp file, and a read-only connection to count its rows. */
async function service(opts: Omit<ServeOptions, 'dbPath'> = {}) {
  const dbPath = tempDbPath();
  const server = await startServer({ dbPath, ...opts });
  const reader = openDatabase(dbPath, { readonly: true });
  running.push({ server, reader });
  return { server, reader, results: `${server.url}/api/v1/results` };
}

const running: { server: RunningServer; reader: BenchDb }[] = [];
afterAll(async () => {
  for (const { server, reader } of running.splice(0)) {
    reader.close();
    await server.close();
  }
});

describe('POST /api/v1/results', () => {
  let s: Awaited<ReturnType<typeof service>>;
  beforeAll(async () => {
    s = await service();
  });

  /** Post, expect this status and error code, and expect the database untouched. */
  async function expectRefused(sent: string, status: number, code: string, says: string | RegExp) {
    const before = count(s.reader);
    const reply = await post(s.results, sent);
    expect({ status: reply.status, code: reply.json.error?.code }, reply.text).toEqual({ status, code });
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    expect(reply.json.error?.message).toMatch(says);
    expect(count(s.reader)).toEqual(before);
  }

  it('stores a signed result (201) and GET gives back the envelope it verified, canonical', async () => {
    const sent = body(variant(1));
    const reply = await post(s.results, sent);
    expect(reply.status).toBe(201);
    const id = reply.json.id as string;
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    // The first of its workload: ranked alone (rank.test.ts ranks a cohort).
    expect(reply.json).toEqual({ id, pagePath: `/results/${id}/`, ranks: expect.any(Array) });
    expect((reply.json.ranks as { overall: unknown }[])[0]!.overall).toMatchObject({
      size: 1,
      place: 1,
      percentile: null,
    });
    expect(reply.headers.get('location')).toBe(`/api/v1/results/${id}`);
    expect(count(s.reader)).toMatchObject({ results: 1, cells: 2 });

    const got = await request(`${s.results}/${id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toMatch(/^application\/json/);
    expect(got.text).toBe(canonicalJson(JSON.parse(sent)));
  });

  it('answers a duplicate with 200 and the same id, writing nothing', async () => {
    const sent = body(variant(2));
    const first = await post(s.results, sent);
    expect(first.status).toBe(201);
    const before = count(s.reader);
    const again = await post(s.results, sent);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ...first.json, duplicate: true });
    // The same result in other whitespace is the same result.
    const compact = await post(s.results, JSON.stringify(JSON.parse(sent)));
    expect(compact.json).toEqual({ ...first.json, duplicate: true });
    expect(count(s.reader)).toEqual(before);
  });

  it('gives submissions committed together their own answers', async () => {
    // Sent at once, these share one transaction (see IngestQueue): refusals and duplicates in it
    // must neither undo nor block their neighbours.
    const before = count(s.reader).results;
    const same = body(variant(20));
    const sent = [same, same, same, body(variant(21)), '{"broken', body(variant(22)), same];
    const replies = await Promise.all(sent.map((b) => post(s.results, b)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((x, i) => sent[i] === same && x === 201)).toHaveLength(1);
    expect(statuses.filter((x, i) => sent[i] === same && x === 200)).toHaveLength(3);
    expect(new Set(replies.filter((_, i) => sent[i] === same).map((r) => r.json.id)).size).toBe(1);
    expect([statuses[3], statuses[4], statuses[5]]).toEqual([201, 400, 201]);
    expect(count(s.reader).results).toBe(before + 3);
  });

  it('refuses malformed JSON with 400', async () => {
    await expectRefused('{"schema": "redis-benchdb/envelope.v1",', 400, 'MALFORMED_JSON', /malformed JSON/);
    await expectRefused('', 400, 'MALFORMED_JSON', /malformed JSON/);
  });

  it('refuses a document of the wrong schema with 422, saying what it is', async () => {
    await expectRefused(JSON.stringify(suiteRun()), 422, 'UNSUPPORTED_SCHEMA', /unsigned result/);
    const { signature: _, ...unsigned } = envelope(variant(3));
    await expectRefused(JSON.stringify(unsigned), 422, 'INVALID_ENVELOPE', /signature/);
    const noCells = signPayload(canonicalJson({ ...suiteRun(), cells: 'none' }));
    await expectRefused(noCells, 422, 'INVALID_RESULT', /cells/);
  });

  it('refuses an unknown schema version with 422, naming the supported ones', async () => {
    const v2 = { ...envelope(variant(4)), schema: 'redis-benchdb/envelope.v2' };
    await expectRefused(JSON.stringify(v2), 422, 'UNSUPPORTED_SCHEMA', /envelope\.v2.*envelope\.v1/);
    const resultV2 = signPayload(canonicalJson({ ...suiteRun(), schema: 'redis-benchdb/result.v2' }));
    await expectRefused(resultV2, 422, 'UNSUPPORTED_SCHEMA', /result\.v2.*result\.v1/);
  });

  it('refuses a signature that is not over this payload with 422', async () => {
    const mine = envelope(variant(5));
    const theirs = envelope(variant(6), otherKey);
    const swapped = { ...mine, signature: theirs.signature };
    await expectRefused(JSON.stringify(swapped), 422, 'BAD_SIGNATURE', /signature does not match/);
    const wrongKey = { ...mine, publicKey: theirs.publicKey, keyFingerprint: theirs.keyFingerprint };
    await expectRefused(JSON.stringify(wrongKey), 422, 'BAD_SIGNATURE', /signature does not match/);
    const wrongFingerprint = { ...mine, keyFingerprint: theirs.keyFingerprint };
    await expectRefused(JSON.stringify(wrongFingerprint), 422, 'BAD_SIGNATURE', /fingerprint/);
  });

  it('refuses a payload with one byte changed after signing with 422', async () => {
    const env = envelope(variant(7));
    const at = env.payload.indexOf('"port":6379') + '"port":637'.length;
    const tampered = { ...env, payload: `${env.payload.slice(0, at)}8${env.payload.slice(at + 1)}` };
    expect(tampered.payload).toContain('"port":6378');
    await expectRefused(JSON.stringify(tampered), 422, 'BAD_SIGNATURE', /changed after signing/);
  });

  it('refuses non-finite numbers (re-signed 1e999) with 422 IMPLAUSIBLE', async () => {
    const payload = canonicalJson(variant(8)).replace(/"median":[0-9.e+]+/, '"median":1e999');
    expect(payload).toContain('1e999');
    await expectRefused(
      signPayload(payload),
      422,
      'IMPLAUSIBLE',
      /\/cells\/0\/opsPerSec\/median: Infinity is not a finite number/,
    );
  });

  it('refuses implausible figures with 422, naming the value', async () => {
    const tooFast = variant(9, (r) => {
      const ops = r.cells[0]!.opsPerSec;
      ops.median = ops.ci95Low = ops.ci95High = 90_000_000;
    });
    await expectRefused(body(tooFast), 422, 'IMPLAUSIBLE', /\/cells\/0\/opsPerSec\/median: 90000000 ops\/s/);
    const inverted = variant(10, (r) => {
      r.cells[0]!.latencyUs.p99Us = 1;
    });
    await expectRefused(body(inverted), 422, 'IMPLAUSIBLE', /p99Us: 1 is below p95Us/);
  });

  it('refuses another content type with 415', async () => {
    const before = count(s.reader);
    const reply = await post(s.results, body(variant(11)), 'text/plain');
    expect(reply.status).toBe(415);
    expect(reply.json.error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(reply.json.error?.message).toContain('text/plain');
    expect(count(s.reader)).toEqual(before);
  });
});

describe('GET /api/v1/results/:id and /api/v1/health', () => {
  it('answers 404 with a JSON error for an unknown id', async () => {
    const s = await service();
    for (const id of ['0'.repeat(64), 'not-an-id']) {
      const reply = await request(`${s.results}/${id}`);
      expect(reply.status).toBe(404);
      expect(reply.json.error).toEqual({ code: 'NOT_FOUND', message: `no result ${id}` });
    }
    expect((await request(`${s.server.url}/api/v1/nothing`)).json.error?.code).toBe('NOT_FOUND');
  });

  it('reports health with the number of results and the schema version', async () => {
    const s = await service();
    await post(s.results, body(variant(1)));
    const reply = await request(`${s.server.url}/api/v1/health`);
    expect(reply.status).toBe(200);
    // The database's migration count: it grows with every migration (2 since run groups).
    expect(reply.json).toEqual({
      ok: true,
      results: 1,
      schemaVersion: SCHEMA_VERSION,
      checking: 0,
      storage: { writable: true, problem: null },
    });
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
  });
});

describe('POST /api/v1/results/:id/retract', () => {
  async function withTwoResults() {
    const s = await service();
    const mine = (await post(s.results, body(variant(1)))).json.id as string;
    const theirs = (await post(s.results, body(otherRun(2), otherKey))).json.id as string;
    const retract = (id: string, req: unknown) => post(`${s.results}/${id}/retract`, JSON.stringify(req));
    /** A request signed by `pem` for this service. */
    const signed = (id: string, pem = key.privateKeyPem, at = new Date()) =>
      signRetraction(id, pem, at, { origin: s.server.url });
    return { s, mine, theirs, retract, signed };
  }

  it('unlists its owner’s result: 200, then GET answers 410 and a resubmission does not undo it', async () => {
    const { s, mine, retract, signed } = await withTwoResults();
    const first = await retract(mine, signed(mine));
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ id: mine, alreadyRetracted: false });
    const got = await request(`${s.results}/${mine}`);
    expect(got.status).toBe(410);
    expect(got.json.error?.code).toBe('RETRACTED');
    const again = await retract(mine, signed(mine));
    expect(again.json).toMatchObject({ id: mine, alreadyRetracted: true });
    expect((await post(s.results, body(variant(1)))).json.duplicate).toBe(true);
    expect((await request(`${s.results}/${mine}`)).status).toBe(410);
  });

  it('refuses to retract a result signed by another key with 403', async () => {
    const { s, theirs, retract, signed } = await withTwoResults();
    const reply = await retract(theirs, signed(theirs));
    expect(reply.status).toBe(403);
    expect(reply.json.error?.code).toBe('NOT_YOUR_RESULT');
    expect(reply.json.error?.message).toContain(theirs);
    expect((await request(`${s.results}/${theirs}`)).status).toBe(200);
  });

  it('answers 404, 422 and 400 for an unknown result, a bad signature and a malformed request', async () => {
    const { mine, retract, s, signed } = await withTwoResults();
    const unknown = '0'.repeat(64);
    expect((await retract(unknown, signed(unknown))).status).toBe(404);
    const forged = { ...signed(mine), requestedAt: new Date(Date.now() - 1000).toISOString() };
    const bad = await retract(mine, forged);
    expect({ status: bad.status, code: bad.json.error?.code }).toEqual({
      status: 422,
      code: 'BAD_SIGNATURE',
    });
    const stale = await retract(mine, signed(mine, key.privateKeyPem, new Date(Date.now() - 3 * 86400e3)));
    expect({ status: stale.status, code: stale.json.error?.code }).toEqual({
      status: 422,
      code: 'STALE_REQUEST',
    });
    expect((await retract(mine, { resultId: mine })).status).toBe(400);
    const elsewhere = await retract(unknown, signed(mine));
    expect(elsewhere.status).toBe(400);
    expect((await post(`${s.results}/${mine}/retract`, '{nope')).json.error?.code).toBe('MALFORMED_REQUEST');
    expect((await request(`${s.results}/${mine}`)).status).toBe(200);
  });
});

describe('limits', () => {
  it('answers an oversized body with 413 and a JSON error, writing nothing', async () => {
    const s = await service({ bodyLimitBytes: 2048 });
    const sent = body(variant(1));
    expect(sent.length).toBeGreaterThan(2048);
    const reply = await post(s.results, sent);
    expect(reply.status).toBe(413);
    expect(reply.json.error).toMatchObject({ code: 'BODY_TOO_LARGE' });
    expect(reply.json.error?.message).toContain('2048 bytes');
    expect(count(s.reader).results).toBe(0);
  });

  it('closes a connection that stalls in the middle of a request', async () => {
    const s = await service({ requestTimeoutMs: 300 });
    const socket = connect(s.server.port, '127.0.0.1');
    socket.write('POST /api/v1/results HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n');
    socket.on('error', () => {});
    const started = Date.now();
    // What the client saw, so that a socket left open (one CI run waited 600 s on it, never seen
    // again in 400 tries here) fails with its story rather than the suite's timeout.
    const seen: string[] = [];
    for (const event of ['data', 'end', 'close'])
      socket.on(event, () => seen.push(`${event} at ${Date.now() - started} ms`));
    const closed = await Promise.race([
      once(socket, 'close').then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000).unref()),
    ]);
    socket.destroy();
    // Closed by the 300 ms limit set above, not by Node's default of 300 s: the margin between the
    // two is wide enough for a machine at any load.
    expect(closed, `still open after 60 s; the client saw: ${seen.join(', ') || 'nothing'}`).toBe(true);
  });

  it('answers 429 with retry-after past the per-address limit', async () => {
    const s = await service({ rateLimit: { perIpPerMinute: 3 } });
    for (let i = 0; i < 3; i++) expect((await request(`${s.server.url}/api/v1/health`)).status).toBe(200);
    const reply = await request(`${s.server.url}/api/v1/health`);
    expect(reply.status).toBe(429);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(reply.json.error?.code).toBe('RATE_LIMITED');
    expect((await post(s.results, body(variant(1)))).status).toBe(429);
    expect(count(s.reader).results).toBe(0);
  });

  it('answers 429 past the per-key limit, charging only submissions the key really signed', async () => {
    const s = await service({ rateLimit: { perIpPerMinute: 100, perKeyPerMinute: 2 } });
    // Junk naming the key (fingerprints are public) does not use up its minute.
    const forged = { ...envelope(variant(1), otherKey), keyFingerprint: envelope(variant(1)).keyFingerprint };
    for (let i = 0; i < 3; i++) expect((await post(s.results, JSON.stringify(forged))).status).toBe(422);
    expect((await post(s.results, body(variant(1)))).status).toBe(201);
    expect((await post(s.results, body(variant(2)))).status).toBe(201);
    const limited = await post(s.results, body(variant(3)));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.json.error?.message).toContain(envelope(variant(1)).keyFingerprint);
    expect(count(s.reader).results).toBe(2);
    // Another key has its own budget.
    expect((await post(s.results, body(otherRun(3), otherKey))).status).toBe(201);
  });
});

describe('a retraction names its service and an expiry', () => {
  const retractAt = (s: { results: string }, id: string, req: unknown) =>
    post(`${s.results}/${id}/retract`, JSON.stringify(req));

  it('a copy replayed to a second service is refused there (422 WRONG_SERVICE), and the result stays', async () => {
    const [a, b] = [await service(), await service()];
    const sent = body(variant(41));
    const id = (await post(a.results, sent)).json.id as string;
    expect((await post(b.results, sent)).json.id).toBe(id);
    const forA = signRetraction(id, key.privateKeyPem, new Date(), { origin: a.server.url });
    expect((await retractAt(a, id, forA)).status).toBe(200);
    const replayed = await retractAt(b, id, forA);
    expect({ status: replayed.status, code: replayed.json.error?.code }).toEqual({
      status: 422,
      code: 'WRONG_SERVICE',
    });
    expect(replayed.json.error?.message).toContain(new URL(a.server.url).origin);
    expect((await request(`${b.results}/${id}`)).status).toBe(200);
    // Signed for no service at all: no service takes it.
    const local = await retractAt(b, id, signRetraction(id, key.privateKeyPem));
    expect(local.json.error?.code).toBe('WRONG_SERVICE');
    expect((await request(`${b.results}/${id}`)).status).toBe(200);
  });

  it('an expired one is refused (422 EXPIRED_REQUEST); a v1 request, which names no service, 400', async () => {
    const s = await service();
    const id = (await post(s.results, body(variant(42)))).json.id as string;
    const hourAgo = new Date(Date.now() - 3600_000);
    const expired = signRetraction(id, key.privateKeyPem, new Date(hourAgo.getTime() - 60_000), {
      origin: s.server.url,
      expiresAt: hourAgo,
    });
    const reply = await retractAt(s, id, expired);
    expect({ status: reply.status, code: reply.json.error?.code }).toEqual({
      status: 422,
      code: 'EXPIRED_REQUEST',
    });
    expect(reply.json.error?.message).toContain(hourAgo.toISOString());
    const v1 = { schema: 'redis-benchdb/retract.v1', resultId: id, requestedAt: new Date().toISOString() };
    const old = await retractAt(s, id, { ...v1, publicKey: expired.publicKey, signature: expired.signature });
    expect({ status: old.status, code: old.json.error?.code }).toEqual({
      status: 400,
      code: 'MALFORMED_REQUEST',
    });
    expect(old.json.error?.message).toMatch(/names no service.*update redis-benchdb/);
    expect((await request(`${s.results}/${id}`)).status).toBe(200);
  });

  it('a service behind a proxy takes requests for its public URL (publicUrl), not its listening address', async () => {
    const s = await service({ publicUrl: 'https://bench.example.org/' });
    const id = (await post(s.results, body(variant(43)))).json.id as string;
    const forListen = signRetraction(id, key.privateKeyPem, new Date(), { origin: s.server.url });
    expect((await retractAt(s, id, forListen)).json.error?.code).toBe('WRONG_SERVICE');
    const forPublic = signRetraction(id, key.privateKeyPem, new Date(), {
      origin: 'https://bench.example.org',
    });
    expect((await retractAt(s, id, forPublic)).status).toBe(200);
  });
});
