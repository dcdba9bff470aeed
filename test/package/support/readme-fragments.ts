/**
 * The README's TypeScript fragments, verbatim, as a user pastes them into a stack of their own: each fragment becomes
 * one stack of the fixture app (lib/readme-stacks.ts, written into the fresh app), whose constructor first makes the
 * names the fragment uses (`queue` and `consumer`, or `orders`, `ordersConsumer`, `refunds`, `refundsConsumer`) as a
 * user's app has them: a standard queue with its DLQ, and a consumer of inline code. The fragment's own imports are
 * hoisted and merged; its other lines are pasted unchanged.
 */

/** The stack each fragment becomes, in the README's order. */
export const README_STACKS = ['ReadmeFragment1', 'ReadmeFragment2'] as const;

/** The names a fragment may use, and how the stack makes each. */
const PARTS: Record<string, string> = {
  queue: "queueWithDlq(this, 'Queue')",
  consumer: "consumerOf(this, 'Consumer')",
  orders: "queueWithDlq(this, 'Orders')",
  ordersConsumer: "consumerOf(this, 'OrdersConsumer')",
  refunds: "queueWithDlq(this, 'Refunds')",
  refundsConsumer: "consumerOf(this, 'RefundsConsumer')",
};

export function readmeFragments(readme: string): string[] {
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

/** lib/readme-stacks.ts of the fixture app: one stack per fragment, and `addReadmeStacks(app)`. */
export function readmeStacksSource(readme: string): string {
  const fragments = readmeFragments(readme);
  if (fragments.length !== README_STACKS.length)
    throw new Error(`the README has ${fragments.length} ts fragments; expected ${README_STACKS.length}`);
  const named = new Map<string, Set<string>>();
  const bodies = fragments.map((fragment) => {
    const body: string[] = [];
    for (const line of fragment.split('\n')) {
      const imported = /^import \{ ([^}]+) \} from '([^']+)';$/.exec(line);
      if (!imported) {
        body.push(line);
        continue;
      }
      const names = named.get(imported[2] as string) ?? new Set<string>();
      for (const n of (imported[1] as string).split(',')) names.add(n.trim());
      named.set(imported[2] as string, names);
    }
    return body.join('\n');
  });
  const imports = [...named].map(([from, names]) => `import { ${[...names].join(', ')} } from '${from}';`);
  const stacks = bodies.map((body, i) => {
    const parts = Object.entries(PARTS)
      .filter(([name]) => new RegExp(`\\b${name}\\b(?!\\s*:)`).test(body)) // a value, not a property's key
      .map(([name, make]) => `    const ${name} = ${make};`);
    return [
      `export class ${README_STACKS[i]} extends fixtureCdk.Stack {`,
      '  constructor(scope: Construct, id: string) {',
      '    super(scope, id);',
      ...parts,
      body,
      '  }',
      '}',
    ].join('\n');
  });
  return [
    ...imports,
    "import * as fixtureCdk from 'aws-cdk-lib';",
    "import * as fixtureLambda from 'aws-cdk-lib/aws-lambda';",
    "import * as fixtureSqs from 'aws-cdk-lib/aws-sqs';",
    "import type { Construct } from 'constructs';",
    '',
    'function queueWithDlq(scope: Construct, id: string): fixtureSqs.Queue {',
    "  const dlq = new fixtureSqs.Queue(scope, id + 'Dlq', { enforceSSL: true, retentionPeriod: fixtureCdk.Duration.days(14) });",
    '  return new fixtureSqs.Queue(scope, id, {',
    '    enforceSSL: true,',
    '    visibilityTimeout: fixtureCdk.Duration.minutes(3),',
    '    deadLetterQueue: { queue: dlq, maxReceiveCount: 5 },',
    '  });',
    '}',
    '',
    'function consumerOf(scope: Construct, id: string): fixtureLambda.Function {',
    '  return new fixtureLambda.Function(scope, id, {',
    '    runtime: fixtureLambda.Runtime.NODEJS_20_X,',
    "    handler: 'index.handler',",
    "    code: fixtureLambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),",
    '    timeout: fixtureCdk.Duration.seconds(30),',
    '  });',
    '}',
    '',
    ...stacks,
    '',
    'export function addReadmeStacks(app: fixtureCdk.App): void {',
    ...README_STACKS.map((name) => `  new ${name}(app, '${name}');`),
    '}',
    '',
  ].join('\n');
}
