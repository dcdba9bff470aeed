import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MotoServer, startMotoServer } from '../support/moto-server.ts';
import { tickThroughLifecycle } from './support/controller-lifecycle.ts';
import { deployedEnvironment } from './support/deployed-controller.ts';
import {
  command,
  type FreshApp,
  freshApp,
  type PackedPackage,
  packRepo,
  ROOT,
  removeScratch,
  scratchDir,
  synth,
} from './support/fresh-app.ts';
import { deployToMoto, type MotoDeployment } from './support/moto-deploy.ts';
import { node24Binary } from './support/node24.ts';
import { README_STACKS } from './support/readme-fragments.ts';

/**
 * From `npm pack` to a deployed stack, as a user gets there: the packed package installed into a fresh CommonJS
 * app made like `cdk init app --language typescript`, on the lowest aws-cdk-lib and constructs the package
 * declares, with no esbuild, Docker or TypeScript runner in the app; the same for an ESM app on another
 * aws-cdk-lib with cdk-nag 2's Aspects; every mistake the construct refuses synthesized; the CommonJS app's
 * stack deployed into moto and its controller run from the deployed bundle.
 */

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
/** The bottom of the declared peer range: the test runs on what the package claims to support. */
const lowest = (range: string | undefined) => /^\^(\d+\.\d+\.\d+)$/.exec(range ?? '')?.[1] ?? '';
const MIN_AWS_CDK_LIB = lowest(manifest.peerDependencies['aws-cdk-lib']);
const MIN_CONSTRUCTS = lowest(manifest.peerDependencies.constructs);
// The ESM app: a version between the minimum and the dev pin, new enough for the last cdk-nag 2 (needs 2.156).
const ESM_AWS_CDK_LIB = '2.180.0';
const CDK_NAG_V2 = '2.36.8';
// What that cdk-nag needs of constructs.
const ESM_CONSTRUCTS = '10.0.5';
// The newest aws-cdk-lib this repo knows: its own dev pin (in the npm cache `npm ci` filled).
const NEWEST_AWS_CDK_LIB = manifest.devDependencies['aws-cdk-lib'] as string;
const NEWEST_CONSTRUCTS = manifest.devDependencies.constructs as string;

const ESM_APP_WITH_CDK_NAG = `#!/usr/bin/env node
import * as cdk from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { OrdersStack } from '../lib/orders-stack.js';
import { addReadmeStacks } from '../lib/readme-stacks.js';
import { SharedDbStack } from '../lib/shared-db-stack.js';

const app = new cdk.App();
const stack = new OrdersStack(app, 'OrdersStack', {});
new SharedDbStack(app, 'SharedDbStack', {});
addReadmeStacks(app);
const nag = app.node.tryGetContext('nag');
// cdk-nag 2: its rules run as an Aspect over the app.
if (nag === 'v2' || nag === 'v2-unacknowledged') cdk.Aspects.of(app).add(new AwsSolutionsChecks());
if (nag === 'v2-unacknowledged') {
  // The control: the scaler's acknowledgement taken off its unscoped policy.
  const policy = stack.scaler.node.findChild('ControllerUnscopedPolicy').node.defaultChild as cdk.CfnResource;
  policy.cfnOptions.metadata = {};
}
`;

