import type { Datapoint } from '../control/index.ts';
import { BUDGET_METRICS as B, CONTROLLER_METRICS as M } from '../telemetry.ts';
import type {
  BudgetReading,
  BudgetSeriesName,
  MemberReading,
  MemberSeriesName,
  PartialSeries,
} from './budget-status.ts';
import { desiredNow, latest } from './status-metrics.ts';

/**
 * Where a member stands after the controller's last tick:
 * - `starved`: granted less than its own law asks while its head age is above its target (the budget's limit,
 *   not the controller, holds it back: shed, or raise the downstream's capacity);
 * - `behind`: above its target, granted what its law asks (its law's pace catches it up);
 * - `ok`: within its target; `idle`: no message waiting (head age 0);
 * - `unknown`: a value it takes was not read (`missing` says which, and why).
 */
export type MemberState = 'starved' | 'behind' | 'ok' | 'idle' | 'unknown';

export interface BudgetMemberSummary {
  readonly name: string;
  /** Its grant at the controller's last tick (BudgetGrant). */
  readonly grant?: Datapoint;
  /** What its own law asked (DesiredConcurrency), within its floor and cap where they were read: its demand. */
  readonly desired?: number;
  /** What it runs (AppliedConcurrency: after the tick, and any fast-path growth since). */
  readonly applied?: number;
  /** Its head age and target, where it published them: only while behind (see `atOrUnderTarget`). */
  readonly headAgeSeconds?: number;
  readonly targetAgeSeconds?: number;
  /** Its newest minute had no age: at or under its target (the age and target are published only while behind). */
  readonly atOrUnderTarget?: boolean;
  /** Head age ÷ target: above 1 it is behind. */
  readonly ageOverTarget?: number;
  /** Undefined when a value it takes was not read. */
  readonly starved?: boolean;
  readonly state: MemberState;
  /** The values not read, each with why: shown where the value would be. */
  readonly missing: readonly { readonly metric: string; readonly why: string }[];
}

export interface BudgetSummary {
  readonly budgetName: string;
  /** The budget (BudgetLimit) and Σ granted (BudgetGranted) at the controller's last tick. */
  readonly limit?: Datapoint;
  readonly granted?: Datapoint;
  /** BudgetExhausted: fully granted with a member starved. */
  readonly exhausted?: boolean;
  /** BudgetStarvedMembers: how many the controller counted starved. */
  readonly starvedMembers?: number;
  /** Starved first, then by name. */
  readonly members: readonly BudgetMemberSummary[];
  /** The members starved by their latest metrics. */
  readonly starved: readonly string[];
}

/** Something the operator should act on, most urgent first. */
export interface BudgetTrouble {
  readonly kind: 'starved' | 'exhausted' | 'not-read';
  readonly message: string;
  readonly member?: string;
}

const MEMBER_METRIC: Record<MemberSeriesName, string> = {
  grant: B.memberGrant,
  desired: M.desiredConcurrency,
  applied: M.appliedConcurrency,
  headAge: M.headAgeSeconds,
  targetAge: M.targetAgeSeconds,
  cap: M.cap,
  floor: M.floor,
};
/** What a row shows; the cap and floor only bound the demand, as the controller's (budget-tick.ts demandOf). */
const SHOWN: readonly MemberSeriesName[] = ['grant', 'desired', 'applied', 'headAge', 'targetAge'];

const why = <N extends string>(partial: readonly PartialSeries<N>[], series: N) => {
  const status = partial.find((p) => p.series === series)?.status;
  return status === undefined
    ? 'no datapoint in the window'
    : status === 'missing'
      ? 'missing from the answer'
      : `incomplete (${status})`;
};

/**
 * A member publishes its age and target only in the minutes it is behind (lib/telemetry.ts,
 * BUDGET_MEMBER_BEHIND_METRICS): its newest applied value with no age as new, the age read whole, is a minute at or
 * under its target. A member of an older controller, which published them every minute, reads as before.
 */
