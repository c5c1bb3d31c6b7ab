import { createRequire } from 'node:module';

/** This package's version, read from its own package.json: the one place it is written. */
export const version: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
