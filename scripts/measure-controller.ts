/**
 * Measures the controller for its closing note, against a private moto server on 127.0.0.1 (no call can reach
 * AWS): the AWS calls one tick makes in each branch, the fast path's calls per sample, the bundle size with
 * @aws-sdk/* external, the handler's time per tick (p50 over 100 ticks) and per sample between ticks, and from
 * them the Lambda GB-seconds and API calls a month, with the samples on (idle or busy) and off.
 *
 *   npx tsx scripts/measure-controller.ts
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import DEPLOYED from '../lib/bench/deployed-cost-inputs.json' with { type: 'json' };
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
import { buildControllerAsset } from './build.ts';
import { scriptArgs } from './script-args.ts';

// It takes no option: `--help` prints how to call it; an unknown option is refused before a moto server starts.
scriptArgs({ help: { type: 'boolean' } }, 'usage: npx tsx scripts/measure-controller.ts (no options)');

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
      await w.seedControllerHistory(12, 10);
    },
  },
  { name: 'grow, lockstep', applied: 3, setUp: async (w) => growing(w) },
  {
    name: 'shrink, lockstep (the mapping; reserved next tick)',
    applied: 7,
    setUp: async (w) => idling(w, 7),
  },
  {
    name: 'repair: mapping raised by hand above reserved, lockstep',
    applied: 12,
    setUp: async (w) => {
      await w.seed(repeat(10, STEADY));
      await w.seedControllerHistory(12, 10);
      await w.setApplied({ mapping: 16 });
    },
  },
  {
    name: 'paused (reserved 0), lockstep',
    applied: 12,
    setUp: async (w) => {
      await w.seed(repeat(10, STEADY));
      await w.setApplied({ reserved: 0 });
    },
  },
  {
    name: 'adopt an unbounded consumer, lockstep',
    applied: 0,
    setUp: async (w) => {
      await w.seed(repeat(10, STEADY));
    },
  },
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
  const unbounded = branch.applied === 0;
  return World.create(server, {
    env: { ...CONTROLLER_ENV, ...branch.env },
    reserved: unbounded ? undefined : eventSource ? 16 : branch.applied,
    mappingMax: unbounded ? undefined : branch.applied,
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
    const reason = String(
      [...world.logs].reverse().find((l) => l.fields.reason !== undefined)?.fields.reason,
    );
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
    const actuation = floor.lastLog().fields.actuation as { kind?: string } | undefined;
    row(`grow refused by the unreserved floor, headroom unknown → ${String(actuation?.kind)}`, floor);

    // The fast path: a busy queue at 1/s (1 s items), then 200 messages before the first sample (a spike).
    console.log('\nThe fast path between ticks (FAST_SAMPLE_SECONDS 10)');
    console.log('| what | reads | writes | commands |');
    console.log('|---|---|---|---|');
    const fastEnv = { ...CONTROLLER_ENV, MAX_CONCURRENCY: '32', FAST_SAMPLE_SECONDS: '10' };
    const quiet = { age: 1, sent: 60, deleted: 60, durationMs: 60_000, invocations: 60 };
    const fast = await World.create(server, {
      env: fastEnv,
      reserved: 2,
      mappingMax: 2,
      observeWrites: false,
    });
    await fast.seed(repeat(10, quiet));
    await fast.seedControllerHistory(2, 10);
    let surged = false;
    fast.duringSleep = async () => {
      if (surged) return;
      surged = true;
      await fast.sendMessages(200);
    };
    await fast.tick();
    const tickCalls = (fast.lastLog().fields.awsCalls as { commands: string[] }).commands;
    console.log(
      `| the tick that starts the loop → ${String(fast.lastLog().fields.reason)} | ${tickCalls.length} | 0 | ${tickCalls.map((c) => c.replace(/Command$/, '')).join(', ')} |`,
    );
    const grew = fast.fastLogs().find((l) => l.message === 'fast path');
    const grewCalls = (grew?.fields.awsCalls as { commands: string[] } | undefined)?.commands ?? [];
    console.log(
      `| a sample that grows → ${String(grew?.fields.reason)} | ${grewCalls.filter((c) => c.startsWith('Get')).length} | ${grewCalls.filter((c) => !c.startsWith('Get')).length} | ${grewCalls.map((c) => c.replace(/Command$/, '')).join(', ')} |`,
    );
    row('a sample that holds (the loop’s last)', fast);
    const summary = fast.fastLogs().at(-1)?.fields;
    console.log(`loop: ${JSON.stringify(summary)}`);

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
      ['hold (5 reads)', holdTimes],
      ['grow (5 reads + 2 writes)', growTimes],
    ] as const) {
      console.log(
        `${name}: p50 ${percentile(t, 50).toFixed(1)} ms, p90 ${percentile(t, 90).toFixed(1)} ms, max ${(t.at(-1) ?? 0).toFixed(1)} ms`,
      );
    }

    // The samples between ticks: a quiet fast-path world, each tick followed by its five ticker deliveries; the
    // samples' time is the whole invocation chain's less the tick's own (p50 each).
    const quietFast = await World.create(server, {
      env: fastEnv,
      reserved: 2,
      mappingMax: 2,
      observeWrites: false,
    });
    await quietFast.seed(repeat(10, quiet));
    await quietFast.seedControllerHistory(2, 10);
    const chainTimes = await timeTicks(quietFast, 30, async () => quietFast.advance(0));
    const sampleMs = Math.max(0, (percentile(chainTimes, 50) - percentile(holdTimes, 50)) / 5);
    console.log(
      `a holding sample (1 read): about ${sampleMs.toFixed(1)} ms (tick + 5 samples p50 ${percentile(chainTimes, 50).toFixed(1)} ms)`,
    );

    // A month of one-minute ticks at the deployed memory and architecture (lib/bench/deployed-cost-inputs.json),
    // arm64 at $0.0000133334 per GB-second. Each tick is an invocation, and each sample between ticks one more,
    // billed for its own time. moto answers in milliseconds; AWS's API latencies are of the order of 100 ms a call,
    // so the bench assumes 0.3 s a tick and 0.1 s a sample (lib/bench/cost.ts), the floors used here too.
    const ticks = 30 * 24 * 60;
    const gb = DEPLOYED.controller.memoryMb / 1024;
    const tickSeconds = Math.max(0.3, percentile(holdTimes, 50) / 1000);
    const sampleSeconds = Math.max(0.1, sampleMs / 1000);
    const price = 0.0000133334;
    const metrics = DEPLOYED.metricsPerTick;
    console.log(
      `\nA month (43,200 one-minute ticks), ${DEPLOYED.controller.memoryMb} MB ${DEPLOYED.controller.architecture}`,
    );
    console.log(
      '| queue | invocations / month | billed s / minute | GB-s / month | $ compute | GetQueueAttributes | GetMetricData (metrics, warm) | Lambda reads |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [queue, samples] of [
      ['fast path on (idle or busy)', 5],
      ['fastSampleSeconds 0', 0],
    ] as const) {
      const seconds = tickSeconds + samples * sampleSeconds;
      const gbs = ticks * seconds * gb;
      console.log(
        `| ${queue} | ${(ticks * (1 + samples)).toLocaleString('en')} | ${seconds.toFixed(2)} | ${Math.round(gbs).toLocaleString('en')} | ${(gbs * price).toFixed(2)} | ${(ticks * (1 + samples)).toLocaleString('en')} | ${ticks.toLocaleString('en')} (${(ticks * metrics).toLocaleString('en')}) | ${(ticks * 2).toLocaleString('en')} |`,
      );
    }

    const scratch = join(tmpdir(), `measure-controller-${process.pid}`);
    const shipped = await buildControllerAsset(scratch);
    rmSync(scratch, { recursive: true, force: true });
    console.log('\nBundle');
    console.log(
      `shipped asset (npm run build: everything bundled, minified ESM): ${(shipped.bytes / 1024).toFixed(1)} kB`,
    );
    console.log(`with @aws-sdk/* external, unminified: ${((await bundleSize(false)) / 1024).toFixed(1)} kB`);
    console.log(`with @aws-sdk/* external, minified:   ${((await bundleSize(true)) / 1024).toFixed(1)} kB`);
  } finally {
    await Promise.all([server.stop(), quota.stop()]);
    restore();
  }
}

await main();
