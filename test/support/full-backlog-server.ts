import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A port on 127.0.0.1 that never completes a connection: a socket listening with a backlog of 0 that never
 * accepts, its one queue slot taken. Linux then drops every new SYN, so a client's connect hangs until its own
 * connection timeout: an endpoint that cannot be reached, without leaving 127.0.0.1. Node accepts every connection
 * it listens for, so the listener is a Python one-liner (python3 is on the machine for moto).
 */
export interface FullBacklogServer {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  stop(): Promise<void>;
}

const LISTENER = `
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
address = s.getsockname()
held = []
for _ in range(4):
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex(address)
    held.append(c)
print(address[1], flush=True)
sys.stdin.read()
`;

export async function startFullBacklogServer(): Promise<FullBacklogServer> {
  const child: ChildProcess = spawn('python3', ['-c', LISTENER], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the backlog listener exited with ${code}`)));
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // Closing stdin ends the listener (and with it every socket it holds).
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin?.end();
      }),
  };
}
