/**
 * Provisioned mode (docs/aws-facts.md, "Provisioned mode"): each event poller drives up to 10 concurrent invocations
 * and an SQS mapping keeps at least 2 (`MinimumPollers`). The pollers never look at reserved concurrency, so reserved
 * must hold what they can drive, 10 a poller: the actuator moves both in steps of 10, from 20 up.
 */
export const INVOKES_PER_POLLER = 10;
export const PROVISIONED_MIN_POLLERS = 2;
export const PROVISIONED_MIN_CONCURRENCY = PROVISIONED_MIN_POLLERS * INVOKES_PER_POLLER;
/** SQS's `MinimumPollers` is 2–200 (docs/aws-facts.md, "Provisioned mode"): the most a scheduled floor warms. */
export const PROVISIONED_MAX_WARM_POLLERS = 200;
/**
 * Provisioned mode scales up by at most 1,000 concurrent invocations a minute (docs/aws-facts.md, "Provisioned mode"),
 * in steps AWS does not document: within a minute its pollers reach that far past what runs, under either reading.
 */
export const PROVISIONED_RAMP_PER_MINUTE = 1000;
