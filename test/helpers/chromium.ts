// A real browser for the browser login: Debian's chromium, headless, driven by playwright-core (which
// never downloads a browser of its own), reached the way the plugin reaches any browser: $BROWSER
// names a small script that hands the URL to this driver. The driver then signs in on the identity
// provider's own pages (oidc-provider's login and consent), or denies, or does nothing at all.
import { chmodSync, mkdtempSync, rmSync, watch, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM } from './tools.js';

export { CHROMIUM };

export type Person = 'approve' | 'deny' | 'away';

export interface BrowserDriver {
  /** The $BROWSER the plugin is given: a script that writes the URL where the driver reads it. */
  script: string;
  /** What the person does with the next URL opened (approve by default). */
  next: (person: Person) => void;
  /** Every URL the plugin opened, in order. */
  opened: string[];
  /** Every callback URL the browser reached (code and state in it), and the page it showed. */
  callbacks: Array<{ url: string; page: string }>;
  /** Resolves when the browser has shown the page of the n-th callback (1-based). */
  callback: (n: number) => Promise<{ url: string; page: string }>;
  /** Resolves when the browser has shown the page of a callback whose URL `matches`. */
  callbackWhere: (matches: (url: URL) => boolean) => Promise<{ url: string; page: string }>;
  /** The person acts on `url` now (for a URL the driver was told to leave alone). */
  act: (url: string, person: Person) => Promise<void>;
  /** A page of the browser, for a hostile page of a test's own. */
  page: () => Promise<Page>;
  close: () => Promise<void>;
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export async function startBrowserDriver(): Promise<BrowserDriver> {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-browser-'));
  const inbox = join(dir, 'opened');
  writeFileSync(inbox, '');
  const script = join(dir, 'browser');
  // No shell reads the URL: it is written as the one argument it was given.
  writeFileSync(
    script,
    `#!/bin/sh\necho opener-stdout-noise\necho opener-stderr-noise >&2\nprintf '%s\\n' "$1" >> '${inbox}'\n`,
  );
  chmodSync(script, 0o755);
  process.env['PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD'] = '1';
  const context: BrowserContext = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM.path!,
    headless: true,
    args: ARGS,
    ignoreHTTPSErrors: true,
  });
  // Nothing leaves the machine: the identity provider's page asks for a web font.
  await context.route('**/*', (route) => {
    const host = new URL(route.request().url()).hostname;
    return ['localhost', '127.0.0.1', '[::1]'].includes(host) ? route.continue() : route.abort();
  });
  const people: Person[] = [];
  const opened: string[] = [];
  const callbacks: BrowserDriver['callbacks'] = [];
  const waiting: Array<() => void> = [];
  const wake = () => {
    for (const w of waiting.splice(0)) w();
  };
  const act = async (url: string, person: Person) => {
    if (person === 'away') return;
    // Each login is a person's first: no session at the identity provider from an earlier test.
    await context.clearCookies();
    const page = await context.newPage();
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return;
      const at = new URL(frame.url());
      if (at.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(at.hostname)) {
        void frame
          .content()
          .catch(() => '')
          .then((html) => {
            callbacks.push({ url: frame.url(), page: html });
            wake();
          });
      }
    });
    await page.goto(url);
    if (person === 'deny') {
      await page.click('a:has-text("Cancel")');
      return;
    }
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    await page.waitForSelector('button:has-text("Continue")');
    await page.click('button:has-text("Continue")');
  };
  let read = 0;
  const poll = () => {
    const lines = readFileSync(inbox, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    for (const url of lines.slice(read)) {
      opened.push(url);
      void act(url, people.shift() ?? 'approve').catch((error: unknown) => {
        callbacks.push({ url: 'error', page: String(error) });
        wake();
      });
    }
    read = lines.length;
  };
  const watcher = watch(inbox, poll);
  return {
    script,
    next: (person) => void people.push(person),
    opened,
    callbacks,
    callback: async (n) => {
      while (callbacks.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
      return callbacks[n - 1]!;
    },
    callbackWhere: async (matches) => {
      for (;;) {
        const found = callbacks.find(({ url }) => url !== 'error' && matches(new URL(url)));
        if (found) return found;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    act,
    page: () => context.newPage(),
    close: async () => {
      watcher.close();
      await context.close();
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
