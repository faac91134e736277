import { count, integrityCheck, openDatabase } from '@redis-benchdb/db';
import { canonicalJson } from '@redis-benchdb/result';
import { describe, expect, it } from 'vitest';
import { type ServiceProcess, spawnService, submissions, tempDbPath } from './fixtures.js';

const CLIENTS = 50;
const SUBMISSIONS = 2000;
// Signed once for the whole file, before any clock: ~0.1 s.
const bodies = submissions(SUBMISSIONS);

interface Answer {
  status: number;
  id: string;
}

/**
 * `bodies[i]` for each i in `indexes`, from CLIENTS loops sharing one queue (keep-alive connections).
 * A loop stops at its first failed request: after a kill, what was not answered stays undefined.
 */
async function submit(
  url: string,
  indexes: number[],
  onAnswer: (answered: number) => void = () => {},
): Promise<(Answer | undefined)[]> {
  const answers: (Answer | undefined)[] = [];
  let next = 0;
  let answered = 0;
  const loop = async () => {
    while (next < indexes.length) {
      const i = indexes[next++]!;
      try {
        const res = await fetch(`${url}/api/v1/results`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: bodies[i],
        });
        const json = (await res.json()) as { id: string };
        answers[i] = { status: res.status, id: json.id };
      } catch {
        return;
      }
      onAnswer(++answered);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  return answers;
}

async function getAll(url: string, ids: string[]): Promise<Map<string, { status: number; text: string }>> {
  const got = new Map<string, { status: number; text: string }>();
  let next = 0;
  const loop = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const res = await fetch(`${url}/api/v1/results/${id}`);
      got.set(id, { status: res.status, text: await res.text() });
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  return got;
}

function countIn(dbPath: string) {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return { results: count(db).results, integrity: integrityCheck(db) };
  } finally {
    db.close();
  }
}

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}

const all = bodies.map((_, i) => i);

// Each test takes 17-19 s on a quiet CI host; thousands of signed submissions and a service process
// stretch far past the serial tier's 120 s on a loaded one, so each has its own 300 s (vitest.config.ts).
describe('the service under concurrent load, as a separate process', () => {
  it(`stores ${SUBMISSIONS} distinct submissions from ${CLIENTS} clients, each answered 201`, async () => {
    const dbPath = tempDbPath();
    const service = await spawnService(dbPath);
    const started = performance.now();
    const answers = await submit(service.url, all);
    const seconds = (performance.now() - started) / 1000;
    expect(answers.filter((a) => a?.status === 201)).toHaveLength(SUBMISSIONS);
    const ids = answers.map((a) => a!.id);
    expect(new Set(ids).size).toBe(SUBMISSIONS);
    expect(countIn(dbPath).results).toBe(SUBMISSIONS);

    const got = await getAll(service.url, ids);
    ids.forEach((id, i) => {
      // The envelope as verified: canonical JSON of what was sent.
      expect(got.get(id)).toEqual({ status: 200, text: canonicalJson(JSON.parse(bodies[i]!)) });
    });
    await stop(service);
    console.log(
      `${SUBMISSIONS} submissions in ${seconds.toFixed(2)} s: ${Math.round(SUBMISSIONS / seconds)}/s`,
    );
  }, 300_000);

  it('keeps every acknowledged submission when the process is SIGKILLed mid-load', async () => {
    const dbPath = tempDbPath();
    const first = await spawnService(dbPath);
    const answers = await submit(first.url, all, (answered) => {
      if (answered === 700) first.child.kill('SIGKILL');
    });
    expect(await first.exited).toBe('SIGKILL');
    const acknowledged = answers.filter((a): a is Answer => a?.status === 201);
    expect(acknowledged.length).toBeGreaterThanOrEqual(700);
    expect(acknowledged.length).toBeLessThan(SUBMISSIONS);

    const second = await spawnService(dbPath);
    const got = await getAll(
      second.url,
      acknowledged.map((a) => a.id),
    );
    for (const a of acknowledged) expect(got.get(a.id)?.status, a.id).toBe(200);
    const after = countIn(dbPath);
    expect(after.integrity).toEqual(['ok']);
    // Stored: everything acknowledged, plus perhaps a batch committed as the process died.
    expect(after.results).toBeGreaterThanOrEqual(acknowledged.length);

    // Everything again: what was acknowledged is a duplicate now; the rest is stored now, or was
    // committed in the batch the process died answering, and is a duplicate too.
    const again = await submit(second.url, all);
    again.forEach((a, i) => {
      const expected = answers[i]?.status === 201 ? [200] : [200, 201];
      expect(expected, `submission ${i}: ${a?.status}`).toContain(a?.status);
      if (answers[i]) expect(a?.id).toBe(answers[i]?.id);
    });
    expect(again.filter((a) => a?.status === 201).length).toBe(SUBMISSIONS - after.results);
    expect(countIn(dbPath)).toEqual({ results: SUBMISSIONS, integrity: ['ok'] });
    await stop(second);
  }, 300_000);
});
