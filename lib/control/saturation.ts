import { capInSteps, type ScalerConfig } from './config.ts';
import { downstreamUnhealthy } from './downstream-health.ts';
import type { HeavierShown } from './heavier-items.ts';
import { refusalCeilingOf } from './refusals.ts';
import type {
  ControllerState,
  GrowthProbe,
  LeftApplied,
  QueueSnapshot,
  SaturationCeiling,
} from './snapshot.ts';

export type { GrowthProbe, SaturationCeiling } from './snapshot.ts';

/**
 * Whether throughput follows concurrency: the seed's "the downstream got slower, do not scale" on evidence.
 *
 * A slower per-item time alone cannot tell a saturated downstream from heavier work: at a steady rate the busy
 * workers are λ·S either way (Little's law), so both show the time and the workers rising together. Only growth
 * while behind tells them apart. Every worker is busy then, so the items completed per second are what the workers
 * can serve: a downstream with room serves more with more workers (the same per-item time, more completions); a
 * saturated one makes each item wait (a pool's queue, an API's backoff), so the per-item time rises with the
 * workers and the completions do not. So a growth made while behind is remembered (`GrowthProbe`) and judged on the
 * first CloudWatch period that began after the pollers settled on it:
 *
 * - the executions did not rise by half the growth (the pollers have not followed yet, a budget gave less): no
 *   verdict yet, until `PROBE_EXPIRES_SECONDS`;
 * - they did, and the throughput keeps four fifths of them busy at the per-item time before the growth: room, the
 *   probe ends, once the executions are past half the growth above the applied value it started from. Under a ramp
 *   that steps once a minute the executions lag the applied value: a growth 22 → 28 judged while 21 ran (up from
 *   the 14 the period before showed) read a pool of 20 as room, and the law grew on to the cap. Saturation needs no
 *   such wait: workers that bought nothing are the evidence, and waiting holds the next growth (`hold:probing`)
 *   where items only got heavier;
 * - they did, but with fewer completions than before: the items got heavier between the two periods, which do not
 *   compare: no verdict on this growth (the next one probes again);
 * - they did, and more than a fifth only waited: saturated at what the throughput needs. The workers go back to what
 *   the throughput needs (never below where the growth started, or the value the tick before it left where the
 *   samples grew past that since: `GrowthProbe.unjudgedFrom`), and growth past that is held off
 *   (`SaturationCeiling`) while the queue stays behind and for the scale-down delay at least, with the shed signal
 *   while the age is above the target; then one growth may probe again (a downstream that recovered gets its
 *   workers back);
 * - a period that ended by the growth already shows heavier items than the probe's figures (`heavierBeforeGrowth`):
 *   the probe is void, and the next growth probes on the heavier figures.
 *
 * Worked examples (20 ms items, pool of 20): behind at 10 workers completing 500/s, the law grows to 20, and the next
 * period completes 1,000/s: room. At 16 (800/s) it grows to 30: 20 connections serve 1,000/s and 10 workers wait,
 * so each item takes 30 ms; the 1,000/s need 1,000 × 0.02 = 20 workers: saturated, back to 20.
 */

/** A probe no period has judged within this long says nothing more (the backlog went, the data stopped). */
export const PROBE_EXPIRES_SECONDS = 300;
/**
 * The executions must rise by this share of the growth before the completions are judged, and for a verdict of room,
 * reach this share of it above the applied value it started from.
 */
const EXECUTIONS_FOLLOWED = 0.5;
/**
 * Room: the throughput after the growth keeps at least this share of the executions busy at the per-item time before
 * it. Below it, more than a fifth of the workers only wait (a pool's queue, an API's backoff): the downstream takes
 * what the throughput needs, and no more.
 */
const PRODUCTIVE_SHARE = 0.8;
/**
 * A saturated downstream serves what it served before, however many workers wait on it; completions below this
 * share of the period before the growth mean the work itself changed between the two periods. Four fifths let a
 * growth 8 → 10 judged across a step from 24 to 36 ms items (0.86 of the completions) read as saturated, and the
 * law went back to 8 while 60,000 waited (held-out heavier-in-steps-mid-minute, one poller step a minute: 3.52 × the
 * target, 1.34 × at nine tenths); a pool past its knee serves the same within a few hundredths.
 */
