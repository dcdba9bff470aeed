import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../../examples/app.ts';
import type { QueueAgeScalerExampleStack } from '../../examples/example-stack.ts';

/** The context the example tests synthesize with: every setting a user would give on the command line. */
export const TEST_CONTEXT = {
  targetAgeSeconds: '45',
  minConcurrency: '2',
  maxConcurrency: '24',
  dbPoolSize: '20',
  apiRatePerSecond: '1000',
  itemTimeSeconds: '0.02',
  callsPerItem: '1',
  alarmEmail: 'ops@example.com',
} as const;

export interface SynthesizedExample {
  readonly app: App;
  readonly stack: QueueAgeScalerExampleStack;
  readonly template: Template;
  /** The cloud assembly's directory, with the synthesized template file. */
  readonly outdir: string;
  readonly templatePath: string;
}

/**
 * Builds and synthesizes the example app once (bundling both functions with the local esbuild); a test file
 * calls this in `beforeAll` and asserts on the result.
 */
export function synthesizeExample(context: Record<string, unknown> = TEST_CONTEXT): SynthesizedExample {
  const outdir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-cdk-'));
  const { app, stack } = createApp({ context, outdir });
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stack.stackName);
  return {
    app,
    stack,
    template: Template.fromJSON(artifact.template),
    outdir,
    templatePath: join(outdir, artifact.templateFile),
  };
}
