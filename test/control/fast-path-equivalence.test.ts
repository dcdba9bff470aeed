import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveScalerConfig, type ScalerConfig } from '../../lib/control/config.ts';
import type { DepthSample } from '../../lib/control/depth-trend.ts';
import { decideFast, type FastPathContext } from '../../lib/control/fast-path.ts';
import { decideFastFrozen } from './fast-path-frozen.ts';
import { NOW } from './fixtures.ts';

// The rules of `decideFast` against a verbatim copy of the function they replaced: every decision and every
// context field deep-equal, over random samples, contexts and configs, and over chains of samples that carry
// their own context. Each branch of the old function must be taken often enough to count as compared.

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
const anything = fc.oneof(
  fc.double(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -1, 0, 0.5),
  fc.integer({ min: 0, max: 2_000_000 }),
);
const messages = fc.oneof(
  fc.integer({ min: 0, max: 60 }),
  fc.integer({ min: 0, max: 2_000 }),
  fc.integer({ min: 0, max: 200_000 }),
);
const rate = fc.oneof(
  fc.constant(0),
  fc.double({ min: 0, max: 2_000, noNaN: true }),
  fc.integer({ min: 1, max: 1_000 }),
);

const arbConfig: fc.Arbitrary<ScalerConfig> = fc
  .record({
    floor: fc.integer({ min: 1, max: 8 }),
    extra: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 120 })),
    targetAgeSeconds: fc.constantFrom(20, 60, 300, 3_600),
    setpointFraction: fc.constantFrom(0.3, 0.5, 0.9, 1),
    maxScaleUpStep: fc.constantFrom(1, 3, 1_000),
    unconfirmedGrowthFactor: fc.constantFrom(1, 1, 1.5, 3),
    tickSeconds: fc.constantFrom(60, 120),
    backlogDrainSeconds: fc.constantFrom(30, 120),
    targetUtilization: fc.constantFrom(0.5, 0.9, 1),
  })
  .map(({ floor, extra, ...rest }) =>
    resolveScalerConfig({
      actuator: 'reserved',
      minConcurrency: floor,
      maxConcurrency: floor + extra,
      ...rest,
    }),
  );

const sampleAt = (at: number) =>
  fc.record({
    at: fc.constant(at),
    messages,
    inFlight: maybe(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 5_000 }))),
    settled: maybe(fc.boolean()),
  });

/** A context and a sample in plausible ranges: the depth, rates and times a loop meets. */
const plausible = arbConfig.chain((config) =>
  fc
    .record({
      appliedFraction: fc.double({ min: 0, max: 1, noNaN: true }),
      appliedOdd: fc.option(
        fc.constantFrom(0, 2.5, Number.POSITIVE_INFINITY, Number.NaN, config.maxConcurrency + 3),
        {
          freq: 20,
          nil: undefined,
        },
      ),
      tickBelow: fc.constantFrom(0, 0, 1, 3),
      previousAt: fc.constantFrom(NOW, NOW + 10, NOW + 30, NOW - 200),
      step: fc.constantFrom(10, 10, 5, 0.05, 0, -5, 200),
      tickMessages: maybe(messages),
      tickBelowSample: fc.option(fc.constantFrom(-500, -50, 0, 20, 300, 5_000), { freq: 2, nil: undefined }),
      lastChange: maybe(fc.constantFrom(-3_600, -120, -60, -30, 0, 5, 10, 20, 40)),
      reportedArrivals: maybe(rate),
      tickArrivals: maybe(rate),
      itemSeconds: maybe(fc.constantFrom(0.001, 0.015, 0.02, 0.3, 1, 2)),
      confirmedNeed: maybe(fc.integer({ min: 0, max: 60 })),
      confirmed: fc.boolean(),
      frozen: fc.option(
        fc.constantFrom('paused', 'downstream-slower', 'unbounded') as fc.Arbitrary<
          FastPathContext['frozen']
        >,
        {
          freq: 10,
          nil: undefined,
        },
      ),
      roseAtApplied: maybe(fc.boolean()),
      burstEnded: maybe(fc.boolean()),
      lastRise: maybe(
        fc.record({
          applied: fc.integer({ min: 1, max: 40 }),
          perSecond: fc.double({ min: -50, max: 1_000, noNaN: true }),
        }),
      ),
      hasPrevious: fc.boolean().map((b) => b || Math.random() < 0.8),
    })
    .chain((p) => fc.tuple(fc.constant(p), sampleAt(p.previousAt), sampleAt(p.previousAt + p.step)))
    .map(([p, previous, sample]) => {
      const inRange = Math.round(
        config.minConcurrency + p.appliedFraction * (config.maxConcurrency - config.minConcurrency),
      );
      const applied = p.appliedOdd ?? inRange;
      const context: FastPathContext = {
        applied,
        tickApplied: Number.isFinite(applied)
          ? Math.max(config.minConcurrency, applied - p.tickBelow)
          : applied,
        lastChangeAt: p.lastChange === undefined ? undefined : NOW + p.lastChange,
        tickSample:
          p.tickBelowSample !== undefined
            ? { at: NOW, messages: Math.max(0, sample.messages - p.tickBelowSample) }
            : p.tickMessages === undefined
              ? undefined
              : { at: NOW, messages: p.tickMessages },
        previous: p.hasPrevious ? previous : undefined,
        reportedArrivals: p.reportedArrivals,
        tickArrivals: p.tickArrivals,
        itemSeconds: p.itemSeconds,
        confirmedNeed: p.confirmedNeed,
        confirmed: p.confirmed,
        frozen: p.frozen,
        roseAtApplied: p.roseAtApplied,
        burstEnded: p.burstEnded,
        lastRise: p.lastRise,
      };
      return { config, context, sample: sample as DepthSample };
    }),
);

