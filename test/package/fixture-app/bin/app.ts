#!/usr/bin/env node
import * as cdk from 'aws-cdk-lib';
import { addFixedMistakes, addMistakes } from '../lib/mistakes.js';
import { OrdersStack } from '../lib/orders-stack.js';
import { addReadmeStacks } from '../lib/readme-stacks.js';
import { SharedDbStack } from '../lib/shared-db-stack.js';

const app = new cdk.App();
new OrdersStack(app, 'OrdersStack', {});
// The README's budget: two scalers sharing one database.
new SharedDbStack(app, 'SharedDbStack', {});
// The README's fragments pasted verbatim, each in a stack of its own (written by test/package/support/fresh-app.ts).
addReadmeStacks(app);
const mistakes = app.node.tryGetContext('mistakes');
if (mistakes === 'errors') addMistakes(app);
if (mistakes === 'fixed') addFixedMistakes(app);
