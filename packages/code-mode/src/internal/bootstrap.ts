import { MAX_LISTED_CALLS } from '../output.js';

/** What the bootstrap needs to know, injected as JSON. */
export interface BootstrapConfig {
  readonly names: readonly string[];
  readonly maxArgsChars: number;
  readonly maxLogChars: number;
  readonly maxResultChars: number;
  readonly maxErrorChars: number;
  /** Calls past this many are refused in the guest: the first ones cross as a name, the rest as a count. */
  readonly maxCalls: number;
}

/** Names of the host functions, present on the guest's global object only until the bootstrap has run. */
export const HOST_LOG = '__dsh_log';
export const HOST_DONE = '__dsh_done';

/** Separates the name and the arguments of a call, and one call from the next, in the outbox text. */
export const OUTBOX_SEPARATOR = '\n';

/**
 * How the program ended, as the first argument of the `done` host function:
 * a number, so that reading it needs no guest memory.
 */
export const DoneKind = { ok: 0, notJson: 1, threw: 2, outOfMemory: 3 } as const;

/** Bytes of the ledger before the name numbers: the count of calls made, as a float64. */
export const LEDGER_HEADER_BYTES = 8;

/** Free bytes kept in the spare buffer beyond the ledger's size: room for the host's own calls into the engine. */
const RESERVE_SLACK_BYTES = 64 * 1024;

/**
 * Calls the ledger names: every accepted call, and the refused ones the
 * output may still list. Calls past that are refused and only counted.
 */
export function ledgerSlots(config: Pick<BootstrapConfig, 'maxCalls'>): number {
  return Math.max(config.maxCalls, MAX_LISTED_CALLS);
}

/** Bytes of one name number in the ledger. */
export function ledgerNameBytes(config: Pick<BootstrapConfig, 'names'>): 2 | 4 {
  return config.names.length < 0xffff ? 2 : 4;
}

/**
 * The guest-side half of the bridge, evaluated in each fresh context before
 * the program. It captures the two host functions in a closure and deletes
 * them from the global object, so the program can reach them only through
 * `console.*` and its own end. Intrinsics it relies on are captured first, so
 * a program that rewrites `JSON.stringify` or `Promise.prototype.then`
 * changes only its own view. Everything that crosses to the host is a string:
 * JSON text (so NUL and lone surrogates are escaped), capped here and checked
 * again on the host.
 *
 * A tool call does not cross at once: `tools.x(args)` appends
 * `name + "\n" + argsJson` to an outbox (JSON text never holds a raw newline,
 * and tool names are letters, digits, `_` and `-`) and returns a promise. The
 * host takes the outbox with `collect()` after each entry into the guest,
 * numbering the calls in the order they were made, as the guest does, and
 * answers each with `deliver(index, ok, text)`, which settles its promise
 * directly (`text` is the output's JSON, or a `ToolCallError`'s). Crossing
 * once per entry instead of once per call is what keeps a sub-call cheap: a
 * host function call through quickjs-emscripten costs more than the rest of
 * the round trip. A refused call past `maxCalls` is posted as its name only
 * while the output may still list it, and then only counted: an entry with
 * an empty name whose "arguments" are the count.
 *
 * The end of a run must not need guest memory, which may be exhausted: the
 * program's end is reported with a number for its kind and the count of
 * calls made before it (no text is read at the memory cap), and every call
 * also writes its name's number into a ledger, an ArrayBuffer allocated
 * before the program runs. When the outbox cannot be collected (the memory
 * cap), the host releases a spare buffer of the same size, held only by its
 * own handle, and copies the ledger out: every call the program made is then
 * known by index and name without running guest code.
 *
 * The completion value is `[accept, run, describe, deliver, collect, ledger,
 * spare]` for the host to hold: `accept` takes the compiled program,
 * `describe` turns a thrown value into JSON text (inside the guest, so its
 * getters run under the interrupt).
 */
