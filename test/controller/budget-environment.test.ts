import { LambdaClient, ListFunctionsCommand } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { budgetSettingsFromEnvironment } from '../../functions/controller/resources.ts';
import { paceControlPlane } from '../../lib/aws/control-plane-pacer.ts';
import { ConfigError } from '../../lib/control/index.ts';
import { DB_LOAD_HEALTH } from '../control/fixtures.ts';

/** A UUID of the member's own: its name's characters as 12 hex digits. */
const mappingUuid = (name: string) =>
  `12345678-1234-1234-1234-${[...name]
    .reduce((n, c) => (n * 31 + c.charCodeAt(0)) % 16 ** 12, 0)
    .toString(16)
    .padStart(12, '0')}`;
const member = (name: string, extra: Record<string, unknown> = {}) => ({
  scalerName: name,
  queueUrl: `https://sqs.us-east-1.amazonaws.com/123456789012/${name}-queue`,
  queueName: `${name}-queue`,
  consumerFunctionName: `${name}-consumer`,
  eventSourceMappingUuid: mappingUuid(name),
  settings: { maxConcurrency: 16 },
  ...extra,
});
const env = (members: unknown, budget = '40', name = 'orders-db') => ({
  BUDGET_NAME: name,
  BUDGET_CONCURRENCY: budget,
  BUDGET_MEMBERS: typeof members === 'string' ? members : JSON.stringify(members),
});

