import { describe, expect, it } from 'vitest';
import { resolveScalerConfig } from '../../lib/control/config.ts';
import { environmentName } from '../../lib/control/environment.ts';
import {
  LAMBDA_DEFAULTS,
  SETTING_NAMES,
  SETTINGS,
  type SettingDescriptor,
} from '../../lib/control/settings-table.ts';

describe('the settings table', () => {
  it.each(SETTING_NAMES.map((field) => ({ field })))(
    "names $field's variable in upper snake case",
    ({ field }) => {
      expect(environmentName(field)).toBe(field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase());
    },
  );

  it('gives LAMBDA_DEFAULTS exactly the defaults it declares, frozen', () => {
    const declared = SETTING_NAMES.flatMap((field) => {
      const { lambda }: SettingDescriptor = SETTINGS[field];
      return lambda === undefined ? [] : [[field, lambda]];
    });
    expect(Object.entries(LAMBDA_DEFAULTS)).toEqual(declared);
    expect(Object.isFrozen(LAMBDA_DEFAULTS)).toBe(true);
  });

  it('resolves the defaults to a config with every required setting and no optional one', () => {
    const config = resolveScalerConfig({});
    const present = SETTING_NAMES.filter((field) => config[field] !== undefined);
    expect(present).toEqual(SETTING_NAMES.filter((field) => SETTINGS[field].presence !== 'optional'));
  });

  it.each(
    SETTING_NAMES.filter((field) => SETTINGS[field].presence === 'required').map((field) => ({ field })),
  )('reports a required $field left out by custom defaults', ({ field }) => {
    expect(() => resolveScalerConfig({}, { defaults: { ...LAMBDA_DEFAULTS, [field]: undefined } })).toThrow(
      new RegExp(`${field} is missing: must be`),
    );
  });
});
