export { clusterNodeConfig, configArgs, serverArgs, shellCommand, splitConfigLine } from './args.js';
export { findServerBinary, parseServerVersion, readServerVersion, type ServerVersion } from './binary.js';
export { liveServerCount, stopAllServers } from './children.js';
export { ServerLaunchError } from './errors.js';
export { type LaunchedServer, startServer, stopServers } from './launch.js';
export {
  type LocalCluster,
  LocalClusterError,
  type LocalClusterNode,
  type LocalClusterOptions,
  startLocalCluster,
} from './local-cluster.js';
export { DEFAULT_LAUNCH_OPTIONS, type LaunchOptions, type TlsFiles } from './options.js';
