import { App, CfnParameter, Stack } from 'aws-cdk-lib';
import { Alias, Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { concurrencyOwnerOf, unqualifiedFunctionArn } from '../../lib/cdk/concurrency-owner.ts';
import { NO_BUNDLING, parts } from './attached-scaler.ts';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:123456789012:function:orders-consumer';

/**
 * What CloudFormation makes of a rendered value at deploy: the four intrinsics an ARN is cut with, the
 * references looked up in `refs`. Anything else is an error, so a test cannot pass on a value it did not read.
 */
function deployed(value: unknown, refs: Record<string, string>): unknown {
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (Array.isArray(value)) return value.map((v) => deployed(v, refs));
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length !== 1) throw new Error(`not an intrinsic: ${JSON.stringify(value)}`);
  const [name, argument] = entries[0] as [string, unknown];
  const args = argument as unknown[];
  switch (name) {
    case 'Ref': {
      const found = refs[argument as string];
      if (found === undefined) throw new Error(`no value for Ref ${String(argument)}`);
      return found;
    }
    case 'Fn::Join':
      return (deployed(args[1], refs) as string[]).join(args[0] as string);
    case 'Fn::Split':
      return (deployed(args[1], refs) as string).split(args[0] as string);
    case 'Fn::Select':
      return (deployed(args[1], refs) as unknown[])[args[0] as number];
    default:
      throw new Error(`unexpected intrinsic ${name}`);
  }
}

describe('unqualifiedFunctionArn: a function ARN without its version or alias', () => {
  it.each([
    { comment: 'an alias', arn: `${FUNCTION_ARN}:live`, expected: FUNCTION_ARN },
    { comment: 'a version', arn: `${FUNCTION_ARN}:7`, expected: FUNCTION_ARN },
    { comment: '$LATEST', arn: `${FUNCTION_ARN}:$LATEST`, expected: FUNCTION_ARN },
    { comment: 'unqualified: unchanged', arn: FUNCTION_ARN, expected: FUNCTION_ARN },
    {
      comment: 'another partition',
      arn: 'arn:aws-cn:lambda:cn-north-1:123456789012:function:orders-consumer:live',
      expected: 'arn:aws-cn:lambda:cn-north-1:123456789012:function:orders-consumer',
    },
  ])('a literal ARN, $comment, is cut at synth', ({ arn, expected }) => {
    expect(unqualifiedFunctionArn(arn)).toBe(expected);
  });

  it.each([
    { comment: 'qualified', value: `${FUNCTION_ARN}:live` },
    { comment: 'unqualified', value: FUNCTION_ARN },
  ])('an ARN given as a parameter ($comment) is cut by CloudFormation at deploy', ({ value }) => {
    // GIVEN an ARN synth cannot read
    const stack = new Stack(new App(), 'Tokens');
    const arn = new CfnParameter(stack, 'ConsumerArn').valueAsString;
    // WHEN
    const rendered = stack.resolve(unqualifiedFunctionArn(arn));
    // THEN: the template cuts it (Fn::Select of Fn::Split), whichever value the parameter gets
    expect(JSON.stringify(rendered)).toMatch(/Fn::Split/);
    expect(deployed(rendered, { ConsumerArn: value })).toBe(FUNCTION_ARN);
  });

  it('fromFunctionName with a qualified name: the fields are readable, so it is cut at synth', () => {
    const stack = new Stack(new App(), 'ByName');
    const consumer = LambdaFunction.fromFunctionName(stack, 'Consumer', 'orders-consumer:live');
    const owner = concurrencyOwnerOf(consumer);
    const refs = { 'AWS::Partition': 'aws', 'AWS::Region': 'us-east-1', 'AWS::AccountId': '123456789012' };
    expect(deployed(stack.resolve(owner.functionArn), refs)).toBe(FUNCTION_ARN);
    expect(JSON.stringify(stack.resolve(owner.functionArn))).not.toMatch(/Fn::Split/);
    expect(owner.functionName).toBe('orders-consumer');
  });

  it('fromFunctionName with a parameter: the name field is cut at its first colon at deploy', () => {
    const stack = new Stack(new App(), 'ByParameter');
    const name = new CfnParameter(stack, 'ConsumerName').valueAsString;
    const owner = concurrencyOwnerOf(LambdaFunction.fromFunctionName(stack, 'Consumer', name));
    const refs = {
      'AWS::Partition': 'aws',
      'AWS::Region': 'us-east-1',
      'AWS::AccountId': '123456789012',
      ConsumerName: 'orders-consumer:live',
    };
    expect(deployed(stack.resolve(owner.functionArn), refs)).toBe(FUNCTION_ARN);
    expect(deployed(stack.resolve(owner.functionName), refs)).toBe('orders-consumer');
  });
});

describe('concurrencyOwnerOf: the function whose reserved concurrency is set, unqualified', () => {
  it('a consumer imported by an alias ARN: its function, by ARN and by name', () => {
    const stack = new Stack(new App(), 'Imported');
    const consumer = LambdaFunction.fromFunctionArn(stack, 'C', `${FUNCTION_ARN}:live`);
    const owner = concurrencyOwnerOf(consumer);
    expect(owner.function).toBe(consumer);
    expect(owner.functionArn).toBe(FUNCTION_ARN);
    expect(owner.functionName).toBe('orders-consumer');
  });

  it("a function of this app keeps CloudFormation's own unqualified Arn and Ref", () => {
    const { stack, consumer } = parts();
    const owner = concurrencyOwnerOf(consumer);
    const id = stack.getLogicalId(consumer.node.defaultChild as never);
    expect(stack.resolve(owner.functionArn)).toEqual({ 'Fn::GetAtt': [id, 'Arn'] });
    expect(stack.resolve(owner.functionName)).toEqual({ Ref: id });
  });

  it("an alias or a version of this app's function: that function", () => {
    const { stack, consumer } = parts();
    const live = new Alias(stack, 'Live', { aliasName: 'live', version: consumer.currentVersion });
    expect(concurrencyOwnerOf(live).function).toBe(consumer);
    expect(concurrencyOwnerOf(consumer.currentVersion).function).toBe(consumer);
  });

  it('an imported version: the function behind it, unqualified', () => {
    const stack = new Stack(new App({ context: NO_BUNDLING }), 'ImportedVersion');
    const version = Version.fromVersionArn(stack, 'V', `${FUNCTION_ARN}:7`);
    const owner = concurrencyOwnerOf(version);
    expect(stack.resolve(owner.functionArn)).toBe(FUNCTION_ARN);
    expect(stack.resolve(owner.functionName)).toBe('orders-consumer');
  });
});
