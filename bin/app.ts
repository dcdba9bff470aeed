#!/usr/bin/env -S npx tsx
import { createApp } from '../examples/app.ts';
import { ConfigError } from '../lib/control/index.ts';

// A bad context value is a user error, not a crash: print its one line and exit non-zero.
try {
  createApp().app.synth();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
