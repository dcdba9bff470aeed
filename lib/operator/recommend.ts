import type { SeedFigures } from '../bench/seed-figures.ts';
import type { ControllerKind } from '../sim/run.ts';

/**
 * Which controller to run on a trace, from each option's figures over the seeds. Pure: `recommend` replays, this
 * chooses. The user's question is "the latency I asked for, with the least load on my downstream":
 *
 * 1. An option meets the target when its p99 wait is at or under the target on every seed and it dead-letters
 *    nothing (a message in the DLQ never arrives, and the p99 counts only those that do).
 * 2. Among those that meet it, the lowest exec peak (the worst seed's): the load the downstream must take.
 * 3. Peaks within 5 % of the lowest are a tie (the bench's tolerance, lib/bench/bench.ts: seed noise, not a
 *    ranking; 23 against 24 is a tie): the cheaper option a month wins it (lib/bench/cost.ts; then the lower peak,
 *    then the lower mean).
 * 4. When none meets the target, the least late: the fewest dead letters, then the lowest p99, ties within 5 %
 *    again to the cheaper.
 */
export const NEAR_TIE = 0.05;

export type ChoiceRule = 'lowest-peak' | 'cheaper-on-near-tie' | 'least-late';

export interface Recommendation {
  readonly controller: ControllerKind;
  readonly rule: ChoiceRule;
  /** The options that meet the target on every seed. */
  readonly meeting: readonly ControllerKind[];
  /** The options the rule found tied with the choice (itself included). */
  readonly tied: readonly ControllerKind[];
}

const SLACK = 1e-9;

export function meetsTarget(option: SeedFigures): boolean {
  return option.p99OverTarget <= 1 + SLACK && option.deadLetters === 0;
}

function within(value: number, best: number): boolean {
  return value <= best * (1 + NEAR_TIE) + SLACK;
}

/** The cheapest, then the lowest peak, then the lowest mean. */
function cheapest(options: readonly SeedFigures[]): SeedFigures {
  return [...options].sort(
    (a, b) => a.monthlyCost - b.monthlyCost || a.peak - b.peak || a.mean - b.mean,
  )[0] as SeedFigures;
}

export function chooseController(options: readonly SeedFigures[]): Recommendation {
  if (options.length === 0) throw new Error('chooseController: no options');
  const meeting = options.filter(meetsTarget);
  if (meeting.length > 0) {
    const lowest = Math.min(...meeting.map((o) => o.peak));
    const tied = meeting.filter((o) => within(o.peak, lowest));
    const chosen = cheapest(tied);
    return {
      controller: chosen.controller,
      rule: tied.length > 1 ? 'cheaper-on-near-tie' : 'lowest-peak',
      meeting: meeting.map((o) => o.controller),
      tied: tied.map((o) => o.controller),
    };
  }
  const fewest = Math.min(...options.map((o) => o.deadLetters));
  const candidates = options.filter((o) => o.deadLetters === fewest);
  const earliest = Math.min(...candidates.map((o) => o.p99OverTarget));
  const tied = candidates.filter((o) => within(o.p99OverTarget, earliest));
  return {
    controller: cheapest(tied).controller,
    rule: 'least-late',
    meeting: [],
    tied: tied.map((o) => o.controller),
  };
}
