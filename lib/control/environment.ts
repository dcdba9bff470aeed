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

/** The scheduled floors' variable: their list as JSON (scheduled-floors.ts). */
export const SCHEDULED_FLOORS_ENV = 'SCHEDULED_FLOORS';

/** The settings as environment variables (for the CDK construct). Undefined values are left out. */
export function settingsToEnvironment(settings: ScalerSettings): Record<string, string> {
  const env: Record<string, string> = {};
  for (const field of SETTING_NAMES) {
    const value = settings[field];
    if (value !== undefined) env[environmentName(field)] = String(value);
  }
  if (settings.floors !== undefined && settings.floors.length > 0)
    env[SCHEDULED_FLOORS_ENV] = JSON.stringify(settings.floors);
  return env;
}

/** Reads and validates the settings from the environment; throws one ConfigError naming each variable. */
export function configFromEnvironment(
  env: Record<string, string | undefined>,
  options: Omit<ResolveOptions, 'label'> = {},
): ScalerConfig {
  const settings: Record<string, unknown> = {};
  for (const field of SETTING_NAMES) {
    const value = env[environmentName(field)];
    if (value !== undefined) settings[field] = value;
  }
  const floors = env[SCHEDULED_FLOORS_ENV];
  if (floors !== undefined) settings.floors = floorsFromJson(floors);
  return resolveScalerConfig(settings, {
    ...options,
    label: (field) => environmentName(field),
    floorsLabel: SCHEDULED_FLOORS_ENV,
  });
}

/** The variable's JSON; text that is not JSON is kept as text, which the validator names as the wrong shape. */
function floorsFromJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
