import type { MotoServer } from './moto-server.ts';

/** moto's default account: every ARN the emulator hands out carries it. */
export const MOTO_ACCOUNT = '123456789012';

/**
 * Creates a Lambda execution role in moto (CreateFunction needs one that exists). @aws-sdk/client-iam is not a
 * dependency: moto's IAM speaks the query protocol and checks no signature, so one form POST does it.
 */
export async function createLambdaRole(server: MotoServer, name: string): Promise<string> {
  const body = new URLSearchParams({
    Action: 'CreateRole',
    Version: '2010-05-08',
    RoleName: name,
    AssumeRolePolicyDocument: JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
      ],
    }),
  });
  const response = await fetch(`${server.endpoint}/`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization:
        'AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0',
    },
    body,
  });
  if (!response.ok) throw new Error(`CreateRole failed: ${response.status} ${await response.text()}`);
  return `arn:aws:iam::${MOTO_ACCOUNT}:role/${name}`;
}
