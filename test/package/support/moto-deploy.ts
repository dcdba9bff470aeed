import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  type StackResource,
} from '@aws-sdk/client-cloudformation';
import {
  CloudWatchClient,
  PutMetricAlarmCommand,
  type PutMetricAlarmInput,
} from '@aws-sdk/client-cloudwatch';
import { MOTO_ACCOUNT } from '../../support/moto-iam.ts';
import { type MotoServer, TEST_REGION } from '../../support/moto-server.ts';
import { pythonWithTools } from '../../support/python-tools.ts';

/**
 * Deploys a synthesized stack into moto's CloudFormation the way `cdk deploy` would into a bootstrapped account:
 * what `cdk bootstrap` provides is emulated (the SSM version parameter the template's BootstrapVersion parameter
 * reads, the asset bucket holding each zipped asset under the key the asset manifest names), then the template
 * is created as a stack.
 *
 * Two departures from the template, both forced by moto 5.2.1 and both visible here:
 * - moto's CloudFormation has no `AWS::CloudWatch::Alarm` (a `Fn::GetAtt` to one fails the whole stack): the
 *   alarms are taken out of the template and created with `PutMetricAlarm` from the template's own properties,
 *   their references resolved against the deployed stack; the dashboard's references to them become their ARNs.
 * - event source mappings are created disabled: an enabled one makes moto run the consumer (in Docker) for every
 *   message sent, and receive counts climb into the DLQ.
 * - the scaler's start trigger (a `Custom::Trigger`, which invokes the controller once at deploy) is taken out:
 *   moto would run its provider function in Docker. The tests invoke the controller themselves.
 */

const BOOTSTRAP_QUALIFIER = 'hnb659fds';
// The bootstrap stack version `cdk bootstrap` writes (the template's rule requires at least 6).
const BOOTSTRAP_VERSION = '30';
const FAKE_SIGNATURE = (service: string) =>
  `AWS4-HMAC-SHA256 Credential=test/20260101/${TEST_REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`;

type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  [section: string]: unknown;
};

interface AssetManifest {
  files: Record<
    string,
    {
      source: { path: string; packaging?: 'file' | 'zip' };
      destinations: Record<string, { bucketName: string; objectKey: string }>;
    }
  >;
}

async function motoRequest(
  server: MotoServer,
  path: string,
  init: { method: string; service: string; headers?: Record<string, string>; body?: string | Uint8Array },
): Promise<void> {
  const response = await fetch(`${server.endpoint}${path}`, {
    method: init.method,
    headers: { Authorization: FAKE_SIGNATURE(init.service), ...init.headers },
    body: init.body,
  });
  if (!response.ok)
    throw new Error(`${init.method} ${path} (${init.service}): ${response.status} ${await response.text()}`);
}

const PSEUDO_PARAMETERS: Record<string, string> = {
  AccountId: MOTO_ACCOUNT,
  Region: TEST_REGION,
  Partition: 'aws',
};

/** The asset manifest's `${AWS::AccountId}`-style placeholders, filled in for moto. */
function placeholders(text: string): string {
  return text.replace(/\$\{AWS::(\w+)\}/g, (whole, name: string) => PSEUDO_PARAMETERS[name] ?? whole);
}

/** A zip of a directory's files, as `cdk deploy` uploads a directory asset. */
function zipDirectory(dir: string): Uint8Array {
  return execFileSync(pythonWithTools(), [
    '-c',
    [
      'import io, os, sys, zipfile',
      'root = sys.argv[1]',
      'b = io.BytesIO()',
      "with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:",
      '    for d, _, names in os.walk(root):',
      '        for n in sorted(names):',
      '            p = os.path.join(d, n)',
      '            z.write(p, os.path.relpath(p, root))',
      'sys.stdout.buffer.write(b.getvalue())',
    ].join('\n'),
    dir,
  ]);
}

/** What `cdk bootstrap` leaves in an account, and each asset where `cdk deploy` would upload it. */
async function bootstrapAndUpload(server: MotoServer, assemblyDir: string, stackName: string): Promise<void> {
  await motoRequest(server, '/', {
    method: 'POST',
    service: 'ssm',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AmazonSSM.PutParameter' },
    body: JSON.stringify({
      Name: `/cdk-bootstrap/${BOOTSTRAP_QUALIFIER}/version`,
      Value: BOOTSTRAP_VERSION,
      Type: 'String',
    }),
  });
  const manifest = JSON.parse(
    readFileSync(join(assemblyDir, `${stackName}.assets.json`), 'utf8'),
  ) as AssetManifest;
  const buckets = new Set<string>();
  for (const asset of Object.values(manifest.files)) {
    const source = join(assemblyDir, asset.source.path);
    const body = asset.source.packaging === 'zip' ? zipDirectory(source) : readFileSync(source);
    for (const destination of Object.values(asset.destinations)) {
      const bucket = placeholders(destination.bucketName);
      if (!buckets.has(bucket)) {
        await motoRequest(server, `/${bucket}`, { method: 'PUT', service: 's3' });
        buckets.add(bucket);
      }
      await motoRequest(server, `/${bucket}/${destination.objectKey}`, {
        method: 'PUT',
        service: 's3',
        body,
      });
    }
  }
}

