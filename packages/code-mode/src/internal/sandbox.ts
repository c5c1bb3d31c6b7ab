import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as releaseSyncModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { type WasmMemory, type WasmModule, wasm } from './wasm.js';

// The package's types describe its CommonJS build (default = module.exports); Node loads its ES build,
// whose default export is the variant itself. Accept either shape.
const imported = (releaseSyncModule as unknown as { default: QuickJSSyncVariant | { default: QuickJSSyncVariant } }).default;
const releaseSync: QuickJSSyncVariant = 'type' in imported ? imported : imported.default;

const PAGE = 64 * 1024;
/** The release build's initial memory (16 MiB): its data segments need at least this much. */
const INITIAL_PAGES = 256;
/** QuickJS's own stack limit. Well under Node's native stack, so an overflow is a guest error, not a host crash. */
export const MAX_STACK_BYTES = 256 * 1024;

let compiled: Promise<WasmModule> | undefined;

/** The QuickJS WebAssembly module, compiled once per process and shared by every run (instances are not). */
function wasmModule(): Promise<WasmModule> {
  if (compiled === undefined) {
    const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
    compiled = readFile(path).then((bytes) => wasm.compile(bytes));
    // A failed load (a missing file) is retried by the next run rather than cached forever.
    compiled.catch(() => {
      compiled = undefined;
    });
  }
  return compiled;
}

/** One fresh QuickJS instance: its own WebAssembly memory, runtime and context. */
export interface Sandbox {
  readonly module: QuickJSWASMModule;
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;
  readonly memory: WasmMemory;
  /** The memory cap in bytes, a whole number of pages. */
  readonly memoryLimitBytes: number;
  /** What the emscripten runtime printed (an abort message, say), newest last. */
  readonly printed: string[];
}

/**
 * Creates a fresh instance with a fixed-size memory. The memory is imported
 * with a `maximum`, so the guest cannot grow it past `memoryLimitBytes`
 * whatever QuickJS's own accounting says (its memory limit alone does not
 * bound total memory in this build). Nothing of the host is inside: QuickJS
 * without its `std`/`os` modules has no I/O, timers or module loader.
 * The caller sets the interrupt handler before running anything in it.
 */
export async function createSandbox(memoryLimitBytes: number): Promise<Sandbox> {
  const pages = Math.max(INITIAL_PAGES + 1, Math.ceil(memoryLimitBytes / PAGE));
  const memory = new wasm.Memory({ initial: INITIAL_PAGES, maximum: pages });
  const printed: string[] = [];
  const record = (text: unknown): void => {
    printed.push(String(text).slice(0, 1000));
    if (printed.length > 20) printed.shift();
  };
  // Emscripten takes print hooks from the module object; they are not in the typed options.
  const emscriptenModule = { print: record, printErr: record } as object;
  const module = await newQuickJSWASMModuleFromVariant(
    // The loader's option types name WebAssembly classes this repository's libs do not declare.
    newVariant(releaseSync, { wasmModule: (await wasmModule()) as never, wasmMemory: memory as never, emscriptenModule }),
  );
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  // Also tell QuickJS, which then fails some large allocations early with a catchable error.
  runtime.setMemoryLimit(pages * PAGE);
  const context = runtime.newContext();
  return { module, runtime, context, memory, memoryLimitBytes: pages * PAGE, printed };
}

/** True when the instance's memory has grown to its cap. */
export function memoryExhausted(sandbox: Sandbox): boolean {
  return sandbox.memory.buffer.byteLength + 4 * PAGE >= sandbox.memoryLimitBytes;
}
