import { canonical, expectWire, type FakeReply, type FakeServer, failureReply, type ScriptedTurn, startFakeServer } from './fake-http.js';

type Wire = Record<string, unknown>;

/**
 * A fake Gemini API (`POST /v1beta/models/<model>:generateContent`, or `/v1/…` as @google/genai 3 sends it by default, and
 * `:streamGenerateContent?alt=sse`) playing `turns` in order. Calls carry an
 * id only when the script gives one, as the API may omit them; reasoning is a
 * thought part and the first call (or the text) carries a `thoughtSignature`.
 * Every request is checked: each `functionCall` is answered once by a
 * `functionResponse` (by id, or by name in order when it had none) at the head
 * of the next user content, and the served model content comes back unchanged.
 */
export function startGeminiServer(turns: readonly ScriptedTurn[]): Promise<FakeServer> {
  const served: Wire[] = [];
  return startFakeServer((request, index) => {
    const match = /^\/v1(?:beta)?\/models\/([^:]+):(generateContent|streamGenerateContent\?alt=sse)$/.exec(request.path);
    expectWire(request.method === 'POST' && match !== null, `unexpected ${request.method} ${request.path}`);
    const body = request.body as Wire;
    checkContents(body.contents, served);
    const turn = turns[index];
    expectWire(turn !== undefined, `no scripted turn ${index}: the client asked once too often`);
    turn.check?.(body);
    if (turn.fail !== undefined) return failureReply(turn.fail, errorBody);
    const parts: Wire[] = [];
    if (turn.reasoning !== undefined) parts.push({ text: turn.reasoning, thought: true });
    if (turn.text !== undefined) parts.push({ text: turn.text });
    for (const c of turn.calls ?? []) {
      parts.push({ functionCall: { ...(c.id === undefined ? {} : { id: c.id }), name: c.name, args: argsOf(c.args) } });
    }
    const signed = parts.find((p) => p.functionCall !== undefined) ?? parts.find((p) => p.thought === undefined);
    if (signed !== undefined && turn.reasoning !== undefined) signed.thoughtSignature = `sig-${index}`;
    const content = { role: 'model', parts };
    served.push(content);
    if (turn.hang) return 'hang';
    const finishReason = turn.finish ?? 'STOP';
    const usageMetadata = { promptTokenCount: JSON.stringify(body.contents).length, candidatesTokenCount: 7, totalTokenCount: 0 };
    const model = match?.[1];
    if (match?.[2] === 'generateContent') {
      return { json: { candidates: [{ content, finishReason, index: 0 }], usageMetadata, modelVersion: model } };
    }
    return streamed(content, finishReason, usageMetadata, model);
  }, errorBody);
}

function argsOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Not JSON: served as data the tool's schema will refuse.
  }
  return { malformed: args };
}

function checkContents(contents: unknown, served: readonly Wire[]): void {
  expectWire(Array.isArray(contents) && contents.length > 0, 'contents must be a non-empty array');
  const list = contents as Wire[];
  let model = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i] as Wire;
    const parts = (c.parts ?? []) as Wire[];
    expectWire(parts.length > 0, `contents.${i}: parts must not be empty`);
    if (c.role !== 'model') {
      expectWire(c.role === 'user', `contents.${i}: role must be user or model`);
      continue;
    }
    const turn = served[model];
    model += 1;
    if (turn !== undefined) expectWire(canonical(c) === canonical(turn), `contents.${i}: the model content did not come back unchanged`);
    const calls = parts.flatMap((p) => (p.functionCall === undefined ? [] : [p.functionCall as Wire]));
    if (calls.length === 0) continue;
    const next = list[i + 1];
    expectWire(next?.role === 'user', `contents.${i}: function calls need a user content with their responses next`);
    const answers = ((next.parts ?? []) as Wire[]).slice(0, calls.length).map((p) => p.functionResponse as Wire | undefined);
    calls.forEach((call, k) => {
      const answer = answers[k];
      expectWire(answer !== undefined, `contents.${i + 1}: call ${k} (${String(call.name)}) has no functionResponse`);
      expectWire(answer.name === call.name && answer.id === call.id, `contents.${i + 1}: functionResponse ${k} does not match its call`);
      const response = answer.response as Wire | undefined;
      expectWire(typeof response?.output === 'string' || typeof response?.error === 'string', `contents.${i + 1}: response ${k} is empty`);
    });
  }
}

function streamed(content: Wire, finishReason: string, usageMetadata: Wire, model: string | undefined): FakeReply {
  const chunk = (parts: Wire[], last = false): { data: unknown } => ({
    data: {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason } : {}) }],
      modelVersion: model,
      ...(last ? { usageMetadata } : {}),
    },
  });
  const frames: { data: unknown }[] = [];
  for (const part of content.parts as Wire[]) {
    if (typeof part.text === 'string' && part.thought === undefined && part.thoughtSignature === undefined) {
      for (const word of part.text.match(/\S+\s*/g) ?? []) frames.push(chunk([{ text: word }]));
    } else {
      frames.push(chunk([part]));
    }
  }
  frames.push(chunk([], true));
  return { sse: frames };
}

/** Google's error body (`status` is the RPC code's name). */
function errorBody(message: string, type = 'INVALID_ARGUMENT', status = 400): unknown {
  return { error: { code: status, message, status: type } };
}