const THROUGHPUT_FELL = 0.9;

export type ProbeVerdict = 'pending' | 'room' | 'saturated' | 'expired';

/** The newest period's start, where the snapshot dates it (the age datapoint's period, the rates' period). */
function newestPeriodStart(snapshot: QueueSnapshot): number | undefined {
  const end = snapshot.oldestAge?.observedAt;
  const period = snapshot.ratePeriodSeconds;
  return end === undefined || period === undefined ? undefined : end - period;
}

/** What the probe and the ceiling are judged on: the tick's figures, and whether it is behind. */
export interface ProbeView {
  readonly snapshot: QueueSnapshot;
  readonly state: ControllerState;
  readonly config: ScalerConfig;
  readonly now: number;
  /** The age is above the setpoint: every worker is busy, so the completions are what the workers serve. */
  readonly behind: boolean;
  /**
   * The per-item time and completions the depth showed, where it showed items heavier than CloudWatch reports yet
   * (load.ts): what the workers did before a growth this tick makes, CloudWatch's figures being of an earlier period.
   */
  readonly heavierShown?: HeavierShown;
  /** Set where the tick grows ahead of the age (load.ts, `ageWhenGrowthBinds`): that growth records no probe. */
  readonly aheadLimit?: number;
}

/** A probe's verdict, and where saturated, the workers the throughput it found needs. */
export interface ProbeJudgement {
  readonly verdict: ProbeVerdict;
  /** Saturated: the completions after the growth at the per-item time before it, in workers (the downstream's knee). */
  readonly useful?: number;
}

/** What a probe's growth bought, judged on the newest period (see the module's comment). */
export function judgeProbe(probe: GrowthProbe, view: ProbeView): ProbeJudgement {
  const { snapshot, now } = view;
  const start = newestPeriodStart(snapshot);
  const completions = snapshot.completionRatePerSecond;
  const itemSeconds = snapshot.itemSeconds;
  const expired = now - probe.at > PROBE_EXPIRES_SECONDS;
  const shown = start !== undefined && start >= probe.at;
  if (!shown || completions === undefined || itemSeconds === undefined || !view.behind) {
    return { verdict: expired || (shown && !view.behind) ? 'expired' : 'pending' };
  }
  const executionsBefore = probe.completionsBefore * probe.itemSecondsBefore;
  const executionsAfter = completions * itemSeconds;
  // From what ran before: the samples' growth a probe judges from the value a tick left may have begun in that period.
  const grown = probe.to / Math.max(probe.from, executionsBefore);
  if (executionsAfter < executionsBefore * (1 + EXECUTIONS_FOLLOWED * (grown - 1))) {
    return { verdict: expired ? 'expired' : 'pending' };
  }
  // Fewer completions than before with more workers: the items got heavier meanwhile (the per-item time rose for
  // a reason of its own, not with the workers), so the two periods do not compare. No verdict on this growth.
  if (completions < probe.completionsBefore * THROUGHPUT_FELL) return { verdict: 'expired' };
  // The workers the new throughput needs at the old per-item time: all the added ones where the downstream had room.
  const useful = completions * probe.itemSecondsBefore;
  if (useful >= PRODUCTIVE_SHARE * executionsAfter) {
    const followed = executionsAfter >= probe.from + EXECUTIONS_FOLLOWED * (probe.to - probe.from);
    return { verdict: followed ? 'room' : expired ? 'expired' : 'pending' };
  }
  // A per-item time read off the depth is rough (a few messages in flight, a rate from a count): at 15/s of 1.2 s
  // items it read 0.95 s, and the growth that bought its full share looked saturated and held the queue behind
  // for good. Saturation is called on CloudWatch's figures only: the next growth probes again on them.
  return probe.shownByDepth === true ? { verdict: 'expired' } : { verdict: 'saturated', useful };
}

