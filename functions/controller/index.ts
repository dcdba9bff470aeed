import { Logger } from '@aws-lambda-powertools/logger';
import { attachCallLog, createAwsClients } from '../../lib/aws/clients.ts';
import { BUDGET_CONTROL_PLANE_PER_SECOND, paceControlPlane } from '../../lib/aws/control-plane-pacer.ts';
import { sqsTickerPort, TICKER_QUEUE_VARIABLE } from '../../lib/aws/ticker.ts';
import { createBudgetHandler } from './budget-handler.ts';
import { createBudgetMetrics, powertoolsBudgetReporter } from './budget-report.ts';
import { budgetSettingsFromEnvironment, isBudgetEnvironment } from './budget-resources.ts';
import { createHandler } from './handler.ts';
import { createMetrics, powertoolsReporter } from './report.ts';
import { settingsFromEnvironment } from './resources.ts';

// Init: a bad or missing variable fails the cold start here, with one message naming each variable.
const clients = createAwsClients();
const clock = () => Date.now() / 1000;
// The samples between ticks come back through this queue (lib/cdk/ticker-queue.ts); without it the controller only
// ticks.
const tickerUrl = process.env[TICKER_QUEUE_VARIABLE];
const ticker = tickerUrl ? sqsTickerPort(clients.sqs, tickerUrl) : undefined;

/** A lone scaler's controller, or a shared budget's (the construct lists the members then). */
function createController() {
  if (isBudgetEnvironment(process.env)) {
    const settings = budgetSettingsFromEnvironment(process.env);
    // One controller writes every member: keep its calls within the account's control-plane rate.
    paceControlPlane(clients.lambda, BUDGET_CONTROL_PLANE_PER_SECOND);
    const logger = (persistentKeys: Record<string, string>) =>
      new Logger({ serviceName: 'queue-age-scaler', persistentKeys });
    return createBudgetHandler({
      settings,
      clients,
      calls: attachCallLog(clients),
      reporters: new Map(
        settings.members.map((m) => [
          m.resources.scalerName,
          powertoolsReporter(
            createMetrics(m.resources.scalerName),
            logger({ scaler: m.resources.scalerName, budget: settings.budgetName }),
            // status --budget reads each member's age and target from its metrics (BUDGET_MEMBER_DENSE_METRICS).
            { memberAges: true },
          ),
        ]),
      ),
      budgetReporter: powertoolsBudgetReporter(
        createBudgetMetrics(settings.budgetName),
        logger({ budget: settings.budgetName }),
      ),
      clock,
      ticker,
    });
  }
  const settings = settingsFromEnvironment(process.env);
  return createHandler({
    settings,
    clients,
    calls: attachCallLog(clients),
    reporter: powertoolsReporter(
      createMetrics(settings.resources.scalerName),
      new Logger({
        serviceName: 'queue-age-scaler',
        persistentKeys: { scaler: settings.resources.scalerName },
      }),
    ),
    clock,
    ticker,
  });
}

export const handler = createController();
