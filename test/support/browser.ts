import { mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import jsQRModule from 'jsqr';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import sharp from 'sharp';

/** Debian's Chromium (`.ci/run` installs it when absent); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const RESULTS_DIR = path.resolve(import.meta.dirname, '../../test-results');

export async function launchChromium(): Promise<Browser> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * A page in a fresh context that records what a strict page must never do:
 * CSP violations and console errors, and requests to another origin.
 */
export interface WatchedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly problems: string[];
  readonly foreignRequests: string[];
}

export async function openPage(browser: Browser, origin: string, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  const foreignRequests: string[] = [];
  page.on('console', (message) => {
    // The 404 page's own document status is logged by Chromium as an error: that one is expected.
    if (message.type() === 'error' && !/status of 404/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:')) foreignRequests.push(url);
  });
  return { context, page, problems, foreignRequests };
}

/** axe-core in the page (evaluated through the debugging protocol, which the page's CSP does not govern). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  // A string, not a function: this project compiles without the DOM library.
  const violations = await page.evaluate<{ id: string; impact: string | null; nodes: string[] }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact || null, nodes: v.nodes.map((n) => n.html) })))`,
  );
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.nodes.join(' | ')}`);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(RESULTS_DIR, `payment-page-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return path.basename(file);
}

/** jsqr is CommonJS whose types declare an ES default: under NodeNext the import is the function itself. */
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;

/** Decodes the QR code shown by `selector`: a screenshot of the element, to RGBA, through jsQR. */
export async function decodeQr(page: Page, selector: string): Promise<string | undefined> {
  const png = await page.locator(selector).screenshot();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength), info.width, info.height)?.data;
}

/** First contentful paint of the current document, in milliseconds. */
export async function firstContentfulPaint(page: Page): Promise<number> {
  return page.evaluate<number>(`new Promise((resolve) => {
    const [entry] = performance.getEntriesByName('first-contentful-paint');
    if (entry) return resolve(entry.startTime);
    new PerformanceObserver((list) => {
      const [paint] = list.getEntriesByName('first-contentful-paint');
      if (paint) resolve(paint.startTime);
    }).observe({ type: 'paint', buffered: true });
  })`);
}
