import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/controller/handler.ts';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { logEntryFor } from '../../functions/controller/report.ts';
import { settingsFromEnvironment } from '../../functions/controller/resources.ts';
import { attachCallLog, createAwsClients } from '../../lib/aws/clients.ts';
import { type SilentServer, startSilentServer } from '../support/silent-server.ts';
import { ENVIRONMENT, NOW } from './support/unit-deps.ts';

let silent: SilentServer;
beforeAll(async () => {
  silent = await startSilentServer();
});
afterAll(async () => {
  await silent?.stop();
});

describe('AWS does not answer in time', () => {
  it('the tick holds and its log line says it timed out, with what to check', async () => {
    // GIVEN the real handler and SDK clients, pointed at an endpoint that accepts and never answers (short
    // limits, so the SDK's 3 attempts end within a second)
    const clients = createAwsClients({
      endpoint: silent.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      timeouts: { connectMs: 100, answerMs: 200 },
    });
    const calls = attachCallLog(clients);
    const logged: ReturnType<typeof logEntryFor>[] = [];
    const handler = createHandler({
      settings: settingsFromEnvironment(ENVIRONMENT),
      clients,
      calls,
      reporter: {
        report: (outcome: TickOutcome) => logged.push(logEntryFor(outcome, calls)),
        reportFast() {},
        reportFastLoop() {},
      },
      clock: () => NOW,
    });
    // WHEN a tick runs
    const outcome = await handler({});
    // THEN it holds, and the line reads as a timeout, not as an unexpected error
    expect(outcome).toMatchObject({ kind: 'failed', failure: 'timeout', error: /^TimeoutError: / });
    expect(logged).toEqual([
      {
        message: 'tick failed: holding',
        fields: expect.objectContaining({
          reason: 'error:timeout',
          hint: expect.stringMatching(
            /^AWS did not answer in time after the SDK retries: check any AWS_ENDPOINT_URL\* variable/,
          ),
        }),
      },
    ]);
    for (const client of Object.values(clients)) client.destroy();
  });
});
