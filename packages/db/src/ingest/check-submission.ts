import {
  canonicalJson,
  checkJsonStructure,
  ENVELOPE_SCHEMA_ID,
  type EnvelopeV1,
  JsonStructureError,
  type JsonStructureErrorCode,
  RESULT_SCHEMA_ID,
  type ResultV1,
  verifyEnvelope,
} from '@redis-benchdb/result';
import { checkNumbers, checkPlausibility, type PlausibilityProblem } from '../plausibility/plausibility.js';
import { contentId } from './content-id.js';
import { IngestError } from './ingest-error.js';
import { type MeasurementRow, measurementRows } from './measurements.js';
import { type CellRow, cellRows, type ResultRow, resultRow, type WarningRow, warningRows } from './rows.js';
import { refuseWrongReplies } from './wrong-replies.js';

/** What a submission may be, and what its payload may be: named in every UNSUPPORTED_SCHEMA message. */
export const SUPPORTED_SCHEMAS = { envelope: [ENVELOPE_SCHEMA_ID], result: [RESULT_SCHEMA_ID] } as const;

export interface IngestOptions {
  /** Receipt time: `received_at`, and "now" for the timestamp checks. @default new Date() */
  now?: Date;
}

/**
 * A submission that passed every check, as the rows ingest writes. Plain strings, numbers and nulls
 * only, so that it crosses from a worker thread to the writer as it is.
 */
export interface CheckedSubmission {
  /** The content id: hex SHA-256 of the signed payload. */
  id: string;
  row: ResultRow;
  cells: CellRow[];
  warnings: WarningRow[];
  /** The measurements the copy check compares (copies.ts). */
  measurements: MeasurementRow[];
}

/**
 * Every check ingest() makes, without the database: structure, JSON, envelope and result schemas,
 * signature, canonical form, histograms and plausibility. All the CPU of an ingest is here, so the
 * service runs it on worker threads, away from its event loop. Throws IngestError when refused.
 */
export function checkSubmission(body: string | Uint8Array, opts: IngestOptions = {}): CheckedSubmission {
  const text = typeof body === 'string' ? body : decodeUtf8(body);
  checkStructure(text);
  const parsed = parseJson(text);
  refuseOtherSchemas(parsed);
  const verified = verifyEnvelope(parsed);
  if (!verified.ok) throw refusal(parsed as EnvelopeV1, verified);

  const now = opts.now ?? new Date();
  const problems = checkPlausibility(verified.result, { now });
  if (problems.length > 0) throw implausible(problems);
  refuseWrongReplies(verified.result);

  const envelope = parsed as EnvelopeV1;
  const id = contentId(envelope.payload);
  const row = resultRow(verified.result, {
    id,
    // What was verified, not the bytes received: the same five fields in RFC 8785 form, so GET,
    // export and the site's raw view serve exactly the envelope that passed.
    envelope: canonicalJson(envelope),
    document: envelope.payload,
    keyFingerprint: verified.keyFingerprint,
    receivedAt: now.toISOString(),
  });
  return {
    id,
    row,
    cells: cellRows(id, verified.result.cells),
    warnings: warningRows(id, verified.result),
    measurements: measurementRows(id, verified.result),
  };
}

function decodeUtf8(body: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    throw new IngestError('MALFORMED_JSON', 400, 'malformed JSON: the body is not valid UTF-8');
  }
}

/** Duplicate keys and deep nesting, in the text, before JSON.parse hides the one and pays for the other. */
function checkStructure(text: string): void {
  try {
    checkJsonStructure(text, 'envelope');
  } catch (e) {
    if (e instanceof JsonStructureError) throw new IngestError(e.code, 400, e.message);
    throw e;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new IngestError('MALFORMED_JSON', 400, `malformed JSON: ${(e as Error).message}`);
  }
}

/** A document of another kind or version fails every later check; say the one thing that matters. */
function refuseOtherSchemas(doc: unknown): void {
  if (doc === null || typeof doc !== 'object' || !('schema' in doc)) return; // the envelope schema says what is missing
  const schema = (doc as { schema: unknown }).schema;
  if (typeof schema !== 'string' || schema === ENVELOPE_SCHEMA_ID) return;
  const hint =
    schema === RESULT_SCHEMA_ID
      ? ': this is an unsigned result; submit the signed envelope `redis-benchdb run` writes'
      : '';
  throw unsupported('submission', schema, SUPPORTED_SCHEMAS.envelope, hint);
}

/**
 * Turn verifyEnvelope's reason into a code. It checks, in order: envelope shape, key, signature,
 * payload JSON, canonical form, result schema; its reasons are matched here by their opening words.
 * (Were packages/result to give VerifyOutcome a `code`, this would match on that instead.)
 */
function refusal(
  envelope: EnvelopeV1,
  outcome: { reason: string; code?: JsonStructureErrorCode },
): IngestError {
  const { reason, code } = outcome;
  if (code) return new IngestError(code, 400, `invalid envelope: ${reason}`);
  if (reason.startsWith('envelope schema:'))
    return new IngestError(
      'INVALID_ENVELOPE',
      422,
      `invalid envelope: ${reason.replace(/^envelope schema: /, '')}`,
    );
  if (reason.startsWith('payload is not canonical')) {
    // Signed as sent, but JSON.parse read 1e999 as Infinity (which has no canonical form): say so.
    const numbers = checkNumbers(JSON.parse(envelope.payload));
    if (numbers.length > 0) return implausible(numbers);
    return new IngestError('INVALID_ENVELOPE', 422, `invalid envelope: ${reason} (RFC 8785)`);
  }
  if (reason.startsWith('payload is not valid JSON'))
    return new IngestError('INVALID_ENVELOPE', 422, `invalid envelope: ${reason}`);
  if (reason.startsWith('result schema:')) {
    const schema = (JSON.parse(envelope.payload) as Partial<ResultV1> | null)?.schema as unknown;
    if (typeof schema === 'string' && schema !== RESULT_SCHEMA_ID)
      return unsupported('result', schema, SUPPORTED_SCHEMAS.result, '');
    return new IngestError(
      'INVALID_RESULT',
      422,
      `invalid result: ${reason.replace(/^result schema: /, '')}`,
    );
  }
  if (reason.startsWith('key binding:'))
    return new IngestError('KEY_MISMATCH', 422, `refused: ${reason.replace(/^key binding: /, '')}`);
  return new IngestError('BAD_SIGNATURE', 422, `bad signature: ${reason}`);
}

function unsupported(what: string, schema: unknown, supported: readonly string[], hint: string): IngestError {
  return new IngestError(
    'UNSUPPORTED_SCHEMA',
    422,
    `unsupported ${what} schema ${JSON.stringify(schema)}${hint}; this redis-benchdb supports ${supported.join(', ')} (a newer version may need a newer server)`,
  );
}

function implausible(all: PlausibilityProblem[]): IngestError {
  // A histogram that cannot be decoded is refused as such: its other figures could not be checked.
  const undecodable = all.filter((p) => p.code === 'INVALID_HISTOGRAM');
  const problems = undecodable.length > 0 ? undecodable : all;
  const first = problems.slice(0, 3).map((p) => p.message);
  const more = problems.length - first.length;
  const list = `${first.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
  return undecodable.length > 0
    ? new IngestError('INVALID_HISTOGRAM', 422, `invalid histogram: ${list}`)
    : new IngestError('IMPLAUSIBLE', 422, `implausible result: ${list}`);
}
