import { describe, expect, it } from 'vitest';
import { ConfigError, LAMBDA_DEFAULTS, resolveScalerConfig } from '../../lib/control/config.ts';
import {
  configFromEnvironment,
  environmentName,
  settingsToEnvironment,
} from '../../lib/control/environment.ts';

function problemsOf(settings: Record<string, unknown>): string[] {
  try {
    resolveScalerConfig(settings);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}

describe('resolveScalerConfig', () => {
  it('applies the defaults', () => {
    const config = resolveScalerConfig({});
    expect(config).toMatchObject({
      targetAgeSeconds: 60,
      minConcurrency: 2,
      maxConcurrency: 32,
      actuator: 'lockstep',
    });
  });

  it('takes the cap from the downstream: pool 20, 100 calls/s, 20 ms, 1 call → 2', () => {
    const config = resolveScalerConfig({
      dbPoolSize: 20,
      apiRatePerSecond: 100,
      itemTimeSeconds: 0.02,
      callsPerItem: 1,
      minConcurrency: 2,
    });
    expect(config.maxConcurrency).toBe(2);
  });

  it('accepts numeric strings (environment variables, context)', () => {
    expect(resolveScalerConfig({ targetAgeSeconds: '30', maxConcurrency: '10' })).toMatchObject({
      targetAgeSeconds: 30,
      maxConcurrency: 10,
    });
  });

  it.each([
    {
      comment: 'target 0',
      settings: { targetAgeSeconds: 0 },
      message: /targetAgeSeconds = 0: must be a number in \(0; 86400\]/,
    },
    { comment: 'target negative', settings: { targetAgeSeconds: -5 }, message: /targetAgeSeconds = -5/ },
    { comment: 'target NaN', settings: { targetAgeSeconds: Number.NaN }, message: /targetAgeSeconds = NaN/ },
    {
      comment: 'target not a number',
      settings: { targetAgeSeconds: 'soon' },
      message: /targetAgeSeconds = 'soon': must be a number/,
    },
    {
      comment: 'floor above cap',
      settings: { minConcurrency: 10, maxConcurrency: 5 },
      message: /minConcurrency = 10: must not exceed the cap 5/,
    },
    {
      comment: 'floor 1 where the mapping maximum is driven',
      settings: { minConcurrency: 1 },
      message: /minConcurrency = 1: must be at least 2 with actuator 'lockstep'.*valid 2–1000/,
    },
    {
      comment: 'cap above 1000 where the mapping maximum is driven',
      settings: { maxConcurrency: 1500, actuator: 'event-source' },
      message: /maxConcurrency = 1500: must be at most 1000 with actuator 'event-source'/,
    },
    {
      comment: 'fractional concurrency',
      settings: { maxConcurrency: 2.5 },
      message: /maxConcurrency = 2.5: must be an integer/,
    },
    {
      comment: 'negative pool',
      settings: { dbPoolSize: -1 },
      message: /dbPoolSize = -1: must be an integer in \[1; 100000\]/,
    },
    {
      comment: 'negative API rate',
      settings: { apiRatePerSecond: -10, itemTimeSeconds: 0.02 },
      message: /apiRatePerSecond = -10/,
    },
    {
      comment: 'zero calls per item',
      settings: { callsPerItem: 0 },
      message: /callsPerItem = 0: must be a number in \(0;/,
    },
    {
      comment: 'API rate without item time',
      settings: { apiRatePerSecond: 100 },
      message: /itemTimeSeconds is missing.*required with apiRatePerSecond/,
    },
    {
      comment: 'unknown actuator',
      settings: { actuator: 'both' },
      message: /actuator = 'both': must be one of lockstep, reserved, event-source/,
    },
    {
      comment: 'utilisation above 1',
      settings: { targetUtilization: 1.2 },
      message: /targetUtilization = 1.2/,
    },
    {
      comment: 'slowdown factor not above 1',
      settings: { slowdownFactor: 1 },
      message: /slowdownFactor = 1: must be a number in \(1; 100\]/,
    },
    { comment: 'zero tick', settings: { tickSeconds: 0 }, message: /tickSeconds = 0/ },
    {
      comment: 'zero growth step',
      settings: { maxScaleUpStep: 0 },
      message: /maxScaleUpStep = 0: must be an integer in \[1;/,
    },
    {
      comment: 'surplus fraction above 1',
      settings: { scaleDownSurplusFraction: 2 },
      message: /scaleDownSurplusFraction = 2/,
    },
    {
      comment: 'negative scale-down delay',
      settings: { scaleDownDelaySeconds: -1 },
      message: /scaleDownDelaySeconds = -1: must be a number in \[0;/,
    },
    { comment: 'a misspelt field', settings: { targetAge: 30 }, message: /unknown field 'targetAge'/ },
  ])('rejects $comment', ({ settings, message }) => {
    const problems = problemsOf(settings);
    expect(problems.join('\n')).toMatch(message);
  });

  it.each([0.05, 1, 4.9])('fastSampleSeconds %s is refused: 0 (off) or at least 5 s', (value) => {
    expect(problemsOf({ fastSampleSeconds: value })).toEqual([
      expect.stringMatching(
        new RegExp(
          `^fastSampleSeconds = ${value}: must be 0 \\(off\\) or at least 5 seconds: SQS's depth is approximate`,
        ),
      ),
    ]);
  });

  it.each([0, 5, 10, 30])('fastSampleSeconds %s is accepted', (value) => {
    expect(resolveScalerConfig({ fastSampleSeconds: value }).fastSampleSeconds).toBe(value);
  });

  describe("actuator 'provisioned': whole pollers, 10 concurrent invocations each, 2 at least", () => {
    it('rounds the cap down to whole pollers (32 → 30) and accepts a cap beyond 1,000', () => {
      expect(resolveScalerConfig({ actuator: 'provisioned', minConcurrency: 20 }).maxConcurrency).toBe(30);
      expect(
        resolveScalerConfig({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 5_000 })
          .maxConcurrency,
      ).toBe(5_000);
    });

    it.each([2, 25])('refuses a floor of %s, with why', (floor) => {
      expect(problemsOf({ actuator: 'provisioned', minConcurrency: floor })).toEqual([
        expect.stringMatching(
          new RegExp(
            `^minConcurrency = ${floor}: must be a multiple of 10, at least 20, with actuator 'provisioned'`,
          ),
        ),
      ]);
    });

    it('refuses a cap under two pollers’ worth (15)', () => {
      expect(problemsOf({ actuator: 'provisioned', minConcurrency: 20, maxConcurrency: 15 })).toContainEqual(
        expect.stringMatching(/^maxConcurrency = 15: must be at least 20 with actuator 'provisioned'/),
      );
    });
  });

  it('reports every problem at once', () => {
    const problems = problemsOf({ targetAgeSeconds: -1, dbPoolSize: 0, actuator: 'x', callsPerItem: 0 });
    expect(problems).toHaveLength(4);
  });

  it('needs a cap from somewhere when the defaults give none', () => {
    expect(() =>
      resolveScalerConfig({}, { defaults: { ...LAMBDA_DEFAULTS, maxConcurrency: undefined } }),
    ).toThrow(/maxConcurrency is missing/);
  });
});

describe('the controller environment', () => {
  it('names each setting’s variable from its field', () => {
    expect(environmentName('targetAgeSeconds')).toBe('TARGET_AGE_SECONDS');
    expect(environmentName('apiRatePerSecond')).toBe('API_RATE_PER_SECOND');
  });

  it('round-trips settings through the environment', () => {
    const env = settingsToEnvironment({
      targetAgeSeconds: 30,
      maxConcurrency: 12,
      actuator: 'reserved',
      minConcurrency: 1,
    });
    expect(configFromEnvironment(env)).toMatchObject({
      targetAgeSeconds: 30,
      maxConcurrency: 12,
      actuator: 'reserved',
      minConcurrency: 1,
    });
  });

  it('names the variable in its errors', () => {
    expect(() => configFromEnvironment({ TARGET_AGE_SECONDS: 'abc', MIN_CONCURRENCY: '1' })).toThrow(
      /TARGET_AGE_SECONDS = 'abc': must be a number.*MIN_CONCURRENCY = 1: must be at least 2/,
    );
  });
});

describe('what the validator accepts as input (settings come from JSON and the environment too)', () => {
  it.each([
    { comment: 'an inherited name: constructor', json: '{"constructor": 1}', field: 'constructor' },
    { comment: 'an inherited name: toString', json: '{"toString": 1}', field: 'toString' },
    { comment: 'an inherited name: hasOwnProperty', json: '{"hasOwnProperty": 1}', field: 'hasOwnProperty' },
    {
      comment: 'a __proto__ key (JSON.parse makes it own)',
      json: '{"__proto__": {"x": 1}}',
      field: '__proto__',
    },
  ])('rejects $comment as an unknown field', ({ json, field }) => {
    const problems = problemsOf(JSON.parse(json));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^unknown field '${field}' \\(known: targetAgeSeconds, `));
  });

  it('does not let a __proto__ key change what the settings hold', () => {
    // A __proto__ object carrying a valid field must not smuggle it in as inherited.
    const problems = problemsOf(JSON.parse('{"__proto__": {"targetAgeSeconds": 5}}'));
    expect(problems.join('\n')).toMatch(/unknown field '__proto__'/);
  });

  it.each([
    { comment: 'an array', value: [60], shown: /targetAgeSeconds = \[60\]: must be a number/ },
    { comment: 'an object', value: { s: 60 }, shown: /targetAgeSeconds = \{"s":60\}: must be a number/ },
    { comment: 'a boolean', value: true, shown: /targetAgeSeconds = true: must be a number/ },
    { comment: 'null', value: null, shown: /targetAgeSeconds = null: must be a number/ },
    { comment: 'a hexadecimal string', value: '0x3c', shown: /targetAgeSeconds = '0x3c': must be a number/ },
    { comment: 'a binary string', value: '0b111100', shown: /targetAgeSeconds = '0b111100'/ },
    { comment: 'an octal string', value: '0o74', shown: /targetAgeSeconds = '0o74'/ },
    { comment: 'a padded string', value: ' 60 ', shown: /targetAgeSeconds = ' 60 '/ },
    { comment: 'an empty string', value: '', shown: /targetAgeSeconds = '': must be a number/ },
    { comment: 'Infinity as a string', value: 'Infinity', shown: /targetAgeSeconds = 'Infinity'/ },
    { comment: 'digit separators', value: '6_0', shown: /targetAgeSeconds = '6_0'/ },
    { comment: 'a newline inside', value: '60\n', shown: /targetAgeSeconds = '60\\n'/ },
  ])('rejects $comment, showing the value as given', ({ value, shown }) => {
    expect(problemsOf({ targetAgeSeconds: value }).join('\n')).toMatch(shown);
  });

  it('cuts a long value short in its message', () => {
    const [problem] = problemsOf({ targetAgeSeconds: 'x'.repeat(10_000) });
    expect(problem?.length).toBeLessThan(200);
    expect(problem).toMatch(/targetAgeSeconds = 'x{77}\.\.\.': must be a number/);
  });

  it.each([
    { value: '60', expected: 60 },
    { value: '60.5', expected: 60.5 },
    { value: '.5', expected: 0.5 },
    { value: '+60', expected: 60 },
    { value: '6e1', expected: 60 },
    // What String() writes for a small number, as the CDK construct passes settings to the environment.
    { value: String(5e-7), expected: 5e-7 },
  ])('reads the decimal string $value as $expected', ({ value, expected }) => {
    expect(resolveScalerConfig({ targetAgeSeconds: value }).targetAgeSeconds).toBe(expected);
  });

  it('round-trips a tiny setting through the environment (String() writes it with an exponent)', () => {
    const env = settingsToEnvironment({ itemTimeSeconds: 5e-7, dbPoolSize: 4 });
    expect(env.ITEM_TIME_SECONDS).toBe('5e-7');
    expect(configFromEnvironment(env).itemTimeSeconds).toBe(5e-7);
  });

  it.each([
    { comment: 'an array', settings: [60] },
    { comment: 'a number', settings: 60 },
    { comment: 'null', settings: null },
  ])('rejects settings that are not an object: $comment', ({ settings }) => {
    expect(() => resolveScalerConfig(settings as never)).toThrow(
      /the settings must be an object of targetAgeSeconds/,
    );
  });
});
