#!/usr/bin/env node
/**
 * The package's one command: `queue-age-scaler <command> [options]`, each command the tool of the same name in
 * bin/ (`npm start`, `npm run bench`, `npm run load`, `npm run status`, `npm run trace`, `npm run recommend` in a
 * checkout).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PACKAGED_CLI_VARIABLE } from './cli-error.ts';

const COMMANDS = {
  simulate: {
    about: 'replay a load through a model of SQS → Lambda driven by the controller (no AWS account)',
    run: () => import('./simulate.ts'),
  },
  bench: {
    about: 'run every shipped scenario through the controller and the baselines; print a table',
    run: () => import('./bench.ts'),
  },
  load: {
    about: "send a load file's load to an SQS queue, paced to its rates",
    run: () => import('./load.ts'),
  },
  status: {
    about: 'show what a deployed scaler is doing: concurrency, head age, depth, alarms, decisions',
    run: () => import('./status.ts'),
  },
  trace: {
    about: "export a queue's CloudWatch history to a load file that simulate, bench and load replay",
    run: () => import('./trace.ts'),
  },
  recommend: {
    about:
      'replay a load file through the age law, native and provisioned; say which to run, with its settings',
    run: () => import('./recommend.ts'),
  },
} as const;

type Command = keyof typeof COMMANDS;

const USAGE = `Usage: queue-age-scaler <command> [options]   (queue-age-scaler <command> --help for its options)

Commands:
${Object.entries(COMMANDS)
  .map(([name, { about }]) => `  ${name.padEnd(9)} ${about}`)
  .join('\n')}

Examples:
  npx queue-age-scaler simulate --scenario seed-spike
  npx queue-age-scaler status --stack MyStack --watch
  npx queue-age-scaler trace --stack MyStack --since 7d --out my-queue.csv
  npx queue-age-scaler recommend --trace my-queue.csv --db-pool 20`;

/** The version of the package this file belongs to: the nearest package.json named queue-age-scaler. */
function version(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'queue-age-scaler') return manifest.version ?? 'unknown';
    } catch {
      // No package.json here: look further up.
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

const command = process.argv[2];
if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
  console.log(USAGE);
  if (command === undefined) process.exitCode = 2;
} else if (command === '--version' || command === '-v') {
  console.log(version());
} else if (Object.hasOwn(COMMANDS, command)) {
  // The command parses the rest of the line as its own: it never sees its name.
  process.argv.splice(2, 1);
  process.env[PACKAGED_CLI_VARIABLE] = '1';
  await COMMANDS[command as Command].run();
} else {
  console.error(
    `queue-age-scaler: unknown command '${command}' (commands: ${Object.keys(COMMANDS).join(', ')})`,
  );
  process.exitCode = 2;
}
