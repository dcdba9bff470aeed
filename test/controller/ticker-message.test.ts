import { describe, expect, it } from 'vitest';
import { isTickerEvent, parseTickerBody, tickerBody } from '../../functions/controller/ticker-message.ts';

/** What the ticker queue may bring: the controller's own sample messages, or anything else, which is dropped. */
describe('ticker messages', () => {
  it('reads back what the tick wrote', () => {
    const body = tickerBody(1_200, 1_210, 1_250, { members: [{ name: 'orders' }] });
    expect(parseTickerBody(JSON.stringify(body))).toEqual(body);
  });

  it.each([
    { comment: 'no body', body: undefined },
    { comment: 'not JSON', body: '{"kind":' },
    { comment: 'JSON null', body: 'null' },
    { comment: "another sender's message", body: JSON.stringify({ hello: 'world' }) },
    {
      comment: 'a time that is not a number',
      body: JSON.stringify({ ...tickerBody(1, 2, 3, {}), at: 'soon' }),
    },
    { comment: 'no state', body: JSON.stringify({ ...tickerBody(1, 2, 3, {}), state: null }) },
  ])('drops $comment', ({ body }) => {
    expect(parseTickerBody(body)).toBeUndefined();
  });

  it.each([
    {
      comment: 'an SQS delivery',
      event: { Records: [{ eventSource: 'aws:sqs', body: '{}' }] },
      ticker: true,
    },
    { comment: 'a scheduled event', event: { time: '2026-12-01T12:00:00Z' }, ticker: false },
    { comment: "the start trigger's empty event", event: {}, ticker: false },
    { comment: 'another source', event: { Records: [{ eventSource: 'aws:sns' }] }, ticker: false },
    { comment: 'null', event: null, ticker: false },
  ])('tells $comment from a tick', ({ event, ticker }) => {
    expect(isTickerEvent(event)).toBe(ticker);
  });
});
