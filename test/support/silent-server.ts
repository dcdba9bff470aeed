import { createServer, type Socket } from 'node:net';
import { listenOnLoopback } from './loopback.ts';

/** A TCP server on 127.0.0.1 that accepts every connection and never sends a byte: an endpoint gone silent. */
export interface SilentServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Connections accepted so far (each SDK attempt opens or reuses one). */
  readonly connections: () => number;
  stop(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const endpoint = await listenOnLoopback(server);
  return {
    endpoint,
    connections: () => accepted,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
