import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadGroupScenario,
  loadShippedGroup,
  parseGroupScenario,
  shippedGroups,
  staticSplit,
} from '../../lib/bench/group-file.ts';
import { ConfigError } from '../../lib/control/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'group-file-'));
writeFileSync(join(dir, 'flat.csv'), 'duration_s,rate_per_s,item_ms\n600,50,100\n');
writeFileSync(join(dir, 'short.csv'), 'duration_s,rate_per_s,item_ms\n300,20,40\n');
writeFileSync(
  join(dir, 'own-downstream.csv'),
  '@downstream connection_pool=5\nduration_s,rate_per_s,item_ms\n60,1,20\n',
);
writeFileSync(join(dir, 'broken.csv'), 'duration_s,rate_per_s,item_ms\n60,-5,20\n');
// 36,000 s at 1,000/s: 36 million messages, within a load file's bounds; two of them are beyond a run's 50 million.
writeFileSync(join(dir, 'huge.csv'), 'duration_s,rate_per_s,item_ms\n36000,1000,20\n');
const SOURCE = join(dir, 'group.json');

const member = (name: string, extra: Record<string, unknown> = {}) => ({ name, load: 'flat.csv', ...extra });
const valid = {
  downstream: { connectionPool: 40 },
  budget: 40,
  members: [member('a'), member('b')],
};

