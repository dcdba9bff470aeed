import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Dummy credentials and no AWS config: every call goes to the endpoint the test passes. The SDK's Node 20
 * deprecation notice is switched off so stderr holds only the tool's own lines.
 */
export function cliEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    NO_COLOR: '1',
  };
}

/** Runs `npm run <bin> -- args` as a user would (through tsx). */
export async function cli(
  bin: 'load' | 'status' | 'trace',
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `bin/${bin}.ts`, ...args], {
      cwd: ROOT,
      env: { ...cliEnvironment(), ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface RunningCli {
  readonly child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves when the process ends: its exit code (null if a signal ended it) and the signal. */
  readonly done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/** Starts the tool and returns at once, so a test can signal it while it runs. */
export function startCli(bin: 'load' | 'status' | 'trace', args: readonly string[]): RunningCli {
  const child = spawn(process.execPath, ['--import', 'tsx', `bin/${bin}.ts`, ...args], {
    cwd: ROOT,
    env: cliEnvironment(),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? -1, stdout, stderr, signal }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}
