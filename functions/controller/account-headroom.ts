import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  type LambdaClient,
} from '@aws-sdk/client-lambda';

/**
 * `PutFunctionConcurrency` must leave the account's unreserved concurrency at or above a floor: documented 100,
 * but accounts have reported 50 and 10, so the number is read from the error itself
 * (docs/aws-facts.md, "Reserved concurrency"). The message: "Specified ReservedConcurrentExecutions for function
 * decreases account's UnreservedConcurrentExecution below its minimum value of [100]."
 */
export function parseUnreservedFloor(message: string | undefined): number | undefined {
  const match = /UnreservedConcurrentExecution\w*\s+below its minimum value of \[(\d+)\]/i.exec(
    message ?? '',
  );
  return match ? Number(match[1]) : undefined;
}

/**
 * The most this function may reserve: what it holds now plus the account's unreserved pool above the floor.
 * Worked example: 1,000 in the account, 850 reserved by others, 20 by this function → unreserved 130; floor
 * 100 → this function may hold 20 + 130 − 100 = 50.
 */
export function maxReservableFor(
  unreserved: number | undefined,
  currentlyReserved: number | undefined,
  floor: number,
): number | undefined {
  if (unreserved === undefined || !Number.isFinite(unreserved)) return undefined;
  return Math.floor((currentlyReserved ?? 0) + unreserved - floor);
}

/**
 * Asks Lambda for the headroom. `GetAccountSettings` does not answer everywhere (moto does not implement it:
 * the SDK sees an HTML 404), so any failure is "unknown", never a number made up.
 */
export async function readMaxReservable(
  lambda: LambdaClient,
  functionName: string,
  floor: number,
): Promise<number | undefined> {
  try {
    const [settings, concurrency] = await Promise.all([
      lambda.send(new GetAccountSettingsCommand({})),
      lambda.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName })),
    ]);
    return maxReservableFor(
      settings.AccountLimit?.UnreservedConcurrentExecutions,
      concurrency.ReservedConcurrentExecutions,
      floor,
    );
  } catch {
    return undefined;
  }
}
