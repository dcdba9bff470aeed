import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The CDK tests synthesize the pre-built controller: build it once before any test file runs.
    globalSetup: ['test/support/build-controller.ts'],
    // The JSON report lets .ci/run print the plain "N passed, N failed" line CI reads.
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest/results.json' },
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
