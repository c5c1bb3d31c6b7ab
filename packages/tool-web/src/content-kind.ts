/** What a response body is, judged by its `Content-Type` (and by its bytes when that says nothing). */
export type ContentKind = 'html' | 'xml' | 'text' | 'binary' | 'unknown';

const textTypes = new Set([
  'application/json',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-ndjson',
  'application/x-www-form-urlencoded',
]);

/** The media type of a `Content-Type` header, lower case, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * The kind of a body by its media type. `unknown` (no type, or
 * `application/octet-stream`, which servers use for anything) means the
 * bytes decide.
 */
export function contentKind(contentType: string | undefined): ContentKind {
  const type = mediaType(contentType);
  if (type === '' || type === 'application/octet-stream' || type === 'application/unknown') return 'unknown';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/xml' || type === 'application/xml' || type.endsWith('+xml')) return 'xml';
  if (type.startsWith('text/') || type.endsWith('+json') || textTypes.has(type)) return 'text';
  return 'binary';
}

/** For a body of unknown type that is not binary: HTML if it starts like HTML, else text. */
export function sniffTextKind(text: string): 'html' | 'text' {
  return /^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text.slice(0, 1024)) ? 'html' : 'text';
}
