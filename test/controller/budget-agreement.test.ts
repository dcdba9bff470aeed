import { describe, expect, it } from 'vitest';
import { parseTickerBody, tickerBody } from '../../functions/controller/ticker-message.ts';
import { runBudgetTick } from '../../lib/control/budget-tick.ts';
import { resolveScalerConfig, type ScalerConfig } from '../../lib/control/config.ts';
import { type LoopState, nextSampleAt, sampleLoop, startBudgetLoop } from '../../lib/control/control-loop.ts';
import type { TickPorts } from '../../lib/control/tick.ts';
import { sharedBudgetController } from '../../lib/sim/budget-controller.ts';
import { LAMBDA_WORLD } from '../../lib/sim/world.ts';
import { NOW, OPTIONS, seriesOf } from '../control/budget-load.ts';

/**
 * The shared budget's loop between ticks, run both ways: the simulator's budget controller (its state in the
 * controller's memory) and the Lambda's (its state carried from the tick to each sample in the ticker message's
 * JSON, each sample a `sampleLoop` on what the message brings). The same members, the same burst: the same samples at
 * the same times, the same growths within the same free headroom.
 */
const BUDGET = 24;

/** A member's consumer: its limits (lockstep, so one value), its queue's depth, its load in CloudWatch. */
class Member {
  applied: number;
  visible = 0;
  inFlight = 0;
  state = {};
  constructor(
    readonly name: string,
    readonly config: ScalerConfig,
    applied: number,
  ) {
    this.applied = applied;
  }

  ports(): TickPorts {
    return {
      metrics: { read: async () => seriesOf({ ageSeconds: 0, ratePerSecond: 50, itemSeconds: 0.02 }) },
      queue: { depth: async () => ({ visible: this.visible, inFlight: this.inFlight, delayed: 0 }) },
      concurrency: {
        applied: async () => this.applied,
        condition: async () => ({ batchSize: 10 }),
        apply: async (desired) => {
          this.applied = desired;
        },
      },
      state: {
        load: async () => this.state,
        save: async (s) => {
          this.state = s;
        },
      },
    };
  }
}

const config = resolveScalerConfig({ minConcurrency: 2, maxConcurrency: 16, fastSampleSeconds: 10 });
const members = () => [new Member('orders', config, 2), new Member('billing', config, 2)];

/** After the tick, orders' queue takes a burst: 6,000 more visible each sample, every worker busy. */
function burst(m: Member, sample: number): void {
  if (m.name !== 'orders') return;
  m.visible = 6_000 * sample;
  m.inFlight = 10 * m.applied;
}

async function simulated(): Promise<number[][]> {
  const group = members();
  const controller = sharedBudgetController(BUDGET, group, LAMBDA_WORLD);
  const controlled = () => group.map((m) => ({ name: m.name, ports: m.ports() }));
  await controller.tick(controlled(), NOW);
  const applied: number[][] = [];
  for (let s = 1; s <= 5; s++) {
    for (const m of group) burst(m, s);
    await controller.fastSample?.(controlled(), NOW + 10 * s);
    applied.push(group.map((m) => m.applied));
  }
  return applied;
}

async function deployed(): Promise<number[][]> {
  const group = members();
  const tickMembers = group.map((m) => ({ name: m.name, ports: m.ports(), config: m.config }));
  const result = await runBudgetTick(BUDGET, tickMembers, NOW, OPTIONS);
  let state: LoopState = startBudgetLoop(result, () => config, { started: NOW, scheduledAt: NOW });
  const applied: number[][] = [];
  for (let s = 1; s <= 5; s++) {
    const at = nextSampleAt(state);
    expect(at).toBe(NOW + 10 * s);
    // What the sample's invocation gets: the ticker message's body, through JSON.
    const body = parseTickerBody<LoopState>(JSON.stringify(tickerBody(NOW, at as number, NOW + 54, state)));
    for (const m of group) burst(m, s);
    const ports = new Map(group.map((m) => [m.name, { ...m.ports(), config }]));
    state = (await sampleLoop(body?.state as LoopState, ports, at as number)).state;
    applied.push(group.map((m) => m.applied));
  }
  return applied;
}

describe('the simulator and the Lambda run a shared budget’s loop alike', () => {
  it('the same samples at the same times grow the same member within the same headroom', async () => {
    const sim = await simulated();
    const lambda = await deployed();
    expect(lambda).toEqual(sim);
    // The burst grew orders between ticks, within the budget; billing stayed where the tick left it
    const [orders, billing] = lambda.at(-1) as [number, number];
    expect(orders).toBeGreaterThan(2);
    expect(orders + billing).toBeLessThanOrEqual(BUDGET);
    expect(billing).toBe(2);
  });
});
