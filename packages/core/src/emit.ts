import type { EventData, EventLog, EventType } from './events.js';
import type { CallIdentity } from './outcome.js';

/** Appends a checked event; rejects with the sink's error when it could not be made durable. */
export async function emitChecked<T extends EventType>(log: EventLog, type: T, data: EventData<T>, call?: CallIdentity): Promise<void> {
  log.check(type, data);
  const durable = log.append(type, data, call);
  const error = await durable;
  if (error !== undefined) throw error;
}
