import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The Python tools the suite runs for real: moto's server (the AWS emulator) and cfn-lint. They come with the
 * machine image; elsewhere they are installed once into a project-local virtualenv. If that fails too, the
 * suite fails with one clear line: it never skips.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const VENV = join(ROOT, '.venv');
const VENV_PYTHON = join(VENV, 'bin', 'python3');
const PROBE = 'import moto.server, cfnlint';

function works(python: string): boolean {
  try {
    execFileSync(python, ['-c', PROBE], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

let cached: string | undefined;

/** A python3 that can run `-m moto.server` and `-c 'import cfnlint'`. Installs into .venv when needed. */
export function pythonWithTools(): string {
  if (cached) return cached;
  for (const candidate of [VENV_PYTHON, 'python3']) {
    if ((candidate === 'python3' || existsSync(candidate)) && works(candidate)) {
      cached = candidate;
      return candidate;
    }
  }
  try {
    if (!existsSync(VENV_PYTHON)) execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
    execFileSync(VENV_PYTHON, ['-m', 'pip', 'install', '--quiet', 'moto[server]', 'cfn-lint'], {
      stdio: 'inherit',
    });
  } catch (error) {
    throw new Error(
      `moto and cfn-lint are not installed and could not be installed into ${VENV} (${(error as Error).message.split('\n')[0]}); run: pip install 'moto[server]' cfn-lint`,
    );
  }
  if (!works(VENV_PYTHON))
    throw new Error(`installed moto and cfn-lint into ${VENV}, but '${PROBE}' still fails there`);
  cached = VENV_PYTHON;
  return cached;
}
