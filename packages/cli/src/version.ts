/** Kept equal to package.json's version by a test; a constant survives bundling for npx. */
export const VERSION = '0.2.0';
