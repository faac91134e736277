// Hostile submissions for hostile.test.ts: each must be refused with a 4xx and leave the database
// as it was. Every payload edit is signed again with a valid key (signPayload), so that only the
// check under test can catch it, not a stale signature.
import { deflateSync, gzipSync, inflateSync } from 'node:zlib';
import { signRetraction } from '@redis-benchdb/db';
import { canonicalJson, type ResultV1, resultV1Schema } from '@redis-benchdb/result';
import { body, envelope, key, otherKey, signPayload, suiteRun, variant } from './fixtures.js';
import { heaviestBody } from './heaviest-body.js';

export interface HostileBody {
  name: string;
  body: string | Buffer;
  /** @default 'application/json'; null sends none. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** The error code, where one answer is the only right one; otherwise any 4xx in the error shape. */
  code?: string;
}

/** Result n (a distinct id), edited, canonicalised and validly signed. */
function signed(n: number, edit: (r: ResultV1) => void, k = key): string {
  return signPayload(canonicalJson(variant(n, edit)), k);
}

/** Result n's canonical payload text, edited as text, validly signed. */
function signedText(n: number, edit: (payload: string) => string): string {
  const payload = canonicalJson(variant(n));
  const edited = edit(payload);
  if (edited === payload) throw new Error(`test bug: the edit of result ${n} changed nothing`);
  return signPayload(edited);
}

/** A valid envelope's text with `fields` inserted first, before its own keys. */
function prepend(n: number, fields: string): string {
  return `{${fields},${JSON.stringify(envelope(variant(n))).slice(1)}`;
}

const nested = (depth: number, open: string, close: string, inner = '0') =>
  open.repeat(depth) + inner + close.repeat(depth);

const HDR_V2_COMPRESSED = 0x1c849314;

/** The example's first histogram with its counts replaced: `counts` is the zig-zag LEB128 payload. */
function histogramWithCounts(counts: Buffer): string {
  const example = suiteRun().cells[0]!.trials[0]!.histogram;
  const raw = Buffer.from(example, 'base64');
  const inner = inflateSync(raw.subarray(8));
  const head = Buffer.from(inner.subarray(0, 40));
  head.writeInt32BE(counts.length, 4);
  const z = deflateSync(Buffer.concat([head, counts]));
  const outer = Buffer.alloc(8);
  outer.writeUInt32BE(HDR_V2_COMPRESSED, 0);
  outer.writeInt32BE(z.length, 4);
  return Buffer.concat([outer, z]).toString('base64');
}

/** HdrHistogram's zig-zag LEB128: a negative count is a run of that many empty buckets. */
function zigzag(n: bigint): Buffer {
  let z = n < 0n ? (-n << 1n) - 1n : n << 1n;
  const out: number[] = [];
  do {
    let b = Number(z & 0x7fn);
    z >>= 7n;
    if (z) b |= 0x80;
    out.push(b);
  } while (z);
  return Buffer.from(out);
}

/** One recorded value after a run of `run` empty buckets. */
const zeroRun = (run: bigint) => histogramWithCounts(Buffer.concat([zigzag(-run), zigzag(1n)]));

function setHistogram(r: ResultV1, histogram: string): void {
  const trial = r.cells[0]!.trials[0]!;
  trial.histogram = histogram;
}

const valid = (n: number) => body(variant(n));
const validText = (n: number) => JSON.stringify(envelope(variant(n)));

