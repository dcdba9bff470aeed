/**
 * `npm run docs:settings`: rewrites the settings' props table in docs/deploy.md (between
 * `<!-- settings-table:start -->` and `<!-- settings-table:end -->`) from lib/control/settings-table.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../lib/cdk/settings-doc.ts';

const DEPLOY_DOC = fileURLToPath(new URL('../docs/deploy.md', import.meta.url));

const before = readFileSync(DEPLOY_DOC, 'utf8');
const after = withSettingsTable(before);
if (after === before) {
  console.log('docs/deploy.md: the settings table is up to date');
} else {
  writeFileSync(DEPLOY_DOC, after);
  console.log('docs/deploy.md: the settings table rewritten from lib/control/settings-table.ts');
}
