// Reading back the position an input transport recorded in a checkpoint (the JSON object it passed to
// push/pushChanges). A position of another shape (a checkpoint of an older version) reads as none:
// the transport starts from the beginning, as it did before it kept one.
import { isObject, type JsonValue } from '../../model/json.js';

const memberOf = (resume: JsonValue | undefined, key: string): unknown => (isObject(resume) ? resume[key] : undefined);

/** A whole, non-negative number member of the position, if it has one. */
export function positionCount(resume: JsonValue | undefined, key: string): number | undefined {
  const v = memberOf(resume, key);
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** Whether the position says the input was read to its end (read-once sources: url, postgres). */
export const positionDone = (resume: JsonValue | undefined): boolean => memberOf(resume, 'done') === true;
