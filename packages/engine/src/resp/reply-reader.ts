/**
 * A streaming RESP2/RESP3 reply reader that counts replies without materialising them.
 *
 * Why our own: the measured traffic must cost the client far less than it costs the server.
 * A general client (ioredis) builds a JS value and resolves a promise per reply, which held a
 * Node loop to about 0.3x of redis-benchmark's throughput. This reader walks the bytes once,
 * skips bulk payloads by length, keeps no per-reply objects, and only builds a string when a
 * reply is an error (rare, and needed to classify it).
 */

import { fmt, MEASURED_REPLY_LIMITS, ReplyLimitError, type ReplyLimits } from './reply-limits.js';

const LF = 10;
const AGGREGATE = 0;
const ATTRIBUTE = 1;
const PUSH = 2;
/** Distinct error types kept by name; the rest are counted together under OTHER_ERRORS. */
const MAX_ERROR_TYPES = 64;
const OTHER_ERRORS = '(other)';

export class ReplyReader {
  /** Top-level replies completed since construction (errors included). */
  replies = 0;
  /** Top-level error replies by their first word (ERR, WRONGTYPE, MOVED...); RESP3 blob errors count as ERR. */
  readonly errorsByType = new Map<string, number>();
  /** Top-level null replies ($-1, *-1, RESP3 _): misses for GET-like commands. */
  nils = 0;
  /**
   * When tracked (trackNils): a ring, indexed by reply ordinal & mask, where each null reply sets
   * its 1. The socket reads and clears it as it matches replies to requests, so it can count the
   * misses of measured requests only; a total taken when measuring begins would also count the
   * replies to warm-up requests still in flight.
   */
  nilMarks: Uint8Array | null = null;
  private nilMask = 0;
  /** Message of the most recent top-level error, for handshake diagnostics. */
  lastError = '';
  /** Message of the first top-level error: the example a result keeps of what the server refused. */
  firstError = '';
  /**
   * Cluster mode: a top-level MOVED or ASK reply goes here instead of errorsByType, with the
   * reply's 0-based ordinal (the value of `replies` before it), so the request can be sent again.
   */
  onRedirect: ((message: string, ordinal: number) => void) | null = null;
  /**
   * When set (expectReplyTypes): the type bytes a top-level reply may have, 1 for each allowed.
   * A reply of another type is counted in wrongTypes, not refused: the cell goes on, and its
   * result says the server answered something else than the command's reply (WRONG_REPLIES).
   */
  private replyTypes: Uint8Array | null = null;
  /** Top-level replies of a type the command cannot return, and the first one's type byte. */
  wrongTypes = 0;
  firstWrongType = 0;

  // Bytes of a bulk payload (plus its CRLF) still to skip.
  private skip = 0;
  // Remaining element counts of the open aggregates, innermost last, and each one's kind.
  private readonly stack: number[] = [];
  private readonly kinds: number[] = [];
  // An incomplete header line carried over from the previous chunk.
  private carry: Buffer | null = null;
  // The bulk being skipped is a RESP3 blob error (!), counted as an error when it ends.
  private blobError = false;
  // Bytes of the reply in progress (at most one read over), and the values it declared so far.
  private replyBytes = 0;
  private replyValues = 0;

  // The limits as plain fields: the hot path reads them once per header, with no object between.
  private readonly maxDepth: number;
  private readonly maxLineBytes: number;
  private readonly maxBulkBytes: number;
  private readonly maxReplyBytes: number;
  private readonly maxReplyValues: number;

  constructor(limits: ReplyLimits = MEASURED_REPLY_LIMITS) {
    this.maxDepth = limits.maxDepth;
    this.maxLineBytes = limits.maxLineBytes;
    this.maxBulkBytes = limits.maxBulkBytes;
    this.maxReplyBytes = limits.maxReplyBytes;
    this.maxReplyValues = limits.maxReplyValues;
  }

