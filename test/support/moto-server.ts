import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { pythonWithTools } from './python-tools.ts';

/**
 * A private moto server (the AWS emulator) for one test file: vitest runs files in parallel, and moto keeps all
 * state in one process, so each file starts its own on a free port of 127.0.0.1 and stops it afterwards.
 * Nothing here can reach real AWS: every client gets this endpoint and dummy credentials.
 */
export interface MotoServer {
  /** `http://127.0.0.1:<port>`: pass it as every SDK client's `endpoint`. */
  readonly endpoint: string;
  /** Client settings that point an SDK v3 client at this server. */
  readonly clientConfig: {
    readonly endpoint: string;
    readonly region: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  };
  /** Drops every resource (moto's reset API), so one server serves several independent tests. */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export const TEST_REGION = 'us-east-1';
const DUMMY_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

export interface MotoServerOptions {
  /** Extra environment for the server, e.g. `MOTO_LAMBDA_CONCURRENCY_QUOTA` to enable the unreserved floor. */
  readonly env?: Record<string, string>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(endpoint: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto server exited with ${child.exitCode}: ${log()}`);
    try {
      const response = await fetch(`${endpoint}/moto-api/`);
      if (response.status < 500) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto server did not answer on ${endpoint} within 30 s: ${log()}`);
}

/** Sets the dummy credentials and region for SDK clients created without explicit ones, restorable. */
export function useDummyAwsEnvironment(): () => void {
  const keys = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION'] as const;
  const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
  process.env.AWS_ACCESS_KEY_ID = DUMMY_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = DUMMY_CREDENTIALS.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  process.env.AWS_REGION = TEST_REGION;
  return () => {
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  };
}

export async function startMotoServer(options: MotoServerOptions = {}): Promise<MotoServer> {
  const python = pythonWithTools();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(python, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, ...DUMMY_ENV, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep only the tail: moto logs every request.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await waitUntilUp(endpoint, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    endpoint,
    clientConfig: { endpoint, region: TEST_REGION, credentials: DUMMY_CREDENTIALS },
    async reset() {
      const response = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`moto reset failed: ${response.status}`);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const DUMMY_ENV = {
  AWS_ACCESS_KEY_ID: DUMMY_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: DUMMY_CREDENTIALS.secretAccessKey,
  AWS_DEFAULT_REGION: TEST_REGION,
  // moto stamps a mapping's LastModified with mktime(utcnow()): only right when local time is UTC.
  TZ: 'UTC',
};