function alarmArn(name: string): string {
  return `arn:aws:cloudwatch:${TEST_REGION}:${MOTO_ACCOUNT}:alarm:${name}`;
}

/** The template as moto can deploy it, and the alarms taken out of it. */
function adaptForMoto(template: Template): {
  template: Template;
  alarms: Record<string, Record<string, unknown>>;
} {
  const alarms: Record<string, Record<string, unknown>> = {};
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::CloudWatch::Alarm') {
      alarms[id] = resource.Properties ?? {};
      delete template.Resources[id];
    }
    if (resource.Type === 'AWS::Lambda::EventSourceMapping') {
      resource.Properties = { ...resource.Properties, Enabled: false };
    }
    if (resource.Type === 'Custom::Trigger') delete template.Resources[id];
  }
  const replaceAlarmRefs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replaceAlarmRefs);
    if (value === null || typeof value !== 'object') return value;
    const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
    if (getAtt && alarms[getAtt[0]]) {
      const name = alarms[getAtt[0]]?.AlarmName;
      if (typeof name !== 'string') throw new Error(`alarm ${getAtt[0]} has no literal AlarmName`);
      return alarmArn(name);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceAlarmRefs(v)]));
  };
  return { template: replaceAlarmRefs(template) as Template, alarms };
}

/** Resolves the intrinsic functions alarm properties use, against the deployed stack's resources. */
function resolver(resources: readonly StackResource[]): (value: unknown) => unknown {
  const byId = new Map(resources.map((r) => [r.LogicalResourceId ?? '', r]));
  const physical = (id: string) => {
    const resource = byId.get(id);
    if (!resource?.PhysicalResourceId) throw new Error(`no deployed resource ${id}`);
    return resource;
  };
  const queueName = (url: string) => url.split('/').at(-1) ?? url;
  const attribute = (id: string, name: string): string => {
    const resource = physical(id);
    const value = resource.PhysicalResourceId as string;
    switch (`${resource.ResourceType}.${name}`) {
      case 'AWS::SQS::Queue.QueueName':
        return queueName(value);
      case 'AWS::SQS::Queue.Arn':
        return `arn:aws:sqs:${TEST_REGION}:${MOTO_ACCOUNT}:${queueName(value)}`;
      case 'AWS::Lambda::Function.Arn':
        return `arn:aws:lambda:${TEST_REGION}:${MOTO_ACCOUNT}:function:${value}`;
      case 'AWS::SNS::Topic.TopicName':
        return value.split(':').at(-1) ?? value;
      default:
        throw new Error(`resolving Fn::GetAtt ${resource.ResourceType}.${name} is not implemented`);
    }
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if ('Ref' in record) {
      const ref = record.Ref as string;
      if (ref === 'AWS::Region') return TEST_REGION;
      if (ref === 'AWS::AccountId') return MOTO_ACCOUNT;
      if (ref === 'AWS::Partition') return 'aws';
      return physical(ref).PhysicalResourceId;
    }
    if ('Fn::GetAtt' in record) {
      const [id, name] = record['Fn::GetAtt'] as [string, string];
      return attribute(id, name);
    }
    if ('Fn::Join' in record) {
      const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(resolve(part))).join(separator);
    }
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, resolve(v)]));
  };
  return resolve;
}

export interface MotoDeployment {
  readonly stackName: string;
  readonly outputs: Record<string, string>;
  readonly resources: readonly StackResource[];
}

export async function deployToMoto(
  server: MotoServer,
  assemblyDir: string,
  stackName: string,
): Promise<MotoDeployment> {
  await bootstrapAndUpload(server, assemblyDir, stackName);
  const synthesized = JSON.parse(
    readFileSync(join(assemblyDir, `${stackName}.template.json`), 'utf8'),
  ) as Template;
  const { template, alarms } = adaptForMoto(synthesized);

  const cloudformation = new CloudFormationClient(server.clientConfig);
  await cloudformation.send(
    new CreateStackCommand({
      StackName: stackName,
      TemplateBody: JSON.stringify(template),
      Capabilities: ['CAPABILITY_IAM'],
    }),
  );
  // moto creates a stack synchronously; the wait is bounded all the same.
  const deadline = Date.now() + 60_000;
  let status = '';
  let outputs: Record<string, string> = {};
  while (Date.now() < deadline) {
    const described = await cloudformation.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = described.Stacks?.[0];
    status = stack?.StackStatus ?? '';
    outputs = Object.fromEntries((stack?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
    if (!status.endsWith('_IN_PROGRESS')) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (status !== 'CREATE_COMPLETE') throw new Error(`stack ${stackName}: ${status}`);
  const resources =
    (await cloudformation.send(new DescribeStackResourcesCommand({ StackName: stackName }))).StackResources ??
    [];

  // moto 5.2.1 has no AWS::CloudWatch::Alarm: the template's alarms, created from their own properties.
  const resolve = resolver(resources);
  const cloudwatch = new CloudWatchClient(server.clientConfig);
  for (const properties of Object.values(alarms)) {
    await cloudwatch.send(new PutMetricAlarmCommand(resolve(properties) as PutMetricAlarmInput));
  }
  return { stackName, outputs, resources };
}
