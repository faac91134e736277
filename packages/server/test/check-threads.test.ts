// The checks of a submission on worker threads, through the real service on a free port: what
// happens when they are saturated, and that a submission waiting for them is still answered.
import { type BenchDb, count, openDatabase } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningServer, type ServeOptions, startServer } from '../dist/index.js';
import { body, post, request, submissions, tempDbPath, variant } from './fixtures.js';
import { heaviestBody } from './heaviest-body.js';

const running: { server: RunningServer; reader: BenchDb }[] = [];
afterAll(async () => {
  for (const { server, reader } of running.splice(0)) {
    reader.close();
    await server.close();
  }
});

async function service(opts: Omit<ServeOptions, 'dbPath'>) {
  const dbPath = tempDbPath();
  const server = await startServer({ dbPath, ...opts });
  const reader = openDatabase(dbPath, { readonly: true });
  running.push({ server, reader });
  return { server, reader, results: `${server.url}/api/v1/results` };
}

/** Health's `checking` once it reaches `n`: submissions taken and not yet checked. */
async function untilChecking(url: string, n: number): Promise<void> {
  for (;;) {
    const checking = (await request(`${url}/api/v1/health`)).json.checking as number;
    if (checking >= n) return;
    await new Promise((r) => setImmediate(r));
  }
}

describe('checks on worker threads', () => {
  it('answers 503 with retry-after past maxQueuedSubmissions, and stores every submission it accepts', async () => {
    const s = await service({ checkThreads: 1, maxQueuedSubmissions: 1 });
    const sent = submissions(40);
    // Sent at once: while the one thread checks the first, the others find the queue full.
    const replies = await Promise.all(sent.map((b) => post(s.results, b)));
    const busy = replies.filter((r) => r.status === 503);
    expect(replies.filter((r) => r.status === 201).length + busy.length).toBe(sent.length);
    expect(busy.length).toBeGreaterThan(0);
    for (const r of busy) {
      expect(r.json.error?.code).toBe('BUSY');
      expect(r.json.error?.message).toMatch(/^the service is checking 1 submissions .*; retry in \d+ s$/);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(count(s.reader).results).toBe(sent.length - busy.length);
    // Sent again one at a time, as a client following retry-after would, each is taken.
    for (const [i, r] of replies.entries())
      if (r.status === 503) expect((await post(s.results, sent[i]!)).status).toBe(201);
    expect(count(s.reader).results).toBe(sent.length);
  });

  it('answers a submission that waits for a thread longer than the socket may sit idle', async () => {
    // 1.5 s to receive a request, and to sit idle; each heavy body costs its thread ~0.8 s of checks.
    const s = await service({ checkThreads: 1, requestTimeoutMs: 1500 });
    const heavy = heaviestBody(300);
    const heavies = Array.from({ length: 4 }, () => post(s.results, heavy));
    await untilChecking(s.server.url, 4);
    // Behind three heavy bodies at least: seconds of waiting on a socket with nothing to send.
    const reply = await post(s.results, body(variant(301)));
    expect(reply.status, reply.text).toBe(201);
    for (const h of await Promise.all(heavies)) expect(h.status, h.text).toBe(422);
    expect(count(s.reader).results).toBe(1);
  });
});