type Template = {
  Resources: Record<
    string,
    { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
  Outputs?: Record<string, unknown>;
};

function readTemplate(outdir: string, stack = 'OrdersStack'): Template {
  return JSON.parse(readFileSync(join(outdir, `${stack}.template.json`), 'utf8')) as Template;
}

function resourcesOf(template: Template, type: string): [string, Template['Resources'][string]][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

function controllerOf(template: Template): Template['Resources'][string] {
  const found = resourcesOf(template, 'AWS::Lambda::Function').filter(([id]) =>
    id.startsWith('ScalerController'),
  );
  expect(found).toHaveLength(1);
  return (found[0] as [string, Template['Resources'][string]])[1];
}

/**
 * The annotations `cdk synth` printed at one level, in order, each with its construct path: the CLI prints
 * `LEVEL <message> (Construct Annotations)` with the path on the next line.
 */
function annotationsPrinted(
  printed: string,
  level: 'ERROR' | 'WARNING' | 'INFO',
): { path: string; message: string }[] {
  const pattern = new RegExp(`^${level} (.*) \\(Construct Annotations\\)\\n\\s+(\\S+)$`, 'gm');
  return [...printed.matchAll(pattern)].map((m) => ({ path: m[2] as string, message: m[1] as string }));
}

const MB = 1024 * 1024;
let packed: PackedPackage;
let cjs: FreshApp;
let esm: FreshApp;
let newest: FreshApp;
let cjsOut: string;

beforeAll(async () => {
  expect(MIN_AWS_CDK_LIB, 'the aws-cdk-lib peer range is ^x.y.z').toMatch(/^2\.\d+\.\d+$/);
  packed = await packRepo();
  [cjs, esm, newest] = await Promise.all([
    freshApp(packed, { kind: 'commonjs', awsCdkLib: MIN_AWS_CDK_LIB, constructs: MIN_CONSTRUCTS }),
    freshApp(packed, {
      kind: 'module',
      awsCdkLib: ESM_AWS_CDK_LIB,
      constructs: ESM_CONSTRUCTS,
      extra: { 'cdk-nag': CDK_NAG_V2 },
      files: { 'bin/app.ts': ESM_APP_WITH_CDK_NAG },
    }),
    freshApp(packed, { kind: 'commonjs', awsCdkLib: NEWEST_AWS_CDK_LIB, constructs: NEWEST_CONSTRUCTS }),
  ]);
  console.log(
    `[package] tarball ${(packed.manifest.size / 1024).toFixed(0)} kB, ${packed.manifest.entryCount} files, unpacked ${(packed.manifest.unpackedSize / MB).toFixed(2)} MB; ` +
      `installing it into the CommonJS app (aws-cdk-lib ${MIN_AWS_CDK_LIB}) added ${cjs.after.packages - cjs.before.packages} packages, ` +
      `${((cjs.after.bytes - cjs.before.bytes) / MB).toFixed(1)} MB, in ${(cjs.installMilliseconds / 1000).toFixed(1)} s`,
  );
}, 15 * 60_000);

afterAll(() => removeScratch());

describe('the packed package', () => {
  it('ships compiled JavaScript, declarations, the built controller, the CLI and the scenarios; no sources or tests', () => {
    const paths = packed.manifest.files.map((f) => f.path);
    for (const required of [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/lib/index.cjs',
      'dist/types/lib/index.d.ts',
      'dist/types/package.json',
      'dist/cli/queue-age-scaler.mjs',
      'assets/controller/index.mjs',
      'scenarios/seed-spike.csv',
    ]) {
      expect(paths).toContain(required);
    }
    const unexpected = paths.filter(
      (p) =>
        /^(test|functions|scripts|bin|\.ci|lib)\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')),
    );
    expect(unexpected).toEqual([]);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(
      /Apache License\s+Version 2\.0, January 2004/,
    );
  });

  it('installs without esbuild, a TypeScript runner, Powertools or a second aws-cdk-lib', async () => {
    for (const app of [cjs, esm]) {
      const listed = await command('npm', ['ls', '--all', '--parseable'], { cwd: app.dir });
      const installed = listed.stdout.split('\n');
      for (const absent of ['esbuild', 'tsx', 'ts-node', 'typescript', '@aws-lambda-powertools']) {
        expect(installed.filter((p) => p.includes(`/node_modules/${absent}`))).toEqual([]);
      }
      // The peers resolve to the app's own copies.
      expect(installed.filter((p) => p.endsWith('/aws-cdk-lib'))).toEqual([
        join(app.dir, 'node_modules', 'aws-cdk-lib'),
      ]);
      expect(installed.filter((p) => p.endsWith('/constructs'))).toEqual([
        join(app.dir, 'node_modules', 'constructs'),
      ]);
    }
  });
});

describe(`a CommonJS app (cdk init's shape) on aws-cdk-lib ${MIN_AWS_CDK_LIB}`, () => {
  let template: Template;
  let printed: string;

  beforeAll(async () => {
    cjsOut = scratchDir('cjs-out');
    const result = await synth(cjs, cjsOut);
    printed = `${result.stdout}\n${result.stderr}`;
    console.log(`[package] cdk synth of the CommonJS app: ${(result.milliseconds / 1000).toFixed(1)} s`);
    expect(result.code, result.stderr).toBe(0);
    template = readTemplate(cjsOut);
  }, 5 * 60_000);

  it("the README's fragments pasted verbatim synthesize with no warning and no error; every budget alarm reaches the topic with the e-mail", () => {
    const onFragments = (level: 'ERROR' | 'WARNING') =>
      annotationsPrinted(printed, level).filter((a) => README_STACKS.some((s) => a.path.startsWith(`${s}/`)));
    expect(onFragments('ERROR')).toEqual([]);
    expect(onFragments('WARNING')).toEqual([]);
    for (const stack of README_STACKS) {
      const fragment = readTemplate(cjsOut, stack);
      const subscribed = new Set(
        resourcesOf(fragment, 'AWS::SNS::Subscription')
          .filter(([, r]) => r.Properties.Protocol === 'email' && r.Properties.Endpoint === 'ops@example.com')
          .map(([, r]) => JSON.stringify(r.Properties.TopicArn)),
      );
      const alarms = resourcesOf(fragment, 'AWS::CloudWatch::Alarm');
      expect(alarms.length).toBeGreaterThan(0);
      for (const [id, alarm] of alarms) {
        const actions = (alarm.Properties.AlarmActions as unknown[] | undefined) ?? [];
        expect(actions.length, id).toBeGreaterThan(0);
        for (const action of actions) expect(subscribed.has(JSON.stringify(action)), id).toBe(true);
      }
    }
  });

  it('synthesizes the controller from the pre-built asset: the bundle shipped in the package, zipped as is', () => {
    const controller = controllerOf(template);
    expect(controller.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
      // The log group the construct grants the role: aws-cdk-lib ≥ 2.110 renders the logGroup prop.
      LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/^ScalerControllerLogs/) } },
    });
    const key = (controller.Properties.Code as { S3Key: string }).S3Key;
    const hash = key.replace(/\.zip$/, '');
    const staged = join(cjsOut, `asset.${hash}`, 'index.mjs');
    const shipped = join(cjs.dir, 'node_modules', 'queue-age-scaler', 'assets', 'controller', 'index.mjs');
    expect(readFileSync(staged).equals(readFileSync(shipped))).toBe(true);
    console.log(`[package] controller asset hash in the app's template: ${hash}`);
  });

  it('attaches to the SqsEventSource: its mapping capped from the start, the controller told its UUID', () => {
    // The consumer's mapping, and the controller's own ticker queue's (the samples between ticks).
    const all = resourcesOf(template, 'AWS::Lambda::EventSourceMapping');
    const mappings = all.filter(([id]) => !id.includes('TickerMapping'));
    expect(all).toHaveLength(2);
    expect(mappings).toHaveLength(1);
    const [mappingId, mapping] = mappings[0] as [string, Template['Resources'][string]];
    expect(mapping.Properties).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 2 } });
    expect(controllerOf(template).Properties.Environment).toMatchObject({
      Variables: {
        EVENT_SOURCE_MAPPING_UUID: { Ref: mappingId },
        MAX_CONCURRENCY: '20',
        TARGET_AGE_SECONDS: '60',
      },
    });
  });

  it('emits the outputs the tools read, and the IAM5 acknowledgement for cdk-nag 3 and 2', () => {
    expect(Object.keys(template.Outputs ?? {}).sort()).toEqual(
      [
        'AlarmTopicArn',
        'ConsumerFunctionName',
        'ControllerFunctionName',
        'DashboardName',
        'EventSourceMappingUuid',
        'QueueName',
        'QueueUrl',
        'ScalerName',
      ].sort(),
    );
    const policies = resourcesOf(template, 'AWS::IAM::Policy').filter(([id]) =>
      id.startsWith('ScalerControllerUnscopedPolicy'),
    );
    expect(policies).toHaveLength(1);
    expect(policies[0]?.[1].Metadata?.cdk_nag).toEqual({
      rules_to_suppress: [
        {
          id: 'AwsSolutions-IAM5',
          reason: expect.stringMatching(/GetMetricData/),
          applies_to: ['Resource::*'],
        },
      ],
    });
  });

  it("synthesizes the README's budget: two scalers, one controller that lists both, the budget's alarm", () => {
    const shared = readTemplate(cjsOut, 'SharedDbStack');
    const functions = resourcesOf(shared, 'AWS::Lambda::Function');
    // The two consumers, the budget's controller and aws-cdk-lib's trigger provider: no controller per scaler.
    expect(functions.map(([id]) => id).filter((id) => /Controller/.test(id))).toEqual([
      expect.stringMatching(/^OrdersDbController/),
    ]);
    const controller = (
      functions.find(([id]) => id.startsWith('OrdersDbController')) as [string, Template['Resources'][string]]
    )[1];
    expect(controller.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Handler: 'index.handler',
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: { BUDGET_CONCURRENCY: '40', METRIC_NAMESPACE: 'QueueAgeScaler' } },
    });
    const members = JSON.stringify(
      (controller.Properties.Environment as { Variables: Record<string, unknown> }).Variables.BUDGET_MEMBERS,
    );
    expect(members).toContain('OrdersScaler');
    expect(members).toContain('RefundsScaler');
    expect(members).toContain('\\"weight\\":2');
    expect(resourcesOf(shared, 'AWS::Events::Rule')).toHaveLength(1);
    const alarms = resourcesOf(shared, 'AWS::CloudWatch::Alarm').map(
      ([, a]) => a.Properties.AlarmName as string,
    );
    expect(alarms.filter((name) => name.endsWith('-budget-exhausted'))).toHaveLength(1);
    // Each member keeps its seven alarms (the oscillation alarm is opt-in).
    expect(alarms).toHaveLength(15);
  });

  it(
    'every mistake the construct refuses fails synth with its message under its construct path, and no stack trace',
    async () => {
      const out = scratchDir('mistakes');
      const result = await synth(cjs, out, { mistakes: 'errors' });
      const printed = `${result.stdout}\n${result.stderr}`;
      expect(result.code).toBe(1);
      expect(printed).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      // Exactly one error per mistake, on the scaler that made it, and none anywhere else (the good stack included).
      const expected: [string, RegExp][] = [
        [
          'MaxConcurrencyAboveCap/Scaler',
          /^event source mapping maxConcurrency = 50: above the scaler's cap 20.*set it between 2 and 20$/,
        ],
        [
          'BatchingWindowUncounted/Scaler',
          /^queue visibility timeout = 180 s: .*\+ the batching window \(30 s\) = 210 s; set visibilityTimeout: Duration.seconds\(210\)/,
        ],
        [
          'TwoScalersOneConsumer/Second',
          /^the consumer TwoScalersOneConsumer\/Consumer already has a queue-age scaler, TwoScalersOneConsumer\/First: one scaler per consumer/,
        ],
        [
          'MappingOfAnotherQueue/Scaler',
          /^the event source mapping MappingOfAnotherQueue\/Mapping\/Resource reads another queue, not MappingOfAnotherQueue\/Queue/,
        ],
        ['InvalidSetting/Scaler', /^maxConcurrency = 0: must be an integer in \[1; 10000\]/],
        [
          'EventSourceOverpull/Scaler',
          /^consumer reservedConcurrentExecutions = 5: below the cap 32 up to which actuator 'event-source' raises the mapping's MaximumConcurrency, and the mapping starts at 20.*ScalerActuator.LOCKSTEP$/,
        ],
        ['FifoQueue/Scaler', /^the queue is a FIFO queue: the scaler does not support FIFO yet/],
        [
          'ScheduledFloorFiveFields/Scaler',
          /^floors\[0\]\.schedule = 'cron\(45 8 \* \* 1-5\)': has 5 fields: cron\(\) takes 6/,
        ],
        [
          'BudgetTooSmall/Budget',
          /^the members' floors \(minConcurrency\) add up to 12, above the budget 10 \(BudgetTooSmall\/First 6, BudgetTooSmall\/Second 6\).*raise the budget's limit to 12 if the downstream takes it$/,
        ],
        [
          'BudgetTooSmall/Second',
          /^maxConcurrency = 32: above the budget BudgetTooSmall\/Budget, 10: .*set maxConcurrency \(or dbPoolSize\) to at most 10 on this scaler/,
        ],
      ];
      expect(annotationsPrinted(printed, 'ERROR')).toEqual(
        expected.map(([path, message]) => ({ path, message: expect.stringMatching(message) })),
      );
    },
    5 * 60_000,
  );

  it(
    'a missing maximum is set, an alias consumer supported, an imported mapping warned about: each synthesizes',
    async () => {
      const out = scratchDir('fixed');
      const result = await synth(cjs, out, { mistakes: 'fixed' });
      const printed = `${result.stdout}\n${result.stderr}`;
      expect(result.code, printed).toBe(0);
      expect(annotationsPrinted(printed, 'ERROR')).toEqual([]);
      expect(annotationsPrinted(printed, 'INFO')).toContainEqual({
        path: 'MappingWithoutMaximum/Scaler',
        message: expect.stringMatching(
          /^the event source mapping MappingWithoutMaximum\/Mapping\/Resource had no MaximumConcurrency: set to 2/,
        ),
      });
      // The fixture's scalers have no alarmEmail: each is told, in one line, that its alarms notify nobody.
      const warnings = annotationsPrinted(printed, 'WARNING');
      const nobody = warnings.filter((w) => w.message.startsWith('its alarms notify nobody'));
      expect(nobody.length).toBeGreaterThan(0);
      for (const w of nobody) expect(w.message).not.toMatch(/\n/);
      expect(warnings.filter((w) => !nobody.includes(w))).toEqual([
        {
          path: 'ImportedMapping/Scaler',
          message: expect.stringMatching(
            /^the event source mapping 11111111-2222-3333-4444-555555555555 is imported, so synth cannot check/,
          ),
        },
      ]);
      const missing = readTemplate(out, 'MappingWithoutMaximum');
      expect(
        resourcesOf(missing, 'AWS::Lambda::EventSourceMapping')[0]?.[1].Properties.ScalingConfig,
      ).toEqual({
        MaximumConcurrency: 2,
      });
      // An alias: the mapping invokes it, the controller sets its function's reserved concurrency by plain name.
      const alias = readTemplate(out, 'AliasConsumer');
      const consumer = resourcesOf(alias, 'AWS::Lambda::Function').find(([id]) =>
        id.startsWith('Consumer'),
      )?.[0];
      expect(controllerOf(alias).Properties.Environment).toMatchObject({
        Variables: { CONSUMER_FUNCTION_NAME: { Ref: consumer } },
      });
      expect(
        resourcesOf(alias, 'AWS::Lambda::EventSourceMapping')[0]?.[1].Properties.FunctionName,
      ).toMatchObject({
        'Fn::Join': ['', [expect.anything(), ':live']],
      });
    },
    5 * 60_000,
  );

  it(
    'installs the command line: simulate, bench, load and status run from node_modules/.bin',
    async () => {
      const bin = join(cjs.dir, 'node_modules', '.bin', 'queue-age-scaler');
      const help = await command(bin, ['--help'], { cwd: cjs.dir });
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/simulate.*\n.*bench.*\n.*load.*\n.*status/);
      const simulated = await command(bin, ['simulate', '--json', '--out', join(cjs.dir, 'out')], {
        cwd: cjs.dir,
      });
      expect(simulated.code, simulated.stderr).toBe(0);
      expect(JSON.parse(simulated.stdout)).toMatchObject({ scenario: 'seed-spike', lost: 0 });
      // The shipped scenarios are found inside the installed package.
      const plan = await command(bin, ['load', '--scenario', 'bursts', '--dry-run', '--json'], {
        cwd: cjs.dir,
      });
      expect(plan.code, plan.stderr).toBe(0);
      expect(JSON.parse(plan.stdout)).toMatchObject({ plan: { scenario: 'bursts' } });
      for (const tool of ['simulate', 'bench', 'load', 'status', 'recommend']) {
        const toolHelp = await command(bin, [tool, '--help'], { cwd: cjs.dir });
        expect(toolHelp.code, `${tool} --help`).toBe(0);
        // The help shows the command the user has, not the checkout's npm scripts.
        expect(toolHelp.stdout).toContain(`Usage: npx queue-age-scaler ${tool} `);
        expect(toolHelp.stdout).not.toMatch(/npm (start|run)/);
      }
      const unknown = await command(bin, ['deploy'], { cwd: cjs.dir });
      expect(unknown).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown command 'deploy'/) });
    },
    3 * 60_000,
  );
});

