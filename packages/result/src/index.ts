export {
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  HIGHEST_TRACKABLE_US,
  type Histogram,
  type LatencySummaryUs,
  mergeEncodedHistograms,
  summarizeHistogram,
} from './histogram.js';
