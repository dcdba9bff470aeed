import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  SETTINGS_TABLE_END,
  SETTINGS_TABLE_START,
  settingsTableBlock,
  settingsTableMarkdown,
  withSettingsTable,
} from '../../lib/cdk/settings-doc.ts';
import { SETTING_NAMES, SETTINGS } from '../../lib/control/settings-table.ts';

const DEPLOY_DOC = new URL('../../docs/deploy.md', import.meta.url);

describe('the settings table in docs/deploy.md', () => {
  it('is the table generated from lib/control/settings-table.ts', () => {
    // GIVEN the deploy guide as committed
    const markdown = readFileSync(DEPLOY_DOC, 'utf8');
    // WHEN its block between the markers is read
    const block = settingsTableBlock(markdown);
    // THEN it is exactly what the descriptors generate
    expect(
      block,
      `docs/deploy.md's settings table differs from lib/control/settings-table.ts: run \`npm run docs:settings\``,
    ).toBe(settingsTableMarkdown());
  });

  it('has one row per setting, naming its prop, in the table order', () => {
    const props = [...settingsTableMarkdown().matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
    expect(props).toEqual(SETTING_NAMES.map((field) => SETTINGS[field].prop));
  });

  it.each([
    {
      comment: 'a Duration default in words',
      prop: 'scaleDownDelay',
      row: /^\| `scaleDownDelay` \| 3 minutes \| \[0 s; 1 day\] \|/m,
    },
    {
      comment: 'an open lower bound',
      prop: 'targetAge',
      row: /^\| `targetAge` \| 1 minute \| \(0 s; 1 day\] \|/m,
    },
    {
      comment: 'an integer range with its cross-field checks',
      prop: 'maxConcurrency',
      row: /^\| `maxConcurrency` \| 32 \| integer \[1; 10000\]; ≤ 1000 when the mapping.s MaximumConcurrency is driven;/m,
    },
    {
      comment: 'an unset setting with its meaning',
      prop: 'callsPerItem',
      row: /^\| `callsPerItem` \| 1 \| \(0; 1e6\] \|/m,
    },
    {
      comment: 'an enum by its CDK members',
      prop: 'actuator',
      row: /^\| `actuator` \| `ScalerActuator.LOCKSTEP` \| `LOCKSTEP`, `RESERVED`, `EVENT_SOURCE`, `PROVISIONED` \|/m,
    },
  ])('renders $comment ($prop)', ({ row }) => {
    expect(settingsTableMarkdown()).toMatch(row);
  });
});

describe('withSettingsTable', () => {
  const doc = ['# title', 'before', SETTINGS_TABLE_START, 'stale', SETTINGS_TABLE_END, 'after', ''].join(
    '\n',
  );

  it('replaces only the block between the markers, and a second run changes nothing', () => {
    const once = withSettingsTable(doc);
    expect(once.startsWith(`# title\nbefore\n${SETTINGS_TABLE_START}\n`)).toBe(true);
    expect(once.endsWith(`${SETTINGS_TABLE_END}\nafter\n`)).toBe(true);
    expect(once).not.toContain('stale');
    expect(settingsTableBlock(once)).toBe(settingsTableMarkdown());
    expect(withSettingsTable(once)).toBe(once);
  });

  it('refuses a document without both markers in order', () => {
    expect(() => withSettingsTable(`${SETTINGS_TABLE_END}\n${SETTINGS_TABLE_START}`)).toThrow(
      /markers <!-- settings-table:start --> and <!-- settings-table:end --> are missing or out of order/,
    );
  });
});
