import {
  canonical,
  expectWire,
  type FakeReply,
  type FakeServer,
  failureReply,
  type ScriptedTurn,
  type SseFrame,
  startFakeServer,
} from './fake-http.js';

type Wire = Record<string, unknown>;

/**
 * A fake Responses API (`POST /responses`) playing `turns` in order, JSON or
 * SSE as the client asks. Every request is checked: each `function_call`
 * input item has exactly one `function_call_output` with its `call_id`, and
 * every output item served (reasoning items, call item ids) comes back
 * unchanged. `finish` may be `max_output_tokens` or `content_filter` (an
 * incomplete response).
 */
export function startOpenAIResponsesServer(turns: readonly ScriptedTurn[]): Promise<FakeServer> {
  const served: Wire[][] = [];
  return startFakeServer((request, index) => {
    expectWire(request.method === 'POST' && request.path === '/responses', `unexpected ${request.method} ${request.path}`);
    const body = request.body as Wire;
    checkInput(body.input, served);
    const turn = turns[index];
    expectWire(turn !== undefined, `no scripted turn ${index}: the client asked once too often`);
    turn.check?.(body);
    if (turn.fail !== undefined) return failureReply(turn.fail, errorBody);
    const output: Wire[] = [];
    if (turn.reasoning !== undefined) {
      output.push({
        type: 'reasoning',
        id: `rs_${index}`,
        summary: [{ type: 'summary_text', text: turn.reasoning }],
        encrypted_content: `enc-${index}`,
      });
    }
    if (turn.text !== undefined) {
      output.push({
        type: 'message',
        id: `msg_${index}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      });
    }
    (turn.calls ?? []).forEach((c, i) => {
      output.push({
        type: 'function_call',
        id: `fc_${index}_${i}`,
        call_id: c.id ?? `call_${index}_${i}`,
        name: c.name,
        arguments: c.args,
        status: 'completed',
      });
    });
    served.push(output);
    if (turn.hang) return 'hang';
    const incomplete = turn.finish === 'max_output_tokens' || turn.finish === 'content_filter';
    const response = {
      id: `resp_${index}`,
      object: 'response',
      created_at: 0,
      status: incomplete ? 'incomplete' : 'completed',
      incomplete_details: incomplete ? { reason: turn.finish } : null,
      error: null,
      model: body.model,
      output,
      usage: {
        input_tokens: JSON.stringify(body.input).length,
        output_tokens: 7,
        total_tokens: 0,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: turn.reasoning === undefined ? 0 : 3 },
      },
    };
    return body.stream === true ? streamed(response) : { json: response };
  }, errorBody);
}

function checkInput(input: unknown, served: readonly Wire[][]): void {
  expectWire(Array.isArray(input) && input.length > 0, 'input must be a non-empty array of items');
  const items = input as Wire[];
  const calls = items.filter((i) => i.type === 'function_call').map((i) => i.call_id);
  const outputs = items.filter((i) => i.type === 'function_call_output');
  for (const id of calls) {
    const found = outputs.filter((o) => o.call_id === id);
    expectWire(found.length === 1, `function_call ${String(id)} needs exactly one function_call_output`);
    const output = found[0]?.output;
    const partsOk =
      Array.isArray(output) &&
      output.length > 0 &&
      output.every((p: Wire) => ['input_text', 'input_image', 'input_file'].includes(String(p.type)));
    expectWire((typeof output === 'string' && output !== '') || partsOk, `function_call_output ${String(id)} needs output`);
  }
  for (const o of outputs) expectWire(calls.includes(o.call_id), `function_call_output ${String(o.call_id)} answers no function_call`);
  // Each served output item comes back unchanged, in order.
  const text = items.map((i) => canonical(i));
  for (const output of served) {
    for (const item of output) {
      expectWire(text.includes(canonical(item)), `the served item ${String(item.id)} did not come back unchanged`);
    }
  }
}

function streamed(response: Wire): FakeReply {
  let sequence = 0;
  const event = (type: string, data: Wire): SseFrame => ({ event: type, data: { type, sequence_number: sequence++, ...data } });
  const frames: SseFrame[] = [event('response.created', { response: { ...response, status: 'in_progress', output: [] } })];
  (response.output as Wire[]).forEach((item, output_index) => {
    frames.push(event('response.output_item.added', { output_index, item }));
    if (item.type === 'reasoning') {
      ((item.summary ?? []) as Wire[]).forEach((part, summary_index) => {
        frames.push(event('response.reasoning_summary_text.delta', { item_id: item.id, output_index, summary_index, delta: part.text }));
      });
    }
    if (item.type === 'message') {
      const text = ((item.content as Wire[])[0]?.text as string) ?? '';
      for (const delta of text.match(/\S+\s*/g) ?? []) {
        frames.push(event('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] }));
      }
    }
    frames.push(event('response.output_item.done', { output_index, item }));
  });
  frames.push(event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response }));
  return { sse: frames };
}

/** OpenAI's error body. */
function errorBody(message: string, type = 'invalid_request_error'): unknown {
  return { error: { message, type, param: null, code: null } };
}
