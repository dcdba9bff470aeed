import {
  type NumericSetting,
  SETTING_NAMES,
  SETTINGS,
  type SettingDescriptor,
  type SettingName,
} from '../control/settings-table.ts';
import { ScalerActuator } from './scaler-settings.ts';

/**
 * The props table of the control law's settings in docs/deploy.md, generated from the settings table so its
 * defaults and ranges are the validator's. `npm run docs:settings` rewrites the block between the markers.
 */

export const SETTINGS_TABLE_START = '<!-- settings-table:start -->';
export const SETTINGS_TABLE_END = '<!-- settings-table:end -->';

/** Each enum setting's CDK enum: its member names are what a user writes (`ScalerActuator.LOCKSTEP`). */
const PROP_ENUMS: Partial<Record<SettingName, { name: string; members: Record<string, string> }>> = {
  actuator: { name: 'ScalerActuator', members: ScalerActuator },
} satisfies Record<Exclude<SettingName, NumericSetting>, unknown>;

const MINUTE = 60;
const HOUR = 3_600;
const DAY = 86_400;

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** A default Duration as the docs say it: `1 minute`, `3 minutes`, `10 seconds`. */
function durationText(seconds: number): string {
  if (seconds > 0 && seconds % DAY === 0) return plural(seconds / DAY, 'day');
  if (seconds > 0 && seconds % HOUR === 0) return plural(seconds / HOUR, 'hour');
  if (seconds > 0 && seconds % MINUTE === 0) return plural(seconds / MINUTE, 'minute');
  return plural(seconds, 'second');
}

/** A range's bound as the docs say it: `0 s`, `15 min`, `1 hour`, `1 day`. */
function boundText(seconds: number): string {
  if (seconds > 0 && seconds % DAY === 0) return plural(seconds / DAY, 'day');
  if (seconds > 0 && seconds % HOUR === 0) return plural(seconds / HOUR, 'hour');
  if (seconds > 0 && seconds % MINUTE === 0) return `${seconds / MINUTE} min`;
  return `${seconds} s`;
}

/** `1e9` rather than `1000000000`: the bounds that are powers of ten past a million. */
function numberText(n: number): string {
  return n >= 1e6 ? n.toExponential().replace('e+', 'e') : String(n);
}

function enumMember(field: SettingName, value: string): string {
  const member = Object.entries(PROP_ENUMS[field]?.members ?? {}).find(([, v]) => v === value)?.[0];
  if (member === undefined) throw new Error(`${field}: no enum member for '${value}'`);
  return member;
}

function defaultText(field: SettingName, descriptor: SettingDescriptor): string {
  const value = descriptor.lambda;
  if (value === undefined) return descriptor.unset ?? 'none';
  if (typeof value === 'string') return `\`${PROP_ENUMS[field]?.name}.${enumMember(field, value)}\``;
  return descriptor.duration ? durationText(value) : String(value);
}

function validText(field: SettingName, descriptor: SettingDescriptor): string {
  const { rule } = descriptor;
  const bound = (n: number) => (descriptor.duration ? boundText(n) : numberText(n));
  const range =
    rule.kind === 'enum'
      ? rule.values.map((value) => `\`${enumMember(field, value)}\``).join(', ')
      : rule.kind === 'integer'
        ? `integer [${bound(rule.min)}; ${bound(rule.max)}]`
        : `${rule.minInclusive ? '[' : '('}${bound(rule.min)}; ${bound(rule.max)}]`;
  return descriptor.also === undefined ? range : `${range}; ${descriptor.also}`;
}

/** The settings' props table (prop, default, valid, notes), one row per setting in the table's order. */
export function settingsTableMarkdown(): string {
  const rows = SETTING_NAMES.map((field) => {
    const descriptor: SettingDescriptor = SETTINGS[field];
    return `| \`${descriptor.prop}\` | ${defaultText(field, descriptor)} | ${validText(field, descriptor)} | ${descriptor.doc} |`;
  });
  return [
    '<!-- generated from lib/control/settings-table.ts by `npm run docs:settings`: edit the table there -->',
    '',
    '| prop | default | valid | notes |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The block between the markers, or `undefined` when the markers are missing or out of order. */
export function settingsTableBlock(markdown: string): string | undefined {
  const start = markdown.indexOf(SETTINGS_TABLE_START);
  const end = markdown.indexOf(SETTINGS_TABLE_END);
  if (start < 0 || end < start) return undefined;
  return markdown.slice(start + SETTINGS_TABLE_START.length, end).trim();
}

/** The markdown with the block between the markers replaced by the generated table. */
export function withSettingsTable(markdown: string): string {
  const start = markdown.indexOf(SETTINGS_TABLE_START);
  const end = markdown.indexOf(SETTINGS_TABLE_END);
  if (start < 0 || end < start) {
    throw new Error(
      `the markers ${SETTINGS_TABLE_START} and ${SETTINGS_TABLE_END} are missing or out of order`,
    );
  }
  return `${markdown.slice(0, start + SETTINGS_TABLE_START.length)}\n${settingsTableMarkdown()}\n\n${markdown.slice(end)}`;
}
