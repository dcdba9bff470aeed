import { Logger } from '@aws-lambda-powertools/logger';
import { attachCallLog, createAwsClients } from '../../lib/aws/clients.ts';
import { createHandler } from './handler.ts';
import { createMetrics, powertoolsReporter } from './report.ts';
import { settingsFromEnvironment } from './resources.ts';

// Init: a bad or missing variable fails the cold start here, with one message naming each variable.
const settings = settingsFromEnvironment(process.env);
const clients = createAwsClients();

export const handler = createHandler({
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
  clock: () => Date.now() / 1000,
});
