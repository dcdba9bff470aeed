import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { exampleContextFrom } from './context.ts';
import { QueueAgeScalerExampleStack } from './example-stack.ts';

/**
 * The CDK app: the example stack from context, checked by cdk-nag's AwsSolutions pack (a v3 policy-validation
 * plugin: synthesis fails on any unacknowledged finding). `bin/app.ts` runs it; tests build it with context.
 */
export function createApp(props: AppProps = {}): { app: App; stack: QueueAgeScalerExampleStack } {
  const app = new App(props);
  const example = exampleContextFrom(app.node.getAllContext());
  const stack = new QueueAgeScalerExampleStack(app, example.stackName, {
    example,
    description:
      'queue-age-scaler example: an SQS queue whose consumer concurrency follows its oldest message age',
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
