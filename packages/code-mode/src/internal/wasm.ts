/**
 * The few WebAssembly globals the sandbox uses, typed here: the repository's
 * TypeScript libs (ES2023 with Node 20's types) do not declare them.
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** A compiled module; opaque to us, handed to the QuickJS loader as is. */
export type WasmModule = object;

interface WasmGlobal {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
}

/** `globalThis.WebAssembly`, which every Node version this package supports provides. */
export const wasm: WasmGlobal = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;
