import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type BenchRow, dominanceStatement, dominated, dominates } from '../../lib/bench/bench.ts';
import type { RunSummary } from '../../lib/sim/summary.ts';
import { writeOutputs } from '../../lib/views/outputs.ts';

const ROOT = resolve(import.meta.dirname, '../..');
// The bench runs in a scratch directory (relative --out paths), so tsx is named by its path, not looked up from there.
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const run = promisify(execFile);

async function bench(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', TSX, join(ROOT, 'bin/bench.ts'), ...args],
      { cwd },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function row(
  controller: BenchRow['controller'],
  p99OverTarget: number,
  deadLettered: number,
  peak: number,
  mean: number,
): BenchRow {
  return {
    scenario: 's',
    controller,
    p99OverTarget,
    summary: { deadLettered, executions: { peak, mean, p99: peak } } as unknown as RunSummary,
  };
}

describe('which controllers are dominated', () => {
  it.each([
    {
      comment: 'lighter on the downstream, both within the target: dominates',
      a: row('age-law', 0.9, 0, 20, 5),
      b: row('native', 0.7, 0, 32, 5.3),
      expected: true,
    },
    {
      comment: 'later beyond the target, though lighter: does not dominate',
      a: row('age-law', 3, 0, 20, 5),
      b: row('native', 0.7, 0, 32, 5.3),
      expected: false,
    },
    {
      comment: 'dead letters count against it',
      a: row('age-law', 0.9, 5, 20, 5),
      b: row('native', 0.9, 0, 32, 6),
      expected: false,
    },
    {
      comment: 'differences within 5 % are ties: nothing clearly better',
      a: row('age-law', 0.9, 0, 32, 5.0),
      b: row('native', 0.9, 0, 32, 5.2),
      expected: false,
    },
    {
      comment: 'no heavier and clearly earlier: dominates',
      a: row('provisioned', 1.2, 0, 23, 5),
      b: row('age-law', 4, 0, 23, 5),
      expected: true,
    },
  ])('$comment', ({ a, b, expected }) => {
    expect(dominates(a, b)).toBe(expected);
    // Never both ways.
    if (expected) expect(dominates(b, a)).toBe(false);
  });

  it('states per scenario who is dominated and by whom, and who is not', () => {
    const rows = [
      row('age-law', 0.9, 0, 20, 5),
      row('native', 0.7, 0, 32, 5.3),
      row('fixed-cap', 0.5, 0, 32, 5.3),
    ];
    expect(dominated(rows)).toEqual([
      { controller: 'native', by: ['age-law'] },
      { controller: 'fixed-cap', by: ['age-law'] },
    ]);
    expect(dominanceStatement(rows)).toBe(
      '- **s**: dominated: native (by age-law); fixed-cap (by age-law). Not dominated: age-law.',
    );
  });
});

describe('npm run bench', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'bench-cli-'));
  const trace = join(scratch, 'tiny.csv');
  // Four quiet minutes give the law a per-item time before the surge, so it sizes the surge (no slow start).
  writeFileSync(trace, 'duration_s,rate_per_s,item_ms\n240,50,20\n60,200,20\n');

  it('--out bench.md writes the table to a file named bench.md, not into a directory of that name', async () => {
    const { code, stdout, stderr } = await bench(
      scratch,
      '--preset',
      'lambda',
      '--trace',
      trace,
      '--out',
      'bench.md',
    );
    expect(code).toBe(0);
    expect(statSync(join(scratch, 'bench.md')).isFile()).toBe(true);
    const markdown = readFileSync(join(scratch, 'bench.md'), 'utf8');
    expect(markdown).toBe(`${stdout.trimEnd()}\n`);
    // Every controller, the new columns and the dominance statement.
    for (const controller of [
      'age-law',
      'native',
      'provisioned',
      'fixed-floor',
      'fixed-cap',
      'seed-step',
      'depth',
    ])
      expect(markdown).toMatch(new RegExp(`\\| tiny \\| ${controller} \\|`));
    expect(markdown).toMatch(/\| p99 wait ÷ target \| dead letters \| exec peak \| exec p99 \| exec mean \|/);
    expect(markdown).toMatch(/reserved conc-s/);
    expect(markdown).toMatch(/- \*\*tiny\*\*: .*Not dominated: /);
    expect(markdown).not.toMatch(/trade-off/);
    expect(stderr).toMatch(/wrote .*bench\.md/);
  });

  it('--help documents --doc and the file it writes', async () => {
    const { code, stdout } = await bench(scratch, '--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/\[--doc\]/);
    expect(stdout).toMatch(/--doc writes docs\/benchmarks\.md/);
    expect(stdout).toMatch(/\[--beyond-1000\]/);
    expect(stdout).toMatch(/--beyond-1000 adds a table at thousands of concurrent consumers/);
  });

  it('--doc writes docs/benchmarks.md: a header with the date, the machine and the command, the comparison, the prose and the full tables', async () => {
    // In a clone of this project (its package.json and its sources), where the document belongs
    const cwd = join(scratch, 'doc');
    mkdirSync(join(cwd, 'lib', 'control'), { recursive: true });
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'queue-age-scaler' }));
    const { code, stdout, stderr } = await bench(cwd, '--doc', '--trace', trace);
    expect(code).toBe(0);
    const doc = readFileSync(join(cwd, 'docs/benchmarks.md'), 'utf8');
    expect(doc).toBe(`${stdout.trimEnd()}\n`);
    expect(stderr).toMatch(/wrote .*docs\/benchmarks\.md/);
    // The header: when, on what, by which command.
    expect(doc).toMatch(/^# Benchmarks\n/);
    expect(doc).toMatch(
      new RegExp(
        `Generated on \\d{4}-\\d{2}-\\d{2} with Node ${process.version.replace(/\./g, '\\.')} on ${cpus().length} CPUs? \\(.+\\), by:`,
      ),
    );
    expect(doc).toContain(`npm run bench -- --doc --trace ${trace}\n`);
    // The comparison of the age law with AWS's own scaling, read in prose whose figures are the rows'.
    expect(doc).toContain('## The age law against native, honestly');
    expect(doc).toMatch(/\| tiny \| \S+ · 0 · \d+ \/ [\d.]+ · \d+ · \$[\d.]+ \| /);
    expect(doc).toContain('## Known limits');
    // The prose quotes the table: the peaks in its sentence are the rows' exec peaks.
    const peak = (controller: string) =>
      new RegExp(`\\| tiny \\| ${controller} \\| [\\d.]+ \\| \\d+ \\| (\\d+) \\|`).exec(doc)?.[1];
    expect(peak('age-law')).toBeDefined();
    expect(doc).toContain(
      `it meets the target with a peak of ${peak('age-law')} concurrent executions where \`native\` reaches ${peak('native')} and \`provisioned\` ${peak('provisioned')}`,
    );
    // Both presets' full tables with who is dominated.
    for (const preset of ['lambda', 'seed']) expect(doc).toContain(`### ${preset} preset`);
    expect(doc).toMatch(/\| p99 wait ÷ target \| dead letters \| exec peak \| exec p99 \| exec mean \|/);
    expect(doc).toMatch(/- \*\*tiny\*\*: .*Not dominated: /);
    expect(doc).toMatch(
      /the article's literal step rule \(`seed-step`\) sets a limit that peaks at \*\*\d+\*\*/,
    );
  });

  it('--doc in an app that installed the package (not a clone) refuses before any run, with one line, and writes nothing', async () => {
    const cwd = join(scratch, 'user-app');
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: 'my-app' }));
    const { code, stdout, stderr } = await bench(cwd, '--doc', '--trace', trace);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^bench: --doc regenerates queue-age-scaler's own docs\/benchmarks\.md .*--doc --out FILE\.md$/m,
    );
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(cwd, 'docs'))).toBe(false);
  });

  it('a directory given as --out fails before any run, with one line', async () => {
    const dir = join(scratch, 'results');
    mkdirSync(dir);
    const { code, stdout, stderr } = await bench(scratch, '--trace', trace, '--out', dir);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(new RegExp(`^bench: --out '${dir}': is a directory; give a file name`));
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a trace too long for the seed preset fails before any run, naming the preset and the way out', async () => {
    // 60,000 s: 1,000 one-minute ticks on the lambda preset, 1,200,000 of the seed preset's 50 ms ones
    const long = join(scratch, 'long-day.csv');
    writeFileSync(long, 'duration_s,rate_per_s,item_ms\n60000,0.5,100\n');
    const { code, stdout, stderr } = await bench(scratch, '--trace', long, '--out', join(scratch, 'b.md'));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^bench: long-day on the seed preset: the run is too large: 1,200,000 controller ticks .*; bench it on --preset lambda alone$/m,
    );
    // Refused before the first run: no run's progress line
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a finished result is never lost to a late write error: writing reports, it does not throw', () => {
    const blocker = join(scratch, 'a-file');
    writeFileSync(blocker, '');
    const failures = writeOutputs([
      { path: join(blocker, 'bench.md'), content: 'table' },
      { path: join(scratch, 'ok.md'), content: 'table' },
    ]);
    expect(failures).toEqual([`could not write ${join(blocker, 'bench.md')}: ENOTDIR`]);
    expect(readFileSync(join(scratch, 'ok.md'), 'utf8')).toBe('table');
  });
});
