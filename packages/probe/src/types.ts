/**
 * The environment blocks of `redis-benchdb/result.v1`. The types come from the JSON Schema (via
 * @redis-benchdb/result's generated types), so the probe cannot drift from the format it fills.
 *
 * A field that cannot be known is `null`, and its dotted path (relative to the block) is listed
 * with the reason in the block's `unknown` map. It is never a guess.
 */
import type { Link, Machine, Server, Warning } from '@redis-benchdb/result';

export type { Link, Machine, Server, Warning };

/** Reasons keyed by dotted path, e.g. `{ "cpu.baseMhz": "file /sys/... absent" }`. */
export type UnknownMap = Record<string, string>;

export type VirtualizationKind = Machine['virtualization']['kind'];
export type ThpMode = NonNullable<Machine['thp']['enabled']>;
export type ServerProduct = Server['product'];
export type ServerMode = NonNullable<Server['mode']>;
export type LinkKind = Link['kind'];
export type IntrinsicLatency = NonNullable<Link['intrinsicLatencyUs']>;
export type WarningCode = Warning['code'];