/**
 * The items got heavier before the growth: a period that ended by the growth already shows a per-item time above
 * the probe's by more than the law's `slowdownFactor`. CloudWatch's figures arrive a minute or two late, so a growth
 * the age made at a tick took the newest period's, which predated the change; every period after the growth would
 * compare heavier items with lighter ones (completions that fell: no verdict), and the next growth would wait for
 * it (`hold:probing`) three ticks on a probe of one worker. Voided: the tick grows to the need at the time observed
 * now, with a probe of its own on the heavier figures, which a saturated downstream fails as before.
 * Worked example (heavier-items, 60 s steps: 400/s, items 30 → 50 ms at 1,200 s): the age grew 16 → 17 at 1,320 s
 * on 1,140–1,200 s (31 ms); at 1,380 s CloudWatch reports 1,200–1,260 s at 50 ms: void, grow 18 → 28 at once
 * rather than at 1,500 s.
 */
function heavierBeforeGrowth(probe: GrowthProbe, view: ProbeView): boolean {
  const { snapshot, config } = view;
  const end = snapshot.oldestAge?.observedAt;
  const itemSeconds = snapshot.itemSeconds;
  if (end === undefined || end > probe.at || itemSeconds === undefined) return false;
  return itemSeconds > config.slowdownFactor * probe.itemSecondsBefore;
}

/** What the tick carries of the evidence, and the ceiling in force. */
export interface SaturationFinding {
  readonly carried: Pick<ControllerState, 'growthProbe' | 'saturation'>;
  readonly ceiling?: number;
}

/**
 * The probe judged on this tick (kept while pending), and the ceiling: a saturation found now sets it at what the
 * throughput needs (never below where the growth started, nor the floor) for the scale-down delay at least; it
 * holds past that while the queue stays behind.
 */
export function saturationOf(view: ProbeView): SaturationFinding {
  const { state, now, config } = view;
  // Void before it takes a newer period's figures: compared with its own, a period shows nothing heavier.
  const carried =
    state.growthProbe === undefined || heavierBeforeGrowth(state.growthProbe, view)
      ? undefined
      : state.growthProbe;
  const probe = carried === undefined ? undefined : withCloudWatchBefore(carried, view);
  const judged = probe === undefined ? undefined : judgeProbe(probe, view);
  // Back to the workers the throughput needs, never below where the growth started (what it had before was served),
  // or below it to the tick before's value where the samples grew past that since: no probe judged their growth.
  const found =
    judged?.verdict === 'saturated' && probe !== undefined && judged.useful !== undefined
      ? {
          // Whole steps of the actuator (a poller's 10 in provisioned mode): a ceiling between two levels would let
          // a growth round up past it, and a shrink to it round back up to where it was, every tick.
          ceiling: Math.max(
            config.minConcurrency,
            probe.unjudgedFrom?.value ?? probe.from,
            capInSteps(Math.round(judged.useful), config.actuator),
          ),
          until: now + config.scaleDownDelaySeconds,
          ...contendedOf(view),
        }
      : undefined;
  // Refused items in flight (refusals.ts) set a ceiling of their own, and lift it a step at a time; theirs carries no
  // contended period, so `refuted` never lifts it.
  const refusal = found === undefined ? refusalCeilingOf(view) : undefined;
  const prior = refusal === undefined ? state.saturation : refusal.saturation;
  // Held while behind (every worker busy: more would only wait again), and at least the scale-down delay, unless
  // the per-item time stayed where it was once the workers went back (`refuted`).
  const held =
    prior !== undefined && (prior.until > now || view.behind) && !refuted(prior, view) ? prior : undefined;
  const saturation = found ?? held;
  const pending = judged?.verdict === 'pending' ? probe : undefined;
  const samples = probe === undefined && saturation === undefined ? probeForSamplesGrowth(view) : undefined;
  return { carried: { growthProbe: pending ?? samples, saturation }, ceiling: saturation?.ceiling };
}

/** The finding's own period: the workers that ran in it and the per-item time they took. */
function contendedOf(view: ProbeView): Pick<SaturationCeiling, 'contended'> {
  const { completionRatePerSecond: completions, itemSeconds } = view.snapshot;
  if (completions === undefined || itemSeconds === undefined) return {};
  return { contended: { at: view.now, executions: completions * itemSeconds, itemSeconds } };
}

/**
 * Share of the executions' fall that a saturated downstream's per-item time shows at least, once the workers are back
 * under the ceiling: a pool's or an API's wait is the workers past its knee, and goes with them.
 */