export function bootstrapSource(config: BootstrapConfig): string {
  const slots = ledgerSlots(config);
  const nameBytes = ledgerNameBytes(config);
  const ledgerBytes = LEDGER_HEADER_BYTES + slots * nameBytes;
  return `(function (config) {
  'use strict';
  const g = globalThis;
  const hostLog = g.${HOST_LOG}, hostDone = g.${HOST_DONE};
  delete g.${HOST_LOG}; delete g.${HOST_DONE};
  const apply = Reflect.apply, defineProperty = Object.defineProperty, freeze = Object.freeze, create = Object.create;
  const stringify = JSON.stringify, parse = JSON.parse, toStr = String;
  const strSlice = String.prototype.slice, then = Promise.prototype.then, objToString = Object.prototype.toString;
  const promiseResolve = Promise.resolve.bind(Promise), promiseReject = Promise.reject.bind(Promise);
  const ErrorCtor = Error, TypeErrorCtor = TypeError, PromiseCtor = Promise, strIndexOf = String.prototype.indexOf;
  const join = Array.prototype.join, SEP = ${JSON.stringify(OUTBOX_SEPARATOR)};
  const OK = ${DoneKind.ok}, NOT_JSON = ${DoneKind.notJson}, THREW = ${DoneKind.threw}, OOM = ${DoneKind.outOfMemory};
  const LISTED = ${MAX_LISTED_CALLS}, SLOTS = ${slots};
  const slice = (s, n) => (s.length > n ? apply(strSlice, s, [0, n]) : s);
  const replacer = (key, value) => (typeof value === 'bigint' ? toStr(value) : value);
  // Allocated now, before the program can fill the memory: writing into them never allocates.
  const ledger = new ArrayBuffer(${ledgerBytes});
  const made = new Float64Array(ledger, 0, 1), nameAt = new ${nameBytes === 2 ? 'Uint16Array' : 'Uint32Array'}(ledger, ${LEDGER_HEADER_BYTES}, SLOTS);
  // The memory cap. (QuickJS throws null when it cannot even allocate that error; a program may throw null
  // too, so the host tells those apart by its memory.)
  const InternalErrorCtor = InternalError;
  const isOom = (e) => e instanceof InternalErrorCtor && e.message === 'out of memory';

  function describe(e) {
    try {
      if (e !== null && typeof e === 'object' && typeof e.message === 'string') {
        const name = typeof e.name === 'string' ? e.name : 'Error';
        const stack = typeof e.stack === 'string' ? slice(e.stack, config.maxErrorChars) : '';
        const out = { name: slice(name, 200), message: slice(e.message, config.maxErrorChars), stack };
        if (typeof e.code === 'string') out.code = slice(e.code, 200);
        return stringify(out);
      }
      return stringify({ name: 'Thrown value', message: slice(show(e), config.maxErrorChars), stack: '' });
    } catch (inner) {
      if (isOom(inner)) throw inner;
      return '{"name":"Error","message":"an error that could not be described was thrown","stack":""}';
    }
  }

  function show(value) {
    try {
      switch (typeof value) {
        case 'string': return value;
        case 'undefined': return 'undefined';
        case 'bigint': return toStr(value) + 'n';
        case 'symbol': return toStr(value);
        case 'function': return '[Function ' + (typeof value.name === 'string' && value.name !== '' ? value.name : 'anonymous') + ']';
        case 'object':
          if (value === null) return 'null';
          if (value instanceof ErrorCtor) return toStr(value.name) + ': ' + toStr(value.message);
          { const text = stringify(value, replacer); return typeof text === 'string' ? text : apply(objToString, value, []); }
        default: return toStr(value);
      }
    } catch (e) {
      if (isOom(e)) throw e;
      try { return apply(objToString, value, []); } catch (e2) { return '[unprintable]'; }
    }
  }

  class ToolCallError extends ErrorCtor {
    constructor(tool, status, code, message) {
      super(message);
      this.name = 'ToolCallError';
      this.tool = tool;
      this.status = status;
      this.code = code;
    }
  }
  freeze(ToolCallError.prototype);
  freeze(ToolCallError);
  // Calls awaiting their answer, by index. The host numbers calls in the order it collects them, as this counter does.
  const waiting = create(null);
  let nextIndex = 0;
  const toolError = (text) => {
    const e = parse(text);
    return new ToolCallError(e.tool, e.status, e.code, e.message);
  };
  function deliver(index, ok, text) {
    const entry = waiting[index];
    if (entry === undefined) return;
    delete waiting[index];
    let value;
    try {
      value = ok === true ? parse(text) : toolError(text);
    } catch (e) {
      entry.reject(e);
      return;
    }
    (ok === true ? entry.resolve : entry.reject)(value);
  }
  // The outbox: the first call in a variable (the common case of one call per entry), any more in a
  // null-prototype array-like (no inherited setters to trip), joined natively when collected.
  let outFirst = '', outMore, outCount = 0, uncounted = 0;
  function post(entry) {
    if (outCount === 1) {
      outMore = create(null);
      outMore[0] = outFirst;
    }
    if (outCount === 0) outFirst = entry;
    else outMore[outCount] = entry;
    outCount++;
  }
  function collect() {
    if (uncounted > 0) {
      post(SEP + uncounted);
      uncounted = 0;
    }
    if (outCount === 0) return '';
    let text = outFirst;
    if (outCount > 1) {
      outMore.length = outCount;
      text = apply(join, outMore, [SEP]);
    }
    outFirst = '';
    outMore = undefined;
    outCount = 0;
    return text;
  }
  const reject = (name, code, message) => promiseReject(new ToolCallError(name, 'error', code, 'tools.' + name + ': ' + message));

  function invoke(name, number, args) {
    const index = nextIndex;
    if (index >= config.maxCalls) {
      // Refused here, so a flood of calls costs the host only their count. Posted before it counts,
      // like an accepted call: a post that fails to allocate must not shift the host's numbering.
      if (index < LISTED) post(name + SEP);
      else uncounted++;
      nextIndex++;
      made[0] = nextIndex;
      if (index < SLOTS) nameAt[index] = number;
      return reject(name, 'TOO_MANY_CALLS', 'a program may make at most ' + config.maxCalls + ' tool calls');
    }
    let text;
    try {
      // Without a replacer first: much faster in the interpreter. Retried with it only for a BigInt,
      // so a throwing getter runs once.
      try {
        text = args === undefined ? '{}' : stringify(args);
      } catch (e) {
        if (!(e instanceof TypeErrorCtor) || typeof e.message !== 'string' || apply(strIndexOf, e.message, ['BigInt']) < 0) throw e;
        text = stringify(args, replacer);
      }
    } catch (e) {
      if (isOom(e)) throw e;
      let why = 'an error';
      try { why = slice(toStr(e.message), 500); } catch (e2) {}
      return reject(name, 'ARGS_NOT_JSON', 'the arguments are not JSON: ' + why);
    }
    if (typeof text !== 'string') text = 'null';
    if (text.length > config.maxArgsChars) {
      return reject(name, 'ARGS_TOO_LARGE', 'the arguments are ' + text.length + ' characters of JSON; the limit is ' + config.maxArgsChars);
    }
    // Everything that can fail to allocate comes before the call counts: a call either fully exists or not at all.
    const entry = name + SEP + text;
    let resolve, fail;
    const promise = new PromiseCtor((res, rej) => {
      resolve = res;
      fail = rej;
    });
    const pending = { resolve, reject: fail };
    waiting[index] = pending;
    post(entry);
    nextIndex++;
    made[0] = nextIndex;
    nameAt[index] = number;
    // Settled by deliver, or never: a call the host refuses or cancels after the end is not answered.
    return promise;
  }

  const tools = create(null);
  for (let i = 0; i < config.names.length; i++) {
    const name = config.names[i];
    const number = i + 1;
    const fn = (args) => invoke(name, number, args);
    defineProperty(fn, 'name', { value: name });
    tools[name] = freeze(fn);
  }
  freeze(tools);

  let remaining = config.maxLogChars, full = remaining <= 0, dropped = 0;
  const writer = (prefix) => freeze(function () {
    if (full) {
      dropped++;
      return;
    }
    let line = prefix;
    for (let i = 0; i < arguments.length; i++) line += (i === 0 ? '' : ' ') + show(arguments[i]);
    line = slice(line, remaining + 1);
    remaining -= line.length + 1;
    full = hostLog(stringify(line)) === true || remaining < 0;
  });
  const console = freeze({ log: writer(''), info: writer(''), debug: writer(''), warn: writer('[warn] '), error: writer('[error] ') });

  const lock = { writable: false, enumerable: false, configurable: false };
  defineProperty(g, 'tools', { value: tools, ...lock });
  defineProperty(g, 'console', { value: console, ...lock });
  defineProperty(g, 'ToolCallError', { value: ToolCallError, ...lock });

  let program, started = false;
  function accept(fn) {
    program = fn;
  }
  // Each end is reported with numbers only when the memory is exhausted: the host reads no string then.
  function finish(value) {
    try {
      let text;
      try {
        text = value === undefined ? 'null' : stringify(value, replacer);
      } catch (e) {
        if (isOom(e)) throw e;
        hostDone(NOT_JSON, describe(e), 0, dropped, nextIndex);
        return;
      }
      if (typeof text !== 'string') text = 'null';
      const total = text.length;
      hostDone(OK, slice(text, config.maxResultChars), total, dropped, nextIndex);
    } catch (e) {
      hostDone(OOM, '', 0, dropped, nextIndex);
    }
  }
  function failed(e) {
    if (isOom(e)) {
      hostDone(OOM, '', 0, dropped, nextIndex);
      return;
    }
    let text;
    try { text = describe(e); } catch (e2) {
      hostDone(OOM, '', 0, dropped, nextIndex);
      return;
    }
    hostDone(THREW, text, 0, dropped, nextIndex);
  }
  function run() {
    if (started) return;
    started = true;
    let pending;
    try {
      pending = typeof program === 'function' ? program() : program;
    } catch (e) {
      failed(e);
      return;
    }
    apply(then, promiseResolve(pending), [finish, failed]);
  }
  return [accept, run, describe, deliver, collect, ledger, new ArrayBuffer(${ledgerBytes + RESERVE_SLACK_BYTES})];
})(${JSON.stringify(config)})`;
}