  /**
   * Count top-level replies whose type byte is not among `types` (e.g. '$_' for GET) as wrong;
   * errors, pushes and attributes are always allowed. Null stops the check (during a handshake).
   */
  expectReplyTypes(types: string | null): void {
    if (types === null) {
      this.replyTypes = null;
      return;
    }
    const allowed = new Uint8Array(256);
    for (const c of `${types}-!>|`) allowed[c.charCodeAt(0)] = 1;
    this.replyTypes = allowed;
  }

  /** A reply is partly read: a header line, a bulk payload or an aggregate's elements are still to come. */
  get midReply(): boolean {
    return this.stack.length > 0 || this.skip > 0 || this.carry !== null;
  }

  /** Mark each null reply in nilMarks; `mask` + 1 (a power of two) must exceed the replies one socket awaits. */
  trackNils(mask: number): void {
    this.nilMarks = new Uint8Array(mask + 1);
    this.nilMask = mask;
  }

  /** Parse buf[0, end) and return how many top-level replies it completed. */
  feed(buf: Buffer, end: number): number {
    const before = this.replies;
    let i = 0;
    if (this.carry !== null) {
      const nl = buf.indexOf(LF, 0);
      if (nl < 0 || nl >= end) {
        this.checkLine(this.carry.length + end);
        this.carry = Buffer.concat([this.carry, buf.subarray(0, end)]);
        this.countReplyBytes(end, before);
        return 0;
      }
      this.checkLine(this.carry.length + nl);
      const line = Buffer.concat([this.carry, buf.subarray(0, nl + 1)]);
      this.carry = null;
      this.header(line, 0, line.length - 2);
      i = nl + 1;
    }
    while (true) {
      if (this.skip > 0) {
        const avail = end - i;
        if (avail < this.skip) {
          this.skip -= avail;
          this.countReplyBytes(end, before);
          return this.replies - before;
        }
        i += this.skip;
        this.skip = 0;
        if (this.blobError) {
          this.blobError = false;
          this.countError('ERR', 'blob error');
        }
        this.valueDone();
      }
      if (i >= end) break;
      // Find the header line's LF. Headers are short, so a byte loop beats indexOf's call cost.
      let j = i + 1;
      while (j < end && buf[j] !== LF) j++;
      if (j >= end) {
        this.checkLine(end - i);
        this.carry = Buffer.from(buf.subarray(i, end));
        break;
      }
      if (j - i > this.maxLineBytes) this.checkLine(j - i);
      this.header(buf, i, j - 1);
      i = j + 1;
    }
    this.countReplyBytes(end, before);
    return this.replies - before;
  }

  /**
   * Bytes of the reply still in progress after a read: the whole read when the reply began in an
   * earlier one and none ended in this one, else at most this read (an overestimate by less than
   * one read, which keeps the hot path free of per-reply bookkeeping).
   */
  private countReplyBytes(end: number, repliesBefore: number): void {
    if (!this.midReply) {
      this.replyBytes = 0;
      return;
    }
    this.replyBytes = this.replies === repliesBefore ? this.replyBytes + end : end;
    if (this.replyBytes > this.maxReplyBytes)
      throw new ReplyLimitError(
        `a reply of more than ${fmt(this.maxReplyBytes)} bytes (the most the control connection buffers for one reply)`,
      );
  }

  private checkLine(bytes: number): void {
    if (bytes > this.maxLineBytes)
      throw new ReplyLimitError(
        `a line longer than ${fmt(this.maxLineBytes)} bytes with no end in sight (the longest header or status line taken)`,
      );
  }