function problemsOf(group: unknown): string[] {
  try {
    parseGroupScenario(typeof group === 'string' ? group : JSON.stringify(group), SOURCE);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}

describe('a group scenario file', () => {
  it('reads the downstream, the budget and the members, each load relative to the file', () => {
    const group = parseGroupScenario(
      JSON.stringify({
        ...valid,
        members: [
          member('a', { targetAgeSeconds: 30, minConcurrency: 3, weight: 2 }),
          member('b', { load: 'short.csv', itemMs: 250, maxConcurrency: 12 }),
        ],
      }),
      SOURCE,
    );
    expect(group.name).toBe('group');
    expect(group.downstream).toEqual({ connectionPool: 40 });
    expect(group.budget).toBe(40);
    expect(group.members[0]).toMatchObject({ name: 'a', targetAgeSeconds: 30, minConcurrency: 3, weight: 2 });
    expect(group.members[0]?.load).toBe(join(dir, 'flat.csv'));
    // itemMs replaces the load's item time in every phase
    expect(group.members[1]?.phases).toEqual([{ durationSeconds: 300, ratePerSecond: 20, itemMs: 250 }]);
    expect(group.members[1]?.maxConcurrency).toBe(12);
  });

  it('ships its groups, which validate', () => {
    for (const name of shippedGroups()) {
      const group = loadShippedGroup(name);
      expect(group.members.length).toBeGreaterThan(1);
      expect(group.description).toBeDefined();
    }
    expect(staticSplit(40, 3)).toBe(13);
    expect(staticSplit(15, 2)).toBe(7);
    expect(staticSplit(3, 2)).toBe(2);
  });

  it.each([
    { what: 'not JSON', group: '{"budget": 40,', expected: /group\.json is not valid JSON/ },
    { what: 'not an object', group: '[1, 2]', expected: /group\.json must hold a JSON object/ },
    {
      what: 'an unknown field',
      group: { ...valid, budgte: 40 },
      expected: /group\.json: unknown field 'budgte' \(known: description, downstream, budget, members\)/,
    },
    {
      what: 'an unknown member field',
      group: { ...valid, members: [member('a', { target: 60 }), member('b')] },
      expected: /group\.json: unknown field 'members\[0\]\.target' \(known: name, load, targetAgeSeconds/,
    },
    {
      what: 'a provisioned member whose floor is not whole pollers',
      group: { ...valid, members: [member('a', { actuator: 'provisioned' }), member('b')] },
      expected: /members\[0\] \(a\)\.minConcurrency = 2: must be a multiple of 10, at least 20/,
    },
    {
      what: 'an actuator that does not exist',
      group: { ...valid, members: [member('a', { actuator: 'pollers' }), member('b')] },
      expected:
        /members\[0\] \(a\)\.actuator = 'pollers': must be one of lockstep, reserved, event-source, provisioned/,
    },
    {
      what: 'no downstream',
      group: { budget: 40, members: valid.members },
      expected: /downstream = undefined: must be an object of connectionPool, apiRatePerSecond, callsPerItem/,
    },
    {
      what: 'a downstream without a capacity',
      group: { ...valid, downstream: {} },
      expected: /downstream has no capacity: give connectionPool, apiRatePerSecond or both/,
    },
    {
      what: 'a pool of 0',
      group: { ...valid, downstream: { connectionPool: 0 } },
      expected: /group\.json: downstream\.connectionPool = 0: must be an integer in \[1; 100000\]/,
    },
    {
      what: 'calls per item without a rate',
      group: { ...valid, downstream: { connectionPool: 40, callsPerItem: 2 } },
      expected: /downstream\.callsPerItem is given without downstream\.apiRatePerSecond/,
    },
    {
      what: 'a budget above the mapping maximum',
      group: { ...valid, budget: 1001 },
      expected: /group\.json: budget = 1001: must be an integer in \[2; 1000\]/,
    },
    {
      what: 'a fractional budget',
      group: { ...valid, budget: 40.5 },
      expected: /budget = 40\.5: must be an integer in \[2; 1000\]/,
    },
    {
      what: 'a budget given as text',
      group: { ...valid, budget: '40' },
      expected: /budget = '40': must be an integer/,
    },
    {
      what: 'no members',
      group: { ...valid, members: [] },
      expected: /members has 0 entries: must be 1 to 20 members/,
    },
    {
      what: 'more than 20 members',
      group: { ...valid, budget: 1000, members: Array.from({ length: 21 }, (_, i) => member(`m${i}`)) },
      expected: /members has 21 entries: must be 1 to 20 members/,
    },
    {
      what: 'a bad name',
      group: { ...valid, members: [member('a b'), member('b')] },
      expected: /members\[0\]\.name = 'a b': must be 1 to 64 letters, digits/,
    },
    {
      what: 'a name twice',
      group: { ...valid, members: [member('a'), member('a')] },
      expected: /members\[1\]\.name = 'a': appears twice; names must be unique/,
    },
    {
      what: 'a load that is not a load file',
      group: { ...valid, members: [member('a', { load: 'flat.json' }), member('b')] },
      expected: /members\[0\] \(a\)\.load = 'flat\.json': must be the path of a load file \(\.csv\)/,
    },
    {
      what: 'a missing load file',
      group: { ...valid, members: [member('a', { load: 'nowhere.csv' }), member('b')] },
      expected: /members\[0\] \(a\)\.load = 'nowhere\.csv': cannot read load file .*nowhere\.csv: ENOENT/,
    },
    {
      what: 'a broken load file',
      group: { ...valid, members: [member('a', { load: 'broken.csv' }), member('b')] },
      expected:
        /members\[0\] \(a\)\.load = 'broken\.csv': .*broken\.csv line 2: rate_per_s = '-5': must be a number in \[0; 1000000\]/,
    },
    {
      what: 'a load with its own downstream',
      group: { ...valid, members: [member('a', { load: 'own-downstream.csv' }), member('b')] },
      expected: /members\[0\] \(a\)\.load = 'own-downstream\.csv': the file has its own @downstream line/,
    },
    {
      what: 'a bad target',
      group: { ...valid, members: [member('a', { targetAgeSeconds: -1 }), member('b')] },
      expected: /group\.json: members\[0\] \(a\)\.targetAgeSeconds = -1: must be a number in/,
    },
    {
      what: 'a floor below the mapping minimum',
      group: { ...valid, members: [member('a', { minConcurrency: 1 }), member('b')] },
      expected: /members\[0\] \(a\)\.minConcurrency = 1: must be at least 2 with actuator 'lockstep'/,
    },
    {
      what: 'a zero weight',
      group: { ...valid, members: [member('a', { weight: 0 }), member('b')] },
      expected: /group\.json: members\[0\] \(a\)\.weight = 0: must be a number in \(0; 1000\]/,
    },
    {
      what: 'a zero item time',
      group: { ...valid, members: [member('a', { itemMs: 0 }), member('b')] },
      expected: /members\[0\] \(a\)\.itemMs = 0: must be a number in \[0\.001; 900000\]/,
    },
    {
      what: 'floors above the budget',
      group: {
        ...valid,
        budget: 6,
        members: [member('a', { minConcurrency: 3 }), member('b', { minConcurrency: 4 })],
      },
      expected: /budget = 6: below the sum of the members' floors, 7 \(a 3, b 4\)/,
    },
    {
      what: 'a floor above the static split',
      group: { ...valid, budget: 10, members: [member('a', { minConcurrency: 6 }), member('b')] },
      expected: /members\[0\] \(a\)\.minConcurrency = 6: above the static split ⌊10 ÷ 2⌋ = 5/,
    },
    {
      what: 'a group too large to run',
      group: { ...valid, members: [member('a', { load: 'huge.csv' }), member('b', { load: 'huge.csv' })] },
      expected: /the group is too large: 72,000,000 messages over the members .* more than 50,000,000/,
    },
  ])('refuses $what, naming the file, the field, the value and the range', ({ group, expected }) => {
    expect(problemsOf(group).join('\n')).toMatch(expected);
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({
      downstream: { connectionPool: -1 },
      budget: 0,
      members: [member('a', { weight: -1 }), member('', { load: 'nowhere.csv' })],
    });
    expect(problems.length).toBeGreaterThanOrEqual(4);
    expect(problems.every((p) => p.startsWith(`${SOURCE}: `))).toBe(true);
  });

  it('names a file it cannot read', () => {
    expect(() => loadGroupScenario(join(dir, 'missing.json'))).toThrow(
      /cannot read group file .*missing\.json: ENOENT/,
    );
  });
});
