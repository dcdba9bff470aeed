import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/control/config.ts';
import { parseSimConfig } from '../../lib/sim/config-file.ts';
import { runScenario } from '../../lib/sim/run.ts';

function problemsOf(text: string): string[] {
  try {
    parseSimConfig(text, 'my.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error('expected a ConfigError');
}

describe("the simulator's --config file", () => {
  it.each([
    { comment: 'constructor', json: '{"simulator": {"constructor": 5}}', field: 'constructor' },
    { comment: 'toString', json: '{"simulator": {"toString": 5}}', field: 'toString' },
    { comment: '__proto__', json: '{"simulator": {"__proto__": 5}}', field: '__proto__' },
  ])('rejects an inherited name under "simulator": $comment', ({ json, field }) => {
    expect(problemsOf(json).join('\n')).toMatch(
      new RegExp(`unknown field 'simulator.${field}' \\(known: batchSize`),
    );
  });

  it('keeps only known world fields, as own keys', () => {
    const file = parseSimConfig('{"simulator": {"metricDelaySeconds": 60}}', 'my.json');
    expect(Object.keys(file.world)).toEqual(['metricDelaySeconds']);
    expect(Object.getPrototypeOf(file.world)).toBe(Object.prototype);
  });

  it("bounds how often the pollers' ramp is applied: once a second to once a minute", () => {
    expect(parseSimConfig('{"simulator": {"pollerScaleSeconds": 10}}', 'my.json').world).toEqual({
      pollerScaleSeconds: 10,
    });
    expect(problemsOf('{"simulator": {"pollerScaleSeconds": 0.5}}').join('\n')).toMatch(
      /simulator.pollerScaleSeconds = 0.5: must be a number in \[1; 60\]/,
    );
    expect(problemsOf('{"simulator": {"pollerScaleSeconds": 120}}').join('\n')).toMatch(
      /simulator.pollerScaleSeconds = 120: must be a number in \[1; 60\]/,
    );
  });

  it("takes the controller's first run on the load's clock: from the start to an hour late", () => {
    expect(parseSimConfig('{"simulator": {"controllerStartSeconds": 60}}', 'my.json').world).toEqual({
      controllerStartSeconds: 60,
    });
    expect(problemsOf('{"simulator": {"controllerStartSeconds": -1}}').join('\n')).toMatch(
      /simulator.controllerStartSeconds = -1: must be a number in \[0; 3600\]/,
    );
  });

  it('shows a bad world value as given', () => {
    expect(problemsOf('{"simulator": {"metricDelaySeconds": [60]}}').join('\n')).toMatch(
      /simulator.metricDelaySeconds = \[60\]: must be a number in \[0; 3600\]/,
    );
    expect(problemsOf('{"simulator": {"metricDelaySeconds": "0x3c"}}').join('\n')).toMatch(
      /simulator.metricDelaySeconds = '0x3c': must be a number/,
    );
  });

  it.each([
    { comment: 'constructor', json: '{"constructor": 1}', message: /unknown field 'constructor'/ },
    {
      comment: '__proto__',
      json: '{"__proto__": {"targetAgeSeconds": 5}}',
      message: /unknown field '__proto__'/,
    },
    {
      comment: 'a hexadecimal target',
      json: '{"targetAgeSeconds": "0x3c"}',
      message: /targetAgeSeconds = '0x3c'/,
    },
  ])(
    'hands the control settings to the shared validator, which rejects $comment',
    async ({ json, message }) => {
      const file = parseSimConfig(json, 'my.json');
      await expect(
        runScenario({
          scenario: { name: 'one', phases: [{ durationSeconds: 60, ratePerSecond: 1, itemMs: 20 }] },
          preset: 'seed',
          settings: file.settings,
        }),
      ).rejects.toThrow(message);
    },
  );
});
