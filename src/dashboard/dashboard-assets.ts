import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The dashboard's one stylesheet and one script: plain files next to this
 * module (copied to dist/ by scripts/copy-assets.mjs), read once at start.
 * Their URL carries a hash of both, so a browser may keep them for good.
 */
export interface DashboardAssets {
  readonly version: string;
  readonly files: ReadonlyMap<string, { readonly body: string; readonly type: string }>;
}

export function loadDashboardAssets(): DashboardAssets {
  const read = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
  const script = read('dashboard.js');
  const style = read('dashboard.css');
  return {
    version: createHash('sha256').update(script).update(style).digest('hex').slice(0, 12),
    files: new Map([
      ['dashboard.js', { body: script, type: 'text/javascript; charset=utf-8' }],
      ['dashboard.css', { body: style, type: 'text/css; charset=utf-8' }],
    ]),
  };
}
