/**
 * What one entry of the settings table (settings-table.ts) says of its setting: the range every entry point
 * accepts, the default, whether it must end up with a value, and how the CDK props, the environment and the docs
 * name and describe it.
 */

export type Rule =
  | { readonly kind: 'number'; min: number; minInclusive: boolean; max: number; unit: string }
  | { readonly kind: 'integer'; min: number; max: number; unit: string }
  | { readonly kind: 'enum'; values: readonly string[] };

export interface SettingDescriptor {
  /** The range every entry point accepts. */
  readonly rule: Rule;
  /** The product's default (the lambda preset); absent when leaving the setting out means no limit. */
  readonly lambda?: number | string;
  /**
   * `required`: must end up with a value (a default gives one unless custom defaults leave it out); `cap`: the
   * config always has it, but it may come from the downstream limits instead; `optional`: may stay unset.
   */
  readonly presence: 'required' | 'cap' | 'optional';
  /** The `QueueAgeScaler` prop that feeds it. */
  readonly prop: string;
  /** Whether the prop is a `Duration` (the setting is then in seconds). */
  readonly duration: boolean;
  /** The controller's environment variable: the field in upper snake case (settings-table.ts checks it). */
  readonly env: string;
  /** One line for the props table: what it means. */
  readonly doc: string;
  /** For the props table: what leaving an optional setting out means. @default 'none' */
  readonly unset?: string;
  /** For the props table: what is checked beyond the rule (against other settings, or by the construct). */
  readonly also?: string;
}
