import { Logger } from '@aws-lambda-powertools/logger';
import { attachCallLog, createAwsClients } from '../../lib/aws/clients.ts';
import { BUDGET_CONTROL_PLANE_PER_SECOND, paceControlPlane } from '../../lib/aws/control-plane-pacer.ts';
import { sqsTickerPort, TICKER_QUEUE_VARIABLE } from '../../lib/aws/ticker.ts';
import { createHandler } from './handler.ts';
import {
  createBudgetMetrics,
  createMetrics,
  powertoolsBudgetReporter,
  powertoolsReporter,
} from './report.ts';
import { controllerSettingsFromEnvironment } from './resources.ts';

// Init: a bad or missing variable fails the cold start here, with one message naming each variable.
const settings = controllerSettingsFromEnvironment(process.env);
const clients = createAwsClients();
// One controller writes every member of a budget: keep its calls within the account's control-plane rate.
if ('members' in settings) paceControlPlane(clients.lambda, BUDGET_CONTROL_PLANE_PER_SECOND);
// The samples between ticks come back through this queue (lib/cdk/ticker-queue.ts); without it the controller only
// ticks.
const tickerUrl = process.env[TICKER_QUEUE_VARIABLE];
const common = {
  clients,
  calls: attachCallLog(clients),
  clock: () => Date.now() / 1000,
  ticker: tickerUrl ? sqsTickerPort(clients.sqs, tickerUrl) : undefined,
};
const logger = (persistentKeys: Record<string, string>) =>
  new Logger({ serviceName: 'queue-age-scaler', persistentKeys });

/** A lone scaler's controller, or a shared budget's (the construct lists the members then). */
export const handler =
  'members' in settings
    ? createHandler({
        ...common,
        settings,
        reporters: new Map(
          settings.members.map(({ resources: { scalerName } }) => [
            scalerName,
            // status --budget reads each member's age and target while it is behind (BUDGET_MEMBER_BEHIND_METRICS).
            powertoolsReporter(
              createMetrics(scalerName),
              logger({ scaler: scalerName, budget: settings.budgetName }),
              { memberAges: true },
            ),
          ]),
        ),
        budgetReporter: powertoolsBudgetReporter(
          createBudgetMetrics(settings.budgetName),
          logger({ budget: settings.budgetName }),
        ),
      })
    : createHandler({
        ...common,
        settings,
        reporter: powertoolsReporter(
          createMetrics(settings.resources.scalerName),
          logger({ scaler: settings.resources.scalerName }),
        ),
      });
