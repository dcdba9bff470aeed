import {
  type ResolveOptions,
  resolveScalerConfig,
  type ScalerConfig,
  type ScalerSettings,
  SETTING_NAMES,
} from './config.ts';

/**
 * The controller Lambda's environment: each setting has one variable, named from the field
 * (`targetAgeSeconds` → `TARGET_AGE_SECONDS`). The CDK construct writes them, the handler reads them, and
 * errors name the variable.
 */
export function environmentName(field: keyof ScalerSettings): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
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
