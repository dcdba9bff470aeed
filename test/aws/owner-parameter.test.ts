import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { readConsumerOwner } from '../../lib/aws/owner-parameter.ts';
import { awsError } from '../controller/support/unit-deps.ts';

/**
 * The owner parameter's faults (moto has the parameter or not; it cannot deny a read, so the SDK is mocked here):
 * its absence is no owner, silently; any other fault is no owner too, so the law still drives, and is reported
 * (the log line's field: test/controller/report.test.ts).
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
});
