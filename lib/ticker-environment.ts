/**
 * The contract between the constructs, which create the controller's ticker queue, and the controller Lambda, which
 * sends its samples there (lib/aws/ticker.ts). No SDK import: the CDK library loads it at synth.
 */

/** The controller's environment variable naming its ticker queue; absent, nothing samples between ticks. */
export const TICKER_QUEUE_VARIABLE = 'TICKER_QUEUE_URL';
