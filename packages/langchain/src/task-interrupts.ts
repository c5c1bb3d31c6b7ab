import { getConfig, interrupt } from '@langchain/langgraph';
import type { PendingQuestion } from './call-run.js';
import { type DshInterruptValue, interruptValue, replyOf } from './interrupt-value.js';

/** How many LangGraph tasks' questions the bridge remembers (a task can re-run until its node completes). */
const rememberedTasks = 10_000;

/** One question a task has put through `interrupt()`, at the position LangGraph counts it. */
interface Entry {
  readonly question: PendingQuestion;
  readonly value: DshInterruptValue;
}

/** What one run of a task has done with LangGraph's interrupt counter. */
interface Execution {
  /** How many entries this run has put through `interrupt()` so far. */
  replayed: number;
  /** The GraphInterrupt that ended this run: no later `interrupt()` may run in it. */
  stopped?: unknown;
}

/**
 * Binds LangGraph's resume values to call ids. LangGraph hands a task's resume
 * values to its `interrupt()` calls by position (its counter restarts at every
 * run of the task), and the `v1` tool node runs every call of an AI message in
 * one task. A call that settled stops asking, so the next call would take its
 * answer. Instead, each task keeps the order in which its calls were asked, and
 * every run of the task replays that order: entry k is always the k-th
 * `interrupt()`, its value goes to the call it belongs to (or is dropped, once
 * that call has its answer), and the first entry without a value surfaces.
 */
export class TaskInterrupts {
  readonly #tasks = new Map<string, Entry[]>();
  /** Keyed by the object LangGraph keeps the counter on: one per run of a task. */
  readonly #executions = new WeakMap<object, Execution>();

  /**
   * Answers `question` from the graph's resume value, answering the task's
   * earlier questions on the way; throws GraphInterrupt (LangGraph's way to
   * stop the run) when a question has no value yet.
   */
  ask(question: PendingQuestion): void {
    const where = currentTask();
    if (where === undefined) {
      // Not inside a graph task: interrupt() throws LangGraph's own error for that.
      question.answer(replyOf(interrupt(interruptValue(question.request))));
      return;
    }
    const entries = this.#entriesOf(where.task);
    let execution = this.#executions.get(where.counter);
    if (execution === undefined) {
      execution = { replayed: 0 };
      this.#executions.set(where.counter, execution);
    }
    let at = entries.findIndex((entry) => entry.question === question);
    if (at < 0) at = entries.push({ question, value: interruptValue(question.request) }) - 1;
    if (execution.stopped !== undefined) throw execution.stopped;
    while (execution.replayed <= at) {
      const entry = entries[execution.replayed] as Entry;
      let resume: unknown;
      try {
        resume = interrupt(entry.value);
      } catch (error) {
        execution.stopped = error;
        throw error;
      }
      execution.replayed += 1;
      // A question answered already (its call went on, or settled) ignores a second answer.
      entry.question.answer(replyOf(resume));
    }
  }

  #entriesOf(task: string): Entry[] {
    let entries = this.#tasks.get(task);
    if (entries === undefined) {
      entries = [];
      this.#tasks.set(task, entries);
      if (this.#tasks.size > rememberedTasks) {
        const oldest = this.#tasks.keys().next().value;
        if (oldest !== undefined) this.#tasks.delete(oldest);
      }
    }
    return entries;
  }
}

/**
 * The running task's key (thread and checkpoint namespace, the same on every
 * run of the task) and the object its interrupt counter lives on (new on
 * every run): the scratchpad `interrupt()` itself reads, else the configurable.
 */
function currentTask(): { task: string; counter: object } | undefined {
  const configurable = getConfig()?.configurable as Record<string, unknown> | undefined;
  const ns = configurable?.checkpoint_ns;
  if (configurable === undefined || typeof ns !== 'string') return undefined;
  const scratchpad = configurable.__pregel_scratchpad;
  const counter = typeof scratchpad === 'object' && scratchpad !== null ? scratchpad : configurable;
  return { task: `${String(configurable.thread_id)}\u0000${ns}`, counter };
}
