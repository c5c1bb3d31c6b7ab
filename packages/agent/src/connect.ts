/**
 * Builds a {@link Model} from plain settings (provider, model, base URL, API
 * key), loading the provider's official SDK on demand: what a command such
 * as `dsh run` needs, and nothing the main entry has to import.
 *
 * @packageDocumentation
 */
import { z } from '@deepseek-ai/dsh-core';
import { anthropicModel } from './adapters/anthropic.js';
import { checkAdapterOptions } from './adapters/check-options.js';
import { geminiModel } from './adapters/gemini.js';
import { openaiChatModel } from './adapters/openai-chat.js';
import { openaiResponsesModel } from './adapters/openai-responses.js';
import { AgentError, AgentErrorCode } from './errors.js';
import type { Model } from './model.js';

/** The providers `connectModel` knows. `deepseek` is Chat Completions on DeepSeek's API. */
export type Provider = 'deepseek' | 'openai' | 'openai-responses' | 'anthropic' | 'gemini';

/** Per provider: the SDK it loads, where its key is read from, its default base URL and model. */
export const providers: Readonly<
  Record<Provider, { readonly sdk: string; readonly keyEnv: readonly string[]; readonly baseURL?: string; readonly model?: string }>
> = {
  deepseek: { sdk: 'openai', keyEnv: ['DEEPSEEK_API_KEY'], baseURL: 'https://api.deepseek.com', model: 'deepseek-v4-flash' },
  openai: { sdk: 'openai', keyEnv: ['OPENAI_API_KEY'] },
  'openai-responses': { sdk: 'openai', keyEnv: ['OPENAI_API_KEY'] },
  anthropic: { sdk: '@anthropic-ai/sdk', keyEnv: ['ANTHROPIC_API_KEY'] },
  gemini: { sdk: '@google/genai', keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
};

/** Options of {@link connectModel}. */
export interface ConnectOptions {
  /** `deepseek` by default. */
  readonly provider?: Provider;
  /** The model name; required except for `deepseek` (`deepseek-v4-flash`). */
  readonly model?: string;
  /** The API's base URL; the provider's own by default. */
  readonly baseURL?: string;
  /** The API key; read from the provider's variable in `env` when absent (see {@link providers}). */
  readonly apiKey?: string;
  /** Where keys are read from: `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Use the streaming API. */
  readonly stream?: boolean;
  /** The output token limit of each turn. */
  readonly maxTokens?: number;
  /**
   * @deprecated Ignored: the adapters turn the SDK's own retries off on each
   * request, and `runAgent`'s `retry` option retries instead (with an
   * `agent/model-error` event per failed attempt).
   */
  readonly maxRetries?: number;
}

const schema = z.strictObject({
  provider: z.enum(['deepseek', 'openai', 'openai-responses', 'anthropic', 'gemini']).optional(),
  model: z.string().min(1).optional(),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  env: z.record(z.string(), z.string().optional()).optional(),
  stream: z.boolean().optional(),
  maxTokens: z.number().int().positive().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
});

/**
 * Builds the provider's official client and the matching adapter. Throws
 * `INVALID_OPTIONS`, `AGENT_API_KEY_MISSING` (naming the variable to set) or
 * `AGENT_SDK_MISSING` (naming the package to install).
 */
export async function connectModel(options: ConnectOptions = {}): Promise<Model> {
  checkAdapterOptions('connectModel', schema, options);
  const provider = options.provider ?? 'deepseek';
  const info = providers[provider];
  const model = options.model ?? info.model;
  if (model === undefined) throw new AgentError(AgentErrorCode.INVALID_OPTIONS, `connectModel: model: required for provider "${provider}"`);
  const env = options.env ?? process.env;
  const apiKey = options.apiKey ?? info.keyEnv.map((name) => env[name]).find((v) => v !== undefined && v !== '');
  if (apiKey === undefined) {
    throw new AgentError(AgentErrorCode.API_KEY_MISSING, `connectModel: no API key for "${provider}": set ${info.keyEnv.join(' or ')}`);
  }
  const baseURL = options.baseURL ?? info.baseURL;
  const shared = {
    model,
    ...(options.stream === undefined ? {} : { stream: options.stream }),
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
  };
  // runAgent retries; the client's own retries would multiply its attempts.
  const retries = { maxRetries: 0 };
  const where = baseURL === undefined ? {} : { baseURL };
  switch (provider) {
    case 'deepseek':
    case 'openai':
    case 'openai-responses': {
      const { default: OpenAI } = await load(() => import('openai'), info.sdk);
      const client = new OpenAI({ apiKey, ...where, ...retries });
      if (provider === 'openai-responses') return openaiResponsesModel({ client, ...shared });
      // DeepSeek's API reads text only: images and files go as placeholders.
      return openaiChatModel({ client, ...shared, ...(provider === 'deepseek' ? { images: false, files: false } : {}) });
    }
    case 'anthropic': {
      const { default: Anthropic } = await load(() => import('@anthropic-ai/sdk'), info.sdk);
      return anthropicModel({ client: new Anthropic({ apiKey, ...where, ...retries }), ...shared });
    }
    case 'gemini': {
      const { GoogleGenAI } = await load(() => import('@google/genai'), info.sdk);
      // The genai client retries only when configured to; the adapter sets one attempt per request anyway.
      const client = new GoogleGenAI({ apiKey, ...(baseURL === undefined ? {} : { httpOptions: { baseUrl: baseURL } }) });
      return geminiModel({ client, ...shared });
    }
  }
}

async function load<T>(importer: () => Promise<T>, sdk: string): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw new AgentError(AgentErrorCode.SDK_MISSING, `connectModel: the provider SDK "${sdk}" is not installed: npm install ${sdk}`, {
      cause: error,
    });
  }
}
