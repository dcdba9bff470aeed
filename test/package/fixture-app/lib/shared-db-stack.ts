import * as cdk from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DownstreamBudget, QueueAgeScaler } from 'queue-age-scaler';

/**
 * The README's budget: two queues whose consumers share one database's 40 connections, each with its own scaler,
 * both run by the budget's one controller.
 */
export class SharedDbStack extends cdk.Stack {
  readonly budget: DownstreamBudget;

  constructor(scope: Construct, id: string, props?: cdk.StackProps) {
    super(scope, id, props);
    const part = (name: string) => {
      const queue = new sqs.Queue(this, name, {
        visibilityTimeout: cdk.Duration.minutes(3),
        deadLetterQueue: {
          queue: new sqs.Queue(this, `${name}Dlq`, { enforceSSL: true }),
          maxReceiveCount: 5,
        },
        enforceSSL: true,
      });
      const consumer = new lambda.Function(this, `${name}Consumer`, {
        runtime: lambda.Runtime.NODEJS_20_X,
        handler: 'index.handler',
        code: lambda.Code.fromInline('exports.handler = async () => ({ batchItemFailures: [] });'),
        timeout: cdk.Duration.seconds(30),
      });
      return { queue, consumer };
    };
    const orders = part('Orders');
    const refunds = part('Refunds');

    const ordersDb = new DownstreamBudget(this, 'OrdersDb', {
      dbPoolSize: 40,
      alarmEmail: 'ops@example.com',
    });
    new QueueAgeScaler(this, 'OrdersScaler', {
      ...orders,
      budget: ordersDb,
      minConcurrency: 4,
      maxConcurrency: 30,
      weight: 2,
    });
    new QueueAgeScaler(this, 'RefundsScaler', {
      ...refunds,
      budget: ordersDb,
      maxConcurrency: 20,
      stackOutputs: false,
    });
    this.budget = ordersDb;
  }
}
