import type { IncompleteReason } from '@redis-benchdb/result';
import type { SocketOptions } from './socket-options.js';
import type { Workload } from './workload.js';

/** What a connection reports to the driver that owns it. */
export interface ConnectionHost {
  onReplies(conn: MeasuredConnection, count: number, now: number): void;
  onConnectionLost(conn: MeasuredConnection, err: Error): void;
  /** Stop the cell with this reason (the result is marked incomplete). */
  abort(reason: string, kind?: IncompleteReason): void;
}

/**
 * What the driver needs of a measured connection: one socket (LoadConnection), or in cluster
 * mode one socket per primary (ClusterConnection), each its own pipeline. The connection knows
 * its pipelines and their mode; the driver grants a budget (the measured requests it may still
 * start) and is told how many requests the connection took on. A request is taken on when its
 * key is drawn: it is sent at once, or (cluster mode) waits in a pending pool until its node has
 * room, and is answered in either case unless the cell stops first (discardPending).
 */
export interface MeasuredConnection {
  /** Rate mode: when this connection's next request is meant to leave (ms, performance.now()). */
  nextIntendedMs: number;
  /**
   * Connect every socket and run the handshake on each. A refused handshake rejects with a
   * HandshakeFailure (reply-socket.ts); anything else with the socket's error.
   */
  open(opts: SocketOptions, handshake: Buffer[], readBuffer: Buffer): Promise<void>;
  /**
   * Closed loop: send what the pipelines have room for (window: up to P in flight; batch: P once
   * all of its replies are in), taking on at most `budget` new requests. Returns how many.
   */
  fill(budget: number): number;
  /** Open loop: take on each request whose intended time has come, at most `budget`; sent while there is room. */
  sendDue(now: number, budget: number): number;
  /** Open loop: when the timer must next wake this connection; +Infinity if only its replies can let it send. */
  nextWakeMs(): number;
  /** Drop the requests taken on but not sent (when measuring begins, or the cell stops); returns how many. */
  discardPending(): number;
  close(): void;
  counters(): ConnectionCounters;
  /** The socket waiting longest for a reply, or null when none has a request outstanding. */
  longestWait(): ReplyWait | null;
  /** The longest wait for a reply that ended in the measured phase. */
  longestGap(): ReplyGap;
}

/**
 * How a worker's connections are made: the driver is given this, so that it drives standalone
 * and cluster connections alike without knowing how either routes its requests.
 */
export interface ConnectionFactory {
  /** The connections follow MOVED and ASK replies (cluster mode), and the report counts them. */
  readonly followsRedirects: boolean;
  /** The worker's connection number `index`, reporting to `host`. */
  create(host: ConnectionHost, workload: Workload, index: number): MeasuredConnection;
}

/** A socket with requests outstanding: since when it has had no reply (ms, performance.now()). */
export interface ReplyWait {
  sinceMs: number;
  outstanding: number;
  server: string;
}

/** The longest wait for a reply (ms) and when it ended (ms, performance.now()). */
export interface ReplyGap {
  gapMs: number;
  endMs: number;
}

export interface ConnectionCounters {
  /** Replies to the cell's requests: not handshakes, nor redirects that were followed. */
  completed: number;
  errors: ReadonlyMap<string, number>;
  bytesIn: number;
  bytesOut: number;
  /** Cluster mode: MOVED and ASK replies followed. */
  moved: number;
  ask: number;
  /** The first error reply's message, or '' if none came. */
  errorExample: string;
  /** Replies of a type the command cannot return (ReplyReader.wrongTypes), and the first one's type byte. */
  wrongTypes: number;
  firstWrongType: number;
}
