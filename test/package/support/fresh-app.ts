import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readmeStacksSource } from './readme-fragments.ts';

/**
 * A user's CDK app outside this repo, made like `cdk init app --language typescript` (the template shipped in
 * aws-cdk's init-templates: its tsconfig, a `bin/` and a `lib/`), with the packed package installed from its
 * tarball next to the app's own aws-cdk-lib. Everything runs with real npm, tsc, node and the aws-cdk CLI.
 */

export const ROOT = join(import.meta.dirname, '..', '..', '..');
const FIXTURE = join(ROOT, 'test', 'package', 'fixture-app');
const TEMPLATE_TSCONFIG = join(
  ROOT,
  'node_modules',
  'aws-cdk',
  'lib',
  'init-templates',
  'app',
  'typescript',
  'tsconfig.json',
);
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const CDK = join(ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk');
const run = promisify(execFile);

/**
 * Every directory these tests make lives under one per process (a fresh app with its node_modules is ~170 MB),
 * removed by `removeScratch()` when the test file ends.
 */
let scratchRoot: string | undefined;

export function scratchDir(name: string): string {
  scratchRoot ??= mkdtempSync(join(tmpdir(), 'queue-age-scaler-package-'));
  return mkdtempSync(join(scratchRoot, `${name}-`));
}

export function removeScratch(): void {
  if (scratchRoot) rmSync(scratchRoot, { recursive: true, force: true });
  scratchRoot = undefined;
}

// Each external step is bounded: an npm install that hangs on the network fails the test with its output.
const INSTALL_TIMEOUT_MS = 8 * 60_000;
const STEP_TIMEOUT_MS = 3 * 60_000;

/** Commands run for a test: never the user's AWS profile or keys, never a telemetry call. */
function commandEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' };
  // npm passes its own settings down to scripts (npm_config_*): the app's installs must not inherit them.
  for (const key of Object.keys(env)) if (key.startsWith('npm_') || key.startsWith('AWS_')) delete env[key];
  return { ...env, ...extra };
}

export interface CommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly milliseconds: number;
}

export async function command(
  file: string,
  args: readonly string[],
  options: { cwd: string; timeout?: number; env?: Record<string, string> },
): Promise<CommandResult> {
  const started = performance.now();
  try {
    const { stdout, stderr } = await run(file, args, {
      cwd: options.cwd,
      env: commandEnv(options.env),
      timeout: options.timeout ?? STEP_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr, milliseconds: performance.now() - started };
  } catch (error) {
    const failure = error as { code?: number | string; stdout?: string; stderr?: string; killed?: boolean };
    if (failure.killed) throw new Error(`${file} ${args.join(' ')} timed out: ${failure.stderr ?? ''}`);
    return {
      code: typeof failure.code === 'number' ? failure.code : 1,
      stdout: failure.stdout ?? '',
      stderr: failure.stderr ?? '',
      milliseconds: performance.now() - started,
    };
  }
}

async function mustSucceed(what: string, result: Promise<CommandResult>): Promise<CommandResult> {
  const done = await result;
  if (done.code !== 0) throw new Error(`${what} failed (${done.code}):\n${done.stdout}\n${done.stderr}`);
  return done;
}

export interface PackedPackage {
  readonly tarball: string;
  /** `npm pack --json`'s record: size, unpackedSize, entryCount, files. */
  readonly manifest: {
    size: number;
    unpackedSize: number;
    entryCount: number;
    files: { path: string; size: number }[];
  };
}

/** `npm pack` of this repo, as a release would: `prepack` builds dist/ and the controller asset first. */
export async function packRepo(): Promise<PackedPackage> {
  const destination = scratchDir('pack');
  const packed = await mustSucceed(
    'npm pack',
    command('npm', ['pack', '--json', '--pack-destination', destination], {
      cwd: ROOT,
      timeout: STEP_TIMEOUT_MS,
    }),
  );
  const manifest = (
    JSON.parse(packed.stdout) as PackedPackage['manifest'][]
  )[0] as PackedPackage['manifest'] & {
    filename: string;
  };
  return { tarball: join(destination, manifest.filename), manifest };
}

export interface FreshAppOptions {
  /** `commonjs`: what `cdk init` makes (no "type" in package.json); `module`: an ESM app. */
  readonly kind: 'commonjs' | 'module';
  readonly awsCdkLib: string;
  readonly constructs: string;
  /** More packages the app installs (name → exact version), e.g. cdk-nag. */
  readonly extra?: Record<string, string>;
  /** A file of the app to replace (path → text), e.g. a bin/app.ts that adds cdk-nag. */
  readonly files?: Record<string, string>;
}

export interface NodeModulesFootprint {
  readonly packages: number;
  readonly bytes: number;
}

export interface FreshApp {
  readonly dir: string;
  /** node_modules before and after installing the package. */
  readonly before: NodeModulesFootprint;
  readonly after: NodeModulesFootprint;
  readonly installMilliseconds: number;
}

function diskBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) bytes += diskBytes(path);
    else if (entry.isFile()) bytes += statSync(path).size;
  }
  return bytes;
}