/** Whatever the inputs: NaN, infinities, negatives, fractions anywhere. */
const wild = fc.record({
  config: arbConfig,
  context: fc.record({
    applied: anything,
    tickApplied: anything,
    lastChangeAt: maybe(anything),
    tickSample: maybe(fc.record({ at: anything, messages: anything })),
    previous: maybe(fc.record({ at: anything, messages: anything, inFlight: maybe(anything) })),
    reportedArrivals: maybe(anything),
    tickArrivals: maybe(anything),
    itemSeconds: maybe(anything),
    confirmedNeed: maybe(anything),
    confirmed: fc.boolean(),
    roseAtApplied: maybe(fc.boolean()),
    burstEnded: maybe(fc.boolean()),
    lastRise: maybe(fc.record({ applied: anything, perSecond: anything })),
  }),
  sample: fc.record({ at: anything, messages: anything, inFlight: maybe(anything) }),
});

/**
 * A burst on a queue the loop samples: arrivals at `arrivals`/s for `burstSteps` samples, then none, each worker
 * serving `perWorker`/s, the depth and the messages in flight following the concurrency the decisions applied.
 * These chains reach slow start, the fitted last step and the backlog a burst left behind.
 */
const burst = fc.record({
  config: arbConfig,
  itemSeconds: fc.option(fc.constantFrom(0.015, 0.02, 0.3), { freq: 2, nil: undefined }),
  /** What CloudWatch reported, as a share of the burst's arrivals: none, nothing, a trickle, or most of it. */
  reportedShare: fc.constantFrom(undefined, 0, 0, 0.01, 0.8, 1),
  confirmed: fc.boolean(),
  arrivals: fc.integer({ min: 20, max: 3_000 }),
  perWorker: fc.double({ min: 1, max: 80, noNaN: true }),
  burstSteps: fc.integer({ min: 1, max: 10 }),
  dt: fc.constantFrom(5, 10, 10),
  steps: fc.array(
    fc.record({
      busyFraction: fc.constantFrom(0.2, 0.6, 1, 1),
      noise: fc.integer({ min: -6, max: 6 }),
    }),
    { minLength: 14, maxLength: 14 },
  ),
});

const hits = new Map<string, number>();
const count = (branch: string) => hits.set(branch, (hits.get(branch) ?? 0) + 1);

function same(sample: DepthSample, context: FastPathContext, config: ScalerConfig) {
  const old = decideFastFrozen(sample, context, config, count);
  expect(decideFast(sample, context, config)).toStrictEqual(old);
  return old;
}

describe('decideFast, against the function its rules replaced', () => {
  it('decides the same on one plausible sample', () => {
    fc.assert(
      fc.property(plausible, ({ config, context, sample }) => {
        same(sample, context, config);
      }),
      { numRuns: 30_000 },
    );
  });

  it('decides the same on anything at all', () => {
    fc.assert(
      fc.property(wild, ({ config, context, sample }) => {
        same(sample as DepthSample, context as FastPathContext, config);
      }),
      { numRuns: 10_000 },
    );
  });

  it('decides the same along a chain of samples, each starting where the last left off', () => {
    fc.assert(
      fc.property(
        plausible,
        fc.array(fc.tuple(fc.constantFrom(5, 10, 10, 10, 0.05), sampleAt(0)), {
          minLength: 1,
          maxLength: 14,
        }),
        ({ config, context, sample }, steps) => {
          let ctx = same(sample, context, config).context;
          let at = sample.at;
          for (const [dt, next] of steps) {
            at += dt;
            ctx = same({ ...next, at }, ctx, config).context;
          }
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('decides the same through a burst and its end, the depth following what the decisions applied', () => {
    fc.assert(
      fc.property(burst, (b) => {
        const { config } = b;
        const reported = b.reportedShare === undefined ? undefined : b.reportedShare * b.arrivals;
        let ctx: FastPathContext = {
          applied: config.minConcurrency,
          tickApplied: config.minConcurrency,
          lastChangeAt: NOW - 3_600,
          tickSample: { at: NOW, messages: 0 },
          previous: { at: NOW, messages: 0 },
          reportedArrivals: reported,
          tickArrivals: reported,
          itemSeconds: b.itemSeconds,
          confirmedNeed: b.itemSeconds === undefined ? undefined : config.minConcurrency,
          confirmed: b.confirmed,
        };
        let depth = 0;
        for (const [i, { busyFraction, noise }] of b.steps.entries()) {
          const arriving = i < b.burstSteps ? b.arrivals : 0;
          depth = Math.max(0, depth + (arriving - ctx.applied * b.perWorker) * b.dt + noise);
          const inFlight = Math.round(Math.min(depth, 10 * ctx.applied * busyFraction));
          ctx = same(
            { at: NOW + b.dt * (i + 1), messages: Math.round(depth), inFlight },
            ctx,
            config,
          ).context;
        }
      }),
      { numRuns: 5_000 },
    );
  });

  it('took every branch of the old function', () => {
    console.log(Object.fromEntries([...hits].sort(([a], [b]) => a.localeCompare(b))));
    for (const branch of [
      'frozen',
      'at-cap',
      'rate:spike',
      'rate:confirmed',
      'rate:reported',
      'no-backlog',
      'worked-off',
      'need:sized',
      'need:slow-start',
      'need:slow-start-fitted',
      'need:left-behind',
      'need:unconfirmed',
      'hold:no-need',
      'hold:need-met',
      'hold:limited',
      'grow:slow-start',
      'grow:limited-or-sized',
    ]) {
      expect(hits.get(branch) ?? 0, branch).toBeGreaterThanOrEqual(50);
    }
  });
});