  /** Handle one header line buf[start, crPos) whose CR is at crPos. */
  private header(buf: Buffer, start: number, crPos: number): void {
    const type = buf[start]!;
    if (this.replyTypes !== null && this.stack.length === 0 && this.replyTypes[type] === 0) {
      if (this.wrongTypes === 0) this.firstWrongType = type;
      this.wrongTypes++;
    }
    switch (type) {
      case 43: // + simple string
      case 58: // : integer
      case 44: // , double
      case 35: // # boolean
      case 40: // ( big number
        this.valueDone();
        return;
      case 45: // - error
        if (this.stack.length === 0) this.countErrorLine(buf, start + 1, crPos);
        this.valueDone();
        return;
      case 95: // _ null
        if (this.stack.length === 0) this.nil();
        this.valueDone();
        return;
      case 36: // $ bulk string
      case 61: // = verbatim string
      case 33: {
        // ! blob error
        const len = parseLength(buf, start + 1, crPos);
        if (len > this.maxBulkBytes)
          throw new ReplyLimitError(
            `a bulk string of ${fmt(len)} bytes, more than ${fmt(this.maxBulkBytes)} (the longest taken)`,
          );
        if (len < 0) {
          if (this.stack.length === 0) this.nil();
          this.valueDone();
          return;
        }
        this.blobError = type === 33 && this.stack.length === 0;
        this.skip = len + 2;
        return;
      }
      case 42: // * array
      case 126: // ~ set
      case 37: // % map
      case 62: // > push
      case 124: {
        // | attribute
        let n = parseLength(buf, start + 1, crPos);
        if (type === 37 || type === 124) n *= 2;
        const kind = type === 124 ? ATTRIBUTE : type === 62 ? PUSH : AGGREGATE;
        if (n <= 0) {
          if (n < 0 && this.stack.length === 0) this.nil();
          this.aggregateDone(kind);
          return;
        }
        if (this.stack.length >= this.maxDepth)
          throw new ReplyLimitError(`a reply nested deeper than ${this.maxDepth} levels (the deepest taken)`);
        this.replyValues += n;
        if (this.replyValues > this.maxReplyValues)
          throw new ReplyLimitError(
            `a reply of more than ${fmt(this.maxReplyValues)} values (the most the control connection builds for one reply)`,
          );
        this.stack.push(n);
        this.kinds.push(kind);
        return;
      }
      default:
        throw new ProtocolError(`unexpected RESP type byte 0x${(type ?? 0).toString(16)} in server reply`);
    }
  }

  /** A top-level null reply: its ordinal is `replies`, counted as it completes. */
  private nil(): void {
    this.nils++;
    if (this.nilMarks !== null) this.nilMarks[this.replies & this.nilMask] = 1;
  }

  /** A value completed: close every aggregate it completes, and count a top-level reply. */
  private valueDone(): void {
    const stack = this.stack;
    while (stack.length > 0) {
      const top = stack.length - 1;
      const left = stack[top]! - 1;
      if (left > 0) {
        stack[top] = left;
        return;
      }
      stack.pop();
      const kind = this.kinds.pop()!;
      if (kind !== AGGREGATE) {
        this.aggregateDone(kind);
        return;
      }
    }
    this.replies++;
    this.replyValues = 0;
  }

  /** An aggregate closed. An attribute only annotates the value after it, and a push answers no request. */
  private aggregateDone(kind: number): void {
    if (kind === ATTRIBUTE) return;
    if (kind === PUSH && this.stack.length === 0) return;
    this.valueDone();
  }

  private countErrorLine(buf: Buffer, start: number, end: number): void {
    const message = buf.toString('latin1', start, end);
    const space = message.indexOf(' ');
    if (this.onRedirect !== null && (message.startsWith('MOVED ') || message.startsWith('ASK '))) {
      this.onRedirect(message, this.replies);
      return;
    }
    this.countError(space < 0 ? message : message.slice(0, space), message);
  }

  private countError(type: string, message: string): void {
    // A server that sends a new first word in every error must not grow this map without end.
    const key = this.errorsByType.size < MAX_ERROR_TYPES || this.errorsByType.has(type) ? type : OTHER_ERRORS;
    this.errorsByType.set(key, (this.errorsByType.get(key) ?? 0) + 1);
    this.lastError = message;
    if (this.firstError === '') this.firstError = message;
  }
}

export class ProtocolError extends Error {
  readonly code = 'ERR_RESP_PROTOCOL';
}

function parseLength(buf: Buffer, start: number, end: number): number {
  let i = start;
  let negative = false;
  if (buf[i] === 45) {
    negative = true;
    i++;
  }
  let n = 0;
  for (; i < end; i++) n = n * 10 + (buf[i]! - 48);
  return negative ? -n : n;
}
