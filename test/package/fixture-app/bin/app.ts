#!/usr/bin/env node
import * as cdk from 'aws-cdk-lib';
import { addFixedMistakes, addMistakes } from '../lib/mistakes.js';
import { OrdersStack } from '../lib/orders-stack.js';

const app = new cdk.App();
new OrdersStack(app, 'OrdersStack', {});
const mistakes = app.node.tryGetContext('mistakes');
if (mistakes === 'errors') addMistakes(app);
if (mistakes === 'fixed') addFixedMistakes(app);
