import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { plainView } from './internal/plain-view.js';

/** A compiled JSON Schema check: `undefined` when the value passes, else the problems (path: message). */
export type JsonSchemaCheck = (value: unknown) => string[] | undefined;

/**
 * Compiles servers' JSON Schemas with ajv: draft 2020-12 (MCP's default
 * dialect) unless `$schema` names an older draft, which gets ajv's draft-07
 * engine. Formats are not checked (the server checks its own). Schemas are
 * not kept by `$id`, so a server cannot clash with another's ids.
 */
export class JsonSchemaCompiler {
  readonly #modern = new Ajv2020({ strict: false, validateFormats: false, addUsedSchema: false, allErrors: true });
  readonly #draft7 = new Ajv({ strict: false, validateFormats: false, addUsedSchema: false, allErrors: true });

  /** Compiles a schema; throws with ajv's message when it cannot. */
  compile(schema: Readonly<Record<string, unknown>>): JsonSchemaCheck {
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    const { $schema: _dropped, ...rest } = schema;
    const engine = /draft-0[4-7]/.test(dialect) ? this.#draft7 : this.#modern;
    const validate: ValidateFunction = engine.compile(rest);
    return (value) => {
      if (validate(plainView(value))) return undefined;
      return (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath === '' ? '(root)' : e.instancePath.slice(1).replaceAll('/', '.')}: ${e.message ?? 'invalid'}`);
    };
  }
}
