import { createServer, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.ts';

/**
 * An HTTP server on 127.0.0.1 that answers every request's headers at once and then trickles its body a byte every
 * `everyMs`, never ending within a test: an endpoint the SDK's own timeouts (first byte, idle socket) never catch.
 */
export interface TrickleServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Requests answered so far (each SDK attempt is one). */
  readonly requests: () => number;
  stop(): Promise<void>;
}

export async function startTrickleServer(everyMs = 100): Promise<TrickleServer> {
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests += 1;
    open.add(response);
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '1000000' });
    const timer = setInterval(() => response.write(' '), everyMs);
    timers.add(timer);
    response.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
      open.delete(response);
    });
  });
  const endpoint = await listenOnLoopback(server);
  return {
    endpoint,
    requests: () => requests,
    stop: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        for (const response of open) response.destroy();
        server.close(() => resolve());
      }),
  };
}
