import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';

type Request = Parameters<NodeHttpHandler['handle']>[0];
type HandlerOptions = NonNullable<Parameters<NodeHttpHandler['handle']>[1]>;
type Handled = Awaited<ReturnType<NodeHttpHandler['handle']>>;
type Destroyable = { once?: (event: string, listener: () => void) => void; destroy?: (error: Error) => void };

/**
 * The SDK's Node HTTP handler with a deadline on each whole attempt, headers and body. The handler's own timeouts
 * stop at the first byte: `requestTimeout` is cleared once the headers arrive, and `socketTimeout` fires only on a
 * silent socket, so an endpoint that answers its headers and then trickles a byte a second (a broken proxy, a
 * captive portal) held a tool forever, and one that streams gigabytes filled the memory. Past the deadline the
 * attempt is aborted (its socket destroyed) and the SDK retries it like any timed-out attempt.
 */
export class DeadlineHttpHandler {
  private readonly inner: NodeHttpHandler;

  constructor(
    /** The inner handler's own timeouts, as given. */
    readonly settings: NodeHttpHandlerOptions,
    /** The longest one whole attempt may take. */
    readonly deadlineMs: number,
  ) {
    this.inner = new NodeHttpHandler(settings);
  }

  /** The inner handler's protocol (`http/1.1`), which the SDK reads off its request handler. */
  get metadata(): NodeHttpHandler['metadata'] {
    return this.inner.metadata;
  }

  async handle(request: Request, options: HandlerOptions = {}): Promise<Handled> {
    const controller = new AbortController();
    const given = options.abortSignal as AbortSignal | undefined;
    const onGivenAbort = () => controller.abort();
    if (given?.aborted) controller.abort();
    given?.addEventListener?.('abort', onGivenAbort, { once: true });
    let body: Destroyable | undefined;
    const timer = setTimeout(() => {
      // A timeout, as the handler's own are: the SDK retries it, and the tools report it as one.
      const error = Object.assign(new Error(`no complete answer within ${this.deadlineMs} ms`), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      });
      controller.abort(error);
      body?.destroy?.(error);
    }, this.deadlineMs);
    timer.unref();
    // Once the attempt is over: no deadline left running, no listener left on the caller's signal.
    const finish = () => {
      clearTimeout(timer);
      given?.removeEventListener?.('abort', onGivenAbort);
    };
    try {
      const result = await this.inner.handle(request, { ...options, abortSignal: controller.signal });
      body = result.response.body as Destroyable | undefined;
      // The body is read after this returns: the deadline holds until it is done.
      if (typeof body?.once === 'function') body.once('close', finish);
      else finish();
      return result;
    } catch (error) {
      finish();
      throw error;
    }
  }

  updateHttpClientConfig(key: keyof NodeHttpHandlerOptions, value: NodeHttpHandlerOptions[typeof key]): void {
    this.inner.updateHttpClientConfig(key, value);
  }

  httpHandlerConfigs(): NodeHttpHandlerOptions {
    return this.inner.httpHandlerConfigs();
  }

  destroy(): void {
    this.inner.destroy();
  }
}