const CONTENTION_FELL = 0.5;
/** The executions fell by at least this share: the shrink to the ceiling took, and its effect can be read. */
const EXECUTIONS_FELL = 0.2;
/**
 * Or the executions are back at the ceiling (within half a worker), having fallen by at least this share: a shrink of
 * a fifth or less took too (10 → 8 reads 19.4 %), and its effect is still read past the per-item time's noise.
 */
const EXECUTIONS_FELL_TO_CEILING = 0.1;

/**
 * The saturation found was the items' own weight, not the downstream's: a CloudWatch period that began after the
 * finding shows the workers back under the ceiling (executions down by `EXECUTIONS_FELL` at least, or back at the
 * ceiling and down by `EXECUTIONS_FELL_TO_CEILING`), and the per-item time not down by `CONTENTION_FELL` of that
 * fall. A saturated pool's wait goes with the workers that made it (pool of 20, 32 workers at 160 ms → 20 at 100 ms);
 * items that got heavier while the probe waited for its period look saturated to it (their time rose with the
 * growth, the completions did not) and take as long with fewer workers.
 * Or the per-item time rose past `slowdownFactor` × the finding's on no more workers: items that got heavier after
 * the finding (held-out pool-at-capacity-slower, seed 2, one poller step a minute: a probe judged on a period that
 * mixed 20 and 50 ms items found 12 → 9; at 9 the items, 80 ms from 915 s, took 81 ms where the finding saw 50 ms,
 * yet the executions fell 9.6 → 8.8, under a tenth, and the ceiling held 9 workers for twenty minutes, 5.2 × the
 * target). Or the completions rose past `slowdownFactor` × the finding's: a saturated downstream serves what it
 * served, so one that serves more now has room the ceiling's workers, counted at the finding's per-item time, do not
 * say (held-out pool-slow-then-surge, seed 1, 10 s steps: found on 31 workers at about 100 ms on a pool of 20, 200/s,
 * back to 13; the items went back to 20 ms under a surge of 900/s, and 13 workers served about 650/s while the
 * ceiling held them there through the surge: 83,000 waiting, 2.4 × the target).
 * The ceiling is lifted: the law sizes on the time observed, and the next growth probes again.
 * Worked example (held-out heavier-then-busier, seed 2, one poller step a minute: 250/s, items 20 → 50 ms at 645 s):
 * a growth 6 → 11 at 660 s, judged at 900 s on 12.5 workers at 51 ms against 20.8 ms before, found 6 useful and went
 * back to 6; the period 900–960 s shows 6 workers at 51 ms still: refuted, where the ceiling held the queue at 6
 * workers for good while 120,000 messages waited.
 */
function refuted(saturation: SaturationCeiling, view: ProbeView): boolean {
  const { contended } = saturation;
  const start = newestPeriodStart(view.snapshot);
  const { completionRatePerSecond: completions, itemSeconds } = view.snapshot;
  if (contended === undefined || start === undefined || start < contended.at) return false;
  if (completions === undefined || itemSeconds === undefined) return false;
  // More completions than the finding's throughput by more than the law's "slower": the downstream serves more now
  // (lighter items, or it recovered), and a ceiling in workers found at the finding's per-item time says nothing.
  if (completions > view.config.slowdownFactor * (contended.executions / contended.itemSeconds)) return true;
  const executions = completions * itemSeconds;
  const fell = 1 - executions / contended.executions;
  // Heavier than the finding by more than the law's "slower" on no more workers: contention goes with the workers
  // that make it, so the items got heavier, whatever the executions' fall reads past its noise.
  if (fell >= 0 && itemSeconds > view.config.slowdownFactor * contended.itemSeconds) return true;
  const backAtCeiling = executions <= saturation.ceiling + 0.5 && fell >= EXECUTIONS_FELL_TO_CEILING;
  if (!(fell >= EXECUTIONS_FELL || backAtCeiling)) return false;
  return itemSeconds > contended.itemSeconds * (1 - CONTENTION_FELL * fell);
}

