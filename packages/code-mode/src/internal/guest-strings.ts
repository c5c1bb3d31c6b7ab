import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';

/**
 * The parts of a quickjs-emscripten 0.32 context that the fast path uses:
 * not in its public types, so each is checked before it is trusted.
 */
interface ContextInternals {
  readonly module: {
    readonly HEAPU8: Uint8Array;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
  };
  readonly ffi: { QTS_NewString(context: number, chars: number): number };
  readonly ctx: { readonly value: number };
  readonly memory: { heapValueHandle(pointer: number): QuickJSHandle };
}

const encoder = new TextEncoder();

/** Makes a guest string from host text that holds no NUL character (JSON text, say). */
export type GuestStringMaker = (text: string) => QuickJSHandle;

/**
 * The fastest way this context offers to make guest strings. The library's
 * `newString` encodes UTF-8 in a JavaScript loop (about 30% of a sub-call's
 * guest time for a 4 KB answer); this writes the bytes into the instance's
 * memory with `TextEncoder.encodeInto` and hands them to QuickJS, which copies
 * them into its own string. Falls back to `newString` when the internals are
 * not what this version of the library has.
 */
export function guestStringMaker(context: QuickJSContext): GuestStringMaker {
  const internals = context as unknown as Partial<ContextInternals>;
  const { module, ffi, ctx, memory } = internals;
  const usable =
    typeof module?._malloc === 'function' &&
    typeof module._free === 'function' &&
    module.HEAPU8 instanceof Uint8Array &&
    typeof ffi?.QTS_NewString === 'function' &&
    typeof ctx?.value === 'number' &&
    typeof memory?.heapValueHandle === 'function';
  if (!usable) return (text) => context.newString(text);
  const heap = module as ContextInternals['module'];
  const newString = (ffi as ContextInternals['ffi']).QTS_NewString;
  const handleOf = (memory as ContextInternals['memory']).heapValueHandle.bind(memory);
  const contextPointer = (ctx as ContextInternals['ctx']).value;
  return (text) => {
    const bytes = Buffer.byteLength(text, 'utf8');
    const pointer = heap._malloc(bytes + 1);
    // QuickJS reports its own allocation failures as exceptions; this one is the host's, with the same words.
    if (pointer === 0) throw new Error('out of memory');
    try {
      // Read the view after the allocation: growing the memory replaces it.
      const view = heap.HEAPU8.subarray(pointer, pointer + bytes + 1);
      const { written } = encoder.encodeInto(text, view);
      view[written] = 0;
      return handleOf(newString(contextPointer, pointer));
    } finally {
      heap._free(pointer);
    }
  };
}