export function hostileBodies(): HostileBody[] {
  const mine = envelope(variant(101));
  const theirs = envelope(variant(102), otherKey);
  const tamperAt = (p: string) => {
    const at = p.indexOf('"port":6379') + '"port":637'.length;
    return `${p.slice(0, at)}8${p.slice(at + 1)}`;
  };
  const bodies: HostileBody[] = [
    // Not JSON, or not whole.
    { name: 'empty body', body: '' },
    { name: 'whitespace only', body: ' \n\t ' },
    { name: 'null', body: 'null' },
    { name: 'an array', body: '[]' },
    { name: 'a string', body: '"redis-benchdb/envelope.v1"' },
    { name: 'a number', body: '42' },
    { name: 'an empty object', body: '{}' },
    { name: 'truncated: one brace', body: '{' },
    { name: 'truncated: half an envelope', body: validText(103).slice(0, 2000) },
    { name: 'trailing garbage after the envelope', body: `${validText(104)}}{` },
    { name: 'two envelopes back to back', body: `${validText(105)}${validText(105)}` },
    { name: 'single-quoted JSON', body: validText(106).replaceAll('"', "'") },
    { name: 'a NaN literal', body: '{"schema":"redis-benchdb/envelope.v1","payload":NaN}' },
    { name: 'a comment in JSON', body: `/* hi */${validText(107)}` },
    // Bytes that are not UTF-8 JSON.
    { name: 'byte-order mark before the envelope', body: `\ufeff${validText(108)}` },
    {
      name: 'an invalid UTF-8 byte in the payload',
      body: Buffer.concat([
        Buffer.from(validText(109).slice(0, 500)),
        Buffer.from([0xff]),
        Buffer.from(validText(109).slice(501)),
      ]),
    },
    {
      name: 'Latin-1 bytes (é) in a string',
      body: Buffer.from(validText(110).replace('Intel(R)', 'Intél(R)'), 'latin1'),
    },
    {
      name: 'overlong UTF-8 for a quote',
      body: Buffer.concat([Buffer.from('{"schema":'), Buffer.from([0xc0, 0xa2]), Buffer.from('x"}')]),
    },
    { name: 'UTF-16LE', body: Buffer.from(validText(111), 'utf16le') },
    // Not an envelope, or another schema.
    { name: 'an unsigned result.v1', body: JSON.stringify(suiteRun()), code: 'UNSUPPORTED_SCHEMA' },
    { name: 'an unknown schema', body: '{"schema":"something/else.v9"}' },
    {
      name: 'envelope.v2',
      body: JSON.stringify({ ...envelope(variant(112)), schema: 'redis-benchdb/envelope.v2' }),
      code: 'UNSUPPORTED_SCHEMA',
    },
    {
      name: 'a signed result.v2',
      body: signed(113, (r) => Object.assign(r, { schema: 'redis-benchdb/result.v2' })),
      code: 'UNSUPPORTED_SCHEMA',
    },
    { name: 'schema as a number', body: JSON.stringify({ ...mine, schema: 1 }) },
    {
      name: 'a retraction request posted as a result',
      body: JSON.stringify(signRetraction('0'.repeat(64), key.privateKeyPem)),
    },
    // Wrong types in the envelope.
    { name: 'payload as an object', body: JSON.stringify({ ...mine, payload: JSON.parse(mine.payload) }) },
    { name: 'signature as a number', body: JSON.stringify({ ...mine, signature: 12345 }) },
    { name: 'publicKey as an array', body: JSON.stringify({ ...mine, publicKey: [mine.publicKey] }) },
    { name: 'an unknown envelope field', body: JSON.stringify({ ...mine, comment: 'trust me' }) },
    // Signatures.
    { name: 'no signature', body: JSON.stringify({ ...mine, signature: undefined }) },
    { name: 'signature not base64', body: JSON.stringify({ ...mine, signature: '!!!not base64!!!' }) },
    {
      name: 'signature of 32 bytes',
      body: JSON.stringify({ ...mine, signature: Buffer.alloc(32, 7).toString('base64') }),
    },
    {
      name: 'forged signature: 64 random-looking bytes',
      body: JSON.stringify({ ...mine, signature: Buffer.alloc(64, 0x5a).toString('base64') }),
      code: 'BAD_SIGNATURE',
    },
    {
      name: 'signature of another payload',
      body: JSON.stringify({ ...mine, signature: theirs.signature }),
      code: 'BAD_SIGNATURE',
    },
    {
      name: 'signed by another key, naming mine',
      body: JSON.stringify({ ...theirs, publicKey: mine.publicKey, keyFingerprint: mine.keyFingerprint }),
      code: 'BAD_SIGNATURE',
    },
    {
      name: 'signed by another key, with my fingerprint',
      body: JSON.stringify({ ...theirs, keyFingerprint: mine.keyFingerprint }),
      code: 'BAD_SIGNATURE',
    },
    {
      name: 'publicKey of 31 bytes',
      body: JSON.stringify({ ...mine, publicKey: Buffer.alloc(31, 1).toString('base64') }),
    },
    {
      name: 'one payload byte changed after signing',
      body: JSON.stringify({ ...mine, payload: tamperAt(mine.payload) }),
      code: 'BAD_SIGNATURE',
    },
    {
      name: 'payload with a space added after signing',
      body: JSON.stringify({ ...mine, payload: `${mine.payload} ` }),
      code: 'BAD_SIGNATURE',
    },
    // Duplicate keys: a first-wins parser would see another document than JSON.parse (last wins).
    {
      name: 'duplicate payload key in the envelope, the first one not signed',
      body: prepend(114, `"payload":${JSON.stringify(tamperAt(envelope(variant(114)).payload))}`),
    },
    { name: 'p\\u0061yload spelling of a second payload key', body: prepend(115, '"p\\u0061yload":"{}"') },
    {
      name: 'duplicate keyFingerprint in the envelope',
      body: prepend(116, `"keyFingerprint":"sha256:${'0'.repeat(64)}"`),
    },
    {
      name: 'duplicate schema key in the payload, the first result.v2',
      body: signedText(117, (p) => `{"schema":"redis-benchdb/result.v2",${p.slice(1)}`),
    },
    {
      name: 'duplicate cpu model in the payload',
      body: signedText(118, (p) => p.replace('"model":"Intel', '"model":"Fake CPU","model":"Intel')),
    },
    {
      name: 'a lone surrogate in the payload (verify sees U+FFFD)',
      body: signedText(119, (p) => p.replace('"model":"Intel', '"model":"\ud800Intel')),
    },
    // Deep nesting.
    { name: 'an array nested 100,000 deep', body: nested(100_000, '[', ']'), code: 'TOO_DEEP' },
    { name: 'an object nested 100,000 deep', body: nested(100_000, '{"a":', '}'), code: 'TOO_DEEP' },
    {
      name: 'an extra envelope field nested 100,000 deep',
      body: prepend(120, `"x":${nested(100_000, '[', ']')}`),
      code: 'TOO_DEEP',
    },
    {
      name: 'a signed payload nested 100,000 deep',
      body: signedText(121, (p) =>
        p.replace('"warnings":[', `"deep":${nested(100_000, '[', ']')},"warnings":[`),
      ),
      code: 'TOO_DEEP',
    },
    // Wrong types and NaN-like strings in a signed payload.
    {
      name: 'cells as a string',
      body: signed(122, (r) => Object.assign(r, { cells: 'none' })),
      code: 'INVALID_RESULT',
    },
    {
      name: 'ops/s as the string "NaN"',
      body: signedText(123, (p) => p.replace(/"median":[0-9.e+]+/, '"median":"NaN"')),
    },
    {
      name: 'ops/s as the string "Infinity"',
      body: signedText(124, (p) => p.replace(/"median":[0-9.e+]+/, '"median":"Infinity"')),
    },
    {
      name: 'ops/s as 1e999',
      body: signedText(125, (p) => p.replace(/"median":[0-9.e+]+/, '"median":1e999')),
      code: 'IMPLAUSIBLE',
    },
    {
      name: 'negative connections',
      body: signed(126, (r) => Object.assign(r.cells[0]!.workload, { connections: -50 })),
    },
    {
      // 3 KB. Refused (422), but slowly on every branch so far: ajv with allErrors spends ~3.5 s on
      // its 22,000 errors, holding the event loop. (100,000 cells, 300 KB, held it for hours.)
      name: '1,000 empty cells',
      body: signed(127, (r) => Object.assign(r, { cells: Array.from({ length: 1000 }, () => ({})) })),
    },
    // Prototype pollution.
    { name: '__proto__ in the envelope', body: prepend(128, '"__proto__":{"polluted":true}') },
    {
      name: 'constructor.prototype in the envelope',
      body: prepend(129, '"constructor":{"prototype":{"polluted":true}}'),
    },
    {
      name: '__proto__ in the signed payload',
      body: signedText(130, (p) => `{"__proto__":{"polluted":true},${p.slice(1)}`),
    },
    {
      name: 'constructor in the signed environment',
      body: signedText(131, (p) =>
        p.replace('"client":{', '"client":{"constructor":{"prototype":{"polluted":true}},'),
      ),
    },
    // Implausible or inconsistent figures.
    {
      name: '49M ops/s on 1 connection with minUs 0',
      body: signed(132, (r) => {
        for (const c of r.cells) {
          Object.assign(c.workload, { connections: 1, pipelineDepth: 1 });
          Object.assign(c.opsPerSec, { median: 49e6, ci95Low: 49e6, ci95High: 49e6 });
          c.latencyUs.minUs = 0;
          for (const t of c.trials) {
            t.opsPerSec = 49e6;
            t.latencyUs.minUs = 0;
          }
        }
      }),
    },
    {
      name: 'a trial’s summary count that is not its histogram’s',
      body: signed(133, (r) => {
        r.cells[0]!.trials[0]!.latencyUs.count += 1000;
      }),
    },
    {
      name: 'a cell’s summary count that is not its histogram’s',
      body: signed(150, (r) => {
        r.cells[0]!.latencyUs.count += 1000;
      }),
    },
    {
      name: 'cell percentiles ten times its histogram’s',
      body: signed(134, (r) => {
        const l = r.cells[0]!.latencyUs;
        // Every figure of the summary but its count, as the schema lists them.
        for (const k of resultV1Schema.$defs.Latency.required) if (k !== 'count') l[k] *= 10;
      }),
    },
    { name: 'histogram not base64', body: signed(135, (r) => setHistogram(r, '!!!!')) },
    {
      name: 'histogram with a zero run of 2^31',
      body: signed(136, (r) => setHistogram(r, zeroRun(2n ** 31n))),
    },
    {
      name: 'histogram with a zero run of 2^33',
      body: signed(137, (r) => setHistogram(r, zeroRun(2n ** 33n))),
    },
    {
      name: 'histogram deflate bomb (64 MiB of counts)',
      body: signed(138, (r) => setHistogram(r, histogramWithCounts(Buffer.alloc(64 * 1024 * 1024)))),
    },
    {
      name: 'started in 2100',
      body: signed(139, (r) =>
        Object.assign(r, { startedAt: '2100-01-01T00:00:00.000Z', finishedAt: '2100-01-01T00:01:00.000Z' }),
      ),
    },
    {
      name: 'started in 1970',
      body: signed(140, (r) =>
        Object.assign(r, { startedAt: '1970-01-01T00:00:00.000Z', finishedAt: '1970-01-01T00:01:00.000Z' }),
      ),
    },
    {
      name: 'finished before it started',
      body: signed(141, (r) => Object.assign(r, { finishedAt: '2025-03-04T10:00:00.000Z' })),
    },
    // The most CPU a body under the limit can cost the checks (heaviest-body.ts).
    { name: '4 MiB of trials with full histograms', body: heaviestBody(151) },
    // Free text.
    {
      name: 'control characters in the CPU model',
      body: signed(142, (r) =>
        Object.assign(r.environment.client.cpu, { model: 'Xeon\u0000\u001b[2J\u001b]0;owned\u0007' }),
      ),
    },
    {
      name: 'RTL override in the CPU model',
      body: signed(143, (r) => Object.assign(r.environment.client.cpu, { model: 'Xeon \u202egnp.exe' })),
    },
    {
      name: '1 MB CPU model',
      body: signed(144, (r) => Object.assign(r.environment.client.cpu, { model: 'X'.repeat(1_000_000) })),
    },
    // The HTTP envelope around the body.
    { name: 'text/plain', body: valid(145), contentType: 'text/plain', code: 'UNSUPPORTED_MEDIA_TYPE' },
    {
      name: 'a form',
      body: 'payload=x',
      contentType: 'application/x-www-form-urlencoded',
      code: 'UNSUPPORTED_MEDIA_TYPE',
    },
    { name: 'no content type', body: valid(146), contentType: null, code: 'UNSUPPORTED_MEDIA_TYPE' },
    {
      name: 'gzip content-encoding, gzipped',
      body: gzipSync(valid(147)),
      headers: { 'content-encoding': 'gzip' },
      code: 'UNSUPPORTED_CONTENT_ENCODING',
    },
    {
      name: 'gzip content-encoding claimed, plain body',
      body: valid(148),
      headers: { 'content-encoding': 'gzip' },
      code: 'UNSUPPORTED_CONTENT_ENCODING',
    },
    {
      name: 'deflate bomb with content-encoding deflate',
      body: deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20)),
      headers: { 'content-encoding': 'deflate' },
      code: 'UNSUPPORTED_CONTENT_ENCODING',
    },
    { name: 'a 5 MiB body', body: `${' '.repeat(5 * 1024 * 1024)}${validText(149)}`, code: 'BODY_TOO_LARGE' },
  ];
  return bodies;
}
