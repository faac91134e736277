// The helpers every package's tests and the site's share, in one place they can all import
// (`@redis-benchdb/testing`, a dev dependency only).
export * from './envelopes.js';
export * from './histograms.js';
export * from './lookalikes.js';
export * from './remeasure.js';
export * from './skipped-claim.js';
