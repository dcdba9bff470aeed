import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The JSON report lets .ci/run print the plain "N passed, N failed" line CI reads.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest/results.json' },
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
