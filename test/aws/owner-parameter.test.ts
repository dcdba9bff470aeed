import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { TickOutcome } from '../../functions/controller/outcome.ts';
import { logEntryFor } from '../../functions/controller/report.ts';
import { CallLog } from '../../lib/aws/clients.ts';
import { readConsumerOwner } from '../../lib/aws/owner-parameter.ts';
import { resolveScalerConfig } from '../../lib/control/index.ts';
import { awsError } from '../controller/support/unit-deps.ts';

/**
 * The owner parameter's faults (moto has the parameter or not; it cannot deny a read, so the SDK is mocked here):
 * its absence is no owner, silently; any other fault is no owner too, so the law still drives, and is reported.
 */
const ssm = new SSMClient({
  region: 'us-east-1',
  endpoint: 'http://127.0.0.1:9',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const mock = mockClient(ssm);
afterEach(() => mock.reset());

describe('reading the consumer’s owner', () => {
  it('names the owner the parameter holds', async () => {
    mock.on(GetParameterCommand).resolves({ Parameter: { Value: 'budget:orders-db' } });
    expect(await readConsumerOwner(ssm, 'orders-consumer')).toEqual({ owner: 'budget:orders-db' });
  });

  it('the parameter absent: no owner and no fault (a scaler deployed before owners were named)', async () => {
    mock.on(GetParameterCommand).rejects(awsError('ParameterNotFound'));
    expect(await readConsumerOwner(ssm, 'orders-consumer')).toEqual({});
  });

  it.each(['AccessDeniedException', 'ThrottlingException'])(
    '%s: no owner (the law still drives), and the fault for the log line',
    async (name) => {
      mock.on(GetParameterCommand).rejects(awsError(name, `${name} on the owner parameter`));
      expect(await readConsumerOwner(ssm, 'orders-consumer')).toEqual({
        fault: `${name}: ${name} on the owner parameter`,
      });
    },
  );

  it('the tick’s log line carries the fault', () => {
    const outcome: TickOutcome = {
      kind: 'decided',
      result: {
        snapshot: { now: 1000, appliedConcurrency: 4 },
        decision: {
          desired: 4,
          reason: 'hold:steady',
          atCap: false,
          saturated: false,
          shed: false,
          downstreamSlower: false,
          inputs: {},
          state: {},
        },
        applied: 4,
        changed: false,
        repaired: false,
      },
      actuation: { kind: 'unchanged' },
      writes: [],
      appliedAfter: 4,
      pauseOverpull: false,
      ownerReadFault: 'AccessDeniedException: denied',
      config: resolveScalerConfig({}),
    };
    expect(logEntryFor(outcome, new CallLog()).fields.ownerReadFault).toBe('AccessDeniedException: denied');
    const { ownerReadFault: _, ...clean } = outcome;
    expect(logEntryFor(clean, new CallLog()).fields).not.toHaveProperty('ownerReadFault');
  });
});
