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
