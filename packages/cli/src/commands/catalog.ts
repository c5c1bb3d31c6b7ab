import { catalogMarkdown, catalogOf } from '@deepseek-ai/dsh-core';
import { loadConfig } from '../config.js';
import { ExitCode } from '../exit-codes.js';
import { buildHost } from '../host-factory.js';
import type { CliIo } from '../io.js';

/** Options of `dsh catalog`. */
export interface CatalogOptions {
  readonly config?: string;
  readonly json: boolean;
}

/** `dsh catalog`: the tool schemas and event types of the configured plugins, generated from the code. */
export async function runCatalog(io: CliIo, options: CatalogOptions): Promise<ExitCode> {
  const loaded = loadConfig(io.cwd, options.config);
  const { host } = await buildHost({ workspace: loaded.workspace, config: loaded.config, configSource: loaded.file ?? 'defaults' });
  const catalog = catalogOf(host);
  await host.close();
  io.stdout.write(options.json ? `${JSON.stringify(catalog, null, 2)}\n` : catalogMarkdown(catalog));
  return ExitCode.OK;
}
