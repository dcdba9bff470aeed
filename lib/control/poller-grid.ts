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
