import { Annotations, Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Checks of the props a scaler and a budget share (names, the alarm e-mail): each invalid value is a problem
 * naming the value and the rule, and is replaced by its fallback so synth runs on and lists every problem at once.
 */

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
const EMAIL_PATTERN = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** A concrete name outside 1–`max` characters of A–Z a–z 0–9 - _ is a problem, and the fallback is used. */
export function checkedName(
  field: string,
  value: string,
  max: number,
  fallback: string,
  problems: string[],
): string {
  if (Token.isUnresolved(value) || (NAME_PATTERN.test(value) && value.length <= max)) return value;
  problems.push(`${field} = '${value}': must be 1–${max} characters of A–Z a–z 0–9 - _`);
  return fallback;
}

/**
 * The e-mail to subscribe to the alarm topic the construct creates: a malformed address is a problem (and left
 * out), and so is an address given with a topic of the app's own.
 */
export function checkedAlarmEmail(
  props: { readonly alarmEmail?: string; readonly alarmTopic?: unknown },
  creator: string,
  problems: string[],
): string | undefined {
  let alarmEmail = props.alarmEmail;
  if (alarmEmail !== undefined && !Token.isUnresolved(alarmEmail) && !EMAIL_PATTERN.test(alarmEmail)) {
    problems.push(`alarmEmail = '${alarmEmail}': must be an e-mail address such as ops@example.com`);
    alarmEmail = undefined;
  }
  if (props.alarmEmail !== undefined && props.alarmTopic !== undefined) {
    problems.push(
      `alarmEmail is given with alarmTopic: subscribe the address to your own topic, or leave alarmTopic out so the ${creator} creates one`,
    );
  }
  return alarmEmail;
}

/**
 * Whether to encrypt the alarm topic the construct creates (`alarmTopicEncryption`): the app's own `alarmTopic`
 * is encrypted as the app made it, so the two together are a problem (and the flag is dropped).
 */
export function checkedAlarmTopicEncryption(
  props: { readonly alarmTopicEncryption?: boolean; readonly alarmTopic?: unknown },
  creator: string,
  problems: string[],
): boolean {
  const encryption = props.alarmTopicEncryption;
  if (encryption === undefined) return false;
  if (typeof encryption !== 'boolean') {
    problems.push(`alarmTopicEncryption = ${String(encryption)}: must be true or false`);
    return false;
  }
  if (encryption && props.alarmTopic !== undefined) {
    problems.push(
      `alarmTopicEncryption is given with alarmTopic: encrypt your own topic as you made it, or leave alarmTopic out so the ${creator} creates an encrypted one`,
    );
    return false;
  }
  return encryption;
}

/** A warning the app can acknowledge by id, where this aws-cdk-lib supports it. */
export function addWarning(scope: IConstruct, id: string, message: string): void {
  const annotations = Annotations.of(scope) as Annotations & {
    addWarningV2?: (id: string, message: string) => void;
  };
  if (typeof annotations.addWarningV2 === 'function') annotations.addWarningV2(id, message);
  else annotations.addWarning(message);
}