/**
 * A probe takes the figures of the newest period that ended by the growth, as CloudWatch reports it (its datapoints
 * arrive a minute or two late): what the workers completed and the per-item time they ran at just before it. A
 * growth the age made at a tick took the newest period then, up to two periods before the growth; items that got
 * heavier in between, by less than voids the probe (`heavierBeforeGrowth`), read as saturation: on a pool with room,
 * items 20 → 30 ms at 600/s, a growth 14 → 16 judged on 20 ms found 11 of 17 useful and held the queue at 14 for
 * four minutes (p99 1.7 × the target). So the probe takes each newer period that ended by the growth.
 * A probe whose before-figures the depth showed takes CloudWatch's own once CloudWatch reports the last period that
 * ended at the growth: counted rather than read off the depth. From then on the probe is CloudWatch's on both
 * sides and may call the downstream saturated. Without this, a growth the depth sized straight to the cap never met
 * a verdict (a depth-shown probe expires rather than call saturation), and at the cap no further growth probes
 * again: under a ramp that steps once a minute the law held 32 workers on a pool of 20 through a whole slowdown
 * (downstream-saturated: 12 waiting for a connection, as many pool waits as native). Only the period that ended at
 * the growth counts: an earlier one may predate the change that made the items heavier (its lighter per-item time
 * would call saturated a growth that bought its share).
 * Worked example (pool of 20, queries 20 → 100 ms at 300/s): the depth showed 8 workers at about 107 ms and the
 * law grew 8 → 32 at 660 s; at 780 s CloudWatch reports 600–660 s: 80/s at 100 ms, and the probe takes them; at
 * 900 s, 720–780 s: 200/s at 160 ms (32 running, 12 waiting): 20 useful of 32, saturated, back to 20.
 */
function withCloudWatchBefore(probe: GrowthProbe, view: ProbeView): GrowthProbe {
  const { snapshot } = view;
  const end = snapshot.oldestAge?.observedAt;
  const period = snapshot.ratePeriodSeconds;
  const completions = snapshot.completionRatePerSecond;
  const itemSeconds = snapshot.itemSeconds;
  if (!view.behind || end === undefined || period === undefined) return probe;
  // CloudWatch's own: any period that ended by the growth is at least as new as the one it took then.
  const newer = probe.shownByDepth === true ? end <= probe.at && end > probe.at - period : end <= probe.at;
  if (!newer || completions === undefined || !(completions > 0)) return probe;
  if (itemSeconds === undefined || !(itemSeconds > 0)) return probe;
  // A period lighter than the depth showed by more than the law's "slower" averaged lighter items in: the items got
  // heavier within it, and the depth's figures are the ones the growth's workers started from. Compared with that
  // period, heavier items call the growth saturated (held-out heavier-then-busier, seed 2: items 20 → 50 ms 15 s
  // before a growth 6 → 11 at 660 s; the period 600–660 s said 20.8 ms, the depth 38 ms; judged on 20.8 ms, 13
  // workers at 51 ms found 6 useful, and the law went back to 6 while 10,000 waited).
  if (probe.shownByDepth === true && itemSeconds * view.config.slowdownFactor < probe.itemSecondsBefore) {
    return probe;
  }
  const { shownByDepth: _, ...counted } = probe;
  // The samples' unjudged workers ran in the newer period (more than the tick before left): they may have waited, so
  // the time before is the lightest since (`unjudgedFrom`); on no more it is the items' own (heavier, not contention).
  const samplesRan = probe.unjudgedFrom !== undefined && completions * itemSeconds > probe.unjudgedFrom.value;
  const lightest = samplesRan ? Math.min(itemSeconds, probe.itemSecondsBefore) : itemSeconds;
  return { ...counted, completionsBefore: completions, itemSecondsBefore: lightest };
}

/**
 * A probe for a growth `from` → `to` this tick writes while behind (every worker busy, so the newest period's
 * completions are what they serve; the workers it ran are its completions × its per-item time, whatever a sample
 * between ticks changed since; where the depth showed heavier items, what it showed); none while another is
 * pending.
 */