function problems(e: Record<string, string>): readonly string[] {
  try {
    budgetSettingsFromEnvironment(e);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the budget controller environment', () => {
  it("carries a member's own health signal, checked as a lone scaler's, problems named by member and field", () => {
    const { unhealthyWhen: _default, ...health } = DB_LOAD_HEALTH;
    const settings = budgetSettingsFromEnvironment(
      env([member('orders', { downstreamHealth: health }), member('email')]),
    );
    expect(settings.members[0]?.resources.downstreamHealth).toEqual({ ...health, unhealthyWhen: 'above' });
    expect(settings.members[1]?.resources.downstreamHealth).toBeUndefined();
    expect(problems(env([member('orders', { downstreamHealth: { ...health, threshold: 'high' } })]))).toEqual(
      [
        expect.stringMatching(
          /^BUDGET_MEMBERS\[0\] \(orders\)\.downstreamHealth\.threshold = "high": must be a finite number/,
        ),
      ],
    );
  });

  it('reads a member on the provisioned actuator (its grants whole pollers); its floor off a poller is refused, named', () => {
    const provisioned = { settings: { actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 30 } };
    const settings = budgetSettingsFromEnvironment(env([member('orders'), member('email', provisioned)]));
    expect(settings.members.map((m) => m.config.actuator)).toEqual(['lockstep', 'provisioned']);
    const offGrid = { settings: { actuator: 'provisioned', minConcurrency: 25, maxConcurrency: 30 } };
    expect(problems(env([member('orders'), member('email', offGrid)]))).toEqual([
      expect.stringMatching(
        /^BUDGET_MEMBERS\[1\] \(email\)\.settings\.minConcurrency = 25: must be a multiple of 10/,
      ),
    ]);
  });

  it('refuses a member with scheduled floors by name, not as an unknown setting', () => {
    const floored = {
      settings: { floors: [{ schedule: 'cron(0 9 ? * * *)', minConcurrency: 10, durationSeconds: 600 }] },
    };
    expect(problems(env([member('orders'), member('email', floored as never)]))).toEqual([
      expect.stringMatching(
        /^BUDGET_MEMBERS\[1\] \(email\): floors \(scheduled floors\) are not available to a shared budget's members yet/,
      ),
    ]);
  });

  it('reads each member with its own settings, defaults elsewhere, weight 1 unless given', () => {
    const settings = budgetSettingsFromEnvironment(
      env([member('orders', { weight: 2 }), member('email', { settings: { targetAgeSeconds: 300 } })]),
    );
    expect(settings.budget).toBe(40);
    expect(settings.members.map((m) => [m.resources.scalerName, m.weight])).toEqual([
      ['orders', 2],
      ['email', 1],
    ]);
    expect(settings.members[0]?.config.maxConcurrency).toBe(16);
    expect(settings.members[1]?.config.targetAgeSeconds).toBe(300);
  });

  it.each([
    ['not JSON', env('{oops'), /BUDGET_MEMBERS: must be a JSON array of members \(it does not parse\)/],
    ['no members', env([]), /1–20 members \(got 0\)/],
    ['21 members', env(Array.from({ length: 21 }, (_, i) => member(`m${i}`))), /1–20 members \(got 21\)/],
    [
      'an unknown field',
      env([member('orders', { colour: 'red' })]),
      /BUDGET_MEMBERS\[0\] \(orders\)\.colour: unknown field/,
    ],
    [
      'an unknown setting',
      env([member('orders', { settings: { targetAge: 60 } })]),
      /BUDGET_MEMBERS\[0\] \(orders\)\.settings\.targetAge: unknown setting/,
    ],
    [
      'a bad setting, named by the member',
      env([member('orders', { settings: { minConcurrency: 0 } })]),
      /BUDGET_MEMBERS\[0\] \(orders\)\.settings\.minConcurrency = '0': must be an integer/,
    ],
    [
      'a bad weight',
      env([member('orders', { weight: 0 })]),
      /\(orders\)\.weight = 0: must be a number in \(0; 1000\]/,
    ],
    ['a name twice', env([member('orders'), member('orders')]), /\(orders\)\.scalerName: appears twice/],
    [
      'two members on one consumer',
      env([member('orders'), member('refunds', { consumerFunctionName: 'orders-consumer' })]),
      /refunds and orders: both scale the consumer function 'orders-consumer'/,
    ],
    [
      'two members on one mapping',
      env([member('orders'), member('refunds', { eventSourceMappingUuid: mappingUuid('orders') })]),
      /refunds and orders: both scale the event source mapping/,
    ],
    [
      'a bad budget',
      env([member('orders')], '0'),
      /BUDGET_CONCURRENCY = '0': must be an integer in \[1; 999999\]/,
    ],
    ['a bad budget name', env([member('orders')], '40', 'no spaces'), /BUDGET_NAME = 'no spaces'/],
    [
      'a missing queue URL',
      env([member('orders', { queueUrl: undefined })]),
      /\(orders\)\.queueUrl is missing/,
    ],
    [
      'floors above the budget',
      env(
        [member('a', { settings: { minConcurrency: 10 } }), member('b', { settings: { minConcurrency: 8 } })],
        '16',
      ),
      /below the members' floors, 18 in all \(a 10, b 8\)/,
    ],
    [
      'a cap above the budget',
      env([member('orders', { settings: { maxConcurrency: 50 } })]),
      /maxConcurrency = 50 is above the budget 40/,
    ],
  ])('%s: refused, naming the member and the field', (_, e, expected) => {
    expect(problems(e).join('\n')).toMatch(expected);
  });
});

describe('the control-plane pacer', () => {
  it('spaces a burst of calls 1 / perSecond apart, in send order', async () => {
    const client = new LambdaClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const now = 1000;
    const waits: number[] = [];
    paceControlPlane(
      client,
      10,
      () => now,
      async (s) => {
        waits.push(Math.round(s * 100) / 100);
      },
    );
    // Answer every call here instead of sending it: the pacer runs before.
    client.middlewareStack.add(() => async () => ({ output: { $metadata: {} }, response: {} }), {
      step: 'finalizeRequest',
      name: 'answerLocally',
    });
    // Five calls at the same instant: the first goes at once, each next one a tenth of a second after it.
    await Promise.all(Array.from({ length: 5 }, () => client.send(new ListFunctionsCommand({}))));
    expect(waits).toEqual([0.1, 0.2, 0.3, 0.4]);
  });
});
