import { Arn, ArnFormat, Fn, Reference, Token, Tokenization } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { resourceOfType } from './resource-type.ts';

/**
 * The function whose reserved concurrency the scaler sets, and how the controller must name it.
 *
 * AWS: reserved concurrency applies to the function as a whole, all its versions and aliases included;
 * `PutFunctionConcurrency` and `GetFunctionConcurrency` take no qualifier, so IAM authorizes them on the unqualified
 * function ARN. A statement on `…:function:orders-consumer:live` matches none of those requests, and every tick
 * would be denied. A consumer named by a qualified ARN is still a consumer: the mapping may invoke that alias.
 */
export interface ConcurrencyOwner {
  /** The consumer, or the function behind a consumer alias or version (their `lambda`). */
  readonly function: IFunction;
  /** `arn:<partition>:lambda:<region>:<account>:function:<name>`, without `:<version or alias>`. */
  readonly functionArn: string;
  /** `<name>`, without `:<version or alias>`: what the controller's environment and the stack outputs carry. */
  readonly functionName: string;
}

const FUNCTION_TYPE = 'AWS::Lambda::Function';
// arn : partition : lambda : region : account : function : name [: qualifier]
const UNQUALIFIED_FIELDS = 7;

/** Whether `arn` is exactly `Fn::GetAtt <AWS::Lambda::Function>.Arn`: unqualified by CloudFormation's definition. */
function isFunctionArnAttribute(arn: string): boolean {
  const fragments = Tokenization.reverseString(arn);
  const token = fragments.length === 1 ? fragments.firstToken : undefined;
  return (
    token instanceof Reference &&
    token.displayName === 'Arn' &&
    resourceOfType(token.target, FUNCTION_TYPE) !== undefined
  );
}

/**
 * A function ARN without its qualifier.
 *
 * - A string whose fields synth can read is cut here, at synth: a literal, or a string with tokens inside its
 *   fields (`arn:${AWS::Partition}:lambda:…:function:orders-consumer:live`, as `Function.fromFunctionName` builds
 *   it): token placeholders hold no `:`, so the fields are where the colons are. Where the name field itself is a
 *   token (a parameter), it is cut at its first `:` by CloudFormation (`Fn::Select 0` of `Fn::Split`).
 * - An opaque token (a parameter, an import, another stack's attribute) is cut by CloudFormation at deploy: CDK's
 *   `Arn.split` of a token is `Fn::Select` of `Fn::Split ":"`, whose seventh field is the name alone, and
 *   `Arn.format` joins the first seven again.
 * - The `Arn` attribute of a function of this app is unqualified already and is kept as it is.
 */
export function unqualifiedFunctionArn(arn: string): string {
  if (isFunctionArnAttribute(arn)) return arn;
  if (!arn.startsWith('arn:')) {
    if (!Token.isUnresolved(arn)) return arn;
    return Arn.format(Arn.split(arn, ArnFormat.COLON_RESOURCE_NAME));
  }
  const fields = arn.split(':');
  if (fields[5] !== 'function' || fields.length < UNQUALIFIED_FIELDS) return arn;
  const name = fields[6] as string;
  if (fields.length === UNQUALIFIED_FIELDS && Token.isUnresolved(name)) {
    fields[6] = Fn.select(0, Fn.split(':', name));
  }
  return fields.slice(0, UNQUALIFIED_FIELDS).join(':');
}

/** The seventh field of a function ARN when synth can read it: the function's name. */
function readableName(unqualifiedArn: string): string | undefined {
  if (!unqualifiedArn.startsWith('arn:')) return undefined;
  const name = unqualifiedArn.split(':')[6];
  return name !== undefined && !Token.isUnresolved(name) ? name : undefined;
}

/**
 * The function whose reserved concurrency is set: the consumer itself, or the function behind an alias or a
 * version; named without a qualifier however the app named it.
 */
export function concurrencyOwnerOf(consumer: IFunction): ConcurrencyOwner {
  const inner = (consumer as { lambda?: IFunction }).lambda;
  const fn = inner !== undefined && inner !== consumer ? inner : consumer;
  const functionArn = unqualifiedFunctionArn(fn.functionArn);
  // An imported function's `functionName` is already `Fn::Select 6` of its ARN (aws-cdk-lib's
  // extractNameFromArn), the name without a qualifier; a name synth can read is given as the literal.
  const functionName =
    functionArn === fn.functionArn ? fn.functionName : (readableName(functionArn) ?? fn.functionName);
  return { function: fn, functionArn, functionName };
}