describe(`an ESM app on aws-cdk-lib ${ESM_AWS_CDK_LIB}, with cdk-nag 2`, () => {
  it(
    'imports the package and synthesizes the controller from the pre-built asset',
    async () => {
      const out = scratchDir('esm-out');
      const result = await synth(esm, out);
      expect(result.code, result.stderr).toBe(0);
      const controller = controllerOf(readTemplate(out));
      const hash = (controller.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
      const shipped = join(esm.dir, 'node_modules', 'queue-age-scaler', 'assets', 'controller', 'index.mjs');
      expect(readFileSync(join(out, `asset.${hash}`, 'index.mjs')).equals(readFileSync(shipped))).toBe(true);
    },
    5 * 60_000,
  );

  it(
    "cdk-nag 2's AwsSolutions Aspect finds nothing on the scaler's resources",
    async () => {
      const acknowledged = await synth(esm, scratchDir('nag2'), {
        nag: 'v2',
      });
      const control = await synth(esm, scratchDir('nag2-control'), {
        nag: 'v2-unacknowledged',
      });
      const findings = (result: { stdout: string; stderr: string }) => [
        ...annotationsPrinted(`${result.stdout}\n${result.stderr}`, 'ERROR'),
        ...annotationsPrinted(`${result.stdout}\n${result.stderr}`, 'WARNING'),
      ];
      const onScaler = (result: { stdout: string; stderr: string }) =>
        findings(result).filter((a) => a.path.startsWith('OrdersStack/Scaler/'));
      // The README's budget: its controller and its members' own resources.
      const onBudget = (result: { stdout: string; stderr: string }) =>
        findings(result).filter((a) =>
          /^SharedDbStack\/(OrdersDb|OrdersScaler|RefundsScaler)\//.test(a.path),
        );
      // The pack ran (it reports the app's own consumer, left as a user would write it)...
      expect(findings(acknowledged)).toContainEqual({
        path: 'OrdersStack/OrdersConsumer/Resource',
        message: expect.stringMatching(/^AwsSolutions-L1/),
      });
      // ...found nothing on the scaler, and would have found its one wildcard without the acknowledgement.
      expect(onScaler(acknowledged)).toEqual([]);
      expect(onBudget(acknowledged)).toEqual([]);
      expect(onScaler(control)).toEqual([
        {
          path: 'OrdersStack/Scaler/ControllerUnscopedPolicy/Resource',
          message: expect.stringMatching(/^AwsSolutions-IAM5\[Resource::\*\]/),
        },
      ]);
    },
    5 * 60_000,
  );
});

describe(`a CommonJS app on the newest aws-cdk-lib, ${NEWEST_AWS_CDK_LIB}`, () => {
  it(
    "synthesizes the README's fragments with no warning and no error, and leaves no error.txt behind",
    async () => {
      const out = scratchDir('newest-out');
      const result = await synth(newest, out);
      expect(result.code, result.stderr).toBe(0);
      const printed = `${result.stdout}\n${result.stderr}`;
      const onFragments = (level: 'ERROR' | 'WARNING') =>
        annotationsPrinted(printed, level).filter((a) =>
          README_STACKS.some((s) => a.path.startsWith(`${s}/`)),
        );
      expect(onFragments('ERROR')).toEqual([]);
      expect(onFragments('WARNING')).toEqual([]);
      expect(existsSync(join(out, 'error.txt'))).toBe(false);
    },
    5 * 60_000,
  );
});

describe('the CommonJS app deployed into moto, its controller run from the deployed bundle', () => {
  let server: MotoServer;
  let deployment: MotoDeployment;
  let environment: Record<string, string>;
  let bundle: string;

  beforeAll(async () => {
    server = await startMotoServer();
    deployment = await deployToMoto(server, cjsOut, 'OrdersStack');
    environment = await deployedEnvironment(server, deployment.outputs.ControllerFunctionName as string);
    const controller = controllerOf(readTemplate(cjsOut));
    const hash = (controller.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
    bundle = join(cjsOut, `asset.${hash}`, 'index.mjs');
  }, 3 * 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('deploys: the stack, its outputs, every alarm (created with PutMetricAlarm: moto has no AWS::CloudWatch::Alarm)', async () => {
    expect(deployment.outputs).toMatchObject({
      QueueUrl: expect.stringMatching(/OrdersStack-Orders/),
      ScalerName: expect.stringMatching(/Scaler/),
      EventSourceMappingUuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const inTemplate = resourcesOf(readTemplate(cjsOut), 'AWS::CloudWatch::Alarm').map(
      ([, alarm]) => alarm.Properties.AlarmName as string,
    );
    const described = await new CloudWatchClient(server.clientConfig).send(
      new DescribeAlarmsCommand({ AlarmNamePrefix: deployment.outputs.ScalerName }),
    );
    expect(inTemplate.length).toBeGreaterThanOrEqual(5);
    expect((described.MetricAlarms ?? []).map((a) => a.AlarmName).sort()).toEqual([...inTemplate].sort());
    expect(environment).toMatchObject({
      TARGET_AGE_SECONDS: '60',
      MAX_CONCURRENCY: '20',
      ACTUATOR: 'lockstep',
    });
  });

  it("`queue-age-scaler status --stack` reads the user's stack from the construct's outputs (before the controller runs and the mapping is deleted)", async () => {
    const bin = join(cjs.dir, 'node_modules', '.bin', 'queue-age-scaler');
    expect(existsSync(bin)).toBe(true);
    const status = await command(
      bin,
      ['status', '--stack', 'OrdersStack', '--endpoint', server.endpoint, '--region', 'us-east-1', '--json'],
      { cwd: cjs.dir, env: { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' } },
    );
    expect(status.code, status.stderr).toBe(0);
    const reading = JSON.parse(status.stdout) as { reading: Record<string, unknown> };
    expect(JSON.stringify(reading.reading)).toContain(deployment.outputs.ScalerName as string);
  }, 60_000);

  it('the installed CLI on Node 24 (a supported Node, as the package’s engines say): the same answer, no SDK warning', async () => {
    const bin = join(cjs.dir, 'node_modules', '.bin', 'queue-age-scaler');
    const args = [
      'status',
      '--stack',
      'OrdersStack',
      '--endpoint',
      server.endpoint,
      '--region',
      'us-east-1',
      '--json',
    ];
    const status = await command(node24Binary(), [bin, ...args], {
      cwd: cjs.dir,
      env: { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
    });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/NodeVersionSupportWarning|will require node/);
    expect(JSON.stringify(JSON.parse(status.stdout))).toContain(deployment.outputs.ScalerName as string);
    // And every other command starts there: its help, exit 0, nothing on stderr
    for (const tool of ['simulate', 'bench', 'load', 'trace', 'recommend']) {
      const help = await command(node24Binary(), [bin, tool, '--help'], { cwd: cjs.dir });
      expect(help.code, `${tool}: ${help.stderr}`).toBe(0);
      expect(help.stderr, tool).toBe('');
    }
  }, 60_000);

  it(
    'runs the deployed controller: no data, growth, a duplicate event, a deleted mapping',
    async () => {
      // A 35 s invocation: the fast path, which samples idle ticks too, takes one sample a tick, not 50 s of them.
      const runs = await tickThroughLifecycle(
        { server, deployment, environment, bundle },
        { timeoutSeconds: 35 },
      );
      // Each tick ran on the suite's own node; controller-node24.test.ts runs the same ticks on Node 24.
      expect(runs.map((run) => run.node)).toEqual(runs.map(() => process.version));
    },
    3 * 60_000,
  );
});