/** Packages installed (every copy, nested ones included, as `npm ls --all` lists them) and their bytes. */
async function footprint(dir: string): Promise<NodeModulesFootprint> {
  const listed = await command('npm', ['ls', '--all', '--parseable'], { cwd: dir });
  const paths = new Set(listed.stdout.split('\n').filter((line) => line.includes('node_modules')));
  return { packages: paths.size, bytes: diskBytes(join(dir, 'node_modules')) };
}

/**
 * Writes the app (the init template's tsconfig, the fixture's bin/ and lib/), installs its own aws-cdk-lib and
 * constructs, then the tarball, measuring what the package adds; then typechecks it as `npx tsc` would and
 * compiles it to js/ (the app has no TypeScript runner: no tsx, so no esbuild anywhere in its tree).
 */
export async function freshApp(packed: PackedPackage, options: FreshAppOptions): Promise<FreshApp> {
  const dir = scratchDir(`${options.kind}-app`);
  cpSync(join(FIXTURE, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(FIXTURE, 'lib'), join(dir, 'lib'), { recursive: true });
  // The README's fragments, verbatim, each in a stack of the app (bin/app.ts adds them).
  writeFileSync(
    join(dir, 'lib', 'readme-stacks.ts'),
    readmeStacksSource(readFileSync(join(ROOT, 'README.md'), 'utf8')),
  );
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const tsconfig = JSON.parse(readFileSync(TEMPLATE_TSCONFIG, 'utf8')) as {
    compilerOptions: Record<string, unknown>;
  };
  // The template also lists "jest": this app installs no test runner.
  tsconfig.compilerOptions.types = ['node'];
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'orders-app',
        version: '0.1.0',
        private: true,
        ...(options.kind === 'module' ? { type: 'module' } : {}),
        dependencies: { 'aws-cdk-lib': options.awsCdkLib, constructs: options.constructs, ...options.extra },
        devDependencies: { '@types/node': '20.19.43' },
      },
      null,
      2,
    )}\n`,
  );
  // The shared npm cache (the one `npm ci` filled) keeps repeated runs offline and fast.
  const install = ['install', '--no-audit', '--no-fund', '--prefer-offline'];
  await mustSucceed(
    'npm install (the app)',
    command('npm', install, { cwd: dir, timeout: INSTALL_TIMEOUT_MS }),
  );
  const before = await footprint(dir);
  const added = await mustSucceed(
    'npm install (the tarball)',
    command('npm', [...install, packed.tarball], { cwd: dir, timeout: INSTALL_TIMEOUT_MS }),
  );
  const after = await footprint(dir);
  await mustSucceed(
    'tsc (typecheck, as the template runs it)',
    command(process.execPath, [TSC, '-p', '.'], { cwd: dir }),
  );
  await mustSucceed(
    'tsc (emit)',
    command(
      process.execPath,
      [
        TSC,
        '-p',
        '.',
        '--noEmit',
        'false',
        '--outDir',
        'js',
        '--declaration',
        'false',
        '--inlineSourceMap',
        'false',
        '--inlineSources',
        'false',
      ],
      { cwd: dir },
    ),
  );
  return { dir, before, after, installMilliseconds: added.milliseconds };
}

/** `cdk synth` with the repo's aws-cdk CLI, running the compiled app with plain node. */
export async function synth(
  app: FreshApp,
  outdir: string,
  context: Record<string, string> = {},
): Promise<CommandResult> {
  const args = ['synth', '--quiet', '--no-notices', '--app', 'node js/bin/app.js', '--output', outdir];
  for (const [key, value] of Object.entries(context)) args.push('--context', `${key}=${value}`);
  return command(process.execPath, [CDK, ...args], { cwd: app.dir });
}
