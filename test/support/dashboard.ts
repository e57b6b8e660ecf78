import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { RESULTS_DIR, seriousViolations, type WatchedPage } from './browser.js';
import { latestCode, type MailCatcher } from './mail-catcher.js';

/** Helpers the dashboard's browser tests share (issue 25). */

/** axe, the page's own health (CSP, script errors), no foreign request, and a screenshot `dashboard-<name>.png`. */
export async function expectCleanScreen(watched: WatchedPage, name: string, screenshots: string[]): Promise<void> {
  await watched.page.waitForLoadState('networkidle');
  expect((await seriousViolations(watched.page)).join('\n'), name).toBe('');
  expect(watched.problems.join('\n'), name).toBe('');
  expect(watched.foreignRequests.join('\n'), name).toBe('');
  const file = `dashboard-${name}.png`;
  await watched.page.screenshot({ path: path.join(RESULTS_DIR, file), fullPage: true });
  screenshots.push(file);
}

/** The screen in light, then dark (the header's theme switch), each checked and photographed. */
export async function inBothThemes(watched: WatchedPage, name: string, screenshots: string[]): Promise<void> {
  const { page } = watched;
  for (const [label, theme] of [
    ['Light', 'light'],
    ['Dark', 'dark'],
  ] as const) {
    await page.getByRole('link', { name: label, exact: true }).click();
    await expect.poll(() => page.evaluate('document.documentElement.dataset.theme')).toBe(theme);
    await expectCleanScreen(watched, `${name}-${theme}`, screenshots);
  }
}

/** Follows the main navigation's links by their visible labels. */
export async function navigate(page: Page, ...labels: string[]): Promise<void> {
  const nav = page.getByRole('navigation', { name: 'Main' });
  for (const label of labels) await nav.getByRole('link', { name: label, exact: true }).click();
  await page.waitForLoadState('networkidle');
}

/** On the sign-in screen: asks for a code, reads it from the SMTP server, and signs in. */
export async function signInByEmail(page: Page, app: TestApp, catcher: MailCatcher, email: string): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('Code from the e-mail').waitFor();
  await app.jobs.drain();
  const code = latestCode(catcher, email);
  expect(code).toMatch(/^\d{6}$/);
  await page.getByLabel('Code from the e-mail').fill(code ?? '');
  await page.getByRole('button', { name: 'Sign in' }).click();
}
