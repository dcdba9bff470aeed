/**
 * What a fast-path sample says of the depth's course since the previous one (a fall, a burst's end, a rise at a
 * held value) and the context the next sample starts from: the evidence `decideFast`'s rules read
 * (lib/control/fast-path.ts).
 */

import {
  DEPTH_NOISE_MESSAGES,
  type DepthSample,
  depthFalling,
  executionsAtGrownFrom,
  roseWithAppliedHeld,
  STANDARD_STARTING_INVOKES,
  workersProvenBusy,
  workersRunning,
} from './depth-trend.ts';
import type { FastPathContext } from './fast-context.ts';
import { quietSample } from './quiet-sample.ts';
import { type ServedRise, servedRiseOf, withServedRise } from './served-rises.ts';
import { arrivalsFellBelowFit, fallRefutesFit, type HeldRise } from './service-fit.ts';

/** The depth's course since the previous sample, computed once for every rule of `decideFast`. */
export interface FastCourse {
  /** The depth fell beyond its noise since the previous sample. */
  readonly falling: boolean;
  /** The depth fell after it rose at an unchanged value, and has not risen again since: a burst ended. */
  readonly burstEnded: boolean;
  /**
   * The depth fell over an interval the applied value held through, every allowed worker busy at its end, after this
   * loop saw it rise with every worker busy (`roseBusySince`) and with no two rises fitting a service (`serviceFit`
   * judges a fall where they did, unless the fall refutes the fit: `fallRefutesFit`).
   */
  readonly fellBusy: boolean;
  /**
   * The rise since the previous sample, where the depth rose beyond its noise with the applied value held and the
   * executions past what the value before the last growth runs (`executionsAtGrownFrom`).
   */
  readonly rise?: HeldRise;
  /**
   * The messages in flight still fit in full batches of the value the last growth started from (`grownFrom`,
   * `executionsAtGrownFrom`): the executions have not passed it, and the growth from it is not followed yet.
   */
  readonly atGrownFrom: boolean;
  /** The rise since the previous sample with the workers that served it (served-rises.ts). */
  readonly served?: ServedRise;
  /**
   * Where more than the mapping's starting five run and the executions have not passed the value the last growth
   * started from (`atGrownFrom`), an unsized doubling goes at most to twice that value: one step ahead of what runs,
   * not a second step on one the pollers have not followed (issue 28's wind-up). Under the cap of 32 the drain
   * ceiling (28) hid it; under a cap of 200 held-out quiet-then-surge (one poller step a minute) doubled 16 → 32 → 64
   * while 16 ran, for a need of 19. Up to five run before the pollers' first step whatever the limit, and that step
   * goes to the limit then: bounded there too, held-out fan-out-45s (seed 2) reached 8 by the step, not 16 (1.20 →
   * 2.17 × the target). Unbounded elsewhere.
   */
  readonly unfollowedBound: number;
  /** The context for the next sample where this one holds. */
  readonly next: FastPathContext;
}

/** What this sample says of the depth's course since the previous one, and the context the next sample starts from. */
export function carriedOf(sample: DepthSample, context: FastPathContext): FastCourse {
  const { previous, applied } = context;
  const visible = sample.messages;
  const falling = depthFalling(previous, visible);
  const rising = previous !== undefined && visible - previous.messages > DEPTH_NOISE_MESSAGES;
  const roseBusy = roseWithAppliedHeld(previous, sample, applied, context.lastChangeAt, context.batchSize);
  const roseAtApplied = context.roseAtApplied === true || roseBusy;
  const held =
    previous !== undefined &&
    sample.at > previous.at &&
    previous.settled !== false &&
    (context.lastChangeAt === undefined || context.lastChangeAt <= previous.at);
  const burstEnded =
    !rising &&
    (context.burstEnded === true ||
      (roseAtApplied && falling) ||
      (held && falling && arrivalsFellBelowFit(previous, sample, applied, context.serviceFit)));
  // A fall the fit cannot explain leaves no fit to judge it or the falls after it.
  const fit =
    held &&
    falling &&
    fallRefutesFit(
      previous,
      sample,
      applied,
      { fit: context.serviceFit, lastRise: context.lastRise },
      context.batchSize,
    )
      ? undefined
      : context.serviceFit;
  const fellBusy =
    held &&
    falling &&
    context.roseBusySince === true &&
    fit === undefined &&
    workersProvenBusy(sample, applied, context.batchSize) !== undefined;
  // A rise the executions of the value before the last growth may have made is not a rise at the applied value.
  const atGrownFrom = executionsAtGrownFrom(sample, applied, context.batchSize, {
    from: context.grownFrom,
    at: context.lastChangeAt,
  });
  const rise: HeldRise | undefined =
    held && rising && !atGrownFrom
      ? { applied, perSecond: (visible - previous.messages) / (sample.at - previous.at) }
      : undefined;
  const served = servedRiseOf(previous, sample, applied, context.batchSize);
  const next: FastPathContext = {
    ...context,
    previous: sample,
    roseAtApplied,
    burstEnded,
    lastRise: rise ?? context.lastRise,
    servedRises: withServedRise(context.servedRises, served),
    roseBusySince: context.roseBusySince === true || roseBusy,
    serviceFit: fit,
    quiet: quietSample(context.quiet, sample, applied),
  };
  const unfollowedBound = atGrownFrom ? unfollowedBoundOf(sample, context) : Number.POSITIVE_INFINITY;
  return { falling, burstEnded, fellBusy, rise, atGrownFrom, served, unfollowedBound, next };
}

/** `FastCourse.unfollowedBound` where the executions have not passed the value the last growth started from. */
function unfollowedBoundOf(sample: DepthSample, context: FastPathContext): number {
  const { applied, grownFrom: from } = context;
  const running = workersRunning(applied, sample.inFlight, context.batchSize) ?? 0;
  return running > STANDARD_STARTING_INVOKES && from !== undefined
    ? Math.max(applied, 2 * from)
    : Number.POSITIVE_INFINITY;
}
