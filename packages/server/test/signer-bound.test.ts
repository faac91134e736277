// Issue 39 items 1, 3 and 4 through the real service (its own bin on a port, over a temp SQLite file),
// as an attacker with a key made a minute earlier and the public format would try: join the project's
// own run group with a forged result, pose as its machine kind or version with a lookalike name, and
// head "Newest results" with a run dated tomorrow. Each is refused, and nothing of it is stored.
import { readdirSync, readFileSync } from 'node:fs';
import { listRunGroup, openDatabase } from '@redis-benchdb/db';
import { type EnvelopeV1, generateSigningKey, type ResultV1 } from '@redis-benchdb/result';
import { LOOKALIKE_CPU_MODELS, LOOKALIKE_VERSIONS, remeasured } from '@redis-benchdb/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handSignedBody, post, type ServiceProcess, spawnService, tempDbPath } from './fixtures.js';

const GROUP = '4ac7212694714aa5';
const DIR = new URL('../../../data/results/amd-epyc-2cpu-kvm/', import.meta.url);
/** The project's own interleaved group: 8 servers run together on one AMD EPYC VM. */
const GROUP_FILES = readdirSync(DIR).filter((f) => f.includes(GROUP));
const REDIS_741 = GROUP_FILES.find((f) => f.endsWith('redis-server-7.4.1.json'))!;

let service: ServiceProcess;
let dbPath: string;
let results: string;

beforeAll(async () => {
  dbPath = tempDbPath();
  service = await spawnService(dbPath, [], { sharedByTests: true });
  results = `${service.url}/api/v1/results`;
  for (const f of GROUP_FILES) {
    const sent = await post(results, readFileSync(new URL(f, DIR)));
    expect(sent.status, `${f}: ${sent.text}`).toBe(201);
  }
});

afterAll(() => service?.child.kill('SIGTERM'));

/** The project's Redis 7.4.1 result, figures x1.5 with its histograms re-encoded to match (remeasure.ts). */
function forged(edit?: (r: ResultV1) => void): ResultV1 {
  const env = JSON.parse(readFileSync(new URL(REDIS_741, DIR), 'utf8')) as EnvelopeV1;
  const r = remeasured(JSON.parse(env.payload) as ResultV1, 1.5);
  edit?.(r);
  return r;
}

const withoutGroup = (r: ResultV1) => {
  delete r.runGroup;
};

/** What a reader of the database sees of the group and its kinds and versions. */
function stored() {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    return {
      group: listRunGroup(db, GROUP).map((r) => r.id),
      results: (db.sqlite.prepare('SELECT count(*) AS n FROM results').get() as { n: number }).n,
      kinds: db.sqlite.prepare('SELECT DISTINCT machine_key AS k FROM results ORDER BY 1').all(),
      versions: db.sqlite.prepare('SELECT DISTINCT server_version AS v FROM results ORDER BY 1').all(),
    };
  } finally {
    db.close();
  }
}

async function refused(text: string, code: string) {
  const before = stored();
  const reply = await post(results, text);
  expect({ status: reply.status, code: reply.json.error?.code }, reply.text).toEqual({ status: 422, code });
  expect(stored()).toEqual(before);
  return reply.json.error!.message;
}

describe("a fresh key cannot join the project's run group or pose as its kinds", () => {
  it('(a) the x1.5 forgery that keeps runGroup.id, signed by a fresh key: 422 RUN_GROUP_NOT_YOURS, the group unchanged', async () => {
    expect(stored().group).toHaveLength(8);
    const message = await refused(handSignedBody(forged(), generateSigningKey()), 'RUN_GROUP_NOT_YOURS');
    expect(message).toContain(`run group ${GROUP} belongs to the key`);
    expect(message).toContain('the 8 members stored');
    expect(stored().group).toHaveLength(8);
  });

  it('(a) without the group the same forgery is plausible enough to be stored: the group was the reason', async () => {
    const reply = await post(results, handSignedBody(forged(withoutGroup), generateSigningKey()));
    expect(reply.status, reply.text).toBe(201);
    expect(stored().group).toHaveLength(8);
  });

  it.each(LOOKALIKE_CPU_MODELS)(
    '(c) a CPU model with %s: 422 IDENTITY_TEXT, no new kind',
    async (_, model, what) => {
      const r = forged((x) => {
        withoutGroup(x);
        x.environment.client.cpu.model = model;
      });
      const message = await refused(handSignedBody(r, generateSigningKey()), 'IDENTITY_TEXT');
      expect(message).toContain(`/environment/client/cpu/model ${JSON.stringify(model)}: ${what}`);
    },
  );

  it.each(LOOKALIKE_VERSIONS)(
    '(c) a version with %s: 422 IDENTITY_TEXT, no new version',
    async (_, version, what) => {
      const r = forged((x) => {
        withoutGroup(x);
        x.environment.server.version = version;
      });
      const message = await refused(handSignedBody(r, generateSigningKey()), 'IDENTITY_TEXT');
      expect(message).toContain(`/environment/server/version ${JSON.stringify(version)}: ${what}`);
    },
  );

  it('(d) a run that ended 23 h after it was received: 422 FINISHED_IN_FUTURE', async () => {
    const r = forged((x) => {
      withoutGroup(x);
      const length = Date.parse(x.finishedAt) - Date.parse(x.startedAt);
      const end = Date.now() + 23 * 3600_000;
      x.startedAt = new Date(end - length).toISOString();
      x.finishedAt = new Date(end).toISOString();
    });
    const message = await refused(handSignedBody(r, generateSigningKey()), 'FINISHED_IN_FUTURE');
    expect(message).toMatch(/^refused: finishedAt \S+ is 23\.0 h after the service received the result/);
  });
});

describe('these refusals come after the signature checked out: they count against the key', () => {
  const future = (x: ResultV1) => {
    withoutGroup(x);
    x.finishedAt = new Date(Date.now() + 3600_000).toISOString();
  };
  const lookalike = (x: ResultV1) => {
    withoutGroup(x);
    x.environment.client.cpu.model = 'AMD ЕРYC';
  };
  it.each([
    ['IDENTITY_TEXT', lookalike],
    ['FINISHED_IN_FUTURE', future],
    ['RUN_GROUP_NOT_YOURS', undefined],
  ] as const)(
    'a key refused %s once may send nothing more this minute (--per-key-per-minute 1)',
    async (code, edit) => {
      const limited = await spawnService(tempDbPath(), ['--per-key-per-minute', '1']);
      const url = `${limited.url}/api/v1/results`;
      // The project's 7.4.1 result, so that its group is stored.
      expect((await post(url, readFileSync(new URL(REDIS_741, DIR)))).status).toBe(201);
      const k = generateSigningKey();
      const first = await post(url, handSignedBody(forged(edit), k));
      expect(first.json.error?.code, first.text).toBe(code);
      const second = await post(url, handSignedBody(forged(withoutGroup), k));
      expect(second.json.error?.code, second.text).toBe('RATE_LIMITED');
    },
  );
});
