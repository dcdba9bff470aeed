/**
 * Builds what the package ships (`npm run build`, run by `npm pack` through `prepack`):
 *
 * - assets/controller/index.mjs — the controller Lambda, bundled once here with everything it imports (the AWS
 *   SDK clients and Powertools included), so a user's `cdk synth` loads it with `Code.fromAsset` and bundles
 *   nothing. The repo's own tests and `cdk synth` use the same file (`build.ts controller` builds only it).
 * - dist/lib/index.cjs — the construct library as one CommonJS file (aws-cdk-lib and constructs stay external:
 *   they are the app's own copies). CommonJS loads everywhere a CDK app runs: `require` from a `cdk init` app,
 *   `import` from an ESM app, and jest.
 * - dist/types/ — its declarations, marked CommonJS to match.
 * - dist/cli/ — `queue-age-scaler simulate | bench | load | status | trace | recommend`, ESM.
 *
 * Both bundles sit two directories below the package root, as their sources do (lib/cdk/, lib/load-file/), so the paths
 * they compute from their own location (the controller asset, the shipped scenarios) are the same in the repo and
 * in an installed package.
 *
 *   npx tsx scripts/build.ts [controller]
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';

export const ROOT = join(import.meta.dirname, '..');
export const CONTROLLER_ENTRY = join(ROOT, 'functions', 'controller', 'index.ts');
export const CONTROLLER_OUT = join(ROOT, 'assets', 'controller');
const DIST = join(ROOT, 'dist');

// The controller's runtime is nodejs24.x; ESM bundles of CommonJS dependencies still call require().
const CONTROLLER_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

export interface ControllerBuild {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Modules the bundle leaves to the runtime: only Node's own may remain. */
  readonly externals: readonly string[];
}

/** Writes a file by rename, and only when it changed: a test reading the asset never sees half a file. */
function writeAtomically(path: string, contents: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  try {
    if (Buffer.compare(readFileSync(path), contents) === 0) return;
  } catch {
    // Not there yet.
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

function externalImports(metafile: Metafile): string[] {
  const found = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const entry of output.imports) if (entry.external) found.add(entry.path);
  }
  return [...found].sort();
}

/** Bundles the controller into `outDir/index.mjs`: deterministic (same sources and esbuild → same bytes). */
export async function buildControllerAsset(outDir: string = CONTROLLER_OUT): Promise<ControllerBuild> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [CONTROLLER_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: false,
    banner: { js: CONTROLLER_BANNER },
    outfile: join(outDir, 'index.mjs'),
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error('esbuild produced no controller bundle');
  writeAtomically(output.path, output.contents);
  return {
    file: output.path,
    bytes: output.contents.byteLength,
    sha256: createHash('sha256').update(output.contents).digest('hex'),
    externals: externalImports(result.metafile),
  };
}

async function buildLibrary(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'lib', 'index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // lib/cdk/queue-age-scaler.ts finds the controller asset from its own directory.
    define: { 'import.meta.dirname': '__dirname' },
    outfile: join(DIST, 'lib', 'index.cjs'),
    logLevel: 'warning',
  });
}

async function buildCli(): Promise<void> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'bin', 'queue-age-scaler.ts')],
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: join(DIST, 'cli'),
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    logLevel: 'warning',
  });
}

/** Relative `.ts` specifiers become `.js`: the compiler keeps them as written in declarations. */
function rewriteSpecifiers(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) rewriteSpecifiers(path);
    else if (name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8');
      writeFileSync(
        path,
        text.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*)\.ts\2/g, '$1$2$3.js$2'),
      );
    }
  }
}

function buildDeclarations(): void {
  const out = join(DIST, 'types');
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
  rewriteSpecifiers(out);
  // The runtime they describe is CommonJS (dist/lib/index.cjs): so must they be, for TypeScript's resolution.
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only !== undefined && only !== 'controller') {
    console.error(`build: unknown target '${only}' (known: controller)`);
    process.exitCode = 2;
    return;
  }
  const controller = await buildControllerAsset();
  console.error(
    `controller: ${relative(ROOT, controller.file)} ${(controller.bytes / 1024).toFixed(0)} kB sha256 ${controller.sha256.slice(0, 16)}…`,
  );
  if (only === 'controller') return;
  rmSync(DIST, { recursive: true, force: true });
  await Promise.all([buildLibrary(), buildCli()]);
  buildDeclarations();
  console.error(`package: ${relative(ROOT, DIST)}/{lib,cli,types}`);
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) await main();
