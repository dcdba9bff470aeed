import type { Server as NetServer } from 'node:net';

/**
 * Starts `server` on a free port of 127.0.0.1 (tests never leave the machine) and gives its endpoint,
 * `http://127.0.0.1:<port>`, for an SDK client's `endpoint`.
 */
export async function listenOnLoopback(server: NetServer): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return `http://127.0.0.1:${port}`;
}
