import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { App, type Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CONTROLLER_MEMORY_MB } from '../../lib/cdk/controller-function.ts';
import { ROOT } from '../../scripts/build.ts';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { type DeployedOrdersStack, tickThroughLifecycle } from './support/controller-lifecycle.ts';
import { deployedEnvironment } from './support/deployed-controller.ts';
import { deployToMoto } from './support/moto-deploy.ts';
import { node24Binary } from './support/node24.ts';

/**
 * The controller runs on Lambda's nodejs24.x; the rest of the suite runs on the machine's node. Here the fixture
 * app's OrdersStack is synthesized from this repo's sources (its `queue-age-scaler` import is the repo's
 * lib/index.ts: installed-app.test.ts covers the packed package), deployed into moto, and its controller bundle
 * ticked through the same life as there, each tick in a process of the Node 24 binary.
 */
vi.mock('queue-age-scaler', () => import('../../lib/index.ts'));

const ORDERS_STACK = join(import.meta.dirname, 'fixture-app', 'lib', 'orders-stack.ts');
/**
 * The timeout the invocation context counts down. The deployed one (a tick plus 10 s) lets the fast path sample
 * every 10 s until 10 s before the next tick, 50 s a tick, idle or busy; with 35 s it samples at +10 s (25 s left,
 * at least the 20 s one sample may take) and stops before the next (15 s would be left): about 10 s a tick.
 */
const TIMEOUT_SECONDS = 35;
/** What Lambda's Node runtime adds to the handler's process (its runtime client and buffers): kept free. */
const RUNTIME_HEADROOM_MB = 24;

let server: MotoServer;
let outdir: string;
let deployed: DeployedOrdersStack;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'queue-age-scaler-node24-'));
  // A path the type checker does not follow: the fixture is compiled against the packed package, not this repo.
  const { OrdersStack } = (await import(ORDERS_STACK)) as {
    OrdersStack: new (scope: Construct, id: string, props?: StackProps) => Stack;
  };
  const app = new App({ outdir });
  new OrdersStack(app, 'OrdersStack', {});
  app.synth();
  server = await startMotoServer();
  const deployment = await deployToMoto(server, outdir, 'OrdersStack');
  const template = JSON.parse(readFileSync(join(outdir, 'OrdersStack.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: { Code?: { S3Key?: string } } }>;
  };
  const controller = Object.entries(template.Resources).find(
    ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith('ScalerController'),
  )?.[1];
  const hash = controller?.Properties.Code?.S3Key?.replace(/\.zip$/, '');
  deployed = {
    server,
    deployment,
    environment: await deployedEnvironment(server, deployment.outputs.ControllerFunctionName as string),
    bundle: join(outdir, `asset.${hash}`, 'index.mjs'),
  };
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('the controller bundle on Node 24, the version of its Lambda runtime', () => {
  it('is the bundle shipped in assets/controller/, staged as is', () => {
    expect(
      readFileSync(deployed.bundle).equals(readFileSync(join(ROOT, 'assets', 'controller', 'index.mjs'))),
    ).toBe(true);
  });

  it('ticks the deployed OrdersStack through paused, no data, growth, a repeated event and a deleted mapping', async () => {
    // Without the binary this throws: the test fails, it never skips.
    const runs = await tickThroughLifecycle(deployed, {
      node: node24Binary(),
      timeoutSeconds: TIMEOUT_SECONDS,
    });
    expect(runs.map((run) => run.node)).toEqual(runs.map(() => expect.stringMatching(/^v24\./)));
    // Every tick that ran sent its samples between ticks to the deployed ticker queue: moto holds them, delayed.
    const tickerUrl = deployed.environment.TICKER_QUEUE_URL as string;
    expect(tickerUrl).toMatch(/ticker/i);
    const sqs = new SQSClient(server.clientConfig);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: tickerUrl,
        AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
      }),
    );
    expect(Number(Attributes?.ApproximateNumberOfMessagesDelayed)).toBeGreaterThanOrEqual(5);
    sqs.destroy();
    // Every invocation, its fast path included, fits the deployed 128 MB with room for Lambda's own runtime
    // client (CONTROLLER_MEMORY_MB, docs/aws-facts.md "Prices"): the tick's peak resident set stays under it.
    console.log(`controller peak RSS (MB): ${runs.map((run) => run.maxRssMb.toFixed(1)).join(', ')}`);
    for (const run of runs) expect(run.maxRssMb).toBeLessThan(CONTROLLER_MEMORY_MB - RUNTIME_HEADROOM_MB);
  }, 150_000);

  it('leaves the rest of the suite on the machine node: no node_modules/.bin/node ahead of it on the PATH', () => {
    // npm links the node24 package's `node` bin there, first on every npm script's PATH; `prepare` removes it.
    expect(
      existsSync(join(ROOT, 'node_modules', '.bin', 'node')),
      'node_modules/.bin/node shadows the machine node for npm scripts: run npm install (its prepare removes it)',
    ).toBe(false);
    expect(realpathSync(process.execPath)).not.toBe(realpathSync(node24Binary()));
  });
});
