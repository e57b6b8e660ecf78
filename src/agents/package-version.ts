import { readFileSync } from 'node:fs';

/** Ivory's version, told to MCP hosts; src/agents/ and dist/agents/ both sit two levels below package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