function atOrUnderTarget(m: MemberReading): boolean {
  // The tick's own minute: the grant, which only a tick publishes (a sample between ticks publishes applied too).
  const tick = latest(m.series.grant);
  const age = latest(m.series.headAge);
  // A tick with no age publishes its target alone: that minute is unknown, not on target.
  const target = latest(m.series.targetAge);
  const ageRead = !m.partial.some((p) => p.series === 'headAge' || p.series === 'targetAge');
  const before = (p: Datapoint | undefined) =>
    p === undefined || tick === undefined || p.timestamp < tick.timestamp;
  // Its own applied value read too: a member whose own metrics are missing is unknown, not on target.
  const applied = latest(m.series.applied);
  return tick !== undefined && applied !== undefined && ageRead && before(age) && before(target);
}

/** A tick that published its target without an age (it had none): the member's lateness is unknown. */
function ageUnknownAtTick(m: MemberReading): boolean {
  const tick = latest(m.series.grant);
  const age = latest(m.series.headAge);
  const target = latest(m.series.targetAge);
  if (tick === undefined || target === undefined || target.timestamp < tick.timestamp) return false;
  return age === undefined || age.timestamp < target.timestamp;
}

export function summarizeMember(m: MemberReading, metricsRead = true): BudgetMemberSummary {
  const value = (name: MemberSeriesName) => latest(m.series[name])?.value;
  const grant = latest(m.series.grant);
  // Published only in the minutes it differs from the applied value (lib/telemetry.ts): else it is the applied one.
  const raw = desiredNow(m.series.desired, m.series.applied)?.value;
  const cap = value('cap');
  const floor = value('floor');
  const desired = raw === undefined ? undefined : Math.min(cap ?? raw, Math.max(floor ?? raw, raw));
  const applied = value('applied');
  const onTarget = atOrUnderTarget(m);
  const headAgeSeconds = onTarget || ageUnknownAtTick(m) ? undefined : value('headAge');
  const targetAgeSeconds = onTarget ? undefined : value('targetAge');
  const ageOverTarget =
    headAgeSeconds === undefined || targetAgeSeconds === undefined || targetAgeSeconds <= 0
      ? undefined
      : headAgeSeconds / targetAgeSeconds;
  const starved =
    grant === undefined || desired === undefined
      ? undefined
      : onTarget
        ? false
        : headAgeSeconds === undefined || targetAgeSeconds === undefined
          ? undefined
          : grant.value < desired && headAgeSeconds > targetAgeSeconds;
  const behind = onTarget
    ? false
    : headAgeSeconds === undefined || targetAgeSeconds === undefined
      ? undefined
      : headAgeSeconds > targetAgeSeconds;
  const state: MemberState =
    starved === true
      ? 'starved'
      : starved === undefined
        ? 'unknown'
        : behind
          ? 'behind'
          : headAgeSeconds === 0
            ? 'idle'
            : 'ok';
  const shown = onTarget ? SHOWN.filter((name) => name !== 'headAge' && name !== 'targetAge') : SHOWN;
  const missing = metricsRead
    ? shown
        .filter((name) => value(name) === undefined)
        .map((name) => ({
          metric: MEMBER_METRIC[name],
          why: why(m.partial, name),
        }))
    : [];
  return {
    name: m.name,
    grant,
    desired,
    applied,
    headAgeSeconds,
    targetAgeSeconds,
    ...(onTarget ? { atOrUnderTarget: true } : {}),
    ageOverTarget,
    starved,
    state,
    missing,
  };
}

