import {
  GetEventSourceMappingCommand,
  GetFunctionConcurrencyCommand,
  LambdaClient,
  PutFunctionConcurrencyCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { LambdaActuator } from '../../functions/controller/actuator.ts';
import { createAwsClients } from '../../lib/aws/clients.ts';
import { type ActuatorMode, resolveScalerConfig } from '../../lib/control/index.ts';
import { Simulation } from '../../lib/sim/simulation.ts';
import { LAMBDA_WORLD } from '../../lib/sim/world.ts';

/**
 * One write plan for the Lambda and the simulator: the same sequence of decisions, applied by the Lambda's
 * actuator through the SDK and by the simulator's model of Lambda, leaves the consumer in the same state after
 * every tick — the concurrency that runs, whether the limits are out of step, whether the mapping overpulls.
 */
const lambda = mockClient(LambdaClient);
afterEach(() => lambda.reset());

const FLOOR = 2;
const CAP = 16;
const UUID = '8c3d1f4e-2a6b-4c9d-9e7f-0a1b2c3d4e5f';

interface After {
  readonly applied: number | undefined;
  readonly outOfStep: boolean | undefined;
  readonly overpull: boolean | undefined;
}

/** The Lambda's side: one actuator per tick, each reading the limits the previous tick left, as the handler does. */
async function throughTheActuator(mode: ActuatorMode, decisions: readonly number[]): Promise<After[]> {
  const config = resolveScalerConfig({ minConcurrency: FLOOR, maxConcurrency: CAP, actuator: mode });
  // Where the simulator starts: the floor, with reserved at the cap in event-source mode.
  let reserved = mode === 'event-source' ? CAP : FLOOR;
  let mapping = FLOOR;
  lambda
    .on(GetFunctionConcurrencyCommand)
    .callsFake(async () => ({ ReservedConcurrentExecutions: reserved }));
  lambda
    .on(GetEventSourceMappingCommand)
    .callsFake(async () => ({ UUID, ScalingConfig: { MaximumConcurrency: mapping }, State: 'Enabled' }));
  lambda.on(PutFunctionConcurrencyCommand).callsFake(async (input) => {
    reserved = input.ReservedConcurrentExecutions;
    return {};
  });
  lambda.on(UpdateEventSourceMappingCommand).callsFake(async (input) => {
    mapping = input.ScalingConfig.MaximumConcurrency;
    return {};
  });
  const { lambda: client } = createAwsClients({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const out: After[] = [];
  for (const desired of decisions) {
    const actuator = new LambdaActuator(
      client,
      { mode, functionName: 'consumer', mappingUuid: UUID },
      config,
    );
    const applied = await actuator.applied();
    const condition = await actuator.condition();
    if (desired !== applied || condition.outOfStep) await actuator.apply(desired, applied ?? Number.NaN);
    const after = await actuator.condition();
    out.push({ applied: actuator.appliedNow, outOfStep: after.outOfStep, overpull: after.overpull });
  }
  return out;
}

/** The simulator's side: a controller that applies the same decisions, one a tick, through the model's ports. */
async function throughTheSimulator(mode: ActuatorMode, decisions: readonly number[]): Promise<After[]> {
  const out: After[] = [];
  let tick = 0;
  await new Simulation({
    phases: [{ durationSeconds: decisions.length * 60, ratePerSecond: 0, itemMs: 10 }],
    world: LAMBDA_WORLD,
    controller: {
      name: 'scripted',
      async tick(ports) {
        const desired = decisions[tick++];
        if (desired === undefined) return { reason: 'done' };
        const applied = await ports.concurrency.applied();
        const condition = (await ports.concurrency.condition?.()) ?? {};
        if (desired !== applied || condition.outOfStep)
          await ports.concurrency.apply(desired, applied ?? Number.NaN);
        const after = (await ports.concurrency.condition?.()) ?? {};
        out.push({
          applied: await ports.concurrency.applied(),
          outOfStep: after.outOfStep,
          overpull: after.overpull,
        });
        return { reason: 'scripted' };
      },
    },
    tickSeconds: 60,
    floor: FLOOR,
    cap: CAP,
    targetAgeSeconds: 60,
    consumer: { kind: 'controlled', actuator: mode },
    seed: 1,
  }).run();
  return out.slice(0, decisions.length);
}

describe('the write plan the Lambda and the simulator share', () => {
  it('the same decisions leave the same consumer after every tick, in lockstep and event-source', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<ActuatorMode>('lockstep', 'event-source'),
        fc.array(fc.integer({ min: FLOOR, max: CAP }), { minLength: 1, maxLength: 12 }),
        async (mode, decisions) => {
          lambda.reset();
          expect(await throughTheSimulator(mode, decisions)).toEqual(
            await throughTheActuator(mode, decisions),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a lockstep shrink leaves reserved a tick behind in both (out of step, no overpull), then catches up', async () => {
    const expected = [
      { applied: 8, outOfStep: false, overpull: false },
      { applied: 6, outOfStep: true, overpull: false },
      { applied: 6, outOfStep: false, overpull: false },
    ];
    expect(await throughTheSimulator('lockstep', [8, 6, 6])).toEqual(expected);
    expect(await throughTheActuator('lockstep', [8, 6, 6])).toEqual(expected);
  });
});
