import type { Step, StepCall } from '../step.js';

let counter = 0;

/** A call as the model would send it; the id is unique within the process unless given. */
export function callOf(name: string, args: Readonly<Record<string, unknown>> | string = {}, id?: string): StepCall {
  counter += 1;
  return { id: id ?? `call-${counter}`, name, args };
}

/** A step made of the given calls. */
export function stepOf(...calls: StepCall[]): Step {
  return { calls };
}
