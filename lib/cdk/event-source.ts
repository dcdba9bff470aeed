import { Reference, Stack, Token, Tokenization } from 'aws-cdk-lib';
import type { CfnEventSourceMapping, IEventSourceMapping, IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource, type SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import { INVOKES_PER_POLLER, PROVISIONED_MIN_POLLERS } from '../control/config.ts';
import { resourceOfType } from './resource-type.ts';

/**
 * The three ways an app attaches a queue to its consumer, reduced to one mapping the scaler drives:
 * an `SqsEventSource` (added to the consumer here if the app has not added it yet), an existing
 * `IEventSourceMapping`, or none (the scaler drives the consumer's mapping on the queue if the app has one, and
 * otherwise creates it, as aws-solutions-constructs' `aws-sqs-lambda` does, with `MaximumConcurrency` set from the
 * start).
 */
export interface MappingChoice {
  readonly queue: IQueue;
  readonly consumer: IFunction;
  readonly eventSource?: SqsEventSource;
  readonly eventSourceMapping?: IEventSourceMapping;
  readonly eventSourceProps?: SqsEventSourceProps;
}

export interface AttachedMapping {
  /** The mapping's id (its UUID at deploy time): what the controller's environment carries. */
  readonly mappingId: string;
  /** The mapping's resource when this app defines it: what the synth checks read. Undefined when imported. */
  readonly resource?: CfnEventSourceMapping;
  /** What went wrong choosing it (each with its fix); the caller reports them with the rest. */
  readonly problems: readonly string[];
  /** What the scaler changed on it, for an info annotation. */
  readonly notes: readonly string[];
}

const MAPPING_TYPE = 'AWS::Lambda::EventSourceMapping';

/** Every event source mapping resource in the app (by CloudFormation type: immune to duplicate aws-cdk-lib copies). */
export function mappingResources(scope: IConstruct): CfnEventSourceMapping[] {
  return scope.node.root.node
    .findAll()
    .filter((c): c is CfnEventSourceMapping => resourceOfType(c, MAPPING_TYPE) !== undefined);
}

/** The resource attribute a value refers to, when it is exactly one reference (`Ref` or `Fn::GetAtt`). */
function referenceOf(value: unknown): { target: IConstruct; attribute: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const fragments = Tokenization.reverseString(value);
  const token = fragments.length === 1 ? fragments.firstToken : undefined;
  return token instanceof Reference ? { target: token.target, attribute: token.displayName } : undefined;
}

/**
 * Whether two values are the same at deploy time, as far as synth can tell: `true`/`false` for two literals or two
 * references (compared by the resource they point to, so two stacks with alike logical ids never match), and for
 * two composite values of one stack (an alias's `name:alias`) by their rendering; `undefined` when synth cannot
 * decide (a literal against a reference: an imported name against a resource of this app).
 */
export function sameValue(scope: IConstruct, a: unknown, b: unknown): boolean | undefined {
  const unresolved = [Token.isUnresolved(a), Token.isUnresolved(b)];
  if (!unresolved[0] && !unresolved[1]) return a === b;
  if (unresolved[0] !== unresolved[1]) return undefined;
  const [left, right] = [referenceOf(a), referenceOf(b)];
  if (left && right) return left.target === right.target && left.attribute === right.attribute;
  if (left || right) return false;
  // Composite values render the logical ids of their own stack: comparable only within one.
  const stack = Stack.of(scope);
  return JSON.stringify(stack.resolve(a)) === JSON.stringify(stack.resolve(b));
}

function resourceOf(mapping: IEventSourceMapping): CfnEventSourceMapping | undefined {
  return resourceOfType<CfnEventSourceMapping>(mapping.node.defaultChild, MAPPING_TYPE);
}

function boundMappingId(source: SqsEventSource): string | undefined {
  // SqsEventSource's getter throws until it is bound to a function, and newer aws-cdk-lib (2.2xx) records every
  // ValidationError it throws in cdk.out/error.txt, caught or not: where the field behind the getter is there
  // (an own property from those versions on), read it rather than provoke the throw.
  const own = source as unknown as { _eventSourceMappingId?: unknown };
  if (Object.hasOwn(own, '_eventSourceMappingId')) {
    return typeof own._eventSourceMappingId === 'string' ? own._eventSourceMappingId : undefined;
  }
  try {
    return source.eventSourceMappingId;
  } catch {
    return undefined;
  }
}

/** The app's mapping whose `Ref` is this id (an SqsEventSource keeps only the id of the mapping it made). */
function resourceWithId(scope: IConstruct, mappingId: string): CfnEventSourceMapping | undefined {
  return mappingResources(scope).find((resource) => sameValue(scope, resource.ref, mappingId) === true);
}

/** A mapping of this app already joining this queue to this consumer. */
export function existingMapping(
  scope: IConstruct,
  queue: IQueue,
  consumer: IFunction,
): CfnEventSourceMapping | undefined {
  return mappingResources(scope).find(
    (resource) =>
      sameValue(scope, resource.eventSourceArn, queue.queueArn) === true &&
      (sameValue(scope, resource.functionName, consumer.functionName) === true ||
        sameValue(scope, resource.functionName, consumer.functionArn) === true),
  );
}

/**
 * Chooses (or creates) the mapping and makes sure it starts capped: a mapping of this app without
 * `MaximumConcurrency` gets `initialMaximum`, since uncapped pollers scale toward 1,250 whatever the reserved
 * concurrency (overpull: docs/aws-facts.md, "Event source mapping").
 */
export function attachMapping(
  scope: IConstruct,
  choice: MappingChoice,
  initialMaximum: number,
  /** Actuator 'provisioned': the mapping is in provisioned mode, its MaximumPollers the scaler's (10 a poller). */
  provisioned = false,
): AttachedMapping {
  const problems: string[] = [];
  const notes: string[] = [];
  let mappingId: string;
  let resource: CfnEventSourceMapping | undefined;
  // A mapping the scaler made (or an event source it added) starts capped as documented, without a note.
  let addedHere = false;

  if (choice.eventSource !== undefined && choice.eventSourceMapping !== undefined) {
    problems.push(
      'eventSource and eventSourceMapping are both given: give the one the consumer uses (the mapping is the one the SqsEventSource made)',
    );
  }
  if (
    choice.eventSourceProps !== undefined &&
    (choice.eventSource ?? choice.eventSourceMapping) !== undefined
  ) {
    problems.push(
      'eventSourceProps is given with an existing event source: it only shapes the mapping the scaler creates when neither eventSource nor eventSourceMapping is given; set those options on your own event source instead',
    );
  }

  if (choice.eventSourceMapping !== undefined) {
    mappingId = choice.eventSourceMapping.eventSourceMappingId;
    resource = resourceOf(choice.eventSourceMapping);
  } else if (choice.eventSource !== undefined) {
    const source = choice.eventSource;
    if (sameValue(scope, source.queue.queueArn, choice.queue.queueArn) === false) {
      problems.push(
        `eventSource reads the queue ${source.queue.node.path}, not the scaler's queue ${choice.queue.node.path}: pass the SqsEventSource of the queue the scaler watches`,
      );
    }
    // Not yet added to a function: add it to the consumer, as `consumer.addEventSource(eventSource)` would, unless
    // the app already added another SqsEventSource of this queue (a second one clashes in the construct tree, and
    // Lambda refuses two mappings of one queue on one function).
    const existing =
      boundMappingId(source) === undefined
        ? existingMapping(scope, choice.queue, choice.consumer)
        : undefined;
    if (existing !== undefined) {
      problems.push(
        `eventSource is a new SqsEventSource, but the consumer already has one on this queue (${existing.node.path}): pass that same SqsEventSource, or leave eventSource out and the scaler drives the consumer's mapping`,
      );
      mappingId = existing.ref;
      resource = existing;
    } else {
      if (boundMappingId(source) === undefined) {
        choice.consumer.addEventSource(source);
        addedHere = true;
      }
      mappingId = boundMappingId(source) as string;
      resource = resourceWithId(scope, mappingId);
    }
  } else {
    const existing = existingMapping(scope, choice.queue, choice.consumer);
    if (existing) {
      // The app already joins this queue to this consumer: drive that mapping rather than add a second one
      // (Lambda refuses two mappings of one queue on one function).
      mappingId = existing.ref;
      resource = existing;
      notes.push(`drives the consumer's existing mapping on this queue, ${existing.node.path}`);
      if (choice.eventSourceProps !== undefined) {
        problems.push(
          `eventSourceProps is given, but the consumer already has a mapping on this queue (${existing.node.path}), which the scaler drives: set those options on that mapping, or pass it as eventSourceMapping`,
        );
      }
    } else {
      const source = new SqsEventSource(choice.queue, {
        ...choice.eventSourceProps,
        ...(provisioned ? {} : { maxConcurrency: choice.eventSourceProps?.maxConcurrency ?? initialMaximum }),
      });
      choice.consumer.addEventSource(source);
      addedHere = true;
      mappingId = source.eventSourceMappingId;
      resource = resourceWithId(scope, mappingId);
    }
  }

  if (resource && provisioned) {
    startProvisioned(resource, initialMaximum, addedHere, problems, notes);
  } else if (resource) {
    const scaling = resource.scalingConfig;
    const provisioned = (resource as { provisionedPollerConfig?: unknown }).provisionedPollerConfig;
    if (provisioned !== undefined) {
      problems.push(
        `the event source mapping ${resource.node.path} is in provisioned mode (provisionedPollerConfig), which AWS does not allow with MaximumConcurrency, the cap the scaler drives: remove provisionedPollerConfig`,
      );
    } else if (scaling === undefined || (!Token.isUnresolved(scaling) && maximumOf(resource) === undefined)) {
      resource.scalingConfig = {
        ...(scaling as CfnEventSourceMapping.ScalingConfigProperty | undefined),
        maximumConcurrency: initialMaximum,
      };
      if (!addedHere)
        notes.push(
          `the event source mapping ${resource.node.path} had no MaximumConcurrency: set to ${initialMaximum}, so its pollers start capped (uncapped, they scale toward 1,250 and overpull into throttles)`,
        );
    }
  }
  return { mappingId, resource, problems, notes };
}

/**
 * Actuator 'provisioned': the mapping in provisioned mode, starting at the floor's pollers (10 invocations each,
 * SQS's least of 2 as MinimumPollers), and never with MaximumConcurrency, which AWS does not allow beside it. Set
 * as a property override, so it synthesizes with any aws-cdk-lib the app has (the L1 property came in 2.170.0).
 */
function startProvisioned(
  resource: CfnEventSourceMapping,
  initialMaximum: number,
  addedHere: boolean,
  problems: string[],
  notes: string[],
): void {
  if (maximumOf(resource) !== undefined) {
    problems.push(
      `the event source mapping ${resource.node.path} sets MaximumConcurrency, which AWS does not allow with provisioned mode, and actuator 'provisioned' drives its MaximumPollers instead: remove maxConcurrency (or use ScalerActuator.LOCKSTEP)`,
    );
    return;
  }
  if ((resource as { provisionedPollerConfig?: unknown }).provisionedPollerConfig !== undefined) return;
  const maximumPollers = Math.max(PROVISIONED_MIN_POLLERS, Math.floor(initialMaximum / INVOKES_PER_POLLER));
  resource.addPropertyOverride('ProvisionedPollerConfig', {
    MinimumPollers: PROVISIONED_MIN_POLLERS,
    MaximumPollers: maximumPollers,
  });
  if (!addedHere)
    notes.push(
      `the event source mapping ${resource.node.path} was in standard mode: set to provisioned mode, ${PROVISIONED_MIN_POLLERS}–${maximumPollers} pollers, which the scaler then drives`,
    );
}

/** The mapping's `ScalingConfig.MaximumConcurrency` when synth can read it. */
export function maximumOf(resource: CfnEventSourceMapping): number | undefined {
  const scaling = resource.scalingConfig;
  if (scaling === undefined || Token.isUnresolved(scaling)) return undefined;
  const maximum = (scaling as CfnEventSourceMapping.ScalingConfigProperty).maximumConcurrency;
  return typeof maximum === 'number' && !Token.isUnresolved(maximum) ? maximum : undefined;
}
