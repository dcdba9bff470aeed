import { buildControllerAsset } from '../../scripts/build.ts';

/**
 * Vitest global set-up: the construct loads the pre-built controller (assets/controller/), which a clean clone
 * does not have until it is built. Rewritten only when its bytes change, so concurrent readers never see half a file.
 */
export default async function setup(): Promise<void> {
  await buildControllerAsset();
}