export function probeFor(view: ProbeView, from: number, to: number): GrowthProbe | undefined {
  const { snapshot, now, heavierShown: shown } = view;
  const tickLeft = view.state.tickLeft;
  const completions = shown?.completionsPerSecond ?? snapshot.completionRatePerSecond;
  // What the depth showed was served by `from` workers, busy with a backlog waiting: the per-item time they ran at.
  // (Sizing counts only the batches in flight, which read fewer between two batches; judged on that, a growth
  // that bought its full share of completions would read as saturated.)
  const itemSeconds =
    shown === undefined
      ? snapshot.itemSeconds
      : Number.isFinite(from)
        ? from / shown.completionsPerSecond
        : undefined;
  if (!view.behind || completions === undefined || completions <= 0 || itemSeconds === undefined)
    return undefined;
  // Growth ahead of the age is sized on the minute the items changed in: probed, it held the next growth three ticks
  // for a verdict while one poller step a minute had not followed it (load.ts). Bounded instead, as the samples' is.
  if (view.aheadLimit !== undefined) return undefined;
  if (!Number.isFinite(from) || from <= 0 || to <= from || shown?.capped === true) return undefined;
  return {
    at: now,
    from,
    to,
    completionsBefore: completions,
    itemSecondsBefore: itemSeconds,
    ...(shown === undefined ? {} : { shownByDepth: true }),
    ...(tickLeft !== undefined && tickLeft.value < from ? { unjudgedFrom: tickLeft } : {}),
  };
}

/**
 * A probe for the samples' growth, recorded by the first tick behind after it where the tick grows no more: at the cap,
 * or held by the downstream's health signal past its threshold. No probe of the tick's own judged what the samples
 * added there: a slowdown they read as a surge (the depth rising where the workers served less) kept every worker on a
 * saturated downstream for as long as it stayed behind (downstream-saturated, 10 s steps, seed 2: 18 → 32 between ticks
 * on queries 20 → 100 ms, 32 workers on a pool of 20 for fifteen minutes, as many pool waits as native; a pool of 8
 * under a health signal: 28 workers held). It runs from the value the tick before left, dated at the samples' last
 * change, on CloudWatch's newest period that ended by it, and is judged as a tick's growth is; none where the tick is
 * only ahead of the age (`probeFor`, as for its own growth).
 * Worked example: the tick left 9 at 660 s, the samples grew to 32 by 750 s; at 780 s CloudWatch shows 600–660 s,
 * 80/s at 100 ms; at 960 s, 780–840 s: 200/s at 158 ms with 32 running: 20 useful, saturated, back to 20.
 */
function probeForSamplesGrowth(view: ProbeView): GrowthProbe | undefined {
  const { state, snapshot, now } = view;
  const applied = snapshot.appliedConcurrency;
  const growsNoMore =
    applied >= view.config.maxConcurrency || downstreamUnhealthy(snapshot, view.config.maxDataAgeSeconds);
  if (!view.behind || !growsNoMore || !Number.isFinite(applied)) return undefined;
  const left = state.tickLeft;
  const grownAt = state.lastChangeAt;
  const end = snapshot.oldestAge?.observedAt;
  if (left === undefined || grownAt === undefined || end === undefined) return undefined;
  const unjudged = left.value < applied && grownAt > left.at && now - left.at <= PROBE_EXPIRES_SECONDS;
  if (!unjudged || end > grownAt) return undefined;
  // CloudWatch's figures: what the depth shows now was served by the grown value, not before it.
  const before = { ...view, heavierShown: undefined, state: { ...state, tickLeft: undefined } };
  const probe = probeFor(before, left.value, applied);
  return probe === undefined ? undefined : { ...probe, at: grownAt };
}

/**
 * The value a tick leaves for the next tick's probe to judge the samples' growth from (`GrowthProbe.unjudgedFrom`):
 * what it wrote, or what it held. Where it held a value the samples grew to since the tick before left a lower one,
 * that lower one stays, for `PROBE_EXPIRES_SECONDS` from when it was left: a tick that holds (the age, a minute or two
 * late, still below the setpoint) has judged nothing. Left afresh, `downstream-saturated` (10 s steps, the ticks 30 s
 * off the change) had the samples grow 16 → 28 on items 100 ms heavier, the tick hold 28, and the next grow 28 → 31
 * with a probe that took 28 workers on 20 connections (200/s at 138 ms) as its "before": room, and on to the cap.
 * None where nothing bounds the consumer.
 */
export function leftByTick(
  before: LeftApplied | undefined,
  value: number | undefined,
  applied: number | undefined,
  now: number,
): LeftApplied | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined;
  const held = value === applied;
  const unjudged = before !== undefined && before.value < value && now - before.at <= PROBE_EXPIRES_SECONDS;
  return held && unjudged ? before : { value, at: now };
}