export function summarizeBudget(r: BudgetReading): BudgetSummary {
  const metricsRead = !r.problems.some((p) => p.part === 'metrics');
  const members = r.members.map((m) => summarizeMember(m, metricsRead));
  const order = (m: BudgetMemberSummary) => (m.state === 'starved' ? 0 : 1);
  const sorted = [...members].sort((a, b) => order(a) - order(b));
  // Exhausted and starved are published only when non-zero (functions/controller/report.ts budgetMetricsFor): read
  // against the budget's newest tick (its limit and Σ granted are published at every one), an older datapoint is a
  // past state and none is 0.
  const newestTick = Math.max(...[r.budget.granted, r.budget.limit].map((s) => latest(s)?.timestamp ?? -1));
  const sparse = (name: BudgetSeriesName) => {
    if (newestTick < 0 || r.budgetPartial.some((p) => p.series === name)) return undefined;
    const newest = latest(r.budget[name]);
    return newest !== undefined && newest.timestamp >= newestTick ? newest.value : 0;
  };
  const exhausted = sparse('exhausted');
  return {
    budgetName: r.budgetName,
    limit: latest(r.budget.limit),
    granted: latest(r.budget.granted),
    exhausted: exhausted === undefined ? undefined : exhausted >= 1,
    starvedMembers: sparse('starvedMembers'),
    members: sorted,
    starved: sorted.filter((m) => m.state === 'starved').map((m) => m.name),
  };
}

const seconds = (v: number) => `${v.toFixed(0)} s`;
const ratio = (v: number) => `${v.toFixed(1)}×`;
const FIX = "shed or slow its producers, or raise the downstream's capacity and then the budget";

/** What is wrong, most urgent first: the starved members, then the budget, then what was not read. */
export function budgetTroubles(r: BudgetReading, s: BudgetSummary): BudgetTrouble[] {
  const found: BudgetTrouble[] = [];
  for (const m of s.members) {
    if (m.state !== 'starved') continue;
    found.push({
      kind: 'starved',
      member: m.name,
      message: `STARVED: ${m.name} granted ${m.grant?.value} of the ${m.desired} its law asks, head age ${seconds(m.headAgeSeconds ?? 0)} vs target ${seconds(m.targetAgeSeconds ?? 0)} (${ratio(m.ageOverTarget ?? 0)}): ${FIX}`,
    });
  }
  // The controller's own verdict, when the members' metrics do not name anyone (late, or not read).
  if (s.exhausted && s.starved.length === 0) {
    found.push({
      kind: 'exhausted',
      message: `EXHAUSTED: the budget${s.limit === undefined ? '' : ` ${s.limit.value}`} is fully granted (or what is left is less than a starved member's poller) and the controller's last tick counted ${s.starvedMembers ?? 'some'} member(s) starved: shed, or raise the downstream's capacity and then the budget`,
    });
  }
  const unread = [
    ...(r.problems.some((p) => p.part === 'metrics') ? ['the metrics'] : []),
    ...(r.problems.some((p) => p.part === 'members')
      ? [`the members beyond the first ${r.members.length}`]
      : []),
  ];
  if (unread.length > 0) {
    found.push({
      kind: 'not-read',
      message: `NOT READ: ${unread.join(', ')} (the reason is shown in place below)`,
    });
  }
  return found;
}

