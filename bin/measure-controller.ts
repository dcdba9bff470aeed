/**
 * Measures the controller for its closing note, against a private moto server on 127.0.0.1 (no call can reach
 * AWS): the AWS calls one tick makes in each branch, the bundle size with @aws-sdk/* external, and the
 * handler's time per tick (p50 over 100 ticks).
 *
 *   npx tsx bin/measure-controller.ts
 */
import { build } from 'esbuild';
import {
  BEHIND,
  CONTROLLER_ENV,
  growing,
  idling,
  repeat,
  STEADY,
} from '../test/controller/support/minutes.ts';
import { World } from '../test/controller/support/world.ts';
import { type MotoServer, startMotoServer, useDummyAwsEnvironment } from '../test/support/moto-server.ts';

async function bundleSize(minify: boolean): Promise<number> {
  const result = await build({
    entryPoints: ['functions/controller/index.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@aws-sdk/*'],
    minify,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles.reduce((n, f) => n + f.contents.byteLength, 0);
}

interface Branch {
  readonly name: string;
  readonly env?: Record<string, string>;
  readonly applied: number;
  setUp(world: World): Promise<void>;
  event?(world: World): unknown;
}

const BRANCHES: Branch[] = [
  {
    name: 'hold (nothing changes), lockstep',
    applied: 12,
    setUp: async (w) => {
      await w.seed(repeat(10, STEADY));
      await w.sendMessages(3);
      await w.seedControllerHistory(12, 10, 3);
    },
  },
  { name: 'grow, lockstep', applied: 3, setUp: async (w) => growing(w) },
  { name: 'shrink, lockstep', applied: 7, setUp: async (w) => idling(w, 7) },
  { name: 'grow, reserved', env: { ACTUATOR: 'reserved' }, applied: 3, setUp: async (w) => growing(w) },
  { name: 'shrink, reserved', env: { ACTUATOR: 'reserved' }, applied: 7, setUp: async (w) => idling(w, 7) },
  {
    name: 'grow, event-source',
    env: { ACTUATOR: 'event-source' },
    applied: 3,
    setUp: async (w) => growing(w),
  },
  {
    name: 'shrink, event-source',
    env: { ACTUATOR: 'event-source' },
    applied: 7,
    setUp: async (w) => idling(w, 7),
  },
  { name: 'no data (hold)', applied: 7, setUp: async () => {} },
  {
    name: 'stale event (no-op)',
    applied: 7,
    setUp: async () => {},
    event: (w) => w.event(w.now - 120),
  },
];

async function worldFor(server: MotoServer, branch: Branch): Promise<World> {
  const eventSource = branch.env?.ACTUATOR === 'event-source';
  return World.create(server, {
    env: { ...CONTROLLER_ENV, ...branch.env },
    reserved: eventSource ? 16 : branch.applied,
    mappingMax: branch.applied,
    // The tests read both values back after each write; that would be timed here too.
    observeWrites: false,
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

async function timeTicks(world: World, n: number, before: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  const reasons = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    await before();
    const start = process.hrtime.bigint();
    await world.handler(world.event());
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const reason = String(world.logs.at(-1)?.fields.reason);
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    await world.relay.flush();
  }
  console.log(`  reasons: ${[...reasons].map(([r, k]) => `${r} ×${k}`).join(', ')}`);
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  const restore = useDummyAwsEnvironment();
  const server = await startMotoServer();
  const quota = await startMotoServer({ env: { MOTO_LAMBDA_CONCURRENCY_QUOTA: '110' } });
  try {
    console.log('AWS calls per tick');
    console.log('| branch | reads | writes | commands |');
    console.log('|---|---|---|---|');
    const row = (name: string, w: World) =>
      console.log(
        `| ${name} | ${w.calls.reads} | ${w.calls.writes} | ${w.calls.commands.map((c) => c.replace(/Command$/, '')).join(', ')} |`,
      );
    for (const branch of BRANCHES) {
      const world = await worldFor(server, branch);
      await branch.setUp(world);
      await world.tick(branch.event?.(world) ?? world.event());
      row(`${branch.name} → ${String(world.logs.at(-1)?.fields.reason)}`, world);
      if (branch.name.startsWith('shrink, lockstep')) {
        // The same event delivered again.
        await world.tick(world.event());
        row(`duplicate of the shrink → ${String(world.logs.at(-1)?.fields.reason)}`, world);
      }
    }
    const floor = await World.create(quota, { env: CONTROLLER_ENV, reserved: 3, mappingMax: 3 });
    await growing(floor);
    await floor.tick();
    const actuation = floor.logs.at(-1)?.fields.actuation as { kind?: string } | undefined;
    row(`grow refused by the unreserved floor, headroom unknown → ${String(actuation?.kind)}`, floor);

    console.log('\nHandler time per tick against moto (100 ticks each)');
    const hold = await worldFor(server, BRANCHES[0] as Branch);
    await (BRANCHES[0] as Branch).setUp(hold);
    const holdTimes = await timeTicks(hold, 100, async () => hold.advance(0));
    const grow = await worldFor(server, BRANCHES[1] as Branch);
    await growing(grow);
    const growTimes = await timeTicks(grow, 100, async () => {
      // Back to 3 before each tick (outside the timing), a minute later with the newest minute still behind,
      // so every tick grows.
      await grow.setApplied({ mapping: 3, reserved: 3 });
      grow.advance();
      await grow.seed([BEHIND]);
    });
    for (const [name, t] of [
      ['hold (3 reads)', holdTimes],
      ['grow (3 reads + 2 writes)', growTimes],
    ] as const) {
      console.log(
        `${name}: p50 ${percentile(t, 50).toFixed(1)} ms, p90 ${percentile(t, 90).toFixed(1)} ms, max ${(t.at(-1) ?? 0).toFixed(1)} ms`,
      );
    }

    console.log('\nBundle (esbuild, ESM, node20, @aws-sdk/* external)');
    console.log(`unminified: ${((await bundleSize(false)) / 1024).toFixed(1)} kB`);
    console.log(`minified:   ${((await bundleSize(true)) / 1024).toFixed(1)} kB`);
  } finally {
    await Promise.all([server.stop(), quota.stop()]);
    restore();
  }
}

await main();
