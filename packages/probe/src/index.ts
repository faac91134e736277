/**
 * @redis-benchdb/probe: what a result says about the machine, the server and the link between
 * them, so readers can decide which results may be compared. Imports only node:*,
 * systeminformation and @redis-benchdb/result (never the engine or a Redis client).
 */

export {
  BUILD_MANIFEST_NAME,
  BUILD_MANIFEST_SCHEMA,
  readServerBuild,
  type ServerBuild,
} from './build-manifest.js';
export type { CloudMetadata } from './cloud-metadata.js';
export {
  type InterferenceFigures,
  type InterferenceSampler,
  type InterferenceSamplerOptions,
  interferenceFigures,
  localServerPid,
  nullFigures,
  parseInvoluntarySwitches,
  parsePidStatTicks,
  parseProcStat,
  startInterferenceSampler,
} from './interference.js';
export {
  BUSY_HOST_OTHER_CPU_FRACTION,
  CPU_STEAL_FRACTION,
  type DriftFigures,
  driftCheck,
  driftWarning,
  interferenceWarnings,
} from './interference-warnings.js';
export {
  describeLink,
  isLoopbackHost,
  type LinkTarget,
  linkKind,
  measureIntrinsicLatency,
  sameHost,
} from './link.js';
export { type ProbeMachineOptions, probeMachine } from './machine.js';
export {
  CONFIG_UNAVAILABLE,
  collectServer,
  countMonitorClients,
  type DescribeServerNotes,
  describeServer,
  type RawServerFacts,
  readServerFacts,
  type ServerCommands,
  serverProcessId,
} from './server.js';
export { type EnvironmentView, formatEnvironmentTable } from './sysinfo-format.js';
export type {
  IntrinsicLatency,
  Link,
  LinkKind,
  Machine,
  Server,
  ServerMode,
  ServerProduct,
  ThpMode,
  UnknownMap,
  VirtualizationKind,
  Warning,
  WarningCode,
} from './types.js';
export { cellWarning, environmentWarnings, type WarningEnvironment } from './warnings.js';
