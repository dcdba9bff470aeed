import type { ControllerHistory, QueryNeeds } from '../../lib/aws/metric-queries.ts';
import type { MetricSeries } from '../../lib/control/index.ts';
import { type RememberedRates, withRemembered } from '../../lib/control/rate-reads.ts';

/** A read made once, on first use: every port of the tick shares its answer. */
export function once<T>(read: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= read();
    return answer;
  };
}

/**
 * One tick's CloudWatch history (lib/control/rate-reads.ts): read once as `needs` asks, with the rates this
 * container remembers in place of the ones it did not read, and the rates read afresh where the law would act on
 * reused ones (`series({ freshRates })`).
 */
export interface TickHistory {
  /** The history the carried state and the law read. */
  readonly history: () => Promise<ControllerHistory>;
  readonly series: (options?: { readonly freshRates?: boolean }) => Promise<MetricSeries>;
  /** The series the rates the tick used came from, and whether it read them at this tick: for the memory. */
  readonly rateRead: () => Promise<{ readonly series: MetricSeries; readonly fresh: boolean }>;
}

export function tickHistory(
  read: (needs: QueryNeeds) => Promise<ControllerHistory>,
  needs: Required<QueryNeeds>,
  reused: { readonly rates: RememberedRates | undefined; readonly from: number },
  shared?: () => Promise<ControllerHistory>,
): TickHistory {
  const asAsked = once(shared ?? (() => read(needs)));
  const afresh = once(() => read({ ownHistory: false, rates: true }));
  let readAfresh = false;
  const history = once(async (): Promise<ControllerHistory> => {
    const h = await asAsked();
    const rates = needs.rates ? undefined : reused.rates;
    return rates ? { ...h, series: withRemembered(h.series, rates, reused.from) } : h;
  });
  return {
    history,
    series: async (options) => {
      if (!options?.freshRates || needs.rates) return (await history()).series;
      readAfresh = true;
      return (await afresh()).series;
    },
    rateRead: async () => {
      if (needs.rates) return { series: (await asAsked()).series, fresh: true };
      if (readAfresh) return { series: (await afresh()).series, fresh: true };
      return { series: (await history()).series, fresh: false };
    },
  };
}