function ago(t: number, now: number): string {
  const s = Math.max(0, Math.round(now - t));
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

const STATE_TEXT: Record<MemberState, string> = {
  starved: 'STARVED',
  behind: 'behind',
  ok: 'ok',
  idle: 'idle',
  unknown: 'unknown',
};

/** The members' table: one row each, starved first; a value not read is `unknown`, and why is below its row. */
export function memberTable(s: BudgetSummary, now: number): string[] {
  const header = [
    'member',
    'grant',
    'desired',
    'applied',
    'head age',
    'target',
    'age ÷ target',
    'state',
    'tick',
  ];
  const unknown = 'unknown';
  const rows = s.members.map((m) => [
    m.name,
    m.grant === undefined ? unknown : String(m.grant.value),
    m.desired === undefined ? unknown : String(m.desired),
    m.applied === undefined ? unknown : String(m.applied),
    m.atOrUnderTarget ? '≤ target' : m.headAgeSeconds === undefined ? unknown : seconds(m.headAgeSeconds),
    m.atOrUnderTarget ? '-' : m.targetAgeSeconds === undefined ? unknown : seconds(m.targetAgeSeconds),
    m.atOrUnderTarget ? '≤ 1' : m.ageOverTarget === undefined ? unknown : ratio(m.ageOverTarget),
    STATE_TEXT[m.state],
    m.grant === undefined ? '-' : ago(m.grant.timestamp, now),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  // Names and the state read left to right; numbers line up on the right.
  const left = new Set([0, 7, 8]);
  const line = (cells: readonly string[]) =>
    `  ${cells
      .map((c, i) => (left.has(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()}`;
  const lines = [line(header)];
  s.members.forEach((m, i) => {
    lines.push(line(rows[i] ?? []));
    // One line per reason: the metrics it holds for.
    const reasons = [...new Set(m.missing.map((x) => x.why))];
    for (const reason of reasons) {
      const metrics = m.missing.filter((x) => x.why === reason).map((x) => x.metric);
      lines.push(`  ${' '.repeat(widths[0] ?? 0)}  ${metrics.join(', ')}: ${reason}`);
    }
  });
  return lines;
}

/** The budget screen. */
export function budgetScreen(r: BudgetReading): string {
  const s = summarizeBudget(r);
  const now = r.readAt;
  const lines: string[] = [];
  const metricsFailed = r.problems.find((p) => p.part === 'metrics');
  const membersCut = r.problems.find((p) => p.part === 'members');
  lines.push(
    `budget ${r.budgetName} · ${r.members.length} member${r.members.length === 1 ? '' : 's'} · ${new Date(now * 1000).toISOString().slice(0, 19)}Z`,
  );
  lines.push('');
  const trouble = budgetTroubles(r, s);
  trouble.forEach((item, i) => {
    lines.push(`${i === 0 ? 'trouble' : ''}`.padEnd(17) + item.message);
  });
  if (trouble.length > 0) lines.push('');

  const budgetMissing = (name: BudgetSeriesName) => `unknown: ${why(r.budgetPartial, name)}`;
  if (metricsFailed !== undefined) {
    lines.push(`budget           unknown: metrics not read (${metricsFailed.error})`);
  } else {
    const limit = s.limit === undefined ? `limit ${budgetMissing('limit')}` : `limit ${s.limit.value}`;
    const granted =
      s.granted === undefined ? `granted ${budgetMissing('granted')}` : `granted ${s.granted.value}`;
    const full =
      s.limit !== undefined && s.granted !== undefined
        ? s.granted.value >= s.limit.value
          ? ' · fully granted'
          : ` · ${s.limit.value - s.granted.value} free`
        : '';
    const when =
      s.granted === undefined ? '' : `   (the controller's last tick, ${ago(s.granted.timestamp, now)})`;
    lines.push(`budget           ${limit} · ${granted}${full}${when}`);
    const starvedCount =
      s.starvedMembers === undefined ? '' : `, the controller counted ${s.starvedMembers} starved`;
    lines.push(
      `exhausted        ${
        s.exhausted === undefined
          ? budgetMissing('exhausted')
          : s.exhausted
            ? `YES: a member starved with nothing left it can take${starvedCount}: shed, or raise the downstream's capacity`
            : `no${starvedCount}`
      }`,
    );
  }
  lines.push('');
  if (metricsFailed !== undefined) {
    lines.push(`members          ${r.members.map((m) => m.name).join(', ')} (ListMetrics)`);
    lines.push(`                 grants, ages and targets not read: see budget`);
  } else {
    lines.push(
      `members (each one's latest minute in the last ${Math.round(r.windowSeconds / 60)} min; the tick is its grant's)`,
    );
    lines.push(...memberTable(s, now));
  }
  if (membersCut !== undefined) {
    lines.push('');
    lines.push(`not shown        ${membersCut.error}:`);
    lines.push(`                 ${r.notShown.join(', ')}`);
  }
  lines.push('');
  lines.push(
    'starved: granted less than its own law asks (desired, within its floor and cap), head age above target',
  );
  lines.push('behind:  head age above target, granted what its law asks · idle: no message waiting');
  return lines.join('\n');
}
