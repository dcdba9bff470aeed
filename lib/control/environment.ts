import { type ResolveOptions, resolveScalerConfig } from './config.ts';
import {
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
} from './settings-table.ts';

/**
 * The controller Lambda's environment: each setting has one variable, the field in upper snake case
 * (`targetAgeSeconds` → `TARGET_AGE_SECONDS`, the settings table's `env`). The CDK construct writes them, the
 * handler reads them, and errors name the variable.
 */
export function environmentName<K extends SettingName>(field: K): (typeof SETTINGS)[K]['env'] {
  return SETTINGS[field].env;
}

/** The settings as environment variables (for the CDK construct). Undefined values are left out. */
export function settingsToEnvironment(settings: ScalerSettings): Record<string, string> {
  const env: Record<string, string> = {};
  for (const field of SETTING_NAMES) {
    const value = settings[field];
    if (value !== undefined) env[environmentName(field)] = String(value);
  }
  return env;
}

/** Reads and validates the settings from the environment; throws one ConfigError naming each variable. */
export function configFromEnvironment(
  env: Record<string, string | undefined>,
  options: Omit<ResolveOptions, 'label'> = {},
): ScalerConfig {
  const settings: Record<string, string> = {};
  for (const field of SETTING_NAMES) {
    const value = env[environmentName(field)];
    if (value !== undefined) settings[field] = value;
  }
  return resolveScalerConfig(settings, { ...options, label: (field) => environmentName(field) });
}
