import { expect, it } from 'vitest';
import { synthesizeExample } from './example-app.ts';

/**
 * The example stack's synthesized template against the committed snapshot, so that a restructuring of the
 * construct (its checks, its alarms, the settings table) changes no resource, property or policy unnoticed.
 * Asset hashes follow the bundled code and are normalized, and so is the hash in the logical id of the controller's
 * version (`currentVersion`, which the start trigger invokes). A deliberate change: `npx vitest run
 * test/cdk/template-snapshot.test.ts -u`, and the commit says why.
 */
it('the example stack synthesizes the committed template', async () => {
  const { template } = synthesizeExample();
  const json = `${JSON.stringify(template.toJSON(), null, 2)
    .replace(/[0-9a-f]{64}/g, '<asset-hash>')
    .replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}/g, '$1<code-hash>')}\n`;
  await expect(json).toMatchFileSnapshot('__snapshots__/example-stack.template.json');
});
