import { type IResolvable, Stack, Token, Tokenization } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Lambda's environment is 4 KB in all, measured as the JSON of the variables (`{"KEY":"value",…}`: Lambda's
 * error quotes the string it measured), so a value that is itself JSON counts its quotes twice
 * (docs/aws-facts.md, "Lambda limits"). Synth cannot read the values CloudFormation fills in (a queue's URL, a
 * function's generated name): each stands at its longest plausible length, so the estimate errs high.
 */
export const LAMBDA_ENVIRONMENT_BYTES = 4096;

/**
 * The longest plausible resolved length of a value synth cannot read. A generated queue name is the stack name,
 * the logical id and a 12–13 character suffix: 70 covers stack names up to ~30 characters; a queue URL is
 * `https://sqs.<region>.amazonaws.com/<account>/` (about 50) and the name. A function name is at most 64, a
 * mapping's UUID 36.
 */
export const ESTIMATED_LENGTH = {
  queueUrl: 120,
  queueName: 70,
  functionName: 64,
  mappingUuid: 36,
  /** Anything else: a name (a scaler's, a budget's) or a part of one. */
  other: 64,
} as const;

/** CloudFormation's pseudo parameters inside a value synth can otherwise read (an imported queue's URL). */
const PSEUDO_PARAMETER_LENGTH: Record<string, number> = {
  'AWS::AccountId': 12,
  'AWS::Partition': 10,
  'AWS::Region': 14,
  'AWS::URLSuffix': 16,
};

/**
 * `value` where synth can read it; otherwise a stand-in of its estimated length: `whole` for a value that is one
 * token (a `Ref`, a `Fn::GetAtt`), and for a value with tokens inside, each token at its pseudo parameter's
 * longest length or at `ESTIMATED_LENGTH.other`.
 */
export function estimatedValue(scope: IConstruct, value: string, whole: number): string {
  if (!Token.isUnresolved(value)) return value;
  const fragments = Tokenization.reverseString(value);
  if (fragments.length === 1 && fragments.firstToken !== undefined) return 'x'.repeat(whole);
  const stack = Stack.of(scope);
  const standIn = (token: IResolvable): string => {
    const resolved = stack.resolve(token) as { Ref?: unknown } | undefined;
    const ref = typeof resolved?.Ref === 'string' ? resolved.Ref : undefined;
    return 'x'.repeat(
      (ref === undefined ? undefined : PSEUDO_PARAMETER_LENGTH[ref]) ?? ESTIMATED_LENGTH.other,
    );
  };
  return fragments
    .mapTokens({ mapToken: standIn })
    .join({ join: (left: unknown, right: unknown) => `${String(left)}${String(right)}` }) as string;
}

/** The bytes Lambda counts for these variables (their JSON, UTF-8). */
export function environmentBytes(variables: Record<string, string>): number {
  return Buffer.byteLength(JSON.stringify(variables), 'utf8');
}
